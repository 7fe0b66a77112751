"""Dedup stage: drop exact and near-duplicate documents (simhash, Hamming distance <= k).

A thin adapter over :class:`wackycrawl.dedup.detector.DuplicateDetector`. It reads
``item["paragraphs"]`` (joined by newlines), sets ``item["meta"]["Simhash"]`` and
``item["meta"]["Checksum"]`` (16 hex digits each) and drops with the reasons
``exact_duplicate`` and ``near_duplicate``. The log line names the stored checksum or
fingerprint matched: it is the ``X-Wacky-Checksum`` / ``X-Wacky-Simhash`` of a document
already written, so ``zgrep`` over the TREC files finds it (no URL map is kept: it would
cost more than the index itself).

With ``JOBDIR`` set, the state lives in ``<JOBDIR>/wacky-dedup/``: loaded on open, saved
every ``WACKY_DEDUP_SAVE_EVERY`` kept documents and on close.
"""

import logging
import os

from scrapy.exceptions import NotConfigured

from wackycrawl.dedup.detector import MIN_FEATURES, DuplicateDetector, K
from wackycrawl.dedup.simhash import to_hex
from wackycrawl.pipelines import drop

logger = logging.getLogger(__name__)

STATE_DIR = "wacky-dedup"
SAVE_EVERY = 1000  # kept documents between two saves of the state


class DedupPipeline:
    def __init__(self, stats, k: int, min_features: int, save_every: int, state_dir: str | None):
        self.stats = stats
        self.k = k
        self.min_features = min_features
        self.save_every = save_every
        self.state_dir = state_dir
        self.detector = DuplicateDetector(k, min_features)
        self._unsaved = 0

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        if not settings.getbool("WACKY_DEDUP_ENABLED", True):
            raise NotConfigured("WACKY_DEDUP_ENABLED is off")
        jobdir = settings.get("JOBDIR")
        return cls(
            crawler.stats,
            k=settings.getint("WACKY_SIMHASH_K", K),
            min_features=settings.getint("WACKY_SIMHASH_MIN_FEATURES", MIN_FEATURES),
            save_every=settings.getint("WACKY_DEDUP_SAVE_EVERY", SAVE_EVERY),
            state_dir=os.path.join(jobdir, STATE_DIR) if jobdir else None,
        )

    def open_spider(self):
        if not self.state_dir or not os.path.isdir(self.state_dir):
            return
        try:
            self.detector = DuplicateDetector.load(self.state_dir, self.k, self.min_features)
        except (OSError, ValueError, EOFError) as exc:
            logger.error("dedup state in %s unreadable, starting empty: %s", self.state_dir, exc)
            self.stats.inc_value("wacky/dedup/state_unreadable")
            return
        self.stats.set_value("wacky/dedup/loaded", len(self.detector))
        logger.info("dedup state loaded from %s: %d documents, %d simhashes",
                    self.state_dir, len(self.detector), len(self.detector.simhashes))

    def close_spider(self):
        self._save()

    def process_item(self, item):
        decision = self.detector.check("\n".join(item.get("paragraphs") or ()))
        meta = item.setdefault("meta", {})
        meta["Simhash"] = to_hex(decision.simhash)
        meta["Checksum"] = to_hex(decision.checksum)
        if decision.is_duplicate:
            detail = f"matches {to_hex(decision.match)} at distance {decision.distance}"
            logger.debug("%s %s: %s", decision.verdict, item.get("url"), detail)
            raise drop(self.stats, decision.verdict, item, detail)
        self.stats.inc_value(f"wacky/dedup/{decision.verdict}")
        self.detector.add(decision)
        self._unsaved += 1
        if self._unsaved >= self.save_every:
            self._save()
        return item

    def _save(self):
        if not self.state_dir or not self._unsaved:
            return
        try:
            self.detector.save(self.state_dir)
        except OSError as exc:
            logger.error("cannot save dedup state to %s: %s", self.state_dir, exc)
            self.stats.inc_value("wacky/dedup/save_failed")
            return
        self._unsaved = 0
        self.stats.inc_value("wacky/dedup/saves")
