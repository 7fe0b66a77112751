"""The seed-list reader of the ``seeds`` spider."""

from pathlib import Path

import pytest

from wackycrawl.seeding.seedfile import read_seeds
from wackycrawl.spiders.seeds import SeedsSpider, missing_seeds


def test_read_seeds_skips_comments_blanks_and_bad_lines(tmp_path):
    f = tmp_path / "seeds.txt"
    f.write_bytes(b"# a comment\n\nhttp://a.test/\n  https://b.test/x?y=1  \nftp://c.test/\n"
                  b"not a url\nhttp://\nhttp://bad host/\nhttp://d.test/\xff\n")
    urls, bad = read_seeds(f)
    assert urls == ["http://a.test/", "https://b.test/x?y=1"]
    assert [n for n, _ in bad] == [5, 6, 7, 8, 9]


def test_missing_seed_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_seeds(tmp_path / "nope.txt")


def test_spider_needs_a_seed_argument_unless_distributed():
    from scrapy.utils.test import get_crawler

    with pytest.raises(ValueError, match="-a seeds=FILE"):
        SeedsSpider.from_crawler(get_crawler(SeedsSpider))
    # REDIS_URL as a setting (not only in the environment): seeds are pushed to Redis
    assert missing_seeds(get_crawler(settings_dict={"REDIS_URL": "redis://h:1/0"}).settings) \
        is None
    assert missing_seeds(get_crawler(settings_dict={"REDIS_HOST": "h"}).settings) is None


def test_scrapy_crawl_with_bad_arguments_says_why_in_one_line(tmp_path):
    import subprocess
    import sys

    def crawl(*args, spider="seeds"):
        return subprocess.run([sys.executable, "-m", "scrapy", "crawl", spider, *args,
                               "-s", f"WACKY_OUTPUT_DIR={tmp_path / 'out'}"],
                              capture_output=True, text=True, timeout=120,
                              cwd=Path(__file__).parent.parent)

    missing = crawl("-a", f"seeds={tmp_path / 'nope.txt'}")
    assert missing.returncode == 1
    assert "nope.txt' does not exist" in missing.stderr and "Traceback" not in missing.stderr
    typo = crawl("-a", "seedz=x.txt")
    assert typo.returncode == 2
    assert "needs a seed list" in typo.stderr and "unknown argument(s): seedz" in typo.stderr
    assert "Traceback" not in typo.stderr
    unknown = crawl(spider="seedz")
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
    assert "no spider 'seedz' in this project (its spiders: seeds)" in unknown.stderr
    for no_url in ("/bin/ls", tmp_path / "empty.txt"):  # binary, or comments only
        (tmp_path / "empty.txt").write_text("# nothing yet\n\n")
        useless = crawl("-a", f"seeds={no_url}")
        assert useless.returncode == 1 and "Traceback" not in useless.stderr
        assert f"seed file {no_url} holds no usable URL" in useless.stderr
        assert "Spider opened" not in useless.stderr
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.test/\n")
    nothing = crawl("-a", f"seeds={seeds}", "-s", "REDIS_URL=redis://127.0.0.1:1/0")
    assert nothing.returncode == 1 and "Traceback" not in nothing.stderr
    assert "the crawl's Redis redis://127.0.0.1:1/0 does not answer" in nothing.stderr
    typed = crawl("-a", f"seeds={seeds}", "-s", "WACKY_MIN_CLEAN_WORDS=many")
    assert typed.returncode == 1 and "WACKY_MIN_CLEAN_WORDS=many: " in typed.stderr
    for setting in ("WACKY_SCOPE_FROM_SEEDS=tld", "WACKY_PROFILE=far",
                    f"WACKY_BADWORDS_FILE={tmp_path / 'no-such-list.txt'}"):
        bad = crawl("-a", f"seeds={seeds}", "-s", setting)
        assert bad.returncode == 1
        assert "cannot start the crawl:" in bad.stderr and setting.split("=")[1] in bad.stderr
        assert "Traceback" not in bad.stderr


@pytest.mark.parametrize("setting", [
    "WACKY_MIN_CLEAN_WORDS=3O",  # getint, in a stage of the pipeline
    "WACKY_FOLLOW_LINKS=flase",  # getbool, in the spider
    "WACKY_PER_IP_DELAY=1,5",  # getfloat, in a downloader middleware
    "WACKY_SERP_DELAYS={bing: 2}",  # getdict (JSON), in the spider
    "CONCURRENT_REQUESTS=many",  # Scrapy's own setting, read by Scrapy
])
def test_a_setting_value_of_the_wrong_type_is_named_when_the_crawl_starts(tmp_path, setting):
    """``-s NAME=VALUE`` whose value the typed getter refuses: one ERROR line that starts with
    ``NAME=VALUE:`` after ``cannot start the crawl:``, exit status 1, no traceback, no file."""
    import subprocess
    import sys

    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.test/\n")
    run = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "seeds", "-a", f"seeds={seeds}",
                          "-s", f"WACKY_OUTPUT_DIR={tmp_path / 'out'}", "-s", setting],
                         capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).parent.parent, check=False)
    errors = [line for line in run.stderr.splitlines() if " ERROR: " in line]
    assert run.returncode == 1, run.stderr[-2000:]
    assert len(errors) == 1, run.stderr[-2000:]
    assert f"ERROR: cannot start the crawl: {setting}: " in errors[0]
    assert "Traceback" not in run.stderr
    assert not list((tmp_path / "out").glob("*.trec.gz*"))


def test_spider_refuses_a_missing_seed_file(tmp_path):
    # raised when the spider is built, so `scrapy crawl` exits non-zero (not "finished")
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        SeedsSpider(seeds=str(tmp_path / "nope.txt"))


def test_empty_seed_list_ends_at_once_with_a_clear_error_and_no_files(tmp_path):
    from tests.crawlrun import run_crawl
    from tests.localweb import LocalWeb

    with LocalWeb() as web:
        result = run_crawl(web, ["# only a comment", "not a url"], tmp_path, timeout=60)
        assert not web.hits
    assert result.returncode == 1
    assert "holds no usable URL (1 line not an http(s) URL" in result.log
    assert "Traceback" not in result.log and "Spider opened" not in result.log
    assert not list((tmp_path / "corpus").glob("*.trec.gz*"))


def test_a_response_scrapy_does_not_read_as_html_is_a_drop(tmp_path):
    from scrapy.http import TextResponse
    from scrapy.utils.test import get_crawler

    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.test/\n")
    crawler = get_crawler(SeedsSpider)
    crawler.stats.open_spider()
    spider = SeedsSpider.from_crawler(crawler, seeds=str(seeds))
    assert list(spider.parse(TextResponse("http://a.test/x", body=b"plain", encoding="utf-8"))) == []
    assert crawler.stats.get_value("wacky/drop/not_html") == 1


def test_a_bad_seen_store_is_refused_before_the_engine_starts_in_every_frontier_mode(tmp_path):
    """WACKY_DUPEFILTER=foo with the Redis frontier, the JOBDIR frontier and Scrapy's own: one
    ERROR line naming the setting, exit status 1, no traceback, the spider never opened."""
    import os
    import subprocess
    import sys

    from tests.redisserver import RedisServer

    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.test/\n")
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_HOST")}
    with RedisServer() as srv:
        modes = {"redis": ["-s", f"REDIS_URL={srv.url}"],
                 "local": ["-s", f"JOBDIR={tmp_path / 'job'}"], "scrapy": []}
        for mode, extra in modes.items():
            run = subprocess.run(
                [sys.executable, "-m", "scrapy", "crawl", "seeds", "-a", f"seeds={seeds}",
                 "-s", "WACKY_DUPEFILTER=foo", "-s", f"WACKY_OUTPUT_DIR={tmp_path / mode}",
                 *extra], check=False, capture_output=True, text=True, timeout=120,
                cwd=Path(__file__).parent.parent, env=env)
            errors = [line for line in run.stderr.splitlines() if " ERROR: " in line]
            assert run.returncode == 1, (mode, run.stderr[-2000:])
            assert len(errors) == 1 and "WACKY_DUPEFILTER" in errors[0] and "'foo'" in errors[0]
            assert "Traceback" not in run.stderr and "Spider opened" not in run.stderr, mode


JUNK_SEEDS = ["http://a.test/", "not a url", "ftp://a.test/x", "http//broken",
              "  http://b.test/  ", "\x00\x01binary"]


def test_spider_and_seeds_push_read_a_seed_file_by_one_rule(tmp_path):
    """Two good URLs, four bad lines (one with NUL bytes): the spider and ``seeds push`` both
    take the two URLs and name the four lines; a file without a URL is refused by both."""
    from tests.clirun import wackycrawl
    from tests.crawlrun import run_crawl
    from tests.localweb import LocalWeb
    from tests.redisserver import RedisServer

    with LocalWeb() as web:
        for host in ("a.test", "b.test"):
            web.add(f"http://{host}/", "<html><body>tiny</body></html>")
        result = run_crawl(web, JUNK_SEEDS, tmp_path / "crawl", timeout=120)
    assert result.returncode == 0, result.log[-3000:]
    assert result.stat("wacky/seeds/urls") == 2 and result.stat("wacky/seeds/bad_line") == 4
    seeds = tmp_path / "crawl" / "seeds.txt"
    assert b"\x00" in seeds.read_bytes()
    for n in (2, 3, 4, 6):
        assert f"seed file {seeds} line {n} is not an http(s) URL, skipped" in result.log
    with RedisServer() as srv:
        push = wackycrawl("seeds", "push", str(seeds), "--redis", srv.url)
        assert push.returncode == 0, push.stderr
        assert "pushed 2 seeds" in push.stdout
        for n in (2, 3, 4, 6):
            assert f"seed file {seeds} line {n} is not an http(s) URL, skipped" in push.stderr
        pushed = sorted(v.decode() for v in srv.client().lrange("wacky:seeds:start_urls", 0, -1))
        assert pushed == ['{"url": "http://a.test/"}', '{"url": "http://b.test/"}']
        empty = tmp_path / "empty.txt"
        empty.write_text("# nothing yet\nnot a url\n")
        refused = wackycrawl("seeds", "push", str(empty), "--redis", srv.url)
        assert refused.returncode == 1
        assert refused.stderr.splitlines() == [
            f"wackycrawl seeds: seed file {empty} holds no usable URL (1 line not an http(s) "
            "URL; one URL per line, # comments)"]
        assert srv.client().llen("wacky:seeds:start_urls") == 2


def test_a_misspelt_wacky_setting_stops_the_crawl_naming_the_closest(tmp_path):
    """``-s WACKY_LANGUAGE=de`` (for WACKY_LANGUAGES) would keep every language: one ERROR
    line per unknown WACKY_ name with the closest known one, exit status 1, nothing fetched
    or written; names not starting with WACKY_ are Scrapy's or the user's, left alone."""
    import subprocess
    import sys

    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.test/\n")
    run = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "seeds", "-a", f"seeds={seeds}",
                          "-s", f"WACKY_OUTPUT_DIR={tmp_path / 'out'}", "-s", "WACKY_LANGUAGE=de",
                          "-s", "NO_SUCH_SETTING=1", "-s", "WACKY_MIN_CLEAN_WORD=2160"],
                         capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).parent.parent, check=False)
    errors = [line.split(" ERROR: ", 1)[1] for line in run.stderr.splitlines()
              if " ERROR: " in line]
    assert run.returncode == 1, run.stderr[-2000:]
    assert errors == [
        "cannot start the crawl: unknown setting WACKY_LANGUAGE (did you mean WACKY_LANGUAGES?)",
        "cannot start the crawl: unknown setting WACKY_MIN_CLEAN_WORD (did you mean "
        "WACKY_MIN_CLEAN_WORDS?)"], run.stderr[-2000:]
    assert "Traceback" not in run.stderr and "Spider opened" not in run.stderr
    assert not (tmp_path / "out").exists()
