"""wackycrawl: WaCky-style linguistic web corpora with Scrapy (Baroni et al. 2009)."""

__version__ = "0.1.0"
