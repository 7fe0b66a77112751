"""``wackycrawl trec recover DIR``: the folder's .open files and its damaged closed files."""

import os

from tests.clirun import wackycrawl
from tests.test_trec_writer import leave_open_file
from wackycrawl.trec.format import TrecDoc
from wackycrawl.trec.writer import TrecWriter


def test_a_folder_recover_cuts_back_its_damaged_closed_files_too(tmp_path):
    with TrecWriter(str(tmp_path), worker="c1", rotate_bytes=600) as w:
        for i in range(6):
            w.write(TrecDoc(url=f"http://a.test/{i}", paragraphs=[f"Text {i} </DOC>"] * 9))
    files = sorted(str(tmp_path / n) for n in os.listdir(tmp_path) if n.endswith(".trec.gz"))
    assert len(files) > 1
    intact = open(files[1], "rb").read()
    with open(files[0], "r+b") as f:
        f.truncate(os.path.getsize(files[0]) - 25)
    left = leave_open_file(tmp_path, "k9", 2)
    assert wackycrawl("trec", "check", tmp_path).returncode == 1
    run = wackycrawl("trec", "recover", tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"{files[0]}: damaged (" in run.stdout and f"{left} -> " in run.stdout
    assert os.path.exists(files[0] + ".damaged") and open(files[1], "rb").read() == intact
    check = wackycrawl("trec", "check", tmp_path)
    assert check.returncode == 0 and "still open" not in check.stderr, check.stdout
    again = wackycrawl("trec", "recover", tmp_path)
    assert again.returncode == 0 and "no .open or damaged file to recover" in again.stdout
