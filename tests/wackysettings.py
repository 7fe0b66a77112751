"""A Scrapy crawler holding the project's WACKY_ settings (wackycrawl/settings.py) and
overrides, for building one pipeline or middleware in a test."""

from scrapy.settings import Settings
from scrapy.utils.test import get_crawler


def crawler(**overrides):
    settings = Settings()
    settings.setmodule("wackycrawl.settings", priority="project")
    wacky = {k: v for k, v in settings.copy_to_dict().items() if k.startswith("WACKY_")}
    return get_crawler(settings_dict={**wacky, **overrides})
