"""The closing summary's drop reasons."""

from wackycrawl.extensions.summary import drops_by_reason, summary_line


def test_drops_are_the_drop_counters_largest_first():
    stats = {"wacky/drop/not_prose": 2, "wacky/drop/too_small": 5, "wacky/size/too_small": 5,
             "wacky/drop/robots_forbidden": 1, "wacky/robots/forbidden": 1,
             "wacky/drop/http_404": 7, "httperror/response_ignored_count": 7, "wacky/kept": 3,
             "response_received_count": 20}
    assert drops_by_reason(stats) == {"http_404": 7, "too_small": 5, "not_prose": 2,
                                      "robots_forbidden": 1}
    line = summary_line(stats)
    assert line.startswith("wacky summary: pages fetched 20, docs kept 3")
    assert "drops: http_404 7, too_small 5, not_prose 2, robots_forbidden 1" in line
