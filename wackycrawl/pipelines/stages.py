"""Stage runner: the stateless item stages, in this process or in worker processes.

Scrapy's process is CPU-bound on one core (parsing, link extraction, scheduling), so the
stateless stages named in ``WACKY_STAGES`` (text, boilerplate, filters, language,
fingerprint: a few ms of CPU per page) run in ``WACKY_STAGE_WORKERS`` worker processes of a
:class:`concurrent.futures.ProcessPoolExecutor` (spawn context) and use the second core;
with 0 they run here, one after the other, as plain pipelines would. The stateful stages
(dedup index, TREC writer) stay in ``ITEM_PIPELINES`` after this one.

A stage is a class with ``from_crawler(crawler)`` and ``process_item(item)`` (raising
``DropItem``, or ``NotConfigured`` to be left out). Its ``crawler`` is a
:class:`StageContext`: only ``settings`` and ``stats`` (``inc_value``, ``set_value``,
``max_value``, ``min_value``, ``get_value``), in both modes. The stages are always built
here too, so a bad setting stops the crawl at start-up in both modes.

In a worker, each stage's stats calls and log records (at ``LOG_LEVEL`` and above) are
recorded per item and replayed here, in order: counters, drop reasons and log lines are the
same as in-process. Workers ignore SIGINT and SIGTERM, so a graceful stop (Ctrl-C, Scrapyd
cancel) lets the items in flight finish; they exit when this process dies (even by kill -9).
A worker that dies (killed, out of memory) is logged at ERROR; its items in flight are
dropped as ``stage_worker_died`` and a new pool is started (``wacky/stages/pool_restarts``).
"""

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import traceback
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from scrapy.exceptions import DropItem, NotConfigured
from scrapy.settings import Settings
from scrapy.utils.misc import load_object

from wackycrawl.pipelines import drop

logger = logging.getLogger(__name__)


def default_workers() -> int:
    """``WACKY_STAGE_WORKERS`` when unset: 1 worker if the machine has a second core
    (``os.cpu_count() >= 2``), else 0 (a worker would only compete with Scrapy)."""
    return 1 if (os.cpu_count() or 1) >= 2 else 0


class StageError(RuntimeError):
    """A stage raised something other than DropItem in a worker; the message holds the
    worker's traceback."""


class StatsRecorder:
    """Stats collector of a worker: keeps values locally and records every write as
    ``(method, args)`` for :meth:`take`, to be replayed on the crawl's collector."""

    def __init__(self):
        self._values: dict = {}
        self._calls: list[tuple] = []

    def get_value(self, key, default=None):
        """The worker-local value (not the crawl's total)."""
        return self._values.get(key, default)

    def inc_value(self, key, count=1, start=0):
        self._values[key] = self._values.get(key, start) + count
        self._calls.append(("inc_value", key, count, start))

    def set_value(self, key, value):
        self._values[key] = value
        self._calls.append(("set_value", key, value))

    def max_value(self, key, value):
        self._values[key] = max(self._values.get(key, value), value)
        self._calls.append(("max_value", key, value))

    def min_value(self, key, value):
        self._values[key] = min(self._values.get(key, value), value)
        self._calls.append(("min_value", key, value))

    def take(self) -> list[tuple]:
        """The calls recorded since the last take."""
        calls, self._calls = self._calls, []
        return calls


class StageContext:
    """What a stage's ``from_crawler`` gets: the crawl's ``settings`` and a ``stats``
    collector (the crawl's own in-process, a :class:`StatsRecorder` in a worker)."""

    def __init__(self, settings: Settings, stats):
        self.settings = settings
        self.stats = stats


def build_stages(paths: list[str], context: StageContext) -> list:
    """Instantiate the stage classes named by ``paths`` (import paths, in order) with
    ``from_crawler(context)``; a stage raising NotConfigured is left out (logged). Raises
    what an import or a ``from_crawler`` raises otherwise (e.g. ValueError on a bad setting)."""
    stages = []
    for path in paths:
        try:
            stages.append(load_object(path).from_crawler(context))
        except NotConfigured as exc:
            logger.info("stage %s disabled: %s", path, exc)
    return stages


def run_stages(stages: list, item: dict) -> dict:
    """Pass ``item`` through ``stages`` in order; raises the DropItem of the stage dropping it."""
    for stage in stages:
        item = stage.process_item(item)
    return item


# --- worker process ----------------------------------------------------------------------

_worker: dict = {}  # in a worker: "stages", "stats", "records"


class _Capture(logging.Handler):
    """Keeps a worker's log records, made picklable (message formatted, traceback as text)."""

    def __init__(self, records: list):
        super().__init__()
        self.records = records

    def emit(self, record):
        record.msg, record.args = record.getMessage(), None
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        self.records.append(record)


def _exit_with_parent() -> None:
    parent = multiprocessing.parent_process()
    if parent is not None:
        parent.join()
        os._exit(1)


def _init_worker(paths: list[str], settings: dict, level: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, name="exit-with-parent", daemon=True).start()
    records: list = []
    root = logging.getLogger()
    root.handlers[:] = [_Capture(records)]
    root.setLevel(level)
    stats = StatsRecorder()
    _worker.update(paths=paths, settings=settings, stats=stats, records=records)


def _stages() -> list:
    if "stages" not in _worker:
        context = StageContext(Settings(_worker["settings"]), _worker["stats"])
        _worker["stages"] = build_stages(_worker["paths"], context)
        _worker["stats"].take()  # start-up lines and counts were given by the main process
        _worker["records"].clear()
    return _worker["stages"]


def process_in_worker(item: dict) -> tuple[str, object, list, list]:
    """Run the stages on ``item`` in a worker. Returns ``(kind, payload, stats calls, log
    records)``: ``("item", item)``, ``("drop", DropItem message)`` or ``("error",
    traceback)``. A failure to build the stages is raised to the caller."""
    stages = _stages()
    try:
        result = ("item", run_stages(stages, item))
    except DropItem as exc:
        result = ("drop", str(exc))
    except Exception:  # noqa: BLE001 - sent back and raised as StageError by the caller
        result = ("error", f"{item.get('url', '?')}: {traceback.format_exc()}")
    records = list(_worker["records"])
    _worker["records"].clear()
    return (*result, _worker["stats"].take(), records)


def warm_up() -> int:
    """Build the stages in a worker (so the first item does not wait); returns their number."""
    return len(_stages())


# --- Scrapy pipeline -----------------------------------------------------------------------

class StagesPipeline:
    """Settings: ``WACKY_STAGES`` (stage import paths, in order), ``WACKY_STAGE_WORKERS``
    (worker processes; 0 = in this process; None = :func:`default_workers`)."""

    def __init__(self, crawler, paths: list[str], workers: int):
        self.stats = crawler.stats
        self.paths = paths
        self.workers = workers
        self.settings = crawler.settings
        self.stages = build_stages(paths, StageContext(crawler.settings, crawler.stats))
        self.pool: ProcessPoolExecutor | None = None

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        paths = s.getlist("WACKY_STAGES")
        if not paths:
            raise NotConfigured("WACKY_STAGES is empty")
        workers = s.get("WACKY_STAGE_WORKERS")
        workers = default_workers() if workers in (None, "") else int(workers)
        if workers < 0:
            raise ValueError(f"WACKY_STAGE_WORKERS must be >= 0, not {workers}")
        return cls(crawler, paths, workers)

    def _start_pool(self) -> ProcessPoolExecutor:
        level = self.settings.get("LOG_LEVEL", "DEBUG")
        if not isinstance(level, int):
            level = logging.getLevelNamesMapping().get(str(level).upper(), logging.DEBUG)
        pool = ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(self.paths, self.settings.copy_to_dict(), level),
        )
        logger.info("stages %s in %d worker process(es)",
                    ", ".join(type(s).__name__ for s in self.stages), self.workers)
        return pool

    async def open_spider(self):
        if not self.workers:
            logger.info("stages %s in the crawl process",
                        ", ".join(type(s).__name__ for s in self.stages))
            return
        self.pool = self._start_pool()
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(self.pool, warm_up)
                               for _ in range(self.workers)))

    def close_spider(self):
        if self.pool:
            self.pool.shutdown(wait=True)
            self.pool = None

    async def process_item(self, item):
        if self.pool is None:
            return run_stages(self.stages, item)
        pool = self.pool
        try:
            kind, payload, calls, records = await asyncio.get_running_loop().run_in_executor(
                pool, process_in_worker, item)
        except BrokenProcessPool as exc:
            self._restart(pool)
            raise drop(self.stats, "stage_worker_died", item, str(exc)) from None
        for method, *args in calls:
            getattr(self.stats, method)(*args)
        for record in records:
            log = logging.getLogger(record.name)
            if log.isEnabledFor(record.levelno):
                log.handle(record)
        if kind == "drop":
            raise DropItem(payload)
        if kind == "error":
            raise StageError(payload)
        return payload

    def _restart(self, broken: ProcessPoolExecutor) -> None:
        if broken is not self.pool:
            return  # another item in flight already restarted it
        logger.error("a stage worker process died; its items in flight are dropped as "
                     "stage_worker_died; starting new worker process(es)")
        self.stats.inc_value("wacky/stages/pool_restarts")
        broken.shutdown(wait=False)
        self.pool = self._start_pool()
