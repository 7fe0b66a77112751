"""The page item passed from the ``seeds`` spider through the item pipelines.

Items are plain dicts. Keys, in the order the stages add them:

spider (``wackycrawl.spiders.seeds``)
    ``url`` str, final URL after redirects; ``ip`` str, server address or ``"-"``;
    ``fetched`` str, UTC ``YYYYMMDDhhmmss``; ``status`` int; ``protocol`` str
    (``"HTTP/1.1"``); ``headers`` list[tuple[str, str]], response headers in order;
    ``content_type`` str (``"-"`` if absent); ``body`` bytes, the body after
    Content-Encoding was removed; ``meta`` dict[str, str], becomes the ``X-Wacky-<Key>: value``
    lines of the DOCHDR (``Raw-Bytes``, ``Depth`` are set here, and ``Seed-Query`` when the
    page was reached from a search-engine result page).
text stage
    ``html`` str (decoded), ``meta["Encoding"]``, ``meta["Encoding-Evidence"]``; ``body`` is
    deleted afterwards.
boilerplate stage
    ``paragraphs`` list[str] of clean text, one paragraph each; ``meta["Extractor"]``,
    ``meta["Clean-Chars"]``, ``meta["Boilerplate-Share"]`` and, with host templates on,
    ``meta["Template-Blocks"]``; ``html`` is deleted afterwards.
language stage
    ``language`` str (ISO 639-1, ``nb`` for Bokmål, or ``und``); ``meta["Language"]``,
    ``meta["Language-Score"]``, ``meta["Language-Method"]``, ``meta["Language-Top2"]``,
    ``meta["Language-Mix"]``, ``meta["Language-Foreign"]``, ``meta["Funcword-Share"]``,
    ``meta["Funcword-Types"]``, ``meta["Funcword-Tokens"]``.
fingerprint stage (``wackycrawl.pipelines.dedup.FingerprintPipeline``)
    ``meta["Simhash"]`` (16 hex digits), ``meta["Checksum"]`` (16 hex digits),
    ``simhash_features`` int (feature words counted), ``shingle_sketch`` str (hex digits of
    the word-shingle sketch), ``shingle_hashes`` bytes (the text's sorted shingle hashes,
    native uint64); the dedup stage reads them and deletes ``shingle_hashes``.
dedup stage (``wackycrawl.pipelines.dedup.DedupPipeline``), on kept and dropped items
    ``meta["Near-Distance"]`` (Hamming distance to the nearest indexed document within
    ``WACKY_SIMHASH_K``), ``meta["Near-Resemblance"]`` (its shingle resemblance, 2 decimals),
    ``meta["Near-Of"]`` (its checksum, 16 hex digits); each ``-`` if there is none.
TREC writer
    ``docno`` str; ``words`` int, whitespace-separated tokens of the text written.
rejects stream (``wackycrawl.pipelines.rejects``, with ``WACKY_KEEP_REJECTS``)
    an item dropped by a quality stage is written as it was when dropped, its ``meta`` plus
    ``Rejected`` (the drop reason) and ``Rejected-Detail`` (the detail; the writer
    percent-encodes its whitespace and ``%``).
"""
