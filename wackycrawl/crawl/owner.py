"""Which crawl an output folder's TREC files belong to, so no crawl writes another's documents
into it a second time; the raw archive's folder (WACKY_WARC_DIR) is marked and judged alike,
so no crawl mixes its WARC files into another's.

A crawl names itself by :func:`identity`: ``jobdir <absolute JOBDIR>`` (resumable, one folder
per JOBDIR), ``redis <crawl name>`` (the workers of one distributed crawl share a folder), or
``once <worker id>`` (a crawl without JOBDIR or Redis, never resumed). The output folder keeps
the name of the crawl writing it in :data:`MARKER`, and a JOBDIR the folder its crawl writes in
:data:`JOBDIR_RECORD` (an absolute path), both one line of UTF-8 text.

:func:`refusal` says why a crawl may not start on a folder: its TREC files belong to another
crawl (the marker names another one), or a resumed JOBDIR crawl was given another folder than
the one its documents went to (which still exists). A folder without TREC files is anybody's:
its marker is rewritten, unless the crawl it names runs now (it holds :data:`LIVE_LOCK`) or is
a JOBDIR crawl whose JOBDIR still records this folder (stopped before its first document, it
is resumed into it). Files written before markers existed carry none and are judged by
the older rule (a new crawl refuses any folder holding TREC files).
"""

from __future__ import annotations

import fcntl
import os

MARKER = "wacky-crawl.txt"
JOBDIR_RECORD = "wacky-output.txt"
#: the Redis identity (``wacky:NAME:id``) of the distributed crawl whose documents the folder
#: holds: a Redis that lost the crawl's state is found out even by a worker started later
CRAWL_ID_RECORD = "wacky-crawl-id.txt"
#: held (a shared ``flock``) by every crawl writing into the folder while it runs
LIVE_LOCK = ".wacky-crawl.lock"


def identity(jobdir: str | None, redis_crawl: str | None, worker: str) -> str:
    """The crawl's name in a marker: Redis wins (its workers may also have JOBDIRs)."""
    if redis_crawl:
        return f"redis {redis_crawl}"
    if jobdir:
        return f"jobdir {os.path.abspath(jobdir)}"
    return f"once {worker}"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def read_marker(output: str) -> str | None:
    """The name of the crawl that writes (or wrote) into ``output``, as :func:`identity`
    gives it, or None when the folder has no marker."""
    return _read(os.path.join(output, MARKER))


def describe(name: str) -> str:
    """A marker's crawl for a person: ``the distributed crawl demo`` ..."""
    kind, _, rest = name.partition(" ")
    return {"redis": f"the distributed crawl {rest}", "jobdir": f"the crawl of JOBDIR {rest}",
            "once": f"a crawl without JOBDIR ({rest})"}.get(kind, name)


def refusal(output: str, me: str, jobdir: str | None, has_trec_files: bool,
            setting: str = "WACKY_OUTPUT_DIR") -> str | None:
    """Why the crawl named ``me`` may not write into ``output``, or None. ``jobdir`` is the
    crawl's JOBDIR when it resumes one (its record is read), ``has_trec_files`` whether
    ``output`` holds TREC files now. With ``setting="WACKY_WARC_DIR"`` ``output`` is the
    raw archive's folder and ``has_trec_files`` whether it holds WARC files (give no
    ``jobdir``: a JOBDIR records its TREC folder only)."""
    out = os.path.abspath(output)
    if jobdir and (before := _read(os.path.join(jobdir, JOBDIR_RECORD))) and before != out \
            and os.path.isdir(before):
        return (f"JOBDIR {jobdir} wrote its documents to {before}; resume it with -s "
                f"WACKY_OUTPUT_DIR={before} (another folder would get them a second time)")
    owner = _read(os.path.join(output, MARKER))
    if not has_trec_files and owner and owner != me:
        if in_use(output):
            return (f"{setting} {output} is the folder of {describe(owner)}, which is running "
                    f"now; this crawl ({describe(me)}) would mix its documents into theirs: "
                    "give it a folder of its own")
        other = owner.removeprefix("jobdir ")
        if setting == "WACKY_OUTPUT_DIR" and owner.startswith("jobdir ") and \
                _read(os.path.join(other, JOBDIR_RECORD)) == out:
            return (f"{setting} {output} is the folder of {describe(owner)}, which has written "
                    f"no document yet and is resumed into it; this crawl ({describe(me)}) "
                    f"would mix its documents into theirs: give it a folder of its own (or "
                    f"remove {other} if that crawl is abandoned)")
    if has_trec_files and owner and owner != me:
        if setting == "WACKY_WARC_DIR":
            return (f"WACKY_WARC_DIR {output} holds the WARC files of {describe(owner)}; this "
                    f"crawl ({describe(me)}) would mix its archive into theirs: give it a "
                    "folder of its own")
        return (f"{setting} {output} holds the documents of {describe(owner)}; this crawl "
                f"({describe(me)}) would write them again: give it a folder of its own")
    return None


def claim(output: str, me: str, jobdir: str | None) -> None:
    """Record that ``me`` writes into ``output`` (and, with a JOBDIR, the folder in it).
    Raises OSError if a record cannot be written."""
    os.makedirs(output, exist_ok=True)
    _write(os.path.join(output, MARKER), me)
    if jobdir:
        os.makedirs(jobdir, exist_ok=True)
        _write(os.path.join(jobdir, JOBDIR_RECORD), os.path.abspath(output))


def read_crawl_id(output: str) -> str | None:
    """The Redis identity recorded in ``output`` (:data:`CRAWL_ID_RECORD`), or None."""
    return _read(os.path.join(output, CRAWL_ID_RECORD))


def record_crawl_id(output: str, crawl_id: str) -> None:
    """Record the Redis identity of the crawl writing into ``output``. Raises OSError."""
    _write(os.path.join(output, CRAWL_ID_RECORD), crawl_id)


def _write(path: str, text: str) -> None:
    if _read(path) == text:
        return
    tmp = f"{path}.{os.getpid()}.tmp"  # workers of one crawl starting at once write it too
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    os.replace(tmp, path)


def in_use(folder: str) -> bool:
    """Whether a running crawl holds ``folder`` (:func:`hold`)."""
    try:
        with open(os.path.join(folder, LIVE_LOCK), "rb") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
    except OSError:
        return False
    return False


def hold(folder: str):
    """Mark ``folder`` as written by this running process until it exits (a shared lock:
    the workers of one distributed crawl hold it together); returns the open lock file, or
    None when it cannot be made."""
    try:
        f = open(os.path.join(folder, LIVE_LOCK), "ab")  # noqa: SIM115 - held while we run
    except OSError:
        return None
    try:
        fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        f.close()
        return None
    return f
