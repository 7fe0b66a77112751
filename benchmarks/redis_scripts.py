"""Redis server CPU of the crawl's two per-document Lua scripts, on benchmarks/crawl.py's pages.

* the shared near-duplicate index (:class:`~wackycrawl.distributed.simhash.RedisDedupIndex`,
  check and add): ``--docs`` prose pages of :func:`tests.webpages.prose` (crawl.py's generator,
  whose simhashes are crowded: about 200 of 2,000 documents within k = 11 of each), checked
  one after another as one worker does;
* the host templates (:class:`~wackycrawl.distributed.templates.RedisTemplateStore`): as many
  pages over 20 hosts, 8 blocks every page of a host shares and 30 of its own, so each host's
  table overflows ``MAX_BLOCKS`` and is evicted again and again.

Prints, per script, the redis-server CPU per document (``INFO cpu``, user + system, ms) and
the scripts' own time per call (``INFO commandstats``, us), and the client's CPU per document.
Each part runs on a redis-server of its own on 127.0.0.1 (no persistence).

Usage: python benchmarks/redis_scripts.py [--docs 2000]
"""

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.redisserver import RedisServer  # noqa: E402
from tests.webpages import prose  # noqa: E402
from wackycrawl.dedup.detector import fingerprint_shingles  # noqa: E402
from wackycrawl.distributed.keys import CrawlKeys  # noqa: E402
from wackycrawl.distributed.simhash import RedisDedupIndex  # noqa: E402
from wackycrawl.distributed.templates import RedisTemplateStore  # noqa: E402
from wackycrawl.text.funcwords import function_words  # noqa: E402


def server_cpu(client) -> float:
    info = client.info("cpu")
    return info["used_cpu_user"] + info["used_cpu_sys"]


def measure(label: str, calls) -> None:
    """Run ``calls(client)`` (returns the number of documents) on a fresh server; print."""
    with RedisServer() as srv:
        client = srv.client()
        client.config_resetstat()
        cpu0, own0 = server_cpu(client), time.process_time()
        n = calls(client)
        cpu, own = server_cpu(client) - cpu0, time.process_time() - own0
        script = client.info("commandstats").get("cmdstat_evalsha", {})
    print(f"{label:<22}{n:>7}{cpu * 1000 / n:>16.3f}{script.get('usec_per_call', 0):>18.0f}"
          f"{own * 1000 / n:>16.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=2000)
    a = ap.parse_args()
    stop = function_words()
    docs = [fingerprint_shingles("\n".join(prose(n, min_chars=6000 + (n % 5) * 3000)), stop)
            for n in range(a.docs)]

    def dedup(client) -> int:
        index = RedisDedupIndex(client, CrawlKeys("bench"))
        for n, (fp, hashes) in enumerate(docs):
            index.check_and_add(fp, f"http://h{n % 20}.bench.test/p{n}.html", hashes)
        return len(docs)

    def templates(client) -> int:
        store, rng = RedisTemplateStore(client, "wacky:bench:"), random.Random(1)
        for n in range(a.docs):
            store.learn(f"h{n % 20}", [1000 + k for k in range(8)]
                        + [rng.getrandbits(64) for _ in range(30)])
        return a.docs

    print(f"{'script':<22}{'docs':>7}{'server ms/doc':>16}{'script us/call':>18}"
          f"{'client ms/doc':>16}")
    measure("near-duplicate index", dedup)
    measure("host templates", templates)


if __name__ == "__main__":
    main()
