"""Write kept pages into gzip TREC compound files (adapter over :mod:`wackycrawl.trec.writer`).

Settings: ``WACKY_OUTPUT_DIR`` (empty turns the writer off), ``WACKY_TREC_ROTATE_BYTES``,
``WACKY_DOCNO_PREFIX``, ``WACKY_WORKER_ID``, ``WACKY_TREC_FSYNC``, ``WACKY_TREC_COMPRESSLEVEL``.
Stats: ``wacky/trec/docs``, ``wacky/trec/bytes_written`` (compressed), ``wacky/trec/files``,
``wacky/trec/recovered_files``, ``wacky/trec/recovered_docs``, ``wacky/trec/recovered_cut_bytes``,
``wacky/kept``, ``wacky/words_kept`` (whitespace tokens); drops ``wacky/drop/trec_bad_item``,
``wacky/drop/trec_bad_text`` (text or metadata with a control character or U+FFFD: the writer
refuses it, nothing is written) and ``wacky/drop/trec_write_error`` (the crawl then closes with
that reason, the page left in its frontier). Sets ``item["docno"]``
and ``item["words"]`` (the count added to ``wacky/words_kept``) and passes the item on
unchanged otherwise. In a Redis crawl no document is written while the process knows Redis is
out (:class:`wackycrawl.distributed.pipeline.WriteGate`: it waits for Redis, or is dropped as
``redis_unreachable`` when the outage closes the worker), and the TREC files a dead writer
left ``.open`` are reconciled with the crawl's written set as they are recovered
(:class:`wackycrawl.distributed.written.Reconciler`: a document another worker wrote again
is left out of the recovered file).

:class:`TrecPrepareStage` (a stage of ``WACKY_STAGES``) does the costly part of writing (format,
character check, deflate) in the stage worker; the writer uses its result when it still fits
(same compression level, the metadata only added to, the same paragraph list) and formats the
whole document itself otherwise.
"""

import logging
from http import HTTPStatus

from scrapy.exceptions import NotConfigured

from wackycrawl.pipelines import close_on_write_error, crawl_worker_id, drop
from wackycrawl.trec import writer
from wackycrawl.trec.format import TrecContentError, TrecDoc, format_body, format_head
from wackycrawl.trec.parts import Prepared, deflate_part

PREPARED = "trec_prepared"  # item key of the TrecPrepareStage's Prepared; the writer pops it
# Each ASCII character to " " if str.split splits at it, else to "x"
_ASCII_SPACE_OR_NOT = {c: " " if chr(c).isspace() else "x" for c in range(128)}

logger = logging.getLogger(__name__)


def status_line(protocol: str, status: int) -> str:
    """``HTTP/1.1 200 OK``: Scrapy keeps no reason phrase, so the standard one is used.
    Scrapy's HTTP/2 handler names its protocol ``h2`` (the ALPN id): written ``HTTP/2``."""
    protocol = "HTTP/2" if protocol == "h2" else protocol
    try:
        return f"{protocol} {status} {HTTPStatus(int(status)).phrase}"
    except ValueError:
        return f"{protocol} {status}"


def item_to_doc(item: dict) -> TrecDoc:
    """Build the document from the item keys of :mod:`wackycrawl.items`.

    Raises KeyError, TypeError or ValueError for an item lacking ``url`` or ``paragraphs``
    or with a non-numeric ``meta["Raw-Bytes"]``.
    """
    meta = {str(k): str(v) for k, v in item.get("meta", {}).items()}
    raw = meta.get("Raw-Bytes")
    status = item.get("status")
    return TrecDoc(
        url=item["url"], ip=item.get("ip") or "-", fetched=item.get("fetched") or "-",
        content_type=item.get("content_type") or "-",
        raw_length=int(raw) if raw is not None else None,
        status_line=status_line(item.get("protocol") or "HTTP/1.1", status) if status else "",
        headers=[(str(k), str(v)) for k, v in item.get("headers", [])],
        meta=meta, paragraphs=[str(p) for p in item["paragraphs"]],
    )


def prepare(doc: TrecDoc, level: int, paragraphs: list) -> Prepared:
    """Format and deflate ``doc`` but its DOCNO lines (see :mod:`wackycrawl.trec.parts`) at
    zlib ``level`` (0-9): a :class:`~wackycrawl.trec.parts.Prepared` whose ``head`` holds the
    DOCHDR and the metadata of ``doc.meta`` as it is now, ``body`` the paragraphs.
    ``paragraphs`` is the item's own list, kept by identity so the writer can tell it was not
    replaced since. A forbidden character is recorded in its part (``Part.bad``), not raised:
    the writer refuses the document."""
    meta = tuple(doc.meta.items())
    head = format_head(doc.url, doc.ip, doc.fetched, doc.content_type, doc.raw_length,
                       doc.status_line, doc.headers, meta)
    body = deflate_part(format_body(doc.paragraphs), level, last=True)
    return Prepared(deflate_part(head, level), body, meta, level, paragraphs, words(doc))


def words(doc: TrecDoc) -> int:
    """Whitespace-separated tokens of the text (``wacky/words_kept``), as ``str.split`` finds
    them in each paragraph."""
    text = " ".join(doc.paragraphs)
    if text.isascii():  # a token starts at each non-space after a space: counted, not built
        return (" " + text).translate(_ASCII_SPACE_OR_NOT).count(" x")
    return len(text.split())


class TrecPrepareStage:
    """Stage (last of ``WACKY_STAGES``, so it runs in the stage worker): formats, checks and
    compresses the document as far as it is known (:func:`prepare`) into ``item["trec_prepared"]``,
    so the writer here only adds the DOCNO and the dedup metadata. It never drops: a bad item
    or bad text is left to the writer, which drops it as before. Off (NotConfigured) when
    ``WACKY_OUTPUT_DIR`` is empty; compresses at ``WACKY_TREC_COMPRESSLEVEL``."""

    def __init__(self, level: int):
        self.level = level

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        if not s.get("WACKY_OUTPUT_DIR", writer.DIRECTORY):
            raise NotConfigured("WACKY_OUTPUT_DIR is empty")
        return cls(s.getint("WACKY_TREC_COMPRESSLEVEL", writer.COMPRESSLEVEL))

    def process_item(self, item: dict) -> dict:
        item.pop(PREPARED, None)
        try:
            doc = item_to_doc(item)
        except (KeyError, TypeError, ValueError):
            return item  # the writer drops it (trec_bad_item)
        item[PREPARED] = prepare(doc, self.level, item["paragraphs"])
        return item


class TrecWriterPipeline:
    def __init__(self, crawler, **options):
        self.crawler, self.stats, self.options = crawler, crawler.stats, options
        self.writer: writer.TrecWriter | None = None
        self.stopping = False
        self.gate = None  # a Redis crawl's WriteGate
        self.reconciler = None  # a Redis crawl's Reconciler

    @classmethod
    def from_crawler(cls, crawler):
        pipe = cls._from_settings(crawler)
        from wackycrawl.distributed.scheduler import connect, crawl_name, frontier_mode

        if frontier_mode(crawler.settings) == "redis":
            from wackycrawl.distributed.keys import CrawlKeys
            from wackycrawl.distributed.pipeline import WriteGate
            from wackycrawl.distributed.written import Reconciler

            server = connect(crawler.settings)
            pipe.gate = WriteGate(crawler, server)
            keys = CrawlKeys(crawl_name(crawler.settings, crawler.spidercls.name))
            pipe.reconciler = Reconciler(server, keys, crawler.stats)
        return pipe

    @classmethod
    def _from_settings(cls, crawler):
        s = crawler.settings
        directory = s.get("WACKY_OUTPUT_DIR", writer.DIRECTORY)
        if not directory:
            raise NotConfigured()
        return cls(
            crawler, directory=directory, prefix=s.get("WACKY_DOCNO_PREFIX", writer.PREFIX),
            worker=crawl_worker_id(crawler),
            rotate_bytes=s.getint("WACKY_TREC_ROTATE_BYTES", writer.ROTATE_BYTES),
            fsync=s.getbool("WACKY_TREC_FSYNC", writer.FSYNC),
            compresslevel=s.getint("WACKY_TREC_COMPRESSLEVEL", writer.COMPRESSLEVEL),
        )

    def open_spider(self) -> None:
        self.writer = writer.TrecWriter(**self.options, reconcile=self.reconciler)
        if self.reconciler is not None:
            self.reconciler.finish()
        for rec in self.writer.recovered:
            self.stats.inc_value("wacky/trec/recovered_files")
            self.stats.inc_value("wacky/trec/recovered_docs", rec.docs)
            self.stats.inc_value("wacky/trec/recovered_cut_bytes", rec.cut_bytes)
        logger.info("writing TREC files %s*.trec.gz in %s", self.writer.stem,
                    self.writer.directory)

    def process_item(self, item: dict) -> dict:
        if self.gate is not None and self.gate.closed():
            self.gate.wait(item)  # until Redis answers; raises the drop if it does not
        prepared = item.pop(PREPARED, None)
        if prepared is not None and prepared.paragraphs is not item.get("paragraphs"):
            prepared = None  # a later pipeline replaced the text
        try:
            doc = item_to_doc(item)
        except (KeyError, TypeError, ValueError) as exc:
            raise drop(self.stats, "trec_bad_item", item, repr(exc)) from None
        try:
            written = self.writer.write(doc, prepared)
        except TrecContentError as exc:
            raise drop(self.stats, "trec_bad_text", item, str(exc)) from None
        except OSError as exc:
            logger.error("cannot write %s to %s: %s", item["url"], self.writer.path, exc)
            self._stop(item["url"], exc)
            raise drop(self.stats, "trec_write_error", item, str(exc)) from None
        item["docno"] = written.docno
        item["words"] = words(doc) if prepared is None else prepared.words
        self.stats.inc_value("wacky/trec/docs")
        self.stats.inc_value("wacky/trec/bytes_written", written.length)
        if written.offset == 0:
            self.stats.inc_value("wacky/trec/files")
        self.stats.inc_value("wacky/kept")
        self.stats.inc_value("wacky/words_kept", item["words"])
        return item

    def _stop(self, url: str, exc: OSError) -> None:
        """A document that cannot be written (a full disk, a file-name limit): the frontier
        keeps its page (:data:`~wackycrawl.pipelines.PAGE_NOT_WRITTEN`) and the crawl closes
        with reason ``trec_write_error``, instead of fetching pages whose documents would all
        be lost; resumed (JOBDIR or Redis) once the cause is fixed, it fetches them again."""
        close_on_write_error(self, url, "trec_write_error", logger,
                             f"documents cannot be written to {self.writer.directory} ({exc}); "
                             "fix that and resume the crawl (its JOBDIR or Redis frontier keeps "
                             "the pages not written)")

    def close_spider(self) -> None:
        if self.writer:
            self.writer.close()
