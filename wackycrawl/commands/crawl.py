"""``scrapy crawl`` with one check first: a JOBDIR whose frontier another live crawl holds
(:func:`wackycrawl.distributed.local.check_free`, an ``flock``) is refused in one ERROR line
with exit status 1, before any component opens a file of that job (its TREC files, dedup
state). A crawl that loses the race anyway is closed by the scheduler with the finish reason
``frontier_locked``, also exit status 1, as is one whose SQLite frontier cannot be opened or
written (a full disk, a damaged file: ``frontier_error``), and every other crawl a failure
closed (:data:`FAILED_REASONS`: a write error, a Redis outage past its limit, a Redis that lost
the crawl's state). A distributed crawl whose Redis
does not answer at the start (not running, a wrong REDIS_URL) stops in one ERROR line, exit
status 1, instead of waiting WACKY_REDIS_OUTAGE_SECONDS as a running worker does through an
outage. The seeds
spider's arguments are checked first too: no seed list where one is needed is an ERROR line and
exit status 2 (a usage error), a seed file that does not exist, or holds no http(s) URL (outside
a distributed crawl, whose seeds may all be pushed), one and exit status 1, without a
traceback; so is a component that refuses a setting's value or cannot open a file a setting
names (a ``ValueError`` or ``OSError`` while the crawl starts: ``cannot start the crawl: ...``,
exit status 1; a ``-s`` value of the wrong type for its typed getter is named,
``NAME=VALUE: <why>``, as the settings are :class:`~wackycrawl.pipelines.offline.NamedSettings`);
WACKY_DUPEFILTER, read only once the engine opens the frontier, is checked before the crawler
is built, in every frontier mode. A new crawl (Scrapy's frontier, or a JOBDIR holding no
frontier yet) whose WACKY_OUTPUT_DIR (or rejects folder) already holds TREC files, or whose
WACKY_WARC_DIR holds WARC files, is refused the same way, touching nothing: it would write
their documents again, or mix its archive into theirs (:func:`written_before`);
a resumed JOBDIR crawl and the Redis frontier's workers write into such a folder as before,
unless it holds another crawl's documents or a resumed JOBDIR wrote to another folder
(:mod:`wackycrawl.crawl.owner`). Before all of these, a ``-s`` setting whose name starts with
``WACKY_`` but is none of the project's (a misspelt ``WACKY_LANGUAGE``, which would have no
effect) is refused the same way, one ERROR line per name with the closest known one
(:mod:`wackycrawl.crawl.settingnames`). Everything else is Scrapy's own ``crawl``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shlex

import redis
from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.settings import SETTINGS_PRIORITIES

from wackycrawl.crawl import owner
from wackycrawl.crawl.settingnames import unknown_settings
from wackycrawl.distributed.dupefilter import seen_store
from wackycrawl.distributed.local import FILENAME, FrontierLockedError, check_free
from wackycrawl.distributed.scheduler import (
    FRONTIER_ERROR_REASON,
    LOCKED_REASON,
    crawl_name,
    frontier_mode,
)
from wackycrawl.distributed.connection import STATE_LOST_REASON
from wackycrawl.middlewares.warc import WRITE_ERROR_REASON as WARC_WRITE_ERROR_REASON
from wackycrawl.pipelines.offline import NamedSettings
from wackycrawl.pipelines.rejects import WRITE_ERROR_REASON as REJECTS_WRITE_ERROR_REASON
from wackycrawl.pipelines.rejects import SUBDIR as REJECTS_SUBDIR
from wackycrawl.pipelines.rejects import reject_reasons
from wackycrawl.spiders.seeds import (
    SeedsSpider,
    missing_seed_file,
    missing_seeds,
    unusable_seed_files,
)
from wackycrawl.trec import writer
from wackycrawl.trec.reader import corpus_files

logger = logging.getLogger(__name__)
#: finish reasons of a crawl stopped by a failure (exit status 1): its JOBDIR in use or its
#: frontier unwritable, a document, archive record or reject that could not be written, a Redis
#: outage past WACKY_REDIS_OUTAGE_SECONDS, a Redis that lost the crawl's state
FAILED_REASONS = frozenset([LOCKED_REASON, FRONTIER_ERROR_REASON, "trec_write_error",
                            WARC_WRITE_ERROR_REASON, REJECTS_WRITE_ERROR_REASON, "redis_outage",
                            STATE_LOST_REASON])


PROBE_SECONDS = 5.0  # how long the start waits for the crawl's Redis to answer


def redis_unreachable(settings) -> str | None:
    """Why the crawl's Redis does not answer a PING at the start, or None. A worker waits
    through a Redis outage once it runs (WACKY_REDIS_OUTAGE_SECONDS); at the start a Redis
    that is not there is a wrong address or a server not started, said at once."""
    from scrapy_redis import connection

    from wackycrawl.distributed.keys import redis_url

    s = settings.copy()
    if url := redis_url(settings):
        s.set("REDIS_URL", url, priority="cmdline")
    if not (url or s.get("REDIS_HOST")):
        return None  # the frontier says what is missing
    params = {**s.getdict("REDIS_PARAMS"), "socket_connect_timeout": PROBE_SECONDS,
              "socket_timeout": PROBE_SECONDS, "retry_on_timeout": False}
    s.set("REDIS_PARAMS", params, priority="cmdline")
    where = url or f"{s.get('REDIS_HOST')}:{s.getint('REDIS_PORT', 6379)}"
    try:
        client = connection.get_redis_from_settings(s)
        client.ping()
        client.close()
    except (redis.RedisError, ValueError) as exc:
        return (f"the crawl's Redis {where} does not answer ({exc}): start redis-server or "
                "correct REDIS_URL / REDIS_HOST")
    return None


def resumes(settings, mode: str) -> bool:
    """Whether the crawl goes on from a frontier kept by an earlier one: the Redis frontier
    (its workers share the output folder by design), or a JOBDIR holding one (the SQLite
    frontier's file; Scrapy's own ``requests.seen`` / ``requests.queue`` with
    WACKY_FRONTIER=scrapy)."""
    jobdir = settings.get("JOBDIR")
    if mode == "redis":
        return True
    if not jobdir:
        return False
    kept = [FILENAME] if mode == "local" else ["requests.seen", "requests.queue"]
    return any(os.path.exists(os.path.join(jobdir, name)) for name in kept)


def written_before(settings) -> str | None:
    """Why a new crawl may not write into its TREC folders, or None: WACKY_OUTPUT_DIR (and
    the rejects folder, with WACKY_KEEP_REJECTS) already holds TREC files, closed
    (``.trec.gz``) or not (``.trec.gz.open``), which the crawl would write again. Raises
    ValueError for a bad WACKY_KEEP_REJECTS / WACKY_REJECT_REASONS."""
    folders = []
    if output := settings.get("WACKY_OUTPUT_DIR", writer.DIRECTORY):
        folders.append(("WACKY_OUTPUT_DIR", output))
    if reject_reasons(settings):
        folders.append(("the rejects folder", settings.get("WACKY_REJECTS_DIR") or os.path.join(
            output or writer.DIRECTORY, REJECTS_SUBDIR)))
    for name, folder in folders:
        if os.path.isdir(folder) and (held := len(corpus_files([folder], open_files := [])) +
                                      len(open_files)):
            if open_files:
                return _unfinished(name, folder, held, len(open_files), output)
            return (f"cannot start the crawl: {name} {folder} already holds {held} TREC "
                    f"file{'' if held == 1 else 's'}; a new crawl would write their documents "
                    f"again: {_remedy(output)}")
    if held := warc_files(warc := settings.get("WACKY_WARC_DIR", "")):
        return (f"cannot start the crawl: WACKY_WARC_DIR {warc} already holds {held} WARC "
                f"file{'' if held == 1 else 's'}; a new crawl would mix its archive into "
                "theirs: give another WACKY_WARC_DIR, or resume the crawl that wrote them: its "
                "command again, with its -s JOBDIR=...")
    return None


def _remedy(output: str) -> str:
    """What to do about a folder holding closed TREC files: another WACKY_OUTPUT_DIR, or
    resuming the crawl that wrote them when it had a JOBDIR (the
    :data:`~wackycrawl.crawl.owner.MARKER` of its WACKY_OUTPUT_DIR ``output`` says which crawl
    that was; one without a JOBDIR cannot be resumed)."""
    marker = (owner.read_marker(output) if output else None) or ""
    if marker.startswith("jobdir "):
        return (f"give another WACKY_OUTPUT_DIR, or resume the crawl that wrote them: its "
                f"command again, with -s JOBDIR={marker.removeprefix('jobdir ')}")
    if marker.startswith("once "):
        return ("give another WACKY_OUTPUT_DIR, or remove the folder (the crawl that wrote them "
                "had no JOBDIR: it cannot be resumed)")
    return ("give another WACKY_OUTPUT_DIR, or resume the crawl that wrote them: its command "
            "again, with its -s JOBDIR=...")


def _unfinished(name: str, folder: str, held: int, unfinished: int, output: str) -> str:
    """The refusal of a folder holding ``unfinished`` ``.trec.gz.open`` files (of ``held``
    TREC files): left by a crawl that was killed (or one still running), which ``wackycrawl
    trec recover`` closes; the crawl that wrote them is resumable only when it had a JOBDIR
    (the :data:`~wackycrawl.crawl.owner.MARKER` of its WACKY_OUTPUT_DIR ``output`` says which
    crawl that was)."""
    marker = (owner.read_marker(output) if output else None) or ""
    them = "it" if unfinished == 1 else "them"
    files = (f"{unfinished} unfinished TREC file{'' if unfinished == 1 else 's'} (.trec.gz.open)"
             + (f" and {held - unfinished} closed one{'' if held - unfinished == 1 else 's'}"
                if held > unfinished else ""))
    if marker.startswith("jobdir "):
        resume = (f"; or resume that crawl: its command again, with -s "
                  f"JOBDIR={marker.removeprefix('jobdir ')}")
    elif marker.startswith("once "):
        resume = " (the crawl that wrote it had no JOBDIR: it cannot be resumed)"
    else:
        resume = ("; or, if the crawl that wrote it had a JOBDIR, resume it: its command "
                  "again, with its -s JOBDIR=...")
    return (f"cannot start the crawl: {name} {folder} already holds {files}, left by a crawl "
            f"that was killed (or one still running): 'wackycrawl trec recover "
            f"{shlex.quote(folder)}' closes {them}; a new crawl would write their documents "
            f"again: give it another WACKY_OUTPUT_DIR{resume}")


def warc_files(folder: str) -> int:
    """How many WARC files, closed (``.warc.gz``) or being written (``.warc.gz.open``), the
    folder ``folder`` holds (0 for "" or no folder)."""
    if not folder or not os.path.isdir(folder):
        return 0
    from wackycrawl.archive.writer import OPEN_SUFFIX, SUFFIX

    return sum(name.endswith((SUFFIX, SUFFIX + OPEN_SUFFIX)) for name in os.listdir(folder))


def _stop_once_open(process, crawler, started: asyncio.Future) -> None:
    """A graceful stop (Ctrl-C, SIGTERM, Scrapyd's cancel) that arrives while the spider is
    opening (its stage workers loading the language model...) waits until it has opened, then
    stops it as Scrapy stops a running crawl: closed with reason ``shutdown``, its stats and
    summary written. Scrapy's own stop skips an engine that is not running yet and stops the
    reactor under it: the crawl ended without any close (no reason, no stats file, asyncio
    "Task was destroyed" errors, exit status 0). ``process``: the crawler process, whose
    ``stop`` its signal handlers call (the engine's own close calls the crawler's, which is
    left alone); ``started``: the crawl's task."""
    stop = process.stop
    waited = []

    async def stop_once_open() -> None:
        if not waited:  # the first stop only: Scrapy calls this again as the reactor stops
            waited.append(True)
            while not started.done() and not (crawler.engine is not None
                                               and crawler.engine.running):
                await asyncio.sleep(0.05)
        await stop()

    process.stop = stop_once_open


class Command(ScrapyCrawl):
    def process_options(self, args, opts) -> None:
        """Scrapy's, then the settings (the ones the crawler process and every crawler copy)
        become :class:`~wackycrawl.pipelines.offline.NamedSettings`: a value of the wrong type
        for a typed getter is an error naming the setting, ``NAME=VALUE: <why>``."""
        super().process_options(args, opts)
        self.settings.__class__ = NamedSettings  # the same object Scrapy's cmdline goes on with

    _held_folders: list = []

    def run(self, args, opts) -> None:
        self._held_folders = []
        if unknown := self._unknown_settings():
            for message in unknown:
                logger.error("cannot start the crawl: %s", message)
            self.exitcode = 1
            return
        if args and args[0] == SeedsSpider.name and self._bad_arguments(opts.spargs):
            return
        jobdir = self.settings.get("JOBDIR")
        try:
            mode = frontier_mode(self.settings)
        except ValueError:  # a bad WACKY_FRONTIER: the scheduler reports it
            mode = ""
        try:
            seen_store(self.settings)
        except ValueError as exc:
            self._report(exc)
            self.exitcode = 1
            return
        if mode == "redis" and (problem := redis_unreachable(self.settings)):
            logger.error("%s", problem)
            self.exitcode = 1
            return
        local = bool(jobdir) and mode == "local"
        if local:
            try:
                check_free(jobdir)
            except FrontierLockedError as exc:
                logger.error("%s: another crawl runs on JOBDIR %s; wait for it or stop it "
                             "(Ctrl-C once) before resuming", exc, jobdir)
                self.exitcode = 1
                return
        if len(args) != 1:
            super().run(args, opts)  # Scrapy's usage errors
            return
        try:
            refused = None if resumes(self.settings, mode) else written_before(self.settings)
        except ValueError as exc:
            self._report(exc)
            self.exitcode = 1
            return
        if refused or (refused := self._not_ours(args[0], mode)):
            logger.error("%s", refused)
            self.exitcode = 1
            return
        try:
            crawler = self._create_crawler(args[0])
        except KeyError:  # Scrapy's "Spider not found", as a traceback
            names = ", ".join(self.crawler_process.spider_loader.list())
            logger.error("no spider %r in this project (its spiders: %s)", args[0], names)
            self.exitcode = 2
            return
        except ValueError as exc:  # a bad setting found while the settings are completed
            self._report(exc)
            self.exitcode = 1
            return
        started = self.crawler_process.crawl(crawler, **opts.spargs)
        if isinstance(started, asyncio.Future):
            started.add_done_callback(self._retrieve)
            _stop_once_open(self.crawler_process, crawler, started)
        else:  # a Deferred: Scrapy's CrawlerProcess on another reactor
            started.addErrback(lambda failure: self._report(failure.value))
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed or (
                crawler.stats.get_value("finish_reason") in FAILED_REASONS):
            self.exitcode = 1

    def _unknown_settings(self) -> list[str]:
        """A message for each ``-s WACKY_...`` (a setting at command-line priority: ``-s``,
        Scrapyd's ``setting=``) that names no setting of the project, with the closest name
        (:mod:`wackycrawl.crawl.settingnames`); a misspelt name would have no effect."""
        cmdline = SETTINGS_PRIORITIES["cmdline"]
        given = [name for name in self.settings.attributes
                 if self.settings.getpriority(name) == cmdline]
        return unknown_settings(given, self.settings.get("SETTINGS_MODULE"))

    def _not_ours(self, spider: str, mode: str) -> str | None:
        """Why WACKY_OUTPUT_DIR holds another crawl's documents, or WACKY_WARC_DIR another
        crawl's WARC files (:mod:`wackycrawl.crawl.owner`), or None, after recording that this
        crawl writes there."""
        output = self.settings.get("WACKY_OUTPUT_DIR", writer.DIRECTORY)
        warc = self.settings.get("WACKY_WARC_DIR", "")
        jobdir = self.settings.get("JOBDIR") if mode != "redis" else None
        me = owner.identity(jobdir, crawl_name(self.settings, spider) if mode == "redis"
                            else None, self.settings.get("WACKY_WORKER_ID") or str(os.getpid()))
        resumed = jobdir if jobdir and resumes(self.settings, mode) else None
        if output:
            held = os.path.isdir(output) and bool(corpus_files([output], open_files := [])
                                                  or open_files)
            if why := owner.refusal(output, me, resumed, held):
                return f"cannot start the crawl: {why}"
        if warc and (why := owner.refusal(warc, me, None, bool(warc_files(warc)),
                                          setting="WACKY_WARC_DIR")):
            return f"cannot start the crawl: {why}"
        for setting, folder, record in (("WACKY_OUTPUT_DIR", output, jobdir),
                                        ("WACKY_WARC_DIR", warc, None)):
            try:
                if folder:
                    owner.claim(folder, me, record)
            except OSError as exc:
                return f"cannot start the crawl: {setting} {folder}: {exc}"
            if folder:  # held until this process exits: no other crawl claims it meanwhile
                self._held_folders.append(owner.hold(folder))
        return None

    def _bad_arguments(self, spargs) -> bool:
        """Log why the seeds spider cannot start with ``spargs`` and set the exit code."""
        seeds, queries = spargs.get("seeds"), spargs.get("queries")
        try:
            usage = missing_seeds(self.settings, seeds, queries)
        except ValueError:  # a bad WACKY_FRONTIER: the scheduler reports it
            usage = None
        if usage:
            unknown = sorted(set(spargs) - {"seeds", "queries", "redis_key", "redis_batch_size",
                                            "max_idle_time"})
            logger.error("%s%s", usage, f"; unknown argument(s): {', '.join(unknown)}"
                         if unknown else "")
            self.exitcode = 2
            return True
        if missing := missing_seed_file(seeds, queries):
            logger.error("%s", missing)
            self.exitcode = 1
            return True
        try:
            empty = unusable_seed_files(self.settings, seeds, queries)
        except ValueError:  # a bad WACKY_FRONTIER: the scheduler reports it
            empty = None
        if empty:
            logger.error("%s", empty)
            self.exitcode = 1
            return True
        return False

    def _retrieve(self, task: asyncio.Future) -> None:
        if not task.cancelled() and (exc := task.exception()) is not None:
            self._report(exc)

    @staticmethod
    def _report(exc: BaseException) -> None:
        """A component that refused its settings (ValueError) or cannot read a file a setting
        names (OSError: WACKY_BADWORDS_FILE...) in one line, anything else with its traceback."""
        if isinstance(exc, (ValueError, OSError)):
            logger.error("cannot start the crawl: %s", exc)
            logger.debug("where the crawl stopped", exc_info=exc)
        else:
            logger.error("the crawl failed", exc_info=exc)
