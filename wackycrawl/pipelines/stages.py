"""Stage runner: the stateless item stages, in this process or in worker processes.

Scrapy's process is CPU-bound on one core (parsing, link extraction, scheduling), so the
stateless stages named in ``WACKY_STAGES`` (text, boilerplate, filters, language,
fingerprint, TREC-prepare: a few ms of CPU per page) run in ``WACKY_STAGE_WORKERS`` worker processes
(multiprocessing, spawn context) and use the second core; with 0 they run here, one after
the other, as plain pipelines would. Workers run ``WACKY_STAGE_WORKER_NICE`` (default 5) steps
nicer than the crawl process: when the web server, Redis or other programs want the cores too,
the crawl process - the one that cannot be split - keeps its core, and the workers, which have
items queued, wait. The stateful stages (dedup index, TREC writer) stay in
``ITEM_PIPELINES`` after this one. Each worker talks to the crawl's asyncio loop over a
socket pair (length-prefixed pickles; buffers of SOCKET_BUFFER, so a worker runs ahead of a
busy crawl process), without threads. A ProcessPoolExecutor was measured
first: its feeder and manager threads cost the crawl process 0.24-0.38 ms of CPU per 15 KB
item (a plain pipe: 0.08-0.10 ms), and a profile of benchmarks/crawl.py showed the event
loop blocked ~1.9 ms per item in the wake-up write, waiting for the GIL.

A stage is a class with ``from_crawler(crawler)`` and ``process_item(item)`` (raising
``DropItem``, or ``NotConfigured`` to be left out), and optionally ``warm_up()``, called
once where the stage runs (each worker, or this process with 0 workers) before the spider
opens: loads that only a process running the stage should pay (the language model), so the
first pages do not wait for them. Its ``crawler`` is a
:class:`StageContext`: only ``settings`` and ``stats`` (``inc_value``, ``set_value``,
``max_value``, ``min_value``, ``get_value``), in both modes. The stages are always built
here too, so a bad setting stops the crawl at start-up in both modes.

In a worker, each stage's stats calls and log records (at ``LOG_LEVEL`` and above) are recorded
per item and replayed here, in order: counters, drop reasons and log lines are the same as
in-process. With ``WACKY_KEEP_REJECTS`` a worker sends an item dropped for one of
``WACKY_REJECT_REASONS`` back as it was when dropped, for the rejects stream. Workers ignore
SIGINT and SIGTERM, so a graceful stop (Ctrl-C, Scrapyd cancel) lets the items in flight
finish; a worker exits when its socket closes, i.e. when this process closes the spider or dies
(even by kill -9). A worker that dies (killed, out of memory) is logged at ERROR; its items in
flight are dropped as ``stage_worker_died`` and a new worker is started
(``wacky/stages/worker_restarts``); a JOBDIR or Redis frontier gives their requests back to the
queue (:data:`~wackycrawl.pipelines.PAGE_NOT_PROCESSED`), so they are fetched again. As with any spawned process, a script that starts a crawl
itself needs the ``if __name__ == "__main__":`` guard.
"""

import asyncio
import atexit
import gc
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import traceback

from scrapy.exceptions import DropItem, NotConfigured
from scrapy.settings import Settings
from scrapy.utils.misc import load_object

from wackycrawl.crawl.worker import crawl_worker_id
from wackycrawl.pipelines import PAGE_NOT_PROCESSED, drop, dropped, rejection
from wackycrawl.pipelines.rejects import reject_reasons

logger = logging.getLogger(__name__)
_PROTOCOL = pickle.HIGHEST_PROTOCOL
#: Bytes of the worker socket's kernel buffers (SO_SNDBUF / SO_RCVBUF, each way; Linux doubles
#: the value and caps it at net.core.wmem_max / rmem_max) and read from it per pass of the
#: crawl's event loop. The crawl process reads the answers (about 35 KB each: text, shingle
#: hashes, compressed record) between its other work; with a socket's default buffer (about
#: 200 KB) the worker waited, its answers unread, a quarter of the time, and items queued up
#: until Scrapy's scraper held 5 MB of responses and fetched no more (benchmarks/crawl.py: 0.83
#: of the pipelines-off pages/s; 0.92 with these buffers).
SOCKET_BUFFER = 4 << 20
READ_LIMIT = 16 << 20  # asyncio.StreamReader limit: reading pauses at twice this much unread
NICE = 5  # WACKY_STAGE_WORKER_NICE: a worker's niceness above the crawl process's
#: WACKY_STAGE_WORKER_POLICY: the Linux scheduling policy of a worker (sched(7)): "other" (the
#: default time-sharing, with NICE), "batch" (SCHED_BATCH: CPU-bound, never preempts on waking)
#: or "idle" (SCHED_IDLE: only CPU time nothing else wants; a core running only such tasks counts
#: as idle when the kernel places a waking program, so the web server and Redis go there and
#: not onto the crawl process's core).
POLICY = "other"
POLICIES = {"other": "SCHED_OTHER", "batch": "SCHED_BATCH", "idle": "SCHED_IDLE"}


def scheduling_policy(settings) -> str:
    """``WACKY_STAGE_WORKER_POLICY``, checked: one of :data:`POLICIES` (ValueError otherwise)."""
    policy = settings.get("WACKY_STAGE_WORKER_POLICY", POLICY) or POLICY
    if policy not in POLICIES:
        raise ValueError(f"WACKY_STAGE_WORKER_POLICY={policy}: must be one of "
                         f"{', '.join(POLICIES)}")
    return policy


def _set_policy(policy: str) -> None:
    """Put this process under ``policy``; where the system has no such policy (not Linux),
    or refuses it, the worker keeps the default one (logged)."""
    if policy == "other":
        return
    try:
        os.sched_setscheduler(0, getattr(os, POLICIES[policy]), os.sched_param(0))
    except (AttributeError, OSError) as exc:
        logger.warning("stage worker keeps the default scheduling policy, not %s: %s",
                       POLICIES[policy], exc)


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
    """What a stage's ``from_crawler`` gets: the crawl's ``settings``, a ``stats`` collector
    (the crawl's own in-process, a :class:`StatsRecorder` in a worker) and ``in_worker``
    (True in a worker process: a stage may do there what would stall the crawl process)."""

    def __init__(self, settings: Settings, stats, in_worker: bool = False):
        self.settings = settings
        self.stats = stats
        self.in_worker = in_worker


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


def warm_up(stages: list) -> None:
    """Call each stage's ``warm_up()``, if it has one."""
    for stage in stages:
        if hasattr(stage, "warm_up"):
            stage.warm_up()


def run_stages(stages: list, item: dict) -> dict:
    """Pass ``item`` through ``stages`` in order; raises the DropItem of the stage dropping it."""
    for stage in stages:
        item = stage.process_item(item)
    return item


# --- worker process ----------------------------------------------------------------------
# Frames both ways: 4-byte big-endian length + pickle. Request (seq, item or None for a warm-up),
# answer (seq, kind, payload, stats calls, log records); kind "item", "drop", "error", "ready".

_HEADER = 4


class _Capture(logging.Handler):
    """Keeps a worker's log records, made picklable (message formatted, traceback as text)."""

    def __init__(self):
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        record.msg, record.args = record.getMessage(), None
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None
        self.records.append(record)

    def take(self) -> list[logging.LogRecord]:
        records, self.records = self.records, []
        return records


def _answer(stages, item, stats: StatsRecorder, capture: _Capture,
            send_back: frozenset = frozenset()) -> tuple:
    try:
        if item is None:
            result = ("ready", len(stages()))
        else:
            result = ("item", run_stages(stages(), item))
    except DropItem as exc:
        reason, detail, state = rejection(exc) or ("", "", None)
        # the dropped item travels back only for the rejects stream (WACKY_KEEP_REJECTS)
        result = ("drop", (str(exc), reason, detail, state if reason in send_back else None))
    except Exception:  # noqa: BLE001 - sent back and raised as StageError by the caller
        url = item.get("url", "?") if isinstance(item, dict) else "start-up"
        result = ("error", f"{url}: {traceback.format_exc()}")
    return (*result, stats.take(), capture.take())


def worker_main(sock: socket.socket, paths: list[str], settings: dict, level: int) -> None:
    """Body of a worker process: build the stages once (on the first request), then answer
    requests read from ``sock`` until it is closed (the crawl process closed or died).
    SIGINT and SIGTERM are ignored: the crawl process decides when the worker stops."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    from wackycrawl.pipelines.offline import NamedSettings  # it imports this module

    settings = NamedSettings(settings)  # an error names the setting, as in the crawl process
    if nice := settings.getint("WACKY_STAGE_WORKER_NICE", NICE):
        os.nice(nice)  # the crawl process, not its helper, gets a core when they compete
    _set_policy(scheduling_policy(settings))
    capture, stats = _Capture(), StatsRecorder()
    send_back = reject_reasons(settings)
    root = logging.getLogger()
    root.handlers[:] = [capture]
    root.setLevel(level)
    built: list = []

    def stages() -> list:
        if not built:
            built.append(build_stages(paths, StageContext(settings, stats, in_worker=True)))
            warm_up(built[0])
            stats.take()  # start-up lines and counts were given by the crawl process
            capture.take()
            if settings.getbool("WACKY_GC_FREEZE", True):
                gc.collect()
                gc.freeze()  # as wackycrawl.extensions.gcfreeze does in the crawl process
        return built[0]

    try:
        with sock, sock.makefile("rwb") as stream:
            while len(header := stream.read(_HEADER)) == _HEADER:
                seq, item = pickle.loads(stream.read(int.from_bytes(header, "big")))
                answer = _answer(stages, item, stats, capture, send_back)
                data = pickle.dumps((seq, *answer), _PROTOCOL)
                stream.write(len(data).to_bytes(_HEADER, "big") + data)
                stream.flush()
    except (BrokenPipeError, ConnectionResetError):
        return  # the crawl process is gone (killed): nobody is left to answer


_live: set = set()  # worker processes started and not yet joined


def _kill_leftovers() -> None:
    """At exit, kill workers still running (the crawl ended without close_spider). Without
    this the exit would hang: multiprocessing's own exit handler sends its daemonic children
    SIGTERM, which workers ignore, and then joins them."""
    for process in _live:
        if process.is_alive():
            process.kill()


class WorkerDied(Exception):
    """The worker process ended while items were in flight."""


class _Worker:
    """A worker process seen from the crawl process: its socket streams and the futures of
    the items in flight, which fail with WorkerDied when the socket closes. If that was
    unasked, ``on_death(worker, n_items_lost)`` is called once it is set (after start-up)."""

    def __init__(self, process, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.process, self.reader, self.writer = process, reader, writer
        self.on_death = None
        self.pending: dict[int, asyncio.Future] = {}
        self.seq = 0
        self.closing = False
        self.replacement: asyncio.Task | None = None
        self.reading = asyncio.ensure_future(self._read())

    @property
    def dead(self) -> bool:
        return self.reading.done()

    async def call(self, item: dict | None) -> tuple:
        if self.dead:
            raise WorkerDied(f"worker process {self.process.pid} is gone")
        self.seq += 1
        future = self.pending[self.seq] = asyncio.get_running_loop().create_future()
        data = pickle.dumps((self.seq, item), _PROTOCOL)
        self.writer.write(len(data).to_bytes(_HEADER, "big") + data)
        return await future

    async def _read(self) -> None:
        try:
            while True:
                size = int.from_bytes(await self.reader.readexactly(_HEADER), "big")
                seq, *answer = pickle.loads(await self.reader.readexactly(size))
                self.pending.pop(seq).set_result(answer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        lost, self.pending = self.pending, {}
        for future in lost.values():
            future.set_exception(WorkerDied(f"worker process {self.process.pid} ended"))
        if self.on_death and not self.closing:
            self.on_death(self, len(lost))

    async def close(self, timeout: float = 60) -> None:
        """Close the socket (the worker then exits) and wait for the process to end."""
        self.closing = True
        self.writer.close()
        await asyncio.to_thread(self.process.join, timeout)
        if self.process.is_alive():
            logger.error("stage worker %d did not exit in %d s; killed", self.process.pid, timeout)
            self.process.kill()
        _live.discard(self.process)


# --- Scrapy pipeline -----------------------------------------------------------------------

class StagesPipeline:
    """Settings: ``WACKY_STAGES`` (stage import paths, in order), ``WACKY_STAGE_WORKERS``
    (worker processes; 0 = in this process; None = :func:`default_workers`)."""

    def __init__(self, crawler, paths: list[str], workers: int):
        self.stats, self.signals = crawler.stats, crawler.signals
        self.paths = paths
        self.workers = workers
        self.settings = crawler.settings
        spider = getattr(crawler, "spidercls", None)
        # the stages have no spider nor crawler: they name the crawl's keys (Redis) and this
        # process's TREC writer (its write intents) by these settings
        named = {"WACKY_CRAWL_NAME": spider.name if spider is not None else None,
                 "WACKY_WORKER_ID": crawl_worker_id(crawler) if spider is not None else None}
        named = {k: v for k, v in named.items() if v and not self.settings.get(k)}
        if named:
            self.settings = self.settings.copy()  # a copy of frozen settings is frozen
            self.settings.frozen = False
            self.settings.setdict(named, priority="cmdline")
            self.settings.freeze()
        self.stages = build_stages(paths, StageContext(self.settings, crawler.stats))
        self.pool: list[_Worker] = []

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        paths = s.getlist("WACKY_STAGES")
        if not paths:
            raise NotConfigured()
        workers = s.get("WACKY_STAGE_WORKERS")
        workers = default_workers() if workers in (None, "") else int(workers)
        if workers < 0:
            raise ValueError(f"WACKY_STAGE_WORKERS must be >= 0, not {workers}")
        scheduling_policy(s)  # a bad value stops the crawl at start-up, not in the worker
        return cls(crawler, paths, workers)

    async def _start_worker(self) -> _Worker:
        level = self.settings.get("LOG_LEVEL", "DEBUG")
        if not isinstance(level, int):
            level = logging.getLevelNamesMapping().get(str(level).upper(), logging.DEBUG)
        ours, theirs = socket.socketpair()
        for sock in (ours, theirs):
            for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
                sock.setsockopt(socket.SOL_SOCKET, opt, SOCKET_BUFFER)
        with theirs:
            process = multiprocessing.get_context("spawn").Process(
                target=worker_main, name="wacky-stages", daemon=True,
                args=(theirs, self.paths, self.settings.copy_to_dict(), level))
            process.start()
        _live.add(process)
        atexit.unregister(_kill_leftovers)  # registered after multiprocessing's own handler,
        atexit.register(_kill_leftovers)  # so it runs before it
        reader, writer = await asyncio.open_connection(sock=ours, limit=READ_LIMIT)
        writer.transport.max_size = SOCKET_BUFFER  # read per loop pass (asyncio's: 256 KiB)
        worker = _Worker(process, reader, writer)
        self._result(await worker.call(None))  # raises StageError if the stages fail to build
        worker.on_death = self._died
        return worker

    async def open_spider(self):
        where = f"{self.workers} worker process(es)" if self.workers else "the crawl process"
        logger.info("stages %s in %s", ", ".join(type(s).__name__ for s in self.stages), where)
        if not self.workers:
            warm_up(self.stages)
        self.pool = list(await asyncio.gather(*(self._start_worker()
                                                for _ in range(self.workers))))

    async def close_spider(self):
        pool, self.pool = self.pool, []
        pool = [await w.replacement if w.replacement else w for w in pool]
        await asyncio.gather(*(w.close() for w in pool))

    async def process_item(self, item):
        """The item after the stages, or the DropItem of the stage that dropped it; a stage
        that raises anything else drops the item as ``stage_error`` (one ERROR line naming
        the URL and the exception, its traceback at DEBUG), so no page goes uncounted."""
        try:
            return await self._process(item)
        except StageError as exc:
            trace = str(exc)
            last = trace.rstrip().splitlines()[-1] if trace.strip() else "error"
            logger.error("a stage failed on %s: %s (dropped as stage_error)",
                         item.get("url", "?"), last)
            logger.debug("stage traceback: %s", trace)
            raise drop(self.stats, "stage_error", item, last) from None

    async def _process(self, item):
        if not self.pool:
            try:
                return run_stages(self.stages, item)
            except DropItem:
                raise
            except Exception:  # noqa: BLE001 - a stage's bug: the item is dropped, counted
                raise StageError(traceback.format_exc()) from None
        i = min(range(len(self.pool)), key=lambda n: len(self.pool[n].pending))
        worker = dead = self.pool[i]
        if dead.replacement:
            worker = await dead.replacement
            if self.pool and self.pool[i] is dead:
                self.pool[i] = worker
        try:
            answer = await worker.call(item)
        except WorkerDied as exc:
            # the frontier (JOBDIR or Redis) gives the page's request back to the queue
            self.signals.send_catch_log(PAGE_NOT_PROCESSED, url=item.get("url", ""))
            raise drop(self.stats, "stage_worker_died", item, str(exc)) from None
        return self._result(answer)

    def _result(self, answer: tuple):
        kind, payload, calls, records = answer
        for method, *args in calls:
            getattr(self.stats, method)(*args)
        for record in records:
            log = logging.getLogger(record.name)
            if log.isEnabledFor(record.levelno):
                log.handle(record)
        if kind == "drop":
            message, reason, detail, state = payload
            raise dropped(reason, state, detail, message) if reason else DropItem(message)
        if kind == "error":
            raise StageError(payload)
        return payload

    def _died(self, worker: _Worker, lost: int) -> None:
        logger.error("stage worker process %d died; %d item(s) in flight dropped as "
                     "stage_worker_died (a JOBDIR or Redis frontier fetches their pages again); "
                     "starting a new worker", worker.process.pid, lost)
        self.stats.inc_value("wacky/stages/worker_restarts")
        worker.replacement = asyncio.ensure_future(self._start_worker())
