"""Build shim for ``scrapyd-deploy``, which runs ``python setup.py bdist_egg``.

All package metadata lives in pyproject.toml (name, dependencies, package data, the
``scrapy.settings`` entry point Scrapyd needs). Without this file scrapyd-deploy writes its
own setup.py, whose entry point setuptools drops because pyproject.toml declares
``[project]``: the egg would then have no settings module and Scrapyd would refuse it.
"""

from setuptools import setup

setup()
