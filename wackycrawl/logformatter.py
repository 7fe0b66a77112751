"""Log lines for items without the item: a page item carries its whole HTML or text.

Scrapy's default formatter prints the full item with every drop (at WARNING) and every
scraped item (at DEBUG). Here a drop is one INFO line, ``Dropped: <reason>: <url> (detail)``
(the message built by ``wackycrawl.pipelines.drop``), and a scraped item is its URL and DOCNO.
"""

import logging

from scrapy import logformatter


class WackyLogFormatter(logformatter.LogFormatter):
    def dropped(self, item, exception, response, spider):
        return {"level": logging.INFO, "msg": "Dropped: %(exception)s",
                "args": {"exception": exception}}

    def scraped(self, item, response, spider):
        return {"level": logging.DEBUG, "msg": "Kept %(url)s as %(docno)s",
                "args": {"url": item.get("url", "?"), "docno": item.get("docno", "-")}}
