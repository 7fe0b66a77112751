"""Per-host interval and send schedule with a fake clock: Crawl-delay (C04, incl. the slot-GC
timeline), Retry-After and exponential back-off on 429/503 (C06), per-IP keys."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime
from itertools import pairwise

import pytest

from wackycrawl.crawl.politeness import (
    Backoff,
    HostSchedule,
    effective_interval,
    retry_after_seconds,
)


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize("crawl_delay, expected", [
    (3.0, (3.0, False)),      # a.example.test: our group's value
    (7.5, (7.5, False)),      # b: fractional
    (None, (1.0, False)),     # c, d: none or unparsable -> DOWNLOAD_DELAY
    (0.2, (1.0, False)),      # never below DOWNLOAD_DELAY
    (86400.0, (60.0, True))])  # e: capped
def test_c04_effective_interval(crawl_delay, expected):
    assert effective_interval(1.0, crawl_delay, cap=60.0) == expected


def send(schedule: HostSchedule, clock: FakeClock, host: str, duration: float = 0.1) -> float:
    """Advance the fake clock until a request to ``host`` may go; it takes ``duration`` s."""
    request = object()
    while (wait := schedule.claim(host, request)) != 0.0:
        assert wait is not None and wait > 0
        clock.t += wait
    start = clock.t
    clock.t += duration
    assert schedule.release(host, request)
    return start


def test_c04_timeline_survives_idle_periods_longer_than_slot_gc():
    clock = FakeClock()
    schedule = HostSchedule(1.0, clock=clock)
    robots = send(schedule, clock, "a.example.test")  # robots.txt counts as a request
    schedule.set_interval("a.example.test", 3.0)
    starts = [robots] + [send(schedule, clock, "a.example.test") for _ in range(6)]
    clock.t += 90  # idle: Scrapy would have garbage-collected the downloader slot by now
    starts += [send(schedule, clock, "a.example.test") for _ in range(3)]
    gaps = [b - a for a, b in pairwise(starts)]
    assert all(g >= 3.0 for g in gaps)
    # the interval runs from the end of the previous request (it took 0.1 s)
    assert gaps[0] == pytest.approx(3.1)
    assert schedule.interval("b.example.test") == 1.0  # other hosts keep DOWNLOAD_DELAY


def test_hosts_are_independent():
    clock = FakeClock()
    schedule = HostSchedule(1.0, clock=clock)
    schedule.set_interval("b", 7.5)
    assert schedule.claim("a", "r1") == 0.0 and schedule.claim("b", "r2") == 0.0
    assert schedule.release("a", "r1") and schedule.release("b", "r2")
    clock.t = 3.0
    assert schedule.claim("a", "r3") == 0.0
    assert schedule.claim("b", "r4") == pytest.approx(4.5)


def test_host_interval_is_the_largest_of_its_robots_txt():
    # robots.txt is per scheme+host+port, the schedule per host name: the robots.txt parsed
    # last (another port, https, a 404 with no rules) must not lower another one's Crawl-delay
    schedule = HostSchedule(0.2, clock=FakeClock())
    assert schedule.set_source_interval("a", "http://a:8001", 3.0) == 3.0
    assert schedule.set_source_interval("a", "http://a:8002", 0.2) == 3.0
    assert schedule.set_source_interval("a", "https://a:443", 0.2) == 3.0
    assert schedule.interval("a") == 3.0
    assert schedule.set_source_interval("a", "http://a:8001", 1.0) == 1.0  # refetched: lower now
    assert schedule.set_source_interval("b", "http://b:80", 0.5) == 0.5  # hosts independent
    assert schedule.interval("a") == 1.0


def test_one_request_in_flight_per_host_with_a_positive_interval():
    clock = FakeClock()
    schedule = HostSchedule(1.0, clock=clock)
    assert schedule.claim("h", "slow") == 0.0
    clock.t = 5.0  # slow download still running: the next one waits for it
    assert schedule.claim("h", "next") is None
    assert not schedule.release("h", "someone else")
    assert schedule.release("h", "slow")
    assert schedule.claim("h", "next") == pytest.approx(1.0)  # the interval after its end
    clock.t = 6.0
    assert schedule.claim("h", "next") == 0.0


def test_zero_interval_does_not_serialise():
    schedule = HostSchedule(0.0, clock=FakeClock())
    assert schedule.claim("h", "r1") == 0.0 and schedule.claim("h", "r2") == 0.0
    assert not schedule.release("h", "r1")


NOW = datetime(2026, 10, 21, 7, 27, 15, tzinfo=UTC).timestamp()


@pytest.mark.parametrize("value, expected", [
    ("30", 30.0),                                # C06 response_429.http
    (b" 120 ", 120.0),
    ("Wed, 21 Oct 2026 07:28:00 GMT", 45.0),     # C06 response_503.http, 45 s after NOW
    ("Wednesday, 21-Oct-26 07:28:00 GMT", 45.0),  # obsolete RFC 850 form (RFC 9110 5.6.7)
    ("Wed, 21 Oct 2026 07:00:00 GMT", 0.0),      # in the past: no wait
    ("Wed, 21 Oct 2026 07:28:00 -0000", 45.0),
    ("-5", None), ("1.5", None), ("soon", None), ("", None), (None, None)])
def test_c06_retry_after_seconds_and_http_date(value, expected):
    assert retry_after_seconds(value, NOW) == expected


def test_retry_after_of_a_formatted_date():
    when = datetime.fromtimestamp(NOW + 90, UTC)
    assert retry_after_seconds(format_datetime(when, usegmt=True), NOW) == pytest.approx(90)


def test_backoff_doubles_from_base_up_to_cap_and_jitter_only_lengthens():
    policy = Backoff(base=1.0, factor=2.0, cap=300.0, jitter=0.5, retry_after_max=3600)
    intervals = [0.5]
    for _ in range(10):
        intervals.append(policy.raised(intervals[-1]))
    assert intervals[1:5] == [2.0, 4.0, 8.0, 16.0] and intervals[-1] == 300.0
    assert policy.wait(4.0, None, 0.0) == 4.0 and policy.wait(4.0, None, 0.999) < 6.0
    assert policy.wait(4.0, 30.0, 0.0) == 30.0  # Retry-After longer than the interval
    assert policy.wait(4.0, 1.0, 0.0) == 4.0  # never shorter than our own back-off
    assert policy.wait(4.0, 86400.0, 0.0) == 3600.0  # capped


def overloaded(schedule: HostSchedule, clock: FakeClock, host: str, retry_after=None) -> float:
    """Send one request to ``host``; it is answered 429/503. Returns the wait."""
    request = object()
    while (wait := schedule.claim(host, request)) != 0.0:
        clock.t += wait
    sent = clock.t
    clock.t += 0.1
    schedule.release(host, request)
    return schedule.back_off(host, sent, retry_after)


def test_c06_retry_after_holds_every_request_of_the_host():
    clock = FakeClock()
    schedule = HostSchedule(0.5, clock=clock, backoff=Backoff(jitter=0.0))
    assert overloaded(schedule, clock, "slow.example.test", retry_after=30.0) == 30.0
    assert schedule.claim("slow.example.test", "other page") == pytest.approx(30.0)
    assert schedule.claim("fast.example.test", "elsewhere") == 0.0
    clock.t += 30.0
    assert schedule.claim("slow.example.test", "retry") == 0.0


def test_c06_consecutive_overloads_double_the_interval_and_successes_decay_it():
    clock = FakeClock()
    schedule = HostSchedule(0.5, clock=clock, backoff=Backoff(jitter=0.0, decay=0.5))
    waits = [overloaded(schedule, clock, "h") for _ in range(4)]
    assert waits == [2.0, 4.0, 8.0, 16.0]
    assert schedule.interval("h") == 16.0
    schedule.relax("h")
    assert schedule.interval("h") == 8.0
    for _ in range(5):
        schedule.relax("h")
    assert schedule.interval("h") == 0.5  # back at DOWNLOAD_DELAY, not below


def test_c06_one_burst_raises_the_interval_once():
    clock = FakeClock()
    schedule = HostSchedule(0.0, clock=clock, backoff=Backoff(jitter=0.0))
    for r in ("r1", "r2", "r3"):  # interval 0: three requests in flight together
        assert schedule.claim("h", r) == 0.0
    clock.t = 0.2
    assert schedule.back_off("h", 0.0, None) == 2.0
    assert schedule.back_off("h", 0.0, None) == 2.0  # answers of the same burst
    assert schedule.back_off("h", 0.0, 10.0) == 10.0  # ... may still extend the hold
    assert schedule.interval("h") == 2.0


def test_per_ip_key_spaces_hosts_sharing_an_address():
    clock = FakeClock()
    schedule = HostSchedule(0.0, clock=clock)
    schedule.set_interval("ip:192.0.2.7", 2.0)
    assert schedule.claim(("a.test", "ip:192.0.2.7"), "r1") == 0.0
    assert schedule.claim(("b.test", "ip:192.0.2.7"), "r2") is None  # one in flight per IP
    assert schedule.claim(("c.test", "ip:192.0.2.8"), "r3") == 0.0
    assert schedule.release(("a.test", "ip:192.0.2.7"), "r1")
    assert schedule.claim(("b.test", "ip:192.0.2.7"), "r2") == pytest.approx(2.0)
