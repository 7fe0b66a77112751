"""Write a corpus report: ``report.json``, ``report.html`` with PNG plots, ``freq.tsv``.

From a :class:`wackycrawl.corpus.stats.CorpusStats`: ``report.json`` holds every number
(:meth:`CorpusStats.summary`); ``report.html`` is one self-contained page (no script, no
network; the PNGs beside it are referenced by relative name) with the same numbers and the
plots ``zipf.png`` (rank-frequency on log-log axes, the fitted line and Zipf's
``P_r = 0.1/r``), ``heaps.png`` (vocabulary growth and the fitted ``V = K n^beta``),
``doclength.png`` (tokens per document, log-spaced bins), ``tlds.png`` and
``languages.png``. ``freq.tsv`` is the frequency list, ``type TAB count`` from the most
frequent down (ties in corpus order), which ``wackycrawl tuples`` reads: the next crawl's seeds can
come from this corpus (BootCaT). Plots use matplotlib's Agg backend (no display needed).
"""

from __future__ import annotations

import html
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from wackycrawl.corpus.stats import HEAPS_MIN_N, CorpusStats  # noqa: E402

PLOTS = ("zipf.png", "heaps.png", "doclength.png", "tlds.png", "languages.png")
DPI = 100
#: every file :func:`write_report` writes into its folder
OUTPUT_FILES = ("freq.tsv", *PLOTS, "report.json", "report.html")


def write_frequency_list(stats: CorpusStats, path: str) -> int:
    """``freq.tsv``: ``type TAB count`` lines, most frequent first (ties in corpus order);
    returns the line count. Sorts an index array (8 bytes a type), not (type, count) pairs."""
    words = list(stats.freq)
    counts = np.fromiter(stats.freq.values(), dtype=np.int64, count=len(words))
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for i in np.argsort(-counts, kind="stable"):
            f.write(f"{words[i]}\t{counts[i]}\n")
    return len(words)


def _save(fig, path: str) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, format="png")
    plt.close(fig)


def _zipf(stats: CorpusStats, summary: dict, path: str) -> None:
    freqs = stats.ranked()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    if len(freqs):
        # 2,000 geometrically spaced ranks: the plot of a 10M-type corpus stays small
        ranks = np.unique(np.geomspace(1, len(freqs), 2000).astype(np.int64))
        ax.loglog(ranks, freqs[ranks - 1] / stats.tokens, ".", ms=3, label="corpus")
        ax.loglog(ranks, 0.1 / ranks, "--", color="grey", label="$P_r = 0.1/r$")
        z = summary["zipf"]
        if z["exponent"] is not None:
            ax.loglog(ranks, z["constant"] / ranks ** z["exponent"], color="C3",
                      label=f"fit $P_r = {z['constant']:.3g}/r^{{{z['exponent']:.3g}}}$")
    ax.set(xlabel="rank r", ylabel="probability $P_r$", title="Zipf: rank-frequency")
    if len(freqs):
        ax.legend()
    _save(fig, path)


def _heaps(stats: CorpusStats, summary: dict, path: str) -> None:
    points = np.array(stats.heaps_curve() or [(0, 0)], dtype=float)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot(points[:, 0], points[:, 1], ".-", ms=3, label="corpus")
    h = summary["heaps"]
    if h["K"] is not None:
        n = points[points[:, 0] >= HEAPS_MIN_N, 0]
        ax.plot(n, h["K"] * n ** h["beta"], "--", color="C3",
                label=f"fit $V = {h['K']:.3g}\\,n^{{{h['beta']:.3g}}}$")
    ax.set(xlabel="tokens n", ylabel="vocabulary V (types)", title="Heaps: vocabulary growth")
    ax.legend()
    _save(fig, path)


def _doclength(stats: CorpusStats, path: str) -> None:
    lengths = np.array(sorted(stats.doc_lengths), dtype=float)
    weights = np.array([stats.doc_lengths[int(n)] for n in lengths], dtype=float)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    if len(lengths):
        lo, hi = max(lengths.min(), 1), max(lengths.max(), 2)
        ax.hist(lengths, bins=np.geomspace(lo, hi * 1.01, 30), weights=weights)
        ax.set_xscale("log")
    ax.set(xlabel="tokens per document", ylabel="documents", title="Document length")
    _save(fig, path)


def _literal(label: str) -> str:
    """A label from the data (a TLD, a language) as matplotlib shows it literally: a ``$``
    escaped, or a pair of them would be read as math (and fail on what is no TeX)."""
    return label.replace("$", r"\$")


def _bars(path: str, title: str, rows: list[tuple[str, int, int]]) -> None:
    fig, ax = plt.subplots(figsize=(6, max(2.5, 0.3 * len(rows) + 1)))
    names = [_literal(r[0]) for r in rows][::-1]
    ax.barh(names, [r[2] for r in rows][::-1])
    ax.set(xlabel="tokens", title=title)
    _save(fig, path)


def _table(headers: list[str], rows) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _html(summary: dict, title: str) -> str:
    s = summary
    z, h, d = s["zipf"], s["heaps"], s["document_tokens"]
    sizes = [("documents", s["documents"]), ("paragraphs", s["paragraphs"]),
             ("sentences", s["sentences"]), ("tokens", s["tokens"]), ("types", s["types"]),
             ("type/token ratio", s["type_token_ratio"]),
             ("hapax legomena (types seen once)", s["hapax_legomena"]),
             ("hapax share of types", s["hapax_share_of_types"]),
             ("dis legomena", s["dis_legomena"]),
             ("Zipf exponent s, constant A (P_r = A/r^s)", f"{z['exponent']}, {z['constant']}"),
             ("Heaps K, beta (V = K n^beta)", f"{h['K']}, {h['beta']}"),
             ("tokens per document (min, 25th percentile, median, 75th percentile, "
              "95th percentile, mean, max)",
              ", ".join(str(d.get(k)) for k in ("min", "p25", "median", "p75", "p95", "mean",
                                                "max")))]
    tlds = [(k, v["documents"], v["tokens"]) for k, v in s["tlds"].items()]
    hosts = [(k, v["documents"], v["tokens"]) for k, v in s["hosts"].items()]
    langs = s["languages"]
    lang_rows = [(k, v, langs["tokens_by_paragraph"].get(k, 0))
                 for k, v in langs["documents"].items()]
    parts = [f"<h1>{html.escape(title)}</h1>", "<h2>Size</h2>",
             _table(["measure", "value"], sizes),
             '<h2>Zipf and Heaps</h2><img src="zipf.png" alt="Zipf plot">'
             '<img src="heaps.png" alt="Heaps plot">',
             '<h2>Document length</h2><img src="doclength.png" alt="document lengths">',
             '<h2>Top-level domains</h2><img src="tlds.png" alt="tokens per TLD">',
             _table(["TLD", "documents", "tokens"], tlds),
             f"<h2>Top hosts (of {s['hosts_total']})</h2>",
             _table(["host", "documents", "tokens"], hosts),
             '<h2>Languages</h2><img src="languages.png" alt="languages">',
             _table(["language", "documents", "tokens (by paragraph)"], lang_rows)]
    if s.get("drops") is not None:
        parts += ["<h2>Drop reasons (crawl stats)</h2>",
                  _table(["reason", "pages"], s["drops"].items())]
    style = ("body{font-family:sans-serif;max-width:1000px;margin:auto}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
             "padding:2px 8px;text-align:left}img{max-width:49%}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>'
            f"{html.escape(title)}</title><style>{style}</style></head><body>\n"
            + "\n".join(parts) + "\n</body></html>\n")


def write_report(stats: CorpusStats, directory: str, title: str = "Corpus report",
                 drops: dict[str, int] | None = None) -> dict:
    """Write the report files into ``directory`` (created); returns the summary written to
    ``report.json``. Raises OSError if the directory cannot be written."""
    os.makedirs(directory, exist_ok=True)
    summary = stats.summary(drops)
    summary["files"] = {"frequency_list": "freq.tsv", "plots": list(PLOTS)}
    path = os.path.join
    write_frequency_list(stats, path(directory, "freq.tsv"))
    _zipf(stats, summary, path(directory, "zipf.png"))
    _heaps(stats, summary, path(directory, "heaps.png"))
    _doclength(stats, path(directory, "doclength.png"))
    _bars(path(directory, "tlds.png"), "Tokens per TLD",
          [(k, v["documents"], v["tokens"]) for k, v in list(summary["tlds"].items())[:20]])
    _bars(path(directory, "languages.png"), "Tokens per paragraph language",
          [(k, 0, v) for k, v in list(summary["languages"]["tokens_by_paragraph"].items())[:20]])
    with open(path(directory, "report.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, ensure_ascii=False, indent=1)
    with open(path(directory, "report.html"), "w", encoding="utf-8") as f:
        f.write(_html(summary, title))
    return summary
