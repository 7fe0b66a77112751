"""The raw archive: WARC/1.1 files of what the crawl downloaded, and reading WARC/ARC back.

:mod:`wackycrawl.archive.writer` writes rotating ``.warc.gz`` files through warcio (one gzip
member per record, crash-safe like the TREC writer); :mod:`wackycrawl.archive.reader` turns
the ``response`` records of any WARC or ARC file (ours, Common Crawl's, ``wget
--warc-file``'s, Heritrix's ARC) into the page items the pipeline stages read. No Scrapy here.
"""
