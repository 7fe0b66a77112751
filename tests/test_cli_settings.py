"""``-s NAME=VALUE`` of filter, process and judge: a value a stage refuses is one error line
(naming the setting) and exit 2, never a traceback."""

import pytest

from tests.clirun import wackycrawl
from tests.corpusdocs import corpus_docs, write_corpus

REFUSED = ["WACKY_SIMHASH_K=99", "WACKY_SIMHASH_K=-1", "WACKY_SHINGLE_SIZE=0",
           "WACKY_SHINGLE_SKETCH_SIZE=0"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("corpus"), corpus_docs(2))


@pytest.mark.parametrize("setting", REFUSED)
def test_filter_refuses_a_dedup_setting_out_of_range_in_one_line(corpus, tmp_path, setting):
    run = wackycrawl("filter", corpus, "-o", tmp_path / "out", "-s", setting)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("wackycrawl filter: ") and len(run.stderr.splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("setting", REFUSED)
def test_process_and_judge_refuse_them_as_the_crawl_does(tmp_path, setting):
    page = tmp_path / "p.html"
    page.write_text("<html><body><p>A page of a few words.</p></body></html>")
    commands = [["process", page, "-o", tmp_path / "out", "--no-progress"]]
    if "SHINGLE" in setting:  # judge builds no dedup index, which alone reads WACKY_SIMHASH_K
        commands.append(["judge", page])
    for argv in commands:
        run = wackycrawl(*argv, "-s", setting)
        assert run.returncode == 2 and "Traceback" not in run.stderr
        assert run.stderr.startswith(f"wackycrawl {argv[0]}: ")
        assert len(run.stderr.splitlines()) == 1


@pytest.mark.parametrize("setting", ["WACKY_MIN_CLEAN_WORDS=abc", "WACKY_DEDUP_ENABLED=maybe"])
def test_a_value_of_the_wrong_type_is_named_with_its_setting(corpus, tmp_path, setting):
    page = tmp_path / "p.html"
    page.write_text("<html><body><p>A page of a few words.</p></body></html>")
    for argv in (["judge", page], ["process", page, "-o", tmp_path / "p", "--no-progress"],
                 ["process", page, "-o", tmp_path / "j", "--no-progress", "-j", "2"],
                 ["filter", corpus, "-o", tmp_path / "f"]):
        run = wackycrawl(*argv, "-s", setting)
        assert run.returncode == 2, run.stderr
        assert run.stderr.startswith(f"wackycrawl {argv[0]}: {setting}: "), run.stderr
        assert len(run.stderr.splitlines()) == 1


@pytest.mark.parametrize("setting, why", [("WACKY_SIMHASH_K=99", "must be in 0..15"),
                                          ("WACKY_NEAR_RESEMBLANCE=3", "must be in 0..1")])
def test_a_dedup_threshold_out_of_range_is_named_with_its_setting(corpus, tmp_path, setting,
                                                                   why):
    page = tmp_path / "p.html"
    page.write_text("<html><body><p>A page of a few words.</p></body></html>")
    for argv in (["process", page, "-o", tmp_path / "p", "--no-progress"],
                 ["filter", corpus, "-o", tmp_path / "f"]):
        run = wackycrawl(*argv, "-s", setting)
        assert run.returncode == 2, run.stderr
        name = setting.split("=")[0]
        assert run.stderr.startswith(f"wackycrawl {argv[0]}: {name}="), run.stderr
        assert why in run.stderr and len(run.stderr.splitlines()) == 1


@pytest.mark.parametrize("setting, suggestion", [
    ("WACKY_MIN_CLEAN_WORD=2160", "WACKY_MIN_CLEAN_WORDS"),
    ("WACKY_LANGUAGE=de", "WACKY_LANGUAGES"),
    ("WACKY_NO_SUCH_SETTING=1", None),
])
def test_an_unknown_wacky_setting_name_is_an_error_naming_the_closest(corpus, tmp_path, setting,
                                                                      suggestion):
    """A misspelt ``-s WACKY_...`` name would have no effect: exit 2, one line naming it and
    the setting it is closest to; nothing written."""
    page = tmp_path / "p.html"
    page.write_text("<html><body><p>A page of a few words.</p></body></html>")
    name = setting.split("=")[0]
    for argv in (["judge", page], ["process", page, "-o", tmp_path / "p", "--no-progress"],
                 ["filter", corpus, "-o", tmp_path / "f"]):
        run = wackycrawl(*argv, "-s", "WACKY_MIN_CLEAN_WORDS=10", "-s", setting)
        assert run.returncode == 2, run.stderr
        hint = f"did you mean {suggestion}?" if suggestion else "no setting has a name like it"
        assert run.stderr.startswith(f"wackycrawl {argv[0]}: unknown setting {name} ({hint}"), \
            run.stderr
        assert len(run.stderr.splitlines()) == 1 and "Traceback" not in run.stderr
    assert not (tmp_path / "p").exists() and not (tmp_path / "f").exists()


def test_other_names_and_every_wacky_setting_are_accepted(corpus, tmp_path):
    """Names not starting with WACKY_ (Scrapy's, scrapy-redis's, a user's) are left alone;
    every WACKY_ name of wackycrawl/settings.py is known."""
    run = wackycrawl("filter", corpus, "-o", tmp_path / "f", "-s", "NO_SUCH_SETTING=1",
                     "-s", "SCHEDULER_PERSIST=False", "-s", "WACKY_WARC_DIR=warc",
                     "-s", "WACKY_MIN_CLEAN_WORDS=10")
    assert run.returncode == 0, run.stderr
    from wackycrawl import settings
    from wackycrawl.crawl.settingnames import unknown_settings

    assert unknown_settings(n for n in vars(settings) if n.startswith("WACKY_")) == []
    assert unknown_settings(["WACKY_LANGUAGES", "DOWNLOAD_DELAY", "MY_OWN", "WACKY_LANGUAGE"]) \
        == ["unknown setting WACKY_LANGUAGE (did you mean WACKY_LANGUAGES?)"]


def test_every_wacky_setting_the_code_reads_is_defined_in_settings_py():
    """So none that the project reads is reported as unknown: each ``WACKY_*`` name in a
    settings lookup (``settings.get*("WACKY_...")``, ``settings["WACKY_..."]``) has its
    default in wackycrawl/settings.py."""
    import re
    from pathlib import Path

    from wackycrawl import settings

    root = Path(__file__).parent.parent / "wackycrawl"
    lookup = re.compile(r"""(?:\.get[a-z]*\(|\[)\s*["'](WACKY_[A-Z0-9_]+)["']""")
    read = {m for path in root.rglob("*.py") for m in lookup.findall(path.read_text())}
    assert len(read) > 80  # the pattern finds them
    assert sorted(read - set(vars(settings))) == []
