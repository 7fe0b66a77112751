"""Real ``scrapy crawl seeds`` runs over the loopback web answering 429 and 503 (C06).

The server's request log (arrival times) shows when the crawler came back; ``ScriptedRoutes``
scripts the first answers of a URL and a C06-style rate rule (too many requests in a window:
429 for a while).
"""

from __future__ import annotations

import signal
import time
from itertools import pairwise

import pytest

from tests.crawlrun import finish, run_crawl, start_crawl, wait_for
from tests.localweb import LocalWeb, Route
from tests.webpages import page, prose
from wackycrawl.trec.reader import iter_docs

pytestmark = pytest.mark.crawl

TXT = "text/plain"
TOLERANCE = 0.05  # seconds; arrival times are taken by the server, send times by the crawler
STORE = {"WACKY_LANGUAGES": "en", "WACKY_FOLLOW_LINKS": "False", "DOWNLOAD_DELAY": "0.2",
         "WACKY_BACKOFF_JITTER": "0"}


class ScriptedRoutes(dict):
    """LocalWeb routes whose first answers for some URLs are scripted, and an optional rate
    rule for one host: more than ``limit`` requests within ``window`` seconds are answered 429
    for ``penalty`` seconds (C06 server_behaviour.txt, scaled down). ``answers`` logs
    (arrival time, path, status) of that host."""

    def __init__(self, web: LocalWeb):
        super().__init__()
        self.web = web
        self.script: dict[tuple[str, str], list[Route]] = {}
        self.rate_host, self.limit, self.window, self.penalty = None, 0, 0.0, 0.0
        self.until = 0.0
        self.answers: list[tuple[float, str, int]] = []

    def first(self, url: str, *routes: Route) -> None:
        self.script[LocalWeb._key(url)] = list(routes)

    def get(self, key, default=None):
        if self.script.get(key):
            return self.script[key].pop(0)
        route = super().get(key, default)
        if key[0] != self.rate_host or key[1] == "/robots.txt":
            return route
        now = time.time()
        recent = [h for h in self.web.hits_for(self.rate_host) if h.time > now - self.window
                  and h.path != "/robots.txt"]
        if len(recent) > self.limit and now >= self.until:
            self.until = now + self.penalty
        if now < self.until:
            route = Route(b"slow down, please", status=429, headers={"Content-Type": TXT})
        self.answers.append((now, key[1], route.status))
        return route


def scripted_web() -> tuple[LocalWeb, ScriptedRoutes]:
    web = LocalWeb()
    web.routes = routes = ScriptedRoutes(web)
    return web, routes


def hits(web: LocalWeb, host: str) -> list:
    return sorted(web.hits_for(host), key=lambda h: h.time)


def stored_urls(corpus) -> set[str]:
    return {doc.url for f in corpus.glob("*.trec.gz") for _, doc in iter_docs(str(f))}


def overloaded(status: int, retry_after: str) -> Route:
    return Route(b"<html><body><p>Temporarily overloaded</p></body></html>", status=status,
                 headers={"Content-Type": "text/html", "Retry-After": retry_after})


def test_c06_503_retry_after_holds_the_host_then_the_page_is_stored_or_dropped(tmp_path):
    web, routes = scripted_web()
    with web:
        for host in ("r.test", "down.test"):
            web.add(f"http://{host}/robots.txt", "User-agent: *\nAllow: /\n", content_type=TXT)
        web.add("http://r.test/", page("Front", prose(1)))
        web.add("http://r.test/p1.html", page("Other", prose(2)))
        routes.first("http://r.test/", overloaded(503, "2"))
        web.add("http://down.test/", "", status=503, content_type="text/html",
                headers={"Retry-After": "1"})
        settings = {**STORE, "WACKY_BACKOFF_MAX_RETRIES": "2", "WACKY_BACKOFF_BASE": "0.1"}
        result = run_crawl(web, ["http://r.test/", "http://r.test/p1.html", "http://down.test/"],
                           tmp_path, settings, timeout=60)

    assert result.returncode == 0, result.log[-3000:]
    r = hits(web, "r.test")
    assert [h.path for h in r].count("/") == 2
    t503 = next(h.time for h in r if h.path == "/")
    later = [h for h in r if h.time > t503]
    assert later and all(h.time >= t503 + 2 - TOLERANCE for h in later), later  # p1 waited too
    assert {"http://r.test/", "http://r.test/p1.html"} <= stored_urls(result.outdir)
    # always 503: first try + 2 retries, each after Retry-After, then a counted drop
    down = [h.time for h in hits(web, "down.test") if h.path == "/"]
    assert len(down) == 3 and all(b - a >= 1 - TOLERANCE for a, b in pairwise(down)), down
    assert result.stat("wacky/drop/overloaded") == 1
    assert "Dropped: overloaded: http://down.test/ (503 after 2 retries, host still overloaded)" \
        in result.log
    assert result.stat("wacky/backoff/retried") == 3
    assert result.stat("wacky/politeness/retry_after") == 4
    assert result.stat("retry/count") == 0  # Scrapy's RetryMiddleware did not act as well
    assert not [k for k in result.stats if k.startswith("wacky/drop/") and "overloaded" not in k]


def test_c06_429_storm_raises_the_host_interval_and_the_crawl_completes(tmp_path):
    web, routes = scripted_web()
    routes.rate_host, routes.limit, routes.window, routes.penalty = "storm.test", 2, 1.0, 1.0
    with web:
        web.add("http://storm.test/robots.txt", "User-agent: *\nAllow: /\n", content_type=TXT)
        urls = [f"http://storm.test/p{i}.html" for i in range(8)]
        for url in urls:
            web.add(url, "<html><body><p>page</p></body></html>")
        settings = {"ITEM_PIPELINES": "{}", "WACKY_FOLLOW_LINKS": "False",
                    "DOWNLOAD_DELAY": "0.2", "WACKY_BACKOFF_JITTER": "0",
                    "WACKY_BACKOFF_BASE": "0.5"}
        result = run_crawl(web, urls, tmp_path, settings, timeout=60)

    assert result.returncode == 0, result.log[-3000:]
    ok = {path for _, path, status in routes.answers if status == 200}
    assert ok == {f"/p{i}.html" for i in range(8)}  # every page fetched in the end
    storm = [t for t, _, status in routes.answers if status == 429]
    assert storm and result.stat("wacky/politeness/overload/429") == len(storm)
    assert result.stat("wacky/drop/overloaded") == 0
    times = [t for t, _, _ in routes.answers]
    before = [b - a for a, b in pairwise(times) if b <= storm[0]]
    after = [b - a for a, b in pairwise(times) if a >= storm[0]]
    assert max(before) < 0.4  # DOWNLOAD_DELAY 0.2 until the first 429
    assert after[0] >= 1.0 - TOLERANCE  # held for the raised interval max(0.5, 0.2) * 2
    assert min(after) >= 0.4, after  # raised, decaying by 0.9 per success
    statuses = [s for _, _, s in routes.answers]
    assert (429, 429) not in pairwise(statuses)  # never two 429s in a row (C06 4)


def test_graceful_stop_keeps_the_retry_and_its_wait(tmp_path):
    web, routes = scripted_web()
    with web:
        web.add("http://j.test/robots.txt", "User-agent: *\nAllow: /\n", content_type=TXT)
        web.add("http://j.test/", page("Front", prose(3)))
        routes.first("http://j.test/", overloaded(429, "5"))
        job = {**STORE, "JOBDIR": str(tmp_path / "job")}
        proc, stats_file = start_crawl(web, ["http://j.test/"], tmp_path, job)
        assert wait_for(lambda: [h for h in web.hits_for("j.test") if h.path == "/"], timeout=30)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        stopped = time.time()
        first = finish(proc, tmp_path, stats_file, timeout=30)
        assert time.time() - stopped < 4, "the stop waited for the Retry-After"
        assert first.stats.get("finish_reason") == "shutdown"
        assert first.stat("wacky/backoff/retried") == 1
        second = run_crawl(web, ["http://j.test/"], tmp_path, job, timeout=60)

    assert second.returncode == 0, second.log[-3000:]
    fronts = [h.time for h in hits(web, "j.test") if h.path == "/"]
    assert len(fronts) == 2 and fronts[1] >= fronts[0] + 5 - TOLERANCE, fronts
    assert stored_urls(second.outdir) == {"http://j.test/"}


def test_a_long_hold_without_a_frontier_is_parked_and_the_crawl_closes_idle(tmp_path):
    """A host answering 429 with Retry-After: 3000 used to keep its retry waiting in the
    politeness middleware: the crawl stayed open for the whole hold, and a close before it
    lost the request without a drop."""
    with LocalWeb() as web:
        web.add("http://ok.test/", page("Front", prose(1)))
        web.add("http://hold.test/", "later", status=429, content_type=TXT,
                headers={"Retry-After": "3000"})
        start = time.monotonic()
        result = run_crawl(web, ["http://ok.test/", "http://hold.test/"], tmp_path,
                           {**STORE, "WACKY_IDLE_CLOSE_SECONDS": "2"}, timeout=90)
        took = time.monotonic() - start
    assert result.returncode == 0, result.log[-3000:]
    assert result.stats.get("finish_reason") == "idle" and took < 60
    assert "only 1 parked requests left: closing as idle in 2 s" in result.log
    assert result.stat("wacky/politeness/parked") == 1
    assert result.stat("wacky/drop/overloaded") == 1
    assert result.stat("wacky/politeness/dropped_held") == 1
    assert "Dropped: overloaded: http://hold.test/ (held for its host (429/503, Retry-After) " \
        "when the crawl closed)" in result.log
    assert stored_urls(result.outdir) == {"http://ok.test/"}
