"""Deployment on Scrapyd (case C21): the egg scrapyd-deploy builds, and real Scrapyd jobs.

C21: an egg built by scrapyd-deploy (1) must carry the package data (function-word and
bad-word lists), (2) the code must read them from the zipped egg (importlib.resources, never
``__file__`` paths) and (3) Scrapyd must find the project's settings module (the
``scrapy.settings`` entry point, which setuptools drops from scrapyd-deploy's own setup.py
when pyproject.toml has a ``[project]`` table). A real Scrapyd on 127.0.0.1 then runs the
``seeds`` spider over the local web; its jobs get the web's proxy through Scrapyd's
environment.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.crawlrun import wait_for
from tests.localweb import LocalWeb
from tests.scrapydserver import ROOT, ScrapydServer, project_copy, scrapyd_deploy
from tests.webpages import page, prose
from wackycrawl.text import filters, funcwords
from wackycrawl.trec.reader import check, iter_docs

pytestmark = pytest.mark.crawl

PROJECT = "wackycrawl"
# A bad-word list that exists only in the deployed egg: a page with these words is dropped
# only if the job reads its lists from the egg (not from a source tree on sys.path).
MARKER_WORDS = ("zorbquix", "vlemtrash", "quospamword")
# fast and deterministic on the local web
JOB_SETTINGS = {"DOWNLOAD_DELAY": "0", "DOWNLOAD_DELAY_JITTER": "0", "AUTOTHROTTLE_ENABLED": "False",
                "CONCURRENT_REQUESTS_PER_DOMAIN": "4", "TELNETCONSOLE_ENABLED": "False",
                "WACKY_LANGUAGES": "en"}


def data_files() -> set[str]:
    """Package data in the source tree: every file under a data/ folder of the package."""
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / "wackycrawl").rglob("*")
            if p.is_file() and "data" in p.relative_to(ROOT).parts[:-1]
            and "__pycache__" not in p.parts}


def trec_files(corpus: Path) -> list[Path]:
    return sorted(corpus.glob("*.trec.gz"))


@pytest.fixture(scope="module")
def egg(tmp_path_factory) -> Path:
    """``scrapyd-deploy --build-egg`` from a copy of the project as it is in the repository."""
    tmp = tmp_path_factory.mktemp("egg")
    project = project_copy(tmp / "project")
    before = {p.name for p in project.iterdir()}
    done = scrapyd_deploy(project, "--build-egg", str(tmp / "wackycrawl.egg"))
    assert done.returncode == 0, done.stderr[-3000:]
    # directories with a trailing "/", as .gitignore patterns like "build/" need
    left = sorted(p.name + "/" * p.is_dir() for p in project.iterdir() if p.name not in before)
    (tmp / "leftovers.json").write_text(json.dumps(left))
    return tmp / "wackycrawl.egg"


def test_egg_carries_package_data_and_settings_entry_point(egg):
    names = set(zipfile.ZipFile(egg).namelist())
    expected = data_files()
    assert {"wackycrawl/text/data/funcwords/de.txt", "wackycrawl/text/data/funcwords/en.txt",
            "wackycrawl/text/data/badwords/en.txt"} <= expected
    assert expected <= names, sorted(expected - names)
    entry_points = zipfile.ZipFile(egg).read("EGG-INFO/entry_points.txt").decode()
    assert "[scrapy]\nsettings = wackycrawl.settings" in entry_points


def test_deploy_leaves_only_gitignored_build_artefacts(egg):
    if not shutil.which("git"):
        pytest.skip("git not installed")
    left = json.loads((egg.parent / "leftovers.json").read_text())
    assert "setup.py" not in left  # the committed one was used, none was written
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *left], cwd=ROOT,
                             capture_output=True, text=True, check=False).stdout.split()
    assert sorted(ignored) == left


def test_data_files_are_read_from_the_zipped_egg(egg, tmp_path):
    """C21 item 2: with the egg first on sys.path the lists load from inside the zip."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1])\n"
        "from wackycrawl.text import filters, funcwords\n"
        "assert funcwords.__file__.startswith(sys.argv[1]), funcwords.__file__\n"
        "print(json.dumps([list(funcwords.languages()), len(funcwords.function_words()),"
        " len(filters.load_badwords())]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(egg)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    langs, n_function_words, n_badwords = json.loads(done.stdout)
    assert {"de", "en"} <= set(langs) and tuple(langs) == funcwords.languages()
    assert n_function_words == len(funcwords.function_words())
    assert n_badwords == len(filters.load_badwords()) > 0


def test_spider_modules_import_nothing_heavy(tmp_path):
    """C21: addversion.json and listspiders.json import every spider module; loading
    langid.py's model or numpy there would slow every deploy and every job start."""
    code = ("import sys\n"
            "from scrapy.utils.misc import walk_modules_iter\n"
            "mods = [m.__name__ for m in walk_modules_iter('wackycrawl.spiders')]\n"
            "print(mods, sorted({'langid', 'numpy', 'simhash'} & sys.modules.keys()))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "'wackycrawl.spiders.seeds'" in done.stdout and done.stdout.endswith("[]\n")


# --- a real Scrapyd -------------------------------------------------------------------------

def build_web(web: LocalWeb) -> None:
    marked = prose(2)
    marked[1] += " " + " ".join(MARKER_WORDS * 4)
    web.add("http://sd.test/", page("Home", prose(1), links=["/marked.html", "/plain.html"],
                                    nav_links=0))
    web.add("http://sd.test/marked.html", page("Marked", marked, nav_links=0))
    web.add("http://sd.test/plain.html", page("Plain", prose(3), nav_links=0))
    # a chain of 30 pages at 0.3 s per request: a job that runs ~20 s unless cancelled
    urls = [f"http://chain.sd.test/p{i}.html" for i in range(30)]
    for i, url in enumerate(urls):
        web.add(url, page(f"Chain {i}", prose(200 + i), links=urls[i + 1:i + 2], nav_links=0))


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """A local web, a Scrapyd whose environment routes HTTP through it, and a deployed project
    (from a copy with an extra bad-word list only the egg carries): (server, scrapyd-deploy's
    completed process)."""
    tmp = tmp_path_factory.mktemp("scrapyd")
    with LocalWeb() as web:
        build_web(web)
        with ScrapydServer(tmp / "server", env=web.env()) as server:
            project = project_copy(tmp / "project", url=server.url)
            (project / "wackycrawl/text/data/badwords/zz.txt").write_text(
                "\n".join(MARKER_WORDS) + "\n")
            yield server, scrapyd_deploy(project, "--version", "1")


def schedule(server: ScrapydServer, tmp: Path, seeds: list[str], settings: dict) -> str:
    seeds_file = tmp / "seeds.txt"
    seeds_file.write_text("\n".join(seeds) + "\n")
    params = [("setting", f"{k}={v}") for k, v in {**JOB_SETTINGS, **settings}.items()]
    answer = server.api("schedule.json", params, project=PROJECT, spider="seeds",
                        seeds=str(seeds_file))
    assert answer["status"] == "ok", answer
    return answer["jobid"]


def test_deploy_and_listspiders(deployed):
    scrapyd, done = deployed
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert json.loads(done.stdout)["status"] == "ok"
    assert "seeds" in scrapyd.api(f"listspiders.json?project={PROJECT}")["spiders"]
    assert scrapyd.api(f"listversions.json?project={PROJECT}")["versions"] == ["1"]


def test_scheduled_job_finishes_and_writes_trec(deployed, tmp_path):
    scrapyd, _ = deployed
    out = tmp_path / "corpus"
    job = schedule(scrapyd, tmp_path, ["http://sd.test/"], {
        "WACKY_OUTPUT_DIR": out, "WACKY_STATS_FILE": tmp_path / "stats.json"})
    scrapyd.wait_job(PROJECT, job, timeout=120)
    log = scrapyd.job_log(PROJECT, "seeds", job)
    stats = json.loads((tmp_path / "stats.json").read_text())
    assert stats["finish_reason"] == "finished", log[-3000:]
    assert "wacky summary: pages fetched" in log
    files = trec_files(out)
    assert files and not list(out.glob("*.open"))
    for f in files:
        assert check(str(f)).ok, check(str(f)).problems
    urls = {doc.url for f in files for _, doc in iter_docs(str(f))}
    assert urls == {"http://sd.test/", "http://sd.test/plain.html"}
    # dropped by the list that only the egg has: the job ran the deployed egg's code and data
    assert stats["wacky/drop/badwords"] == 1


def test_cancel_stops_a_running_job_gracefully(deployed, tmp_path):
    """cancel.json sends SIGINT: the crawl closes (reason "shutdown") with its TREC file closed
    and valid. A relative WACKY_OUTPUT_DIR lands in Scrapyd's working directory."""
    scrapyd, _ = deployed
    rel = f"cancel-{tmp_path.name}"
    out = scrapyd.root / rel
    job = schedule(scrapyd, tmp_path, ["http://chain.sd.test/p0.html"], {
        "WACKY_OUTPUT_DIR": rel, "WACKY_STATS_FILE": tmp_path / "stats.json",
        "DOWNLOAD_DELAY": "0.3"})
    assert wait_for(lambda: any(len(p.read_text().splitlines()) >= 2
                                for p in out.glob("*.idx.tsv")), timeout=90), \
        scrapyd.job_log(PROJECT, "seeds", job)[-3000:]
    assert scrapyd.api("cancel.json", project=PROJECT, job=job)["prevstate"] == "running"
    scrapyd.wait_job(PROJECT, job, timeout=60)
    log = scrapyd.job_log(PROJECT, "seeds", job)
    stats = json.loads((tmp_path / "stats.json").read_text())
    assert stats["finish_reason"] == "shutdown", log[-3000:]
    assert "wacky summary: pages fetched" in log
    files = trec_files(out)
    assert files and not list(out.glob("*.open"))
    docs = [doc for f in files for _, doc in iter_docs(str(f))]
    assert all(check(str(f)).ok for f in files)
    assert 1 <= len(docs) < 30
