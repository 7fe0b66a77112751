"""BootCaT-style seeding: random word tuples, search-query URLs, result-page parsers.

Pure modules (no Scrapy): :mod:`.tuples` (mid-frequency word tuples), :mod:`.engines`
(query URL templates per search engine), :mod:`.serp` (result URLs, one seed per registered
domain). The ``seeds`` spider and the ``wackycrawl tuples`` / ``queries`` commands use them.
"""
