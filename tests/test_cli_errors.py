"""The command line as a new user meets it: `wackycrawl status` lines, short errors for bad input."""

from wackycrawl.cli.status import worker_state


def test_a_running_worker_that_stopped_publishing_is_called_silent():
    fields = {"state": "running", "every": "10.0"}
    assert worker_state(fields, 25) == "running"
    assert worker_state(fields, 42).startswith("running when last heard of, silent for 42 s")
    # a closed worker stays as it closed, however long ago
    assert worker_state({"state": "closed: finished", "every": "10"}, 3600) == "closed: finished"
    assert worker_state({}, 99) == "?"


def test_a_url_that_is_no_redis_url_and_a_binary_seed_file_are_short_errors(tmp_path, capsys):
    from wackycrawl.cli import main

    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.test/\n")
    for argv in (["status", "--redis", "localhost:6379"],
                 ["seeds", "push", str(seeds), "--redis", "localhost:6379"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "localhost:6379: Redis URL must specify" in err and "Traceback" not in err
    binary = tmp_path / "seeds.bin"
    binary.write_bytes(b"\x7fELF\x00\x01\n" * 500)
    assert main(["seeds", "push", str(binary), "--redis", "redis://127.0.0.1:1/0"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"wackycrawl seeds: seed file {binary} holds no usable URL: not text (ELF executable); "
        "a seed file has one http(s) URL a line"]


def test_seeds_push_refuses_a_program_in_one_line(tmp_path):
    from tests.clirun import wackycrawl

    run = wackycrawl("seeds", "push", "/bin/ls", "--redis", "redis://127.0.0.1:1/0")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.splitlines() == ["wackycrawl seeds: seed file /bin/ls holds no usable URL: "
                                       "not text (ELF executable); a seed file has one http(s) "
                                       "URL a line"]


def test_workers_read_the_crawl_name_from_the_environment_as_the_cli_does():
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("from scrapy.utils.project import get_project_settings as g;"
            "from wackycrawl.distributed.scheduler import crawl_name;"
            "print(crawl_name(g(), 'seeds'))")
    root = Path(__file__).parent.parent
    for env, name in (({"WACKY_CRAWL_NAME": "demo"}, "demo"), ({"WACKY_CRAWL_NAME": ""}, "seeds")):
        out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                             text=True, timeout=60, env={**os.environ, **env}, check=True)
        assert out.stdout.strip() == name


def test_an_output_folder_that_cannot_be_made_is_one_error_line(tmp_path, capsys):
    from wackycrawl.cli import main

    page = tmp_path / "p.html"
    page.write_text("<html><body><p>Some words here.</p></body></html>")
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the output folder's parent should be
    assert main(["clean", "-o", str(blocked / "out"), str(page)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("wackycrawl clean: [Errno 20] Not a directory") and "Traceback" not in err


def test_version(capsys):
    import pytest as _pytest

    from wackycrawl import __version__
    from wackycrawl.cli import main

    with _pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"wackycrawl {__version__}"


def test_worker_counts_under_one_are_usage_errors(tmp_path, capsys):
    import pytest as _pytest

    from wackycrawl.cli import main

    for argv in (["export", str(tmp_path), "--workers", "0"],
                 ["report", str(tmp_path), "-o", str(tmp_path / "r"), "--workers", "-1"]):
        with _pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2 and "must be at least 1" in capsys.readouterr().err


def test_seeds_push_names_an_empty_file_and_bare_host_names(tmp_path, capsys):
    from wackycrawl.cli import main

    seeds = tmp_path / "seeds.txt"
    for text in ("", "\n  \n"):
        seeds.write_text(text)
        assert main(["seeds", "push", str(seeds), "--redis", "redis://127.0.0.1:1/0"]) == 1
        assert capsys.readouterr().err.splitlines() == [
            f"wackycrawl seeds: seed file {seeds} is empty: give one http(s) URL a line"]
    seeds.write_text("www.example.org\nexample.net/a\n")
    assert main(["seeds", "push", str(seeds), "--redis", "redis://127.0.0.1:1/0"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"wackycrawl seeds: seed file {seeds} holds no usable URL (2 lines not an http(s) URL; "
        "'www.example.org' and the like lack a scheme: add http:// or https:// "
        "(http://www.example.org); one URL per line, # comments)"]
