"""``wackycrawl process``: its arguments refused as the other commands refuse them."""

from __future__ import annotations

import pytest

from wackycrawl.cli import main


@pytest.mark.parametrize("jobs", ["0", "-2", "two"])
def test_jobs_below_one_is_a_usage_error(tmp_path, capsys, jobs):
    (tmp_path / "a.warc.gz").write_bytes(b"")
    with pytest.raises(SystemExit) as exc:
        main(["process", str(tmp_path / "a.warc.gz"), "-o", str(tmp_path / "out"), "-j", jobs])
    assert exc.value.code == 2
    assert "argument -j/--jobs" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
