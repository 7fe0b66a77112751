"""Seen sets of request fingerprints on Redis: an exact SET, or a Bloom filter on bitmaps.

Memory (measured by ``benchmarks/redis_memory.py``): the SET costs about 60-90 bytes per
20-byte fingerprint (about 8 GB for 100M URLs). The Bloom filter (Bloom 1970) needs
``m = -n ln p / (ln 2)^2`` bits and ``k = (m / n) ln 2`` hash functions for ``n`` items at a
false-positive rate ``p``: 100M URLs at p = 0.001 take 1.44e9 bits = 180 MB and k = 10. A false
positive silently skips a URL never fetched (kmike, rmax/scrapy-redis#56), so the rate the
filter has reached is reported (:meth:`RedisBloom.error_rate`) and it must be sized for the
crawl: past its capacity the rate grows fast (twice the capacity: ~0.06 at p = 0.001).

Positions are ``h1 + i * h2 (mod m)`` from two 64-bit halves of the fingerprint (Kirsch &
Mitzenmacher 2006, "Less hashing, same performance"); the bitmap is split into shards of
2^32 bits, Redis's largest string.
"""

from __future__ import annotations

import math

from wackycrawl.distributed.keys import CrawlKeys

CAPACITY = 100_000_000
ERROR_RATE = 0.001
SHARD_BITS = 2 ** 32

BLOOM_ADD = """
local new = 0
for i = 1, #ARGV, 2 do
  if redis.call('SETBIT', KEYS[tonumber(ARGV[i])], ARGV[i + 1], 1) == 0 then new = 1 end
end
if new == 1 then redis.call('INCR', KEYS[#KEYS]) end
return new
"""


class RedisSeenSet:
    """Exact seen set: the Redis SET ``key`` of fingerprints (bytes)."""

    def __init__(self, server, key: str):
        self.server, self.key = server, key

    def add(self, fp: bytes) -> bool:
        """Record ``fp``; True if it was new."""
        return self.server.sadd(self.key, fp) == 1

    def __contains__(self, fp: bytes) -> bool:
        return bool(self.server.sismember(self.key, fp))

    def __len__(self) -> int:
        return self.server.scard(self.key)

    def clear(self) -> None:
        self.server.delete(self.key)


def bloom_size(capacity: int, error_rate: float) -> tuple[int, int]:
    """``(m bits, k hashes)`` of an optimal Bloom filter for ``capacity`` items at
    ``error_rate``. Raises ValueError unless capacity >= 1 and 0 < error_rate < 1."""
    if capacity < 1 or not 0 < error_rate < 1:
        raise ValueError(f"bad Bloom filter size: capacity={capacity}, error_rate={error_rate}")
    m = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
    return m, max(1, round(m / capacity * math.log(2)))


def bloom_positions(fp: bytes, m: int, k: int) -> list[int]:
    """The ``k`` bit positions (0 <= p < m) of a fingerprint of at least 16 bytes."""
    h1 = int.from_bytes(fp[:8], "big")
    h2 = int.from_bytes(fp[8:16], "big") | 1
    return [(h1 + i * h2) % m for i in range(k)]


class RedisBloom:
    """Bloom-filter seen set sized for ``capacity`` fingerprints at ``error_rate``."""

    def __init__(self, server, key: str | CrawlKeys, capacity: int = CAPACITY,
                 error_rate: float = ERROR_RATE):
        """``key``: the seen key (``SCHEDULER_DUPEFILTER_KEY``) or a crawl's key names;
        the bitmaps are ``<key>:<i>``, the count ``<key>:count``."""
        self.server = server
        self.key = key.seen if isinstance(key, CrawlKeys) else key
        self.count_key = f"{self.key}:count"
        self.m, self.k = bloom_size(capacity, error_rate)
        self.shards = [f"{self.key}:{i}" for i in range(math.ceil(self.m / SHARD_BITS))]
        self._add = server.register_script(BLOOM_ADD)

    def add(self, fp: bytes) -> bool:
        """Record ``fp``; True if it was new (False may be a false positive)."""
        args = []
        for p in bloom_positions(fp, self.m, self.k):
            args += [p // SHARD_BITS + 1, p % SHARD_BITS]
        return self._add(keys=self.shards + [self.count_key], args=args) == 1

    def __len__(self) -> int:
        """Fingerprints added (counted when the filter said "new")."""
        return int(self.server.get(self.count_key) or 0)

    def clear(self) -> None:
        self.server.delete(self.count_key, *self.shards)

    def error_rate(self, n: int | None = None) -> float:
        """Expected false-positive rate after ``n`` (default: all added) fingerprints:
        ``(1 - e^(-k n / m))^k``."""
        n = len(self) if n is None else n
        return (1 - math.exp(-self.k * n / self.m)) ** self.k
