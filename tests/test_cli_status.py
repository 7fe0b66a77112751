"""``wackycrawl status``: how a worker's published state reads."""

from wackycrawl.cli.status import worker_state


def test_a_running_worker_that_stopped_publishing_is_called_silent():
    fields = {"state": "running", "every": "10.0"}
    assert worker_state(fields, 25) == "running"
    assert worker_state(fields, 42).startswith("running when last heard of, silent for 42 s")
    # a closed worker stays as it closed, however long ago
    assert worker_state({"state": "closed: finished", "every": "10"}, 3600) == "closed: finished"
    assert worker_state({}, 99) == "?"
