"""The closing summary's drop reasons."""

from wackycrawl.extensions.summary import drops_by_reason, summary_line


def test_drops_include_refusals_and_http_errors_largest_first():
    stats = {"wacky/drop/not_prose": 2, "wacky/size/too_small": 5, "wacky/robots/forbidden": 1,
             "httperror/response_ignored_status_count/404": 7, "wacky/kept": 3,
             "response_received_count": 20}
    assert drops_by_reason(stats) == {"http_404": 7, "too_small": 5, "not_prose": 2,
                                      "forbidden": 1}
    line = summary_line(stats)
    assert line.startswith("wacky summary: pages fetched 20, docs kept 3")
    assert "drops: http_404 7, too_small 5, not_prose 2, forbidden 1" in line
