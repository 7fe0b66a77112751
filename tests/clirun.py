"""Run the ``wackycrawl`` command in a subprocess, as a user does (this tree first on the path)."""

import os
import subprocess
import sys
from pathlib import Path

MAIN = "import sys; from wackycrawl.cli import main; sys.exit(main())"  # the console script
ROOT = Path(__file__).parent.parent


def wackycrawl(*argv, cwd=None, timeout=300) -> subprocess.CompletedProcess:
    """``wackycrawl ARGV...``: the finished process, stdout and stderr as text."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-c", MAIN, *map(str, argv)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout, check=False)


def python_words(*lines: str) -> list[str]:
    """Run ``lines`` as a fresh Python program (this tree first on the path): the words it
    printed. Raises CalledProcessError if it fails."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-c", "\n".join(lines)], env=env, capture_output=True,
                          text=True, check=True).stdout.split()
