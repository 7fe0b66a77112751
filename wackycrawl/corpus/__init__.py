"""Corpus work after the crawl, no Scrapy: reading a corpus (kept and rejected documents),
re-filtering it with other thresholds (:mod:`.refilter`), tokenising it (:mod:`.tokens`),
exporting it as vertical, plain text or JSON lines (:mod:`.export`) and describing it
(:mod:`.stats`, :mod:`.report`)."""
