"""A Ctrl-C that comes after ``export`` or ``filter`` put its complete output in place does not
fail the command: exit status 0 and a note, the output kept.

The SIGINT is made to come at that moment for sure: the command's stderr is a pipe filled to
the brim beforehand, so the command blocks on the summary it prints after the rename (and
before anything else on stderr) until the pipe is read; the signal is sent while it waits."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.clirun import MAIN, ROOT
from tests.corpusdocs import corpus_docs, write_corpus
from wackycrawl.cli import interrupted_status, work_done


def _full_pipe() -> tuple[int, int]:
    """A pipe whose buffer is full: a write to it blocks until the read end is read."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    for size in (4096, 1):
        try:
            while True:
                os.write(w, b"x" * size)
        except BlockingIOError:
            pass
    os.set_blocking(w, True)
    return r, w


def _blocked_in_write(pid: int) -> bool:
    """The process waits in a write to a pipe (``pipe_write``, ``anon_pipe_write``...), or
    where the kernel hides that, in a write(2) to its stderr (x86-64: syscall 1, fd 2)."""
    try:
        if "pipe_write" in Path(f"/proc/{pid}/wchan").read_text():
            return True
        return Path(f"/proc/{pid}/syscall").read_text().split()[:2] == ["1", "0x2"]
    except OSError:
        return False


def _interrupt_after(argv: list, output: Path, cwd: Path) -> tuple[int, str]:
    r, w = _full_pipe()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}
    # SIGINT at its default in the command (a suite started in the background of a shell
    # passes it on ignored), as a terminal's Ctrl-C finds it
    proc = subprocess.Popen([sys.executable, "-c", MAIN, *map(str, argv)], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=w,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(w)
    try:
        deadline = time.monotonic() + 120
        while not output.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert output.exists(), "the command never put its output in place"
        while not _blocked_in_write(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.02)  # /proc/PID/wchan unreadable: the deadline ends the wait
        assert proc.poll() is None, "the command ended before the pipe was read"
        proc.send_signal(signal.SIGINT)
        chunks = []
        while data := os.read(r, 1 << 16):  # the command goes on, ends and closes the pipe
            chunks.append(data)
        return proc.wait(timeout=60), b"".join(chunks).lstrip(b"x").decode()
    finally:
        os.close(r)
        if proc.poll() is None:
            proc.kill()


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs /proc/PID/wchan")
@pytest.mark.parametrize("command", ["export", "filter"])
def test_a_ctrl_c_after_the_output_is_in_place_exits_0(tmp_path, command):
    corpus = write_corpus(tmp_path / "corpus", corpus_docs(3))
    if command == "export":
        output = tmp_path / "c.txt"
        argv = ["export", corpus, "--format", "txt", "-o", output]
    else:
        output = tmp_path / "new"
        argv = ["filter", corpus, "-o", output, "--languages", ""]
    status, err = _interrupt_after(argv, output, tmp_path)
    assert status == 0, err
    assert f"wackycrawl {command}: interrupted (SIGINT) after its work was done: {output} " \
           "is complete\n" in err
    assert output.exists() and not Path(f"{output}.partial").exists()


def test_the_exit_status_of_an_interruption(capsys):
    args = argparse.Namespace(command="export", interrupted="c.txt not written")
    assert interrupted_status(args, signal.SIGINT) == 130
    assert capsys.readouterr().err == "wackycrawl export: interrupted (SIGINT); c.txt not written\n"
    work_done(args, "c.txt is complete")
    assert interrupted_status(args, signal.SIGTERM) == 0
    assert capsys.readouterr().err == ("wackycrawl export: interrupted (SIGTERM) after its work "
                                       "was done: c.txt is complete\n")
