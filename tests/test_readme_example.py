"""The example document in README.md is one a crawl writes: it parses, passes the strict
reader's rules, carries every metadata line of a kept document and its counts are its own."""

from __future__ import annotations

import re

from tests.clirun import ROOT
from wackycrawl.trec.format import parse_doc, strict_problems

# the X-Wacky- lines every kept document of a crawl has (pipelines text, boilerplate,
# language, dedup), in the order the stages write them
KEPT_META = ["Raw-Bytes", "Depth", "Encoding", "Encoding-Evidence", "Extractor", "Clean-Chars",
             "Boilerplate-Share", "Template-Blocks", "Language", "Language-Score",
             "Language-Method", "Language-Top2", "Funcword-Share", "Funcword-Types",
             "Funcword-Tokens", "Language-Mix", "Language-Foreign", "Simhash", "Checksum",
             "Near-Distance", "Near-Resemblance", "Near-Of"]


def _example() -> bytes:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"One document[^\n]*\n(?:[^\n]+\n)*\n```\n(<DOC>\n.*?</DOC>\n)```", readme,
                      re.S)
    assert found, "no example document in README.md"
    return found.group(1).encode("utf-8")


def test_the_readme_example_document_is_a_true_one():
    data = _example()
    assert strict_problems(data) == []
    doc = parse_doc(data)
    assert list(doc.meta) == KEPT_META
    assert int(doc.meta["Clean-Chars"]) == len(doc.text)
    assert int(doc.meta["Raw-Bytes"]) == doc.raw_length


def test_the_refilter_examples_keep_the_crawls_language_filter():
    """filter starts from the project's defaults (WACKY_LANGUAGES ""): an example re-filtering
    the en,de crawl without --languages would re-admit every other language."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("## Rejects and re-filtering"):readme.index("## Export:")]
    examples = re.findall(r"^    wackycrawl filter corpus .*$", block, re.M)
    assert len(examples) >= 3
    for line in examples:
        assert "--languages " in line, line


def test_the_crawl_section_is_not_called_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## The two commands" not in readme and "## Running a crawl" in readme
