"""Scrapy commands of the project (``COMMANDS_MODULE``): ``crawl`` checks a JOBDIR first."""
