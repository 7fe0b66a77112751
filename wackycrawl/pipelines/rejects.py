"""The rejects stream: documents dropped by a quality stage, annotated instead of lost.

Baroni's open question "should we really be throwing near-duplicates away?" has no single
answer, so with ``WACKY_KEEP_REJECTS=True`` every item dropped for one of
``WACKY_REJECT_REASONS`` (too short, bad words, not prose, wrong language, exact and near
duplicate) is written, as it was when it was dropped, to gzip TREC files of the same format
as the corpus: ``<WACKY_REJECTS_DIR>/<prefix>-<worker>-rejects-<file#>.trec.gz`` (default
``<WACKY_OUTPUT_DIR>/rejects/``, so ``corpus/*.trec.gz`` never matches a reject and DOCNOs
never collide with kept ones). Each carries the scores the stages had set (its DOCHDR
``X-Wacky-*`` lines) plus ``X-Wacky-Rejected: <reason>`` and ``X-Wacky-Rejected-Detail``
(the drop's detail, its whitespace and ``%`` percent-encoded as in every value, which the
reader decodes; ``-`` if none). ``wackycrawl filter``
re-decides kept and rejected documents together with other thresholds.

An extension on Scrapy's ``item_dropped`` signal: the DropItem made by
:func:`wackycrawl.pipelines.drop` carries the reason, the detail and the item (sent back from
a stage worker process, :mod:`wackycrawl.pipelines.stages`). Stats: ``wacky/rejects/docs``,
``wacky/rejects/<reason>``, ``wacky/rejects/bytes_written``; an item that cannot be written is
logged and counted under ``wacky/rejects/bad_item`` or ``wacky/rejects/write_error`` (the crawl
goes on; the drop itself is already counted under ``wacky/drop/<reason>``).
"""

import logging
import os

from scrapy import signals
from scrapy.exceptions import NotConfigured

from wackycrawl.corpus.refilter import REJECTED, REJECTED_DETAIL, compact
from wackycrawl.pipelines import close_on_write_error, crawl_worker_id, rejection
from wackycrawl.pipelines.trec import item_to_doc
from wackycrawl.trec import writer

logger = logging.getLogger(__name__)

#: the quality stages' drop reasons (filters, language, dedup)
QUALITY_REASONS = ("too_short", "badwords", "not_prose", "wrong_language", "exact_duplicate",
                   "near_duplicate")
SUBDIR = "rejects"
STEM_SUFFIX = "-rejects"
WRITE_ERROR_REASON = "rejects_write_error"  # the crawl's finish reason when rejects fail


def reject_reasons(settings) -> frozenset[str]:
    """The drop reasons that go to the rejects stream: ``WACKY_REJECT_REASONS`` when
    ``WACKY_KEEP_REJECTS`` is on, else none."""
    if not settings.getbool("WACKY_KEEP_REJECTS", False):
        return frozenset()
    return frozenset(settings.getlist("WACKY_REJECT_REASONS", list(QUALITY_REASONS)))


class RejectsWriter:
    """Settings: ``WACKY_KEEP_REJECTS`` (off: NotConfigured), ``WACKY_REJECT_REASONS``,
    ``WACKY_REJECTS_DIR`` ("" = ``rejects/`` under ``WACKY_OUTPUT_DIR``), and the TREC
    writer's ``WACKY_DOCNO_PREFIX``, ``WACKY_TREC_ROTATE_BYTES``, ``WACKY_TREC_FSYNC``,
    ``WACKY_TREC_COMPRESSLEVEL``."""

    def __init__(self, crawler, reasons: frozenset[str], **options):
        self.crawler, self.stats, self.reasons, self.options = crawler, crawler.stats, reasons, \
            options
        self.writer: writer.TrecWriter | None = None
        self.stopping = False

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        reasons = reject_reasons(s)
        if not reasons:
            raise NotConfigured()
        directory = s.get("WACKY_REJECTS_DIR") or os.path.join(
            s.get("WACKY_OUTPUT_DIR") or writer.DIRECTORY, SUBDIR)
        ext = cls(crawler, reasons, directory=directory,
                  prefix=s.get("WACKY_DOCNO_PREFIX", writer.PREFIX),
                  worker=crawl_worker_id(crawler) + STEM_SUFFIX,
                  rotate_bytes=s.getint("WACKY_TREC_ROTATE_BYTES", writer.ROTATE_BYTES),
                  fsync=s.getbool("WACKY_TREC_FSYNC", writer.FSYNC),
                  compresslevel=s.getint("WACKY_TREC_COMPRESSLEVEL", writer.COMPRESSLEVEL))
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(ext.item_dropped, signal=signals.item_dropped)
        return ext

    def spider_opened(self) -> None:
        self.writer = writer.TrecWriter(**self.options)
        logger.info("writing rejects (%s) to %s*.trec.gz in %s", ", ".join(sorted(self.reasons)),
                    self.writer.stem, self.writer.directory)

    def item_dropped(self, item, exception) -> None:
        found = rejection(exception)
        if not found or found[0] not in self.reasons or self.writer is None:
            return
        reason, detail, state = found
        state = state if state is not None else item
        try:
            doc = item_to_doc(state)
        except (KeyError, TypeError, ValueError) as exc:
            logger.warning("reject %s not written: %r", state.get("url", "?"), exc)
            self.stats.inc_value("wacky/rejects/bad_item")
            return
        doc.meta[REJECTED] = reason
        doc.meta[REJECTED_DETAIL] = compact(detail)
        try:
            written = self.writer.write(doc)
        except OSError as exc:
            logger.error("cannot write reject %s to %s: %s", doc.url, self.writer.path, exc)
            self.stats.inc_value("wacky/rejects/write_error")
            self._stop(state.get("url") or doc.url, exc)
            return
        self.stats.inc_value("wacky/rejects/docs")
        self.stats.inc_value(f"wacky/rejects/{reason}")
        self.stats.inc_value("wacky/rejects/bytes_written", written.length)

    def _stop(self, url: str, exc: OSError) -> None:
        """A reject that cannot be written (a full disk): in a crawl, the frontier keeps its
        page (:data:`~wackycrawl.pipelines.PAGE_NOT_WRITTEN`: fetched and judged again on
        resume) and the crawl closes with reason ``rejects_write_error``, as for the TREC
        writer, instead of going on losing rejects."""
        close_on_write_error(self, url, WRITE_ERROR_REASON, logger,
                             f"rejects cannot be written to {self.writer.directory} ({exc}); "
                             "fix that and resume the crawl (its JOBDIR or Redis frontier keeps "
                             "their pages)")

    def spider_closed(self) -> None:
        if self.writer:
            self.writer.close()
