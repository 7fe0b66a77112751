"""``wackycrawl filter CORPUS... -o OUTDIR``: re-decide a corpus and its rejects with other
thresholds and write a new corpus, without crawling again.

CORPUS is a corpus directory (its ``*.trec.gz`` and ``rejects/*.trec.gz``) or TREC files
(a file under a ``rejects`` folder, or with ``-rejects-`` in its name, counts as rejected).
The thresholds are the crawl's own settings, given as ``-s NAME=VALUE`` with the crawl's
defaults (``wackycrawl.settings``): ``WACKY_LANGUAGES``, ``WACKY_MIN_CLEAN_WORDS``,
``WACKY_BADWORDS_*``, ``WACKY_MIN_FUNCWORD_TYPES``/``_TOKENS``/``_RATIO``,
``WACKY_LID_*``, ``WACKY_LANGUAGE_ENABLED``, ``WACKY_DEDUP_ENABLED``, ``WACKY_SIMHASH_K``,
``WACKY_SIMHASH_MIN_FEATURES``, ``WACKY_NEAR_RESEMBLANCE``, ``WACKY_SHINGLE_SIZE``,
``WACKY_SHINGLE_SKETCH_SIZE``; ``--languages`` is short for ``-s WACKY_LANGUAGES=``.
``--dedup exact`` keeps near duplicates (exact ones still go), ``--dedup off`` keeps both.
Kept documents go to OUTDIR as TREC files (new DOCNOs; ``X-Wacky-Source-Docno`` names the
input document), the documents now rejected to ``OUTDIR/rejects/`` with
``X-Wacky-Rejected`` (``--no-rejects``: not written). The new corpus is written into
``OUTDIR.partial`` and moved into OUTDIR once complete (:mod:`wackycrawl.corpus.output`):
after an error, a damaged input, Ctrl-C or SIGTERM nothing is left, and the same command can
run again; a Ctrl-C or SIGTERM after the move (while the summary is printed) exits 0.
Decisions: :mod:`wackycrawl.corpus.refilter`. Exit codes: 0 done, 1 unreadable
input, an input that is no TREC file or a damaged file (nothing written; run ``wackycrawl trec
recover`` on it), 2 usage errors (a setting the crawl would refuse too; an OUTDIR that
exists and is no folder), 130 interrupted.
"""

import os
import sys
from collections import Counter
from functools import partial

from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings
from scrapy.utils.misc import load_object

from wackycrawl.cli import damage_exit, error, note_left_open, work_done
from wackycrawl.corpus.refilter import DEDUP_MODES, Policy, Refilter
from wackycrawl.corpus.output import PARTIAL, PartialDir, not_a_folder
from wackycrawl.crawl.settingnames import check_names
from wackycrawl.corpus.source import (
    INPUT_ERRORS,
    REJECTS_SUBDIR,
    SourceErrors,
    corpus_files,
    iter_corpus,
    nothing_found,
    repeated_note,
)
from wackycrawl.pipelines.dedup import near_settings
from wackycrawl.pipelines.offline import NamedSettings
from wackycrawl.pipelines.stages import StageContext, StatsRecorder
from wackycrawl.trec import writer

SOURCE_DOCNO = "Source-Docno"


_err = partial(error, "filter")


def crawl_settings(pairs: list[str]) -> NamedSettings:
    """The crawl's settings (``wackycrawl.settings``) with ``NAME=VALUE`` overrides; raises
    ValueError for a pair without ``=`` and for a ``WACKY_`` name that is no setting
    (:func:`wackycrawl.crawl.settingnames.check_names`)."""
    settings = NamedSettings()
    settings.setmodule("wackycrawl.settings", priority="project")
    names = []
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"-s wants NAME=VALUE, not {pair!r}")
        names.append(name.strip())
        settings.set(name.strip(), value, priority="cmdline")
    check_names(names)
    return settings


def _stage(path: str, settings: Settings):
    """The crawl's stage ``path`` built from ``settings`` (None when it is turned off)."""
    try:
        return load_object(path).from_crawler(StageContext(settings, StatsRecorder()))
    except NotConfigured:
        return None


def policy_from_settings(settings: Settings, dedup: str = "near",
                         recompute_language: bool = False) -> Policy:
    """The :class:`Policy` of a crawl with ``settings``: its filters and language stages as
    the crawl builds them, and its dedup thresholds. Raises ValueError for a bad setting
    (unknown language code, dedup mode, a dedup threshold out of range), OSError for an
    unreadable bad-words file."""
    filters = _stage("wackycrawl.pipelines.filters.FiltersPipeline", settings)
    language = _stage("wackycrawl.pipelines.language.LanguagePipeline", settings)
    near = near_settings(settings)
    return Policy(
        text_filter=filters.filter if filters else None,
        identifier=language.identifier if language else None,
        targets=tuple(language.targets) if language else (),
        **({"prose": language.prose} if language else {}),
        dedup=dedup if settings.getbool("WACKY_DEDUP_ENABLED", True) else "off",
        k=near.pop("k"), min_features=near.pop("min_features"),
        recompute_language=recompute_language, near=near)


def is_reject_file(path: str) -> bool:
    return (os.path.basename(os.path.dirname(os.path.abspath(path))) == REJECTS_SUBDIR
            or "-rejects-" in os.path.basename(path))


def run(args) -> int:
    open_files: list[str] = []
    repeated: list[tuple[str, str]] = []
    for option, value in (("--prefix", args.prefix), ("--worker", args.worker)):
        if value and (problem := writer.docno_part_problem(value)):
            _err(f"{option}: {problem}; nothing written")
            return 2
    try:
        settings = crawl_settings(args.set + ([f"WACKY_LANGUAGES={args.languages}"]
                                              if args.languages is not None else []))
        refilter = Refilter(policy_from_settings(settings, args.dedup, args.recompute_language))
    except ValueError as exc:  # a setting the crawl refuses too: a usage error
        _err(str(exc))
        return 2
    except OSError as exc:  # a bad-words file that cannot be read
        _err(str(exc))
        return 1
    try:
        files = corpus_files(args.corpus, rejects=True, open_files=open_files,
                             repeated=repeated)
    except INPUT_ERRORS as exc:  # a corpus path that cannot be read, or no TREC file
        _err(str(exc))
        return 1
    note_left_open("filter", open_files)
    if repeated:
        _err(repeated_note(repeated))
    if not files:
        _err(nothing_found(args.corpus))
        return 1
    if problem := not_a_folder(args.output):
        _err(problem)
        return 2
    out = os.path.abspath(args.output)
    outputs = [d for o in (out, out + PARTIAL) for d in (o, os.path.join(o, REJECTS_SUBDIR))]
    if any(os.path.abspath(os.path.dirname(f)) in outputs for f in files):
        _err(f"{args.output} holds input files; write the new corpus elsewhere")
        return 1
    if existing := corpus_files([args.output], rejects=True) if os.path.isdir(out) else []:
        _err(f"{args.output} already holds a corpus ({len(existing)} TREC files): the new one "
             "would be mixed into it; write it to a new folder")
        return 1
    args.interrupted = f"nothing written to {args.output}"
    with PartialDir(args.output) as staged:
        counts = _refilter(args, refilter, files, staged.partial, errors := SourceErrors())
        if counts is None:
            return 1
        if errors.damaged:
            damage_exit("filter", errors.damaged)
            _err(f"nothing written to {args.output}: an input file is damaged")
            return 1
        staged.commit()
        work_done(args, f"{args.output} is complete")
    drops = ", ".join(f"{k} {v}" for k, v in counts.most_common()
                      if k not in ("read", "kept", "kept_files", "reject_files"))
    print(f"read {counts['read']} documents ({counts['kept_files']} kept and "
          f"{counts['reject_files']} rejects files), kept {counts['kept']}; rejected: "
          f"{drops or 'none'}; language identified again for {refilter.reidentified}",
          file=sys.stderr)
    return 0


def _refilter(args, refilter: Refilter, files: list[str], directory: str,
              errors: SourceErrors) -> Counter | None:
    """Decide the documents of ``files`` and write the new corpus into ``directory``: the
    counts, or None after an error line when it cannot be written."""
    counts = Counter()
    kept_files = [f for f in files if not is_reject_file(f)]
    reject_files = [f for f in files if is_reject_file(f)]
    counts["kept_files"], counts["reject_files"] = len(kept_files), len(reject_files)
    worker = args.worker or writer.default_worker_id()
    kept_out = writer.TrecWriter(directory, args.prefix, worker)
    rejects_out = None if args.no_rejects else writer.TrecWriter(
        os.path.join(directory, REJECTS_SUBDIR), args.prefix, worker + "-rejects")
    try:
        for doc, rejection in refilter.run(iter_corpus(kept_files, errors),
                                           iter_corpus(reject_files, errors)):
            doc.meta[SOURCE_DOCNO] = doc.docno
            counts["read"] += 1
            if rejection is None:
                kept_out.write(doc)
                counts["kept"] += 1
            else:
                counts[rejection.reason] += 1
                if rejects_out:
                    rejects_out.write(doc)
    except OSError as exc:
        _err(f"cannot write: {exc}")
        return None
    finally:
        kept_out.close()
        if rejects_out:
            rejects_out.close()
    return counts


def register(subparsers) -> None:
    p = subparsers.add_parser("filter", help="re-decide a corpus and its rejects with other "
                                             "thresholds, write a new corpus")
    p.add_argument("corpus", nargs="+", metavar="CORPUS", help="corpus directory or TREC files")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR")
    p.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a crawl setting (repeatable), e.g. -s WACKY_MIN_CLEAN_WORDS=100")
    p.add_argument("--languages", help="languages to keep, e.g. en or en,de ('' keeps all)")
    p.add_argument("--dedup", choices=DEDUP_MODES, default="near",
                   help="near: drop exact and near duplicates (default); exact: keep near "
                        "duplicates; off: keep all")
    p.add_argument("--recompute-language", action="store_true",
                   help="identify every text again instead of reading its stored scores")
    p.add_argument("--no-rejects", action="store_true", help="do not write OUTDIR/rejects/")
    p.add_argument("--prefix", default=writer.PREFIX, help="DOCNO prefix (default: WACKY)")
    p.add_argument("--worker", default="", help="DOCNO worker part (default: time + hash)")
    p.set_defaults(func=run)
