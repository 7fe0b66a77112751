"""Ctrl-C or SIGTERM while ``wackycrawl`` imports its subcommands (about a second, before
any work): one line on stderr and 128 + the signal, as later, no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import wackycrawl.cli as cli
from wackycrawl.cli import Terminated, main


@pytest.mark.parametrize("exc, status, name", [(KeyboardInterrupt, 130, "SIGINT"),
                                               (Terminated, 143, "SIGTERM")])
def test_interrupt_while_the_subcommands_load(monkeypatch, capsys, exc, status, name):
    real = cli.importlib.import_module

    def slow_import(module, *args):
        if module.endswith(".report"):
            raise exc()
        return real(module, *args)

    monkeypatch.setattr(cli.importlib, "import_module", slow_import)
    assert main(["report", "corpus", "-o", "out"]) == status
    err = capsys.readouterr().err
    assert err == f"wackycrawl report: interrupted ({name}) before it started\n"


def test_sigint_at_start_in_a_real_process(tmp_path):
    code = ("import sys, time, importlib, wackycrawl.cli as c\n"
            "real = importlib.import_module\n"
            "def slow(name, *a):\n"
            "    if name.endswith('.export'):\n"
            "        print('loading', flush=True); time.sleep(30)\n"
            "    return real(name, *a)\n"
            "c.importlib.import_module = slow\n"
            "sys.exit(c.main(['export', 'x']))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.getcwd()},
                            # SIGINT at its default, as a terminal's Ctrl-C finds it (a suite
                            # started in the background of a shell passes it on ignored)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout.readline() == "loading\n"
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err == "wackycrawl export: interrupted (SIGINT) before it started\n"
