"""Host templates on Redis, shared by the workers of a distributed crawl.

The same counts and rules as :class:`wackycrawl.text.templates.TemplateStore` (pages per
block hash and host, a block is template from ``min_pages`` pages on, at most ``max_blocks``
hashes per host, the lowest counts evicted to half when exceeded), so every worker learns
from every page of the crawl. One HASH per host, ``wacky:<crawl>:template:<host>``: field =
the block hash as 8 bytes, value = pages. :meth:`RedisTemplateStore.learn` is one Lua script
(HINCRBY of the page's distinct hashes, eviction, the counts back), so concurrent workers
never lose a count and a table never outgrows its bound. Memory: about ``max_blocks`` x 50
bytes per host (small tables stay listpacks below ``hash-max-listpack-entries``); the keys
live as long as the crawl's other keys. Errors: redis's ``ConnectionError`` /
``ResponseError`` as they come.
"""

from __future__ import annotations

from collections.abc import Iterable

import redis

from wackycrawl.text.templates import MAX_BLOCKS, MIN_PAGES

# KEYS[1]: the host's HASH. ARGV[1]: max_blocks; ARGV[2..]: the page's distinct hashes.
# Returns each hash's count after this page.
LEARN = """
local out = {}
for i = 2, #ARGV do out[i - 1] = redis.call('HINCRBY', KEYS[1], ARGV[i], 1) end
local max = tonumber(ARGV[1])
if redis.call('HLEN', KEYS[1]) > max then
  local all = redis.call('HGETALL', KEYS[1])
  local entries = {}
  for i = 1, #all, 2 do entries[#entries + 1] = {all[i], tonumber(all[i + 1]), i} end
  table.sort(entries, function(a, b)
    if a[2] ~= b[2] then return a[2] < b[2] end
    return a[3] < b[3]
  end)
  for i = 1, #entries - math.floor(max / 2) do redis.call('HDEL', KEYS[1], entries[i][1]) end
end
return out
"""


def _field(h: int) -> bytes:
    return h.to_bytes(8, "big")


class RedisTemplateStore:
    """Block-hash counts per host in Redis (``server``: a ``redis.Redis``), under ``prefix``
    (a crawl's key prefix, ``wacky:<crawl>:``)."""

    def __init__(self, server: redis.Redis, prefix: str, min_pages: int = MIN_PAGES,
                 max_blocks: int = MAX_BLOCKS):
        if min(min_pages, max_blocks) < 1:
            raise ValueError("min_pages and max_blocks must be at least 1")
        self.server, self.prefix = server, prefix
        self.min_pages, self.max_blocks = min_pages, max_blocks
        self._learn = server.register_script(LEARN)

    def key(self, host: str) -> str:
        return f"{self.prefix}template:{host}"

    def learn(self, host: str, hashes: Iterable[int]) -> set[int]:
        """Count this page of ``host`` (each distinct hash once) and return those of
        ``hashes`` now seen on at least ``min_pages`` pages."""
        distinct = list(dict.fromkeys(hashes))
        if not distinct:
            return set()
        counts = self._learn(keys=[self.key(host)],
                             args=[self.max_blocks, *map(_field, distinct)])
        return {h for h, n in zip(distinct, counts) if int(n) >= self.min_pages}

    def observe(self, host: str, hashes: Iterable[int]) -> None:
        """Count one page of ``host`` (as :meth:`learn`, without the answer)."""
        self.learn(host, hashes)

    def templates(self, host: str, hashes: Iterable[int]) -> set[int]:
        """Those of ``hashes`` seen on at least ``min_pages`` pages of ``host`` (no counting)."""
        hashes = list(hashes)
        if not hashes:
            return set()
        counts = self.server.hmget(self.key(host), [_field(h) for h in hashes])
        return {h for h, n in zip(hashes, counts) if n is not None and int(n) >= self.min_pages}

    def count(self, host: str, block: int) -> int:
        """Pages of ``host`` block hash ``block`` was seen on (0 if unknown or evicted)."""
        n = self.server.hget(self.key(host), _field(block))
        return int(n) if n is not None else 0
