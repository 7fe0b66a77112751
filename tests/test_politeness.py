"""Per-host interval and send schedule with a fake clock (C04, incl. the slot-GC timeline)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from wackycrawl.crawl.politeness import HostSchedule, effective_interval


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
    assert gaps[0] == pytest.approx(3.0)
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


def test_one_request_in_flight_per_host_with_a_positive_interval():
    clock = FakeClock()
    schedule = HostSchedule(1.0, clock=clock)
    assert schedule.claim("h", "slow") == 0.0
    clock.t = 5.0  # slow download still running: the next one waits for it
    assert schedule.claim("h", "next") is None
    assert not schedule.release("h", "someone else")
    assert schedule.release("h", "slow")
    assert schedule.claim("h", "next") == 0.0


def test_zero_interval_does_not_serialise():
    schedule = HostSchedule(0.0, clock=FakeClock())
    assert schedule.claim("h", "r1") == 0.0 and schedule.claim("h", "r2") == 0.0
    assert not schedule.release("h", "r1")
