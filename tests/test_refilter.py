"""``wackycrawl.corpus.refilter`` and ``wackycrawl filter`` on hand-made corpora (no crawl)."""

from __future__ import annotations

import pytest

from tests.corpusweb import bilingual_pair
from tests.webpages import prose
from wackycrawl.cli import main
from wackycrawl.cli.filter import crawl_settings, policy_from_settings
from wackycrawl.corpus.refilter import Policy, Refilter
from wackycrawl.corpus.source import corpus_files, iter_corpus
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.writer import TrecWriter


def doc(url, paragraphs, **meta) -> TrecDoc:
    return TrecDoc(url=url, paragraphs=paragraphs, meta=dict(meta))


def policy(*pairs, **kw) -> Policy:
    return policy_from_settings(crawl_settings(list(pairs)), **kw)


def test_policy_defaults_are_the_crawl_settings():
    p = policy()
    assert (p.text_filter.min_words, p.k, p.prose["min_types"], p.targets) == (30, 11, 10, ())
    assert policy("WACKY_LANGUAGES=en,de", "WACKY_SIMHASH_K=5").targets == ("en", "de")
    assert policy("WACKY_LANGUAGE_ENABLED=False").identifier is None
    assert policy("WACKY_DEDUP_ENABLED=False").dedup == "off"
    with pytest.raises(ValueError):
        Policy(dedup="sometimes")
    with pytest.raises(ValueError):
        policy("WACKY_LANGUAGES=xx-nonsense")
    with pytest.raises(ValueError):
        crawl_settings(["WACKY_LANGUAGES"])


def test_stored_scores_decide_and_missing_ones_are_computed():
    r = Refilter(policy("WACKY_LANGUAGES=en"))
    stored = doc("http://a/", prose(1), Language="de", **{
        "Language-Score": "0.9", "Language-Method": "funcwords", "Funcword-Types": "40",
        "Funcword-Tokens": "400", "Funcword-Share": "0.500"})
    rejection = r.decide(stored)  # the stored label wins: no identification
    assert rejection.reason == "wrong_language" and r.reidentified == 0
    assert stored.meta["Rejected"] == "wrong_language"
    fresh = doc("http://b/", prose(2))
    assert r.decide(fresh) is None and r.reidentified == 1
    assert fresh.meta["Language"] == "en" and "Rejected" not in fresh.meta
    border = doc("http://c/", prose(3), **{**stored.meta, "Language": "en",
                                             "Funcword-Share": "0.250"})
    r.decide(border)
    assert r.reidentified == 2  # 0.250 may be 0.2496 before rounding: read again


def test_length_and_badwords_are_recomputed_from_the_text():
    r = Refilter(policy("WACKY_MIN_CLEAN_WORDS=5000"))
    assert r.decide(doc("http://a/", prose(1))).reason == "too_short"
    assert Refilter(policy()).decide(doc("http://a/", ["two words"])).reason == "too_short"


def _cross_pair():
    german, english = bilingual_pair()
    return doc("http://de/", german), doc("http://en/", english)


@pytest.mark.parametrize(("mode", "reason"), [("near", "near_duplicate"), ("exact", None),
                                               ("off", None)])
def test_dedup_modes(mode, reason):
    german, _ = _cross_pair()
    edited = list(german.paragraphs)
    edited[0] = "Neu: " + edited[0]  # a near copy: the same text with one word more
    r = Refilter(policy(dedup=mode))
    assert r.decide(german) is None
    found = r.decide(doc("http://edited/", edited))
    assert (found.reason if found else None) == reason
    copy = doc("http://copy/", list(german.paragraphs))
    found = r.decide(copy)
    assert (found.reason if found else None) == (None if mode == "off" else "exact_duplicate")


def test_a_near_duplicate_of_a_dropped_document_comes_back():
    german, english = _cross_pair()
    both = Refilter(policy("WACKY_LANGUAGES=en,de"))
    assert [rejection for _, rejection in both.run([german], [english])][1].reason == \
        "near_duplicate"
    german, english = _cross_pair()
    english.meta.update(Rejected="near_duplicate")
    r = Refilter(policy("WACKY_LANGUAGES=en"))
    out = list(r.run([german], [english]))
    assert out[0][1].reason == "wrong_language"
    assert out[1][1] is None and "Rejected" not in english.meta


def _write(directory, docs, worker="w1"):
    with TrecWriter(str(directory), worker=worker) as w:
        for d in docs:
            w.write(d)


def test_filter_command_writes_kept_and_rejects_and_refuses_its_input(tmp_path, capsys):
    src = tmp_path / "corpus"
    _write(src, [doc("http://a/", prose(1)), doc("http://d/", prose(2, lang="de"))])
    _write(src / "rejects", [doc("http://s/", ["a few words"], Rejected="too_short")],
           worker="w1-rejects")
    assert main(["filter", str(src), "-o", str(tmp_path / "out"), "--languages", "en"]) == 0
    kept = list(iter_corpus(corpus_files([str(tmp_path / "out")])))
    rejected = list(iter_corpus(corpus_files([str(tmp_path / "out" / "rejects")])))
    assert [d.url for d in kept] == ["http://a/"]
    assert {d.url: d.meta["Rejected"] for d in rejected} == {
        "http://d/": "wrong_language", "http://s/": "too_short"}
    assert "read 3 documents" in capsys.readouterr().err
    assert main(["filter", str(src), "-o", str(src)]) == 1
    capsys.readouterr()
    # run again into the same folder: refused, not mixed into the first run's corpus
    assert main(["filter", str(src), "-o", str(tmp_path / "out")]) == 1
    assert "already holds a corpus" in capsys.readouterr().err
    assert len(list(iter_corpus(corpus_files([str(tmp_path / "out")])))) == 1


def test_corpus_commands_on_a_folder_without_trec_files_say_so(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    for argv in (["filter", str(empty), "-o", str(tmp_path / "f")],
                 ["export", str(empty), "--format", "txt"],
                 ["report", str(empty), "-o", str(tmp_path / "r")]):
        assert main(argv) == 1
        assert f"no .trec.gz file in {empty}" in capsys.readouterr().err
    assert not (tmp_path / "f").exists() and not (tmp_path / "r").exists()


def test_a_damaged_input_leaves_no_corpus_and_the_command_runs_again_once_recovered(
        tmp_path, capsys):
    src = tmp_path / "corpus"
    _write(src, [doc("http://a/", prose(1)), doc("http://b/", prose(2))])
    path = corpus_files([str(src)])[0]
    with open(path, "r+b") as f:
        f.truncate(f.seek(0, 2) - 20)
    argv = ["filter", str(src), "-o", str(tmp_path / "out")]
    assert main(argv) == 1
    assert "nothing written" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()
    assert main(["trec", "recover", path]) == 0
    assert main(argv) == 0
    assert [d.url for d in iter_corpus(corpus_files([str(tmp_path / "out")]))] == ["http://a/"]


def test_a_stage_worker_sends_a_rejected_item_back_only_when_asked():
    from wackycrawl.pipelines import drop, rejection
    from wackycrawl.pipelines.stages import StatsRecorder, _answer, _Capture

    class Short:
        def process_item(self, item):
            item["meta"]["Language"] = "en"
            raise drop(StatsRecorder(), "too_short", item, "3 words < 30")

    item = {"url": "http://a/", "paragraphs": ["a b c"], "meta": {}}
    kind, payload, *_ = _answer(lambda: [Short()], dict(item, meta={}), StatsRecorder(),
                                _Capture(), frozenset({"too_short"}))
    message, reason, detail, state = payload
    assert (kind, reason, detail) == ("drop", "too_short", "3 words < 30")
    assert state["meta"]["Language"] == "en" and message.startswith("too_short: http://a/")
    _, payload, *_ = _answer(lambda: [Short()], dict(item, meta={}), StatsRecorder(), _Capture())
    assert payload[3] is None
    from wackycrawl.pipelines.stages import StagesPipeline

    with pytest.raises(Exception) as raised:
        StagesPipeline._result(None, (kind, (message, reason, detail, state), [], []))
    assert rejection(raised.value) == ("too_short", "3 words < 30", state)


@pytest.mark.parametrize(("option", "value"), [("--prefix", "A B"), ("--worker", "a/b")])
def test_a_docno_part_filter_cannot_use_is_a_usage_error_before_anything_is_written(
        tmp_path, capsys, option, value):
    with TrecWriter(str(tmp_path / "c"), worker="w1") as w:
        w.write(doc("http://a.test/1", ["One paragraph of text, long enough to be read."]))
    out = tmp_path / "out"
    assert main(["filter", "-o", str(out), option, value, str(tmp_path / "c")]) == 2
    assert capsys.readouterr().err == (
        f"wackycrawl filter: {option}: not a valid DOCNO part: {value!r} (letters, digits, "
        "'.', '_' and '-', starting with a letter or digit); nothing written\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"]


def test_a_rejected_detail_is_stored_percent_encoded_and_gives_its_command_back(tmp_path):
    from urllib.parse import unquote

    from wackycrawl.corpus.refilter import compact
    from wackycrawl.trec.format import strict_problems
    from wackycrawl.trec.reader import iter_docs

    detail = ("matches 3f0ab7900e93fc17 at distance 2, resemblance 0.93 (wackycrawl trec get "
              "--checksum 3f0ab7900e93fc17 --dir '/data/my corpus_2')")
    with TrecWriter(str(tmp_path), worker="w1") as w:
        w.write(doc("http://a.test/1", ["Some text."], **{"Rejected": "near_duplicate",
                                                          "Rejected-Detail": compact(detail)}))
        w.write(doc("http://a.test/2", ["Some text."], **{"Rejected-Detail": compact(" ")}))
    (path,) = corpus_files([str(tmp_path)])
    (m1, d1), (_, d2) = list(iter_docs(path))
    assert strict_problems(m1.data) == []
    stored = m1.data.decode().split("X-Wacky-Rejected-Detail: ")[1].split("\n")[0]
    assert stored == ("matches%203f0ab7900e93fc17%20at%20distance%202,%20resemblance%200.93%20"
                      "(wackycrawl%20trec%20get%20--checksum%203f0ab7900e93fc17%20--dir%20"
                      "'/data/my%20corpus_2')")
    assert unquote(stored) == detail == d1.meta["Rejected-Detail"]
    assert d2.meta["Rejected-Detail"] == "-"
