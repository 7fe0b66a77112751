"""``wackycrawl process FILE|DIR... -o OUTDIR [-j N] [-s NAME=VALUE]``: a corpus from archives.

A DIR stands for its ``.warc.gz``, ``.warc``, ``.arc.gz`` and ``.arc`` files in name order;
its ``.warc.gz.open`` files left by a crawl killed without a JOBDIR are closed first (cut back
to their last complete record and renamed, as the crawl's next start does; one a running
crawl holds is left out). An input that does not exist, a setting a stage refuses and an
OUTDIR in an input folder stop the run before OUTDIR is made; a run that fails before any
input is done (an error, Ctrl-C) removes the OUTDIR it made.

Every ``response`` record of the WARC and ARC files (ours, Common Crawl's, ``wget
--warc-file``'s, Heritrix's ARC; :mod:`wackycrawl.archive.reader`) goes through what a crawl
does to a downloaded page (robots.txt skipped; a 4xx/5xx the crawl does not retry is the drop
``http_<code>``): the size window (2xx, HTML, 5-200 KB decoded; a record with
``WARC-Truncated``, a download the crawl cut short, gets the crawl's reason from its headers:
:func:`wackycrawl.crawl.sizewindow.archived_reason`), then the crawl's
item pipelines with the project's settings and the ``-s`` overrides
(:class:`wackycrawl.pipelines.offline.Chain`): text, boilerplate, filters, language and
fingerprint stages, dedup, TREC writer, and the extensions of ``WACKY_OFFLINE_EXTENSIONS``
(drops file, rejects stream). Output: what a crawl writes, in OUTDIR: TREC files and
indexes, ``drops-<worker>.tsv`` (time, URL, reason, detail of every page not kept; a
resumed run appends the drops of an unfinished input again), ``rejects/`` with
``WACKY_KEEP_REJECTS``, and ``process-stats-<worker>.json`` (the crawl's stats keys). A
document gets the request fields (``Depth``, ``Seed-Query``) of the crawl's ``metadata``
record about its response, when the archive has one (in the same file, or among the first
records of the writer's next file).

``-j N`` runs the stateless stages in N worker processes, one input file at a time each; dedup
and the writer run here, over the files in their command-line order, so the output does not
depend on N. The progress bar is tqdm's (one small module, stderr, off when stderr is no
terminal or with ``--no-progress``).

Resumable per input file: after each input read to its end its TREC file is closed and the
input's path appended to ``OUTDIR/process-done.tsv`` with the TREC files written for it (an
input unreadable, or damaged at its end, is not: its TREC file is closed unlisted). Damaged
records followed by an intact one are skipped (each named by the drop ``damaged_record`` or
``truncated`` when it is a response) and the input is done, with the number of damaged records
in a third column; damage that reaches the end of the file (a file cut short, or still being
written) leaves it not done, so that a second run reads it again, whole. So does a page that
failed in a stage (the drop ``stage_error``: a full disk, a model that cannot be unpacked) or
whose document could not be written (``trec_write_error``). A second run
with the same OUTDIR skips the inputs listed there, removes the TREC files of an input that
was not finished (killed, or not read to its end: it is read again) and reads the documents
of the finished ones back into the dedup index (as a resumed crawl does), so no document is
written twice or lost. The ``-s`` settings are kept in ``OUTDIR/process-settings.json`` with
the first input done; a run with other ones into an OUTDIR with inputs done is refused.
Spool files of the stages are kept in ``OUTDIR/.process/``. OUTDIR must be new
or a previous ``process`` output, and neither an input folder nor inside one. Exit codes: 0, 1 if some input does not exist (nothing
done), could not be read or was damaged (named on stderr; the records before the damage
count; an input with damaged records skipped is still done), 2 for usage errors, an OUTDIR
done with other settings and an OUTDIR in an input folder.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import pickle
import re
import shutil
import signal
import sys
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

from scrapy.exceptions import DropItem
from scrapy.settings import Settings
from tqdm import tqdm

from wackycrawl.archive import writer as archive_writer
from wackycrawl.archive.reader import ArchiveError, DamagedRecords, capture_item, iter_records
from wackycrawl.cli import error, positive_int, split_tsv_name, tsv_name
from wackycrawl.corpus.output import input_clash
from wackycrawl.distributed import replay
from wackycrawl.pipelines import crawl_worker_id, dropped, rejection
from wackycrawl.pipelines.offline import (
    Chain,
    NamedSettings,
    OfflineContext,
    load_settings,
    window_verdict,
)
from wackycrawl.pipelines.rejects import reject_reasons
from wackycrawl.pipelines.stages import StatsRecorder
from wackycrawl.trec.reader import INDEX_SUFFIX, open_regular
from wackycrawl.trec.writer import docno_part_problem, recover_open_files

logger = logging.getLogger(__name__)

DONE_NAME = "process-done.tsv"
SETTINGS_NAME = "process-settings.json"
#: the files of an input folder that are read (a crawl's WARC folder, a folder of downloads)
ARCHIVE_SUFFIXES = (".warc.gz", ".warc", ".arc.gz", ".arc")
STATE_DIR = ".process"
_chain: Chain | None = None  # a worker's stages
_counter = None  # bytes of input read, shared with the main process


_err = partial(error, "process")


def stage_file(path: str, chain: Chain, spool: str, progress=None) -> dict:
    """Read ``path``, apply the size window and the stateless stages, and pickle what is left
    to ``spool``: ``("item", item)`` for items to finish, ``("drop", url, reason, detail,
    item as dropped or None, message or None)`` for items dropped, each entry ending with the
    response's WARC-Record-ID. Returns ``{"error": str, "stats": calls, "fields": {record id:
    {name: value}}, "damaged": (count, message), "stage_errors": (count, first)}`` (the
    :data:`~wackycrawl.archive.reader.REQUEST_FIELDS` of the crawl's metadata records;
    ``damaged``: the damaged records skipped in a file read to a sound end, ``(0, "")`` if
    none; damage at the end of the file is an ``error``); ``progress`` (if given) is called
    with the compressed bytes read since its last call."""
    settings, stats = chain.context.settings, chain.stats
    counts: dict[str, int] = {}
    fields: dict[str, dict[str, str]] = {}
    staged: set[str] = set()  # the responses that became items: fields wanted
    error, last, damaged = "", 0, (0, "")
    stage_errors = [0, ""]  # pages a stage raised on (a full disk...), the first error
    send_back = reject_reasons(settings)  # dropped items travel on only for the rejects
    try:
        out = open(spool, "wb")  # noqa: SIM115 - closed below, its own error reported
    except OSError as exc:
        return {"error": f"cannot write {spool}: {exc}", "stats": [], "fields": {}}
    with out:
        try:
            for capture in iter_records(path, settings.getint("WACKY_MAX_DOC_BYTES"), counts,
                                        fields):
                if progress:
                    progress(capture.offset - last)
                    last = capture.offset
                stats.inc_value("wacky/process/responses")
                item = capture_item(capture)
                entry = _outside(capture, item, settings, stats)
                if entry:
                    if entry[0] == "drop":
                        pickle.dump((*entry, capture.record_id), out, pickle.HIGHEST_PROTOCOL)
                    continue
                stats.inc_value("wacky/size/in_window")
                staged.add(capture.record_id)
                try:
                    entry = ("item", chain.run_stages(item))
                except DropItem as exc:
                    reason, detail, state = rejection(exc) or ("", "", None)
                    entry = ("drop", item["url"], reason, detail,
                             state if reason in send_back else None, str(exc))
                except Exception as exc:  # a stage's bug: logged, the item dropped
                    logger.exception("stage failed on %s", item["url"])
                    stats.inc_value("wacky/drop/stage_error")
                    entry = ("drop", item["url"], "stage_error", repr(exc), None, None)
                    stage_errors = [stage_errors[0] + 1, stage_errors[1] or repr(exc)]
                pickle.dump((*entry, capture.record_id), out, pickle.HIGHEST_PROTOCOL)
        except DamagedRecords as exc:  # records skipped, the file read on to a sound end
            if exc.tail:  # cut short or still written: read again, it may hold more
                error = str(exc)
            else:
                damaged = (exc.count, str(exc))
        except (ArchiveError, OSError) as exc:
            error = str(exc)
        try:
            out.flush()  # a full disk shows here, not on a close that would raise
        except OSError as exc:
            error = error or f"cannot write {spool}: {exc}"
    if progress:
        progress(max(os.path.getsize(path) - last, 0) if os.path.exists(path) else 0)
    if staged - fields.keys():
        _later_fields(path, staged - fields.keys(), fields)
    for kind, n in counts.items():
        stats.inc_value(f"wacky/process/records/{kind}", n)
    return {"error": error, "stats": stats.take() if isinstance(stats, StatsRecorder) else [],
            "fields": fields, "damaged": damaged,
            "stage_errors": tuple(stage_errors)}


#: a crawl's WARC file name, ``<prefix>-<worker>-<file#>.warc.gz``
_WARC_NAME = re.compile(r"(.*-)(\d{5,})(\.warc\.gz)(\.open)?")
LATER_RECORDS = 1000


def _later_fields(path: str, missing: set[str], fields: dict, limit: int = LATER_RECORDS
                  ) -> None:
    """The metadata records of the last responses of a crawl's WARC file can be in the same
    writer's next file (written once the items left the pipelines, after the file rotated):
    look for ``missing`` ones in its first ``limit`` responses."""
    m = _WARC_NAME.fullmatch(os.path.basename(path))
    if not m:
        return
    name = f"{m.group(1)}{int(m.group(2)) + 1:0{len(m.group(2))}d}{m.group(3)}"
    later = os.path.join(os.path.dirname(path), name)
    if not os.path.isfile(later):
        later += archive_writer.OPEN_SUFFIX
    if not os.path.isfile(later):
        return
    try:
        for n, _ in enumerate(iter_records(later, 1, None, fields)):  # bodies not wanted
            if n >= limit or missing <= fields.keys():
                return
    except (ArchiveError, OSError):  # its damage is reported when it is read itself
        pass


def carry_fields(item: dict | None, found: dict[str, str] | None) -> None:
    """Give ``item`` the request fields the crawl's metadata record held for its response
    (``Depth``, ``Seed-Query``), after ``Raw-Bytes`` as the spider orders them."""
    if not item or not found:
        return
    meta = item.get("meta", {})
    keys = list(meta)
    at = keys.index("Raw-Bytes") + 1 if "Raw-Bytes" in keys else 0
    merged = {k: meta[k] for k in keys[:at]}
    merged.update(found)
    merged.update((k, meta[k]) for k in keys[at:] if k not in found)
    item["meta"] = merged


def _outside(capture, item: dict, settings, stats) -> tuple | None:
    """What the crawl does with a response before the stages, as a spool entry: ``("skip",)``
    for robots.txt (exempt from the size window; not a page) and a redirect or retried status
    (counted ``wacky/process/status/<n>xx``), a ``"drop"`` entry for another non-2xx status
    (``http_<code>``, the spider's drop) or a page the size window refuses; None for a page
    the stages judge."""
    if urlsplit(capture.url).path == "/robots.txt":
        stats.inc_value("wacky/process/robots")
        return ("skip",)
    if not 200 <= capture.status < 300:
        stats.inc_value(f"wacky/process/status/{capture.status // 100}xx")
        retried = {429, 503, *(int(c) for c in settings.getlist("RETRY_HTTP_CODES"))}
        if capture.status < 400 or capture.status in retried:  # 429/503: the back-off's
            return ("skip",)
        stats.inc_value(f"wacky/drop/http_{capture.status}")
        return ("drop", capture.url, f"http_{capture.status}", f"HTTP {capture.status}",
                None, None)
    if capture.damage:  # the archive's record is damaged: no page, whatever it holds
        stats.inc_value("wacky/process/damaged_records")
        verdict = capture.damage, capture.damage_detail
    elif capture.error:
        verdict = "bad_encoding", f"{len(capture.body)} B decoded, {capture.error}"
    elif capture.cut:  # as the crawl's size window judges a stream that ends early
        verdict = "truncated", capture.cut
    else:
        verdict = window_verdict(item, settings, capture.truncated, capture.over)
    if verdict is None:
        return None
    reason, detail = verdict  # counted as the size window middleware does
    stats.inc_value(f"wacky/size/{reason}")
    stats.inc_value(f"wacky/drop/{reason}")
    return ("drop", capture.url, reason, detail, None, None)


class SettingsError(ValueError):
    """A stage refused its settings (in a worker process: reported by the main one)."""


def _init_worker(settings: dict, counter) -> None:
    global _chain, _counter, _refused
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's: it stops the pool
    logging.basicConfig(level=logging.WARNING)
    _counter, _refused = counter, ""
    try:
        _chain = Chain(OfflineContext(NamedSettings(settings), StatsRecorder()), rest=False)
    except ValueError as exc:  # raised here, the pool would start new workers forever
        _refused = str(exc)


def _add(n: int) -> None:
    with _counter.get_lock():
        _counter.value += n


def _task(args: tuple[str, str]) -> dict:
    path, spool = args
    if _refused:
        return {"refused": _refused}
    return stage_file(path, _chain, spool, _add)


def _read_done(outdir: Path) -> dict[str, list[str]]:
    done = {}
    if (outdir / DONE_NAME).exists():
        with open_regular(outdir / DONE_NAME, "r", encoding="utf-8", newline="") as f:
            text = f.read()
        for line in text.split("\n"):
            if line and not line.startswith("#"):
                name, rest = split_tsv_name(line)
                files = rest.partition("\t")[0]  # a third column: damaged records skipped
                done[name] = [f for f in files.split(",") if f]
    return done


def _trec_files(outdir: Path) -> set[str]:
    """TREC files of OUTDIR and its rejects folder, relative to OUTDIR."""
    return {str(p.relative_to(outdir)) for p in outdir.rglob("*.trec.gz")}


def _remove_unfinished(outdir: Path, done: dict[str, list[str]]) -> None:
    listed = {f for files in done.values() for f in files}
    for name in sorted(_trec_files(outdir) - listed):
        logger.warning("removing %s: written for an input that was not finished", name)
        _err(f"removing {name} (output of an unfinished input; it is processed again)")
        (outdir / name).unlink()
        (outdir / (name + INDEX_SUFFIX)).unlink(missing_ok=True)


def _replay(chain: Chain, outdir: Path) -> None:
    """Fill the dedup index with the documents of the inputs done in earlier runs, as a
    resumed crawl does (:mod:`wackycrawl.distributed.replay`)."""
    detectors = [c.detector for c in chain.components if hasattr(c, "detector")]
    n = 0
    for doc in replay.recent_docs(str(outdir)):
        for detector in detectors:
            detector.add(detector.check(doc.text))
        n += 1
    chain.stats.set_value("wacky/process/replayed", n)
    logger.info("resume: %d documents of earlier runs read back into the dedup index", n)


class _Run:
    """The stateful half of a process run, in the main process."""

    def __init__(self, chain: Chain, outdir: Path, shaping: dict[str, str]):
        self.chain, self.outdir = chain, outdir
        self.kept = 0
        self.shaping = shaping  # recorded with the first input done

    def consume(self, spool: str, fields: dict[str, dict[str, str]]) -> str:
        """Finish the items of ``spool`` (then removed); ``""``, or why it could not all be
        read (a spool cut short by a full disk: its entries before the cut are finished)."""
        problem = ""
        try:
            f = open(spool, "rb")  # noqa: SIM115 - closed by the with below
        except OSError as exc:
            return f"cannot read {spool}: {exc}"
        with f:
            while True:
                try:
                    entry = pickle.load(f)
                except EOFError:
                    break
                except (pickle.UnpicklingError, ValueError, OSError) as exc:
                    problem = f"{spool} cut short ({exc}): was the disk full?"
                    break
                if entry[0] == "item":
                    carry_fields(entry[1], fields.get(entry[2]))
                    self.kept += self.chain.finish(entry[1], run_stages=False) is None
                else:
                    _, url, reason, detail, state, message, record_id = entry
                    carry_fields(state, fields.get(record_id))
                    item = state or {"url": url}
                    self.chain.dropped(item, dropped(reason, item, detail, message))
        os.remove(spool)
        return problem

    def mark_done(self, name: str, before: set[str], damaged: int = 0) -> None:
        """List the input ``name`` in DONE_NAME with the TREC files written since ``before``
        (and, in a third column, the number of its ``damaged`` records skipped)."""
        self.chain.checkpoint()
        written = sorted(_trec_files(self.outdir) - before)
        if self.shaping is not None:
            path = self.outdir / SETTINGS_NAME
            path.with_suffix(".tmp").write_text(json.dumps(self.shaping, indent=1) + "\n",
                                                encoding="utf-8")
            os.replace(path.with_suffix(".tmp"), path)
            self.shaping = None
        with open_regular(self.outdir / DONE_NAME, "a", encoding="utf-8") as f:
            f.write(f"{tsv_name(name)}\t{','.join(written)}"
                    + (f"\t{damaged}" if damaged else "") + "\n")
            f.flush()
            os.fsync(f.fileno())


def corpus_settings(overrides: list[str]) -> dict[str, str]:
    """The ``-s`` settings that shape the corpus, as given (the last of a name wins; the
    ``LOG_*`` ones left out): a resumed run must give the same."""
    found = {}
    for pair in overrides:
        name, _, value = pair.partition("=")
        if not name.strip().startswith("LOG_"):
            found[name.strip()] = value
    return dict(sorted(found.items()))


def _settings_text(found: dict[str, str]) -> str:
    return " ".join(f"-s {k}={v}" for k, v in found.items()) or "no -s setting"


def _check_settings(outdir: Path, found: dict[str, str]) -> str:
    """Why OUTDIR cannot take this run (inputs done there with other settings), or ``""``."""
    path = outdir / SETTINGS_NAME
    if not path.exists() or not _read_done(outdir):
        return ""
    try:
        with open_regular(path, "r", encoding="utf-8") as f:
            recorded = json.loads(f.read())
    except (OSError, ValueError) as exc:
        return f"cannot read {path}: {exc}"
    if recorded == found:
        return ""
    return (f"{outdir} holds the corpus of a run with other settings ({_settings_text(recorded)};"
            f" this run: {_settings_text(found)}); the inputs done there would not be read "
            "again: give a new folder (-o), or the same -s settings to resume that run")


def _missing(paths: list[str]) -> str:
    """Why the input ``paths`` cannot be read (the first one missing or no file or folder),
    with a hint for a WARC file still ``.open``; or ``""``."""
    for p in paths:
        if os.path.isfile(p):
            continue
        if os.path.isdir(p):
            if not _folder_inputs(p, with_open=True):
                return f"{p}: no {', '.join(ARCHIVE_SUFFIXES)} file in this folder"
            continue
        if not os.path.exists(p):
            message = f"{p}: no such file or folder"
            folder = os.path.dirname(p) or "."
            left = [n for n in sorted(os.listdir(folder)) if n.endswith(
                archive_writer.SUFFIX + archive_writer.OPEN_SUFFIX)] \
                if os.path.isdir(folder) else []
            if os.path.exists(p + archive_writer.OPEN_SUFFIX) or left:
                message += (f"; {folder} holds {len(left)} WARC file(s) still .open (a crawl "
                            f"that runs, or was killed): give the folder ('wackycrawl process "
                            f"{folder} ...' closes a killed crawl's and reads them) or close "
                            f"them with 'wackycrawl trec recover {folder}'")
            return message
        return f"{p}: neither a file nor a folder"
    return ""


def _folder_inputs(folder: str, with_open: bool = False) -> list[str]:
    """The archive files of ``folder`` in name order (and its ``.warc.gz.open`` ones)."""
    ends = ARCHIVE_SUFFIXES + ((archive_writer.SUFFIX + archive_writer.OPEN_SUFFIX,)
                               if with_open else ())
    return [os.path.join(folder, n) for n in sorted(os.listdir(folder))
            if n.endswith(ends) and os.path.isfile(os.path.join(folder, n))]


def _expand(paths: list[str]) -> list[str]:
    """The input files: a FILE as given, a folder's archive files in name order. A folder's
    ``.warc.gz.open`` files left by a crawl that no longer runs are closed first (cut back to
    their last complete record and renamed, as that crawl's next start does); those a running
    crawl writes are left out."""
    files = []
    for p in paths:
        if not os.path.isdir(p):
            files.append(p)
            continue
        if any(n.endswith(archive_writer.SUFFIX + archive_writer.OPEN_SUFFIX)
               for n in os.listdir(p)):
            refused: list[str] = []
            for rec in recover_open_files(p, archive_writer.SUFFIX, archive_writer.recover_file,
                                          archive_writer.LOCK_NAME, refused):
                _err(f"{rec.path}: left open by a crawl that was stopped; closed as "
                     f"{rec.final or '(removed: no complete record)'}, {rec.records} "
                     f"record(s) kept, {rec.cut_bytes} bytes cut")
            for name in refused:
                _err(f"{name}: not a regular file (a FIFO, a device...); left out, not read")
            for name in _folder_inputs(p, with_open=True):
                if name.endswith(archive_writer.OPEN_SUFFIX):
                    _err(f"{name}: left out, a running crawl writes it")
        files += _folder_inputs(p)
    seen: set[str] = set()  # a file named twice (also through its folder) is read once
    return [f for f in files if not (os.path.realpath(f) in seen or seen.add(os.path.realpath(f)))]


def process(args) -> int:
    outdir = Path(args.outdir)
    try:
        settings = load_settings(args.set, WACKY_OUTPUT_DIR=str(outdir), JOBDIR="",
                                 WACKY_FRONTIER="scrapy")
    except ValueError as exc:
        _err(str(exc))
        return 2
    for name in ("WACKY_DOCNO_PREFIX", "WACKY_WORKER_ID"):  # they name the TREC files
        if (value := settings.get(name)) and (problem := docno_part_problem(value)):
            _err(f"{name}={value}: {problem}; nothing done")
            return 2
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s [%(name)s] %(levelname)s: %(message)s")
    if message := _missing(args.files):  # before anything is written
        _err(f"{message}; nothing done")
        return 1
    if clash := input_clash(str(outdir), args.files):
        _err(f"{clash}: the corpus would be mixed into the archives; give another folder "
             "(-o); nothing done")
        return 2
    if not (outdir / DONE_NAME).exists() and outdir.is_dir() and _trec_files(outdir):
        _err(f"{outdir} holds TREC files but no {DONE_NAME}: give a new folder (or one "
             "written by wackycrawl process)")
        return 2
    shaping = corpus_settings(args.set)
    if message := _check_settings(outdir, shaping):
        _err(message)
        return 2
    context = OfflineContext(settings)
    try:  # before OUTDIR is made: its writers open files only in chain.open()
        chain = Chain(context, stages=args.jobs <= 1)
        if args.jobs > 1:  # the workers build the stages: see here that they can
            Chain(OfflineContext(settings), stages=True, rest=False).close()
    except ValueError as exc:  # a setting a stage refuses (WACKY_LANGUAGES=xx...)
        _err(str(exc))
        return 2
    created = not outdir.exists()
    try:
        return _process(args, outdir, settings, context, chain, shaping)
    except BaseException:
        _remove_if_nothing_done(outdir, created)
        raise


def _remove_if_nothing_done(outdir: Path, created: bool) -> None:
    """Remove OUTDIR when this run made it and no input was done there (a run that failed
    before writing any result leaves no empty folder)."""
    if created and outdir.is_dir() and not _read_done(outdir):
        shutil.rmtree(outdir, ignore_errors=True)


def _process(args, outdir: Path, settings: Settings, context: OfflineContext, chain: Chain,
             shaping: dict[str, str]) -> int:
    created = not outdir.exists()
    outdir.mkdir(parents=True, exist_ok=True)
    done = _read_done(outdir)
    (outdir / DONE_NAME).touch()  # a process output from now on, even if no input is done
    files = _expand(args.files)
    (outdir / STATE_DIR).mkdir(exist_ok=True)
    chain.open()
    _remove_unfinished(outdir, done)
    if done:
        _replay(chain, outdir)
    worker = crawl_worker_id(context)
    args.interrupted = (f"the inputs done are listed in {outdir / DONE_NAME}: the same command "
                        "goes on with the others")
    run = _Run(chain, outdir, shaping)
    todo = [p for p in files if os.path.realpath(p) not in done]
    for p in files:
        if os.path.realpath(p) in done:
            _err(f"{p}: done in an earlier run, skipped")
    sizes = {p: os.path.getsize(p) if os.path.isfile(p) else 0 for p in todo}
    bar = tqdm(total=sum(sizes.values()), unit="B", unit_scale=True, desc="process",
               disable=True if args.no_progress else None, file=sys.stderr)
    tasks = [(p, str(outdir / STATE_DIR / f"spool-{n}.pkl")) for n, p in enumerate(todo)]
    refused = None
    try:
        status = _consume(tasks, _results(tasks, chain, settings, args.jobs, bar), context, run)
    except SettingsError as exc:
        refused = str(exc)
    finally:
        bar.close()
        chain.close()
    if refused is not None:
        _err(refused)
        _remove_if_nothing_done(outdir, created)
        return 2
    stats = context.stats.get_stats()
    (outdir / f"process-stats-{worker}.json").write_text(
        json.dumps(stats, indent=1, sort_keys=True, default=str), encoding="utf-8")
    drops = sorted(((k.rsplit("/", 1)[1], v) for k, v in stats.items()
                    if k.startswith("wacky/drop/")), key=lambda kv: -kv[1])
    failed = stats.get("wacky/process/damaged_files", 0)
    skipped = stats.get("wacky/process/files_with_damaged_records", 0)
    _err(f"{stats.get('wacky/process/files', 0)} file(s) done"
         + (f" ({skipped} with damaged records skipped)" if skipped else "")
         + (f", {failed} failed (not marked done: a rerun reads them again)" if failed else "")
         + f", {stats.get('wacky/process/responses', 0)} responses, "
         f"{stats.get('wacky/size/in_window', 0)} in the size window, docs kept {run.kept}; "
         f"drops: {', '.join(f'{k} {v}' for k, v in drops) or 'none'}")
    return status


def _consume(tasks, results, context: OfflineContext, run: _Run) -> int:
    """Write out each input's staged results in input order; 1 if some input was damaged."""
    status = 0
    for (path, spool), result in zip(tasks, results):
        if "refused" in result:
            raise SettingsError(result["refused"])
        before = _trec_files(run.outdir)
        for method, *call in result["stats"]:
            getattr(context.stats, method)(*call)
        unwritten = context.stats.get_value("wacky/drop/trec_write_error", 0)
        problem = run.consume(spool, result.get("fields", {}))
        unwritten = context.stats.get_value("wacky/drop/trec_write_error", 0) - unwritten
        if unwritten and not result["error"]:  # documents lost unless the input is read again
            problem = problem or (f"{unwritten} document(s) could not be written (the drop "
                                  "trec_write_error; a full disk?)")
        errors, first = result.get("stage_errors", (0, ""))
        if errors and not result["error"]:  # pages a stage could not judge: read it again
            problem = problem or (f"{errors} page(s) failed in a stage (the drop stage_error, "
                                  f"first: {first}; a full disk, a model that cannot be "
                                  "unpacked?)")
        if result["error"] or problem:  # not marked done: a second run removes its output,
            message = result["error"] or problem  # reads it again; an ArchiveError names the file
            _err(message if message.startswith(f"{path}: ") else f"{path}: {message}")
            context.stats.inc_value("wacky/process/damaged_files")
            run.chain.checkpoint()  # its TREC file closed: the next input's go to new ones
            status = 1
            continue
        damaged, message = result.get("damaged", (0, ""))
        if damaged:  # skipped, the rest read to a sound end: done, the count recorded
            logger.info("%s (%d damaged record(s) skipped, the others read)", message, damaged)
            _err(f"{message}; {damaged} damaged record(s) skipped, the others read: marked "
                 "done")
            context.stats.inc_value("wacky/process/files_with_damaged_records")
            status = 1
        run.mark_done(os.path.realpath(path), before, damaged)
        context.stats.inc_value("wacky/process/files")
    return status


def _results(tasks, chain: Chain, settings: Settings, jobs: int, bar):
    """Yield the result of :func:`stage_file` for each task, in task order."""
    if jobs <= 1:
        for path, spool in tasks:
            yield stage_file(path, chain, spool, bar.update)
        return
    ctx = multiprocessing.get_context("spawn")
    counter = ctx.Value("q", 0)
    with ctx.Pool(jobs, _init_worker, (settings.copy_to_dict(), counter)) as pool:
        results, seen = pool.imap(_task, tasks), 0
        while True:
            try:
                result = results.next(timeout=0.5)
            except multiprocessing.TimeoutError:
                result = None
            except StopIteration:
                break
            bar.update(counter.value - seen)
            seen = counter.value
            if result is not None:
                yield result
    bar.update(counter.value - seen)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "process", help="run the crawl's stages over WARC/ARC files and write a corpus")
    parser.add_argument("files", nargs="+", metavar="FILE|DIR",
                        help=".warc, .warc.gz, .arc, .arc.gz files, or folders of them (a "
                             "crawl's WARC folder: its files left .open by a killed crawl "
                             "are closed first)")
    parser.add_argument("-o", "--outdir", required=True, metavar="OUTDIR")
    parser.add_argument("-j", "--jobs", type=positive_int, default=1, metavar="N",
                        help="worker processes for the stages (default 1: all in this one)")
    parser.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting, as with scrapy crawl -s (repeatable)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="log every drop (INFO) on stderr")
    parser.set_defaults(func=process)
