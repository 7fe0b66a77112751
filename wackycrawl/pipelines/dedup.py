"""Dedup stages: fingerprint each clean text, then drop exact and near duplicates.

Two adapters over :mod:`wackycrawl.dedup.detector`, split so that the costly, stateless part
can run in a worker process (:mod:`wackycrawl.pipelines.stages`):

* :class:`FingerprintPipeline` (a stage of ``WACKY_STAGES``) reads ``item["paragraphs"]``
  (joined by newlines) and sets ``item["meta"]["Checksum"]``, ``item["meta"]["Simhash"]``
  (16 hex digits each), ``item["simhash_features"]`` (int, feature words counted),
  ``item["shingle_sketch"]`` (str, hex digits of the word-shingle sketch,
  :mod:`wackycrawl.dedup.shingles`) and ``item["shingle_hashes"]`` (bytes: the text's
  sorted shingle hashes, native uint64, 8 bytes per distinct shingle).
* :class:`DedupPipeline` (in ``ITEM_PIPELINES``, in the crawl's own process) looks those up
  in the index of kept documents (computing them itself for an item that lacks them),
  confirms simhash candidates by shingle resemblance (with the shingle hashes the item
  brings: the crawl process does not tokenise the text again; the key is deleted), and
  drops with the reasons
  ``exact_duplicate`` and ``near_duplicate``. Kept and dropped items carry
  ``meta["Near-Distance"]`` (Hamming distance to the nearest indexed document within
  ``WACKY_SIMHASH_K``, ``-`` if none), ``meta["Near-Resemblance"]`` (its shingle
  resemblance, 2 decimals, ``-`` if none) and ``meta["Near-Of"]`` (its ``X-Wacky-Checksum``,
  16 hex digits, ``-`` if none), so ``zgrep`` over the TREC files finds the document matched
  (no URL map is kept: it would cost more than the index itself).

With ``JOBDIR`` set, the state lives in ``<JOBDIR>/wacky-dedup/``: loaded on open, saved
every ``WACKY_DEDUP_SAVE_EVERY`` kept documents and on close. In a distributed crawl
(``REDIS_URL``) the index is the crawl's, in Redis, shared by every worker
(:mod:`wackycrawl.distributed.simhash`: check and add in one atomic step; a match owned by the
same URL, its own copy from before a worker died, is kept: ``wacky/dedup/refetched``); the same
script looks the URL up in the crawl's written set first (drop ``already_written``,
:mod:`wackycrawl.distributed.pipeline`). There the check is made by
:class:`SharedDedupStage`, a stage of ``WACKY_STAGES`` that is on only in a stage worker
process (:mod:`wackycrawl.pipelines.stages`): the worker waits for Redis and confirms the
candidates, the crawl process does neither (about 1 ms of its CPU per document,
``benchmarks/crawl.py --frontier redis``), and :class:`DedupPipeline` passes the items it
decided on. With the stages in the crawl process (``WACKY_STAGE_WORKERS=0``)
:meth:`DedupPipeline.process_item` makes the check itself and returns a coroutine: the crawl
goes on while Redis answers.
"""

import asyncio
import logging
import os
import shlex

import numpy as np
import redis
from scrapy.exceptions import NotConfigured

from wackycrawl.dedup.detector import (
    MIN_FEATURES,
    DuplicateDetector,
    Fingerprint,
    K,
    fingerprint_shingles,
    near_meta,
)
from wackycrawl.dedup.index import MAX_CANDIDATES, MAX_K, load_loops
from wackycrawl.dedup.shingles import (RESEMBLANCE, SHINGLE_SIZE, SKETCH_SIZE, shingle_hashes,
                                       sketch)
from wackycrawl.crawl.worker import crawl_worker_id
from wackycrawl.dedup.simhash import to_hex
from wackycrawl.distributed.connection import async_from_settings
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.pipeline import dedup_checks_written
from wackycrawl.distributed.scheduler import connect, crawl_name, frontier_mode
from wackycrawl.distributed.simhash import RedisDedupIndex
from wackycrawl.distributed.written import writer_name
from wackycrawl.pipelines import PAGE_NOT_WRITTEN, SPIDER_NAME, drop
from wackycrawl.text.funcwords import function_words
from wackycrawl.trec.writer import DIRECTORY, PREFIX

logger = logging.getLogger(__name__)

STATE_DIR = "wacky-dedup"
SAVE_EVERY = 1000  # kept documents between two saves of the state
FEATURES_KEY = "simhash_features"
SKETCH_KEY = "shingle_sketch"
SHINGLES_KEY = "shingle_hashes"
#: Set (True) by :class:`SharedDedupStage` on an item it kept; :class:`DedupPipeline` deletes it
#: and passes the item.
DECIDED_KEY = "dedup_decided"


def shingle_settings(settings) -> dict:
    """``shingle_size`` and ``sketch_size`` from ``WACKY_SHINGLE_SIZE`` and
    ``WACKY_SHINGLE_SKETCH_SIZE`` (the fingerprint stage and the dedup stage must agree);
    ValueError for a size out of range (shingles 1..10 words, sketch >= 1)."""
    size = settings.getint("WACKY_SHINGLE_SIZE", SHINGLE_SIZE)
    m = settings.getint("WACKY_SHINGLE_SKETCH_SIZE", SKETCH_SIZE)
    try:  # refused when the stage is built, not at every document
        sketch(shingle_hashes("", size), m)
    except ValueError as exc:
        raise ValueError(f"WACKY_SHINGLE_SIZE / WACKY_SHINGLE_SKETCH_SIZE: {exc}") from None
    return {"shingle_size": size, "sketch_size": m}


def near_settings(settings) -> dict:
    """``k`` (``WACKY_SIMHASH_K``), ``min_features`` (``WACKY_SIMHASH_MIN_FEATURES``),
    ``threshold`` (``WACKY_NEAR_RESEMBLANCE``) and :func:`shingle_settings`; ValueError
    naming the setting for a ``k`` outside ``0..MAX_K`` or a threshold outside 0..1."""
    k = settings.getint("WACKY_SIMHASH_K", K)
    if not 0 <= k <= MAX_K:
        raise ValueError(f"WACKY_SIMHASH_K={k}: must be in 0..{MAX_K}")
    threshold = settings.getfloat("WACKY_NEAR_RESEMBLANCE", RESEMBLANCE)
    if not 0 <= threshold <= 1:
        raise ValueError(f"WACKY_NEAR_RESEMBLANCE={threshold}: must be in 0..1")
    return {"k": k, "min_features": settings.getint("WACKY_SIMHASH_MIN_FEATURES", MIN_FEATURES),
            "threshold": threshold, **shingle_settings(settings)}


def _text(item: dict) -> str:
    return "\n".join(item.get("paragraphs") or ())


def set_fingerprint(item: dict, fp: Fingerprint) -> None:
    """Store ``fp`` on ``item`` (the keys described in the module docstring)."""
    meta = item.setdefault("meta", {})
    meta["Simhash"] = to_hex(fp.simhash)
    meta["Checksum"] = to_hex(fp.checksum)
    item[FEATURES_KEY] = fp.n_features
    item[SKETCH_KEY] = fp.sketch.hex()




def get_fingerprint(item: dict) -> Fingerprint | None:
    """The :class:`Fingerprint` stored by :func:`set_fingerprint`, or None if ``item`` has
    none or a malformed one (not hex, or outside 64 bits)."""
    try:
        meta = item["meta"]
        fp = Fingerprint(int(meta["Checksum"], 16), int(meta["Simhash"], 16),
                         int(item[FEATURES_KEY]), bytes.fromhex(item[SKETCH_KEY]))
    except (KeyError, TypeError, ValueError):
        return None
    return fp if 0 <= fp.checksum < 1 << 64 and 0 <= fp.simhash < 1 << 64 else None


class FingerprintPipeline:
    """Stateless: checksum, simhash and feature count of the clean text, function words of
    every shipped list left out (as :class:`DuplicateDetector` does). Off with
    ``WACKY_DEDUP_ENABLED=False``."""

    def __init__(self, stopwords: frozenset[str], shingle_size: int = SHINGLE_SIZE,
                 sketch_size: int = SKETCH_SIZE):
        self.stopwords, self.shingle_size, self.sketch_size = stopwords, shingle_size, sketch_size

    @classmethod
    def from_crawler(cls, crawler):
        if not crawler.settings.getbool("WACKY_DEDUP_ENABLED", True):
            raise NotConfigured()
        return cls(function_words(), **shingle_settings(crawler.settings))

    def process_item(self, item):
        fp, hashes = fingerprint_shingles(_text(item), self.stopwords, self.shingle_size,
                                          self.sketch_size)
        set_fingerprint(item, fp)
        item[SHINGLES_KEY] = hashes.tobytes()
        return item


def _shingle_source(item: dict, text: str):
    """What :func:`~wackycrawl.dedup.detector.confirm` compares: the fingerprint stage's
    shingle hashes of ``text`` (native uint64, 8 bytes each; the key is deleted), or the text
    when they are missing or malformed. A caller that recomputes the fingerprint deletes the
    key first."""
    shingles = item.pop(SHINGLES_KEY, None)
    if isinstance(shingles, bytes) and len(shingles) % 8 == 0:
        return np.frombuffer(shingles, dtype=np.uint64)
    return text


def corpus_dir(settings) -> str:
    """The crawl's WACKY_OUTPUT_DIR as an absolute path (the folder a duplicate's match is
    in, named in the drop's hint), or "" when the writer is off."""
    output = settings.get("WACKY_OUTPUT_DIR", DIRECTORY)
    return os.path.abspath(output) if output else ""


def get_hint(checksum: str, corpus: str = "") -> str:
    """The command that prints the document of ``checksum`` from the folder ``corpus``
    (from any working directory: ``corpus`` is absolute)."""
    where = f" --dir {shlex.quote(corpus)}" if corpus else ""
    return f"wackycrawl trec get --checksum {checksum}{where}"


def apply_decision(stats, item: dict, decision, corpus: str = ""):
    """Put ``decision``'s ``Near-*`` fields on ``item`` and count its verdict
    (``wacky/dedup/<verdict>``, ``wacky/dedup/candidate_not_confirmed``); returns ``item``,
    or raises the DropItem of a duplicate (reason: the verdict), whose detail ends in the
    command printing the document matched, in the corpus folder ``corpus``
    (:func:`get_hint`)."""
    item.setdefault("meta", {}).update(near_meta(decision))
    if decision.is_duplicate:
        detail = (f"matches {to_hex(decision.near_of)} at distance {decision.distance}, "
                  f"resemblance {decision.resemblance:.2f} "
                  f"({get_hint(to_hex(decision.near_of), corpus)})")
        logger.debug("%s %s: %s", decision.verdict, item.get("url"), detail)
        raise drop(stats, decision.verdict, item, detail)
    if decision.verdict == "new" and decision.distance is not None:
        stats.inc_value("wacky/dedup/candidate_not_confirmed")
    stats.inc_value(f"wacky/dedup/{decision.verdict}")
    return item


def shared_index(settings, spider_name: str = SPIDER_NAME, aserver: bool = True,
                 worker: str | None = None) -> RedisDedupIndex:
    """The crawl's shared index in Redis (:mod:`wackycrawl.distributed.simhash`), with the
    thresholds of :func:`near_settings` (crawl name: ``WACKY_CRAWL_NAME``, else
    ``spider_name``); ``aserver``: with an asyncio client too. The write intents go to the
    SET of the TREC writer of ``worker`` (else ``WACKY_WORKER_ID``; neither: none are kept)."""
    near = near_settings(settings)
    keys = CrawlKeys(crawl_name(settings, spider_name))
    worker = worker or settings.get("WACKY_WORKER_ID")
    pending = (keys.pending(writer_name(settings.get("WACKY_DOCNO_PREFIX", PREFIX), worker))
               if worker else None)
    return RedisDedupIndex(connect(settings), keys, near["k"], near["min_features"],
                           near["threshold"], near["shingle_size"],
                           keys.written if dedup_checks_written(settings) else None,
                           async_from_settings(settings) if aserver else None, pending)


class SharedDedupStage:
    """Stage (in ``WACKY_STAGES``, after :class:`FingerprintPipeline`): the shared index's
    check and add, made in a stage worker process of a distributed crawl (``REDIS_URL``) with
    the blocking client, whose retry waits out a Redis outage up to
    ``WACKY_REDIS_OUTAGE_SECONDS`` (then the drop ``redis_unreachable``: the page is not
    written, and its lease, never acknowledged, brings it back). Drops and counts as
    :class:`DedupPipeline` does; a kept item is marked (:data:`DECIDED_KEY`) for it.
    NotConfigured (left to :class:`DedupPipeline`) without Redis, with
    ``WACKY_DEDUP_ENABLED=False`` or in the crawl process."""

    def __init__(self, stats, index: RedisDedupIndex, corpus: str = ""):
        self.stats, self.index, self.corpus = stats, index, corpus
        self._sketch_bytes = len(DuplicateDetector(index.k, index.min_features).fingerprint("")
                                 .sketch)

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        if not settings.getbool("WACKY_DEDUP_ENABLED", True):
            raise NotConfigured()
        if frontier_mode(settings) != "redis" or not getattr(crawler, "in_worker", False):
            raise NotConfigured("the shared index is checked here only in a stage worker")
        return cls(crawler.stats, shared_index(settings, aserver=False), corpus_dir(settings))

    def warm_up(self):
        load_loops()  # the confirmation's compiled loop, before the first document

    def process_item(self, item):
        text = _text(item)
        fp = get_fingerprint(item)
        if fp is None or len(fp.sketch) != self._sketch_bytes:
            item.pop(SHINGLES_KEY, None)
            return item  # no usable fingerprint: the crawl process's DedupPipeline computes it
        source = _shingle_source(item, text)
        try:
            decision = self.index.check_and_add(fp, item.get("url", ""), source)
        except redis.RedisError as exc:  # an outage past its limit, or a shutdown in one
            raise drop(self.stats, "redis_unreachable", item, str(exc)) from None
        if decision.verdict == "already_written":
            raise drop(self.stats, "already_written", item)
        item = apply_decision(self.stats, item, decision, self.corpus)
        item[DECIDED_KEY] = True
        return item


class DedupPipeline:
    def __init__(self, stats, k: int, min_features: int, save_every: int, state_dir: str | None,
                 shared: RedisDedupIndex | None = None, corpus: str = "", **near):
        """``near``: the other :class:`DuplicateDetector` arguments (threshold,
        shingle_size, sketch_size, max_candidates); ``corpus``: the absolute output folder
        named in a duplicate's drop hint (:func:`corpus_dir`)."""
        self.stats = stats
        self.corpus = corpus
        self.k = k
        self.min_features = min_features
        self.save_every = save_every
        self.state_dir = state_dir
        self.near = near
        self.detector = DuplicateDetector(k, min_features, **near)
        self.shared = shared
        self._shared_lock = asyncio.Lock()
        self._unsaved = 0
        self._save_at = save_every  # unsaved documents at the next save (later after a failure)
        self._frozen = False  # a document it holds was not written: never saved again
        self._sketch_bytes = len(self.detector.fingerprint("").sketch)

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        if not settings.getbool("WACKY_DEDUP_ENABLED", True):
            raise NotConfigured()
        jobdir = settings.get("JOBDIR")
        near = near_settings(settings)
        k, min_features = near.pop("k"), near.pop("min_features")
        shared = None
        if frontier_mode(settings) == "redis":
            shared = shared_index(settings, crawler.spidercls.name,
                                  worker=crawl_worker_id(crawler))
            jobdir = None
        near["max_candidates"] = settings.getint("WACKY_SIMHASH_MAX_CANDIDATES", MAX_CANDIDATES)
        pipe = cls(
            crawler.stats,
            k=k,
            min_features=min_features,
            save_every=settings.getint("WACKY_DEDUP_SAVE_EVERY", SAVE_EVERY),
            state_dir=os.path.join(jobdir, STATE_DIR) if jobdir else None,
            shared=shared,
            corpus=corpus_dir(settings),
            **near,
        )
        crawler.signals.connect(pipe.page_not_written, signal=PAGE_NOT_WRITTEN)
        return pipe

    def page_not_written(self, url: str) -> None:
        """A document this index holds was not written (the crawl then closes): the state is
        not saved again in this run, so a resume rebuilds it from the last save and the TREC
        files written since, without the page it fetches again."""
        if self.state_dir and not self._frozen:
            logger.warning("dedup state not saved again in this run: %s was not written", url)
        self._frozen = True

    def open_spider(self):
        self._load()
        # the compiled loops (the local index's lookups, the confirmation of candidates in both
        # modes) load now, about 0.3 s of CPU (1-2 s on a slow machine), not at the first page
        # checked, which would stall the crawl for as long
        load_loops()

    def _load(self):
        if not self.state_dir or not os.path.isdir(self.state_dir):
            return
        try:
            self.detector = DuplicateDetector.load(self.state_dir, self.k, self.min_features,
                                                   **self.near)
        except (OSError, ValueError, EOFError) as exc:
            logger.error("dedup state in %s unreadable, starting empty: %s", self.state_dir, exc)
            self.stats.inc_value("wacky/dedup/state_unreadable")
            return
        self.stats.set_value("wacky/dedup/loaded", len(self.detector))
        if self.detector.cut_on_load:
            logger.warning("dedup state in %s was cut in a save (a kill?): %d entries of the "
                           "documents after the save before left out", self.state_dir,
                           self.detector.cut_on_load)
            self.stats.set_value("wacky/dedup/state_cut", self.detector.cut_on_load)
        logger.info("dedup state loaded from %s: %d documents, %d simhashes",
                    self.state_dir, len(self.detector), len(self.detector.simhashes))

    def close_spider(self):
        self._save()
        if self.shared is not None:
            return self.shared.aserver.aclose()

    def process_item(self, item):
        if item.pop(DECIDED_KEY, False):  # SharedDedupStage kept it, in a stage worker
            return item
        text = _text(item)
        fp = get_fingerprint(item)
        if fp is None or len(fp.sketch) != self._sketch_bytes:
            item.pop(SHINGLES_KEY, None)
            fp = self.detector.fingerprint(text)
            set_fingerprint(item, fp)
        source = _shingle_source(item, text)
        if self.shared is not None:
            return self._shared_check(item, fp, source)
        capped = self.detector.simhashes.capped
        decision = self.detector.check(fp, source)
        if self.detector.simhashes.capped > capped:
            self.stats.inc_value("wacky/dedup/capped")
        return self._decided(item, decision)

    async def _shared_check(self, item, fp, source):
        """The shared index's decision, through its asyncio client (the reactor runs while
        Redis answers); one check at a time, so the second call of a check stores at once."""
        async with self._shared_lock:
            try:
                decision = await self.shared.check_and_add_async(fp, item.get("url", ""),
                                                                 source)
            except redis.RedisError as exc:  # an outage past its limit, or a shutdown in one
                # not written: the page's lease is not acknowledged, so it is fetched again
                raise drop(self.stats, "redis_unreachable", item, str(exc)) from None
        if decision.verdict == "already_written":  # the written SET, looked up with the index
            raise drop(self.stats, "already_written", item)
        return self._decided(item, decision)

    def _decided(self, item, decision):
        item = apply_decision(self.stats, item, decision, self.corpus)
        if self.shared is None:
            self.detector.add(decision)
        self._unsaved += 1
        if self._unsaved >= self._save_at:
            self._save()
        return item

    def _save(self):
        if not self.state_dir or not self._unsaved or self._frozen:
            return
        try:
            self.detector.save(self.state_dir)
        except OSError as exc:
            logger.error("cannot save dedup state to %s: %s", self.state_dir, exc)
            self.stats.inc_value("wacky/dedup/save_failed")
            self._save_at = self._unsaved + self.save_every  # not again at every document
            return
        self._unsaved, self._save_at = 0, self.save_every
        self.stats.inc_value("wacky/dedup/saves")
