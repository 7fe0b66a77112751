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


def test_a_crawl_with_the_writer_off_says_why_no_document_was_kept(caplog):
    import logging

    from scrapy.utils.test import get_crawler

    from wackycrawl.extensions.summary import Summary

    crawler = get_crawler(settings_dict={"WACKY_OUTPUT_DIR": ""})
    crawler.stats.open_spider()
    with caplog.at_level(logging.INFO):
        Summary.from_crawler(crawler).spider_closed(None, "finished")
    assert ("docs kept 0, words 0, MB written 0.00; drops: none; no document written: "
            "WACKY_OUTPUT_DIR is empty (close reason: finished)") in caplog.text


def test_a_stats_file_that_cannot_be_written_is_one_error_line(tmp_path, caplog):
    """A full disk or a folder named like the stats file: the close goes on (no traceback
    out of the signal handler), one ERROR line names the file, no .tmp file is left."""
    import logging

    from scrapy.utils.test import get_crawler

    from wackycrawl.extensions.summary import Summary

    target = tmp_path / "stats.json"
    target.mkdir()  # os.replace onto a folder fails as a full disk's write does
    crawler = get_crawler(settings_dict={"WACKY_OUTPUT_DIR": "", "WACKY_STATS_FILE": str(target)})
    crawler.stats.open_spider()
    with caplog.at_level(logging.INFO):
        Summary.from_crawler(crawler).spider_closed(None, "finished")
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and f"stats not written to {target}" in errors[0].getMessage()
    assert "wacky summary:" in caplog.text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stats.json"]
