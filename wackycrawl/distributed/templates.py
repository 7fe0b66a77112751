"""Host templates on Redis, shared by the workers of a distributed crawl.

The same counts and rules as :class:`wackycrawl.text.templates.TemplateStore` (pages per block
hash and host, a block is template from ``min_pages`` pages on, at most ``max_blocks`` hashes
per host, the lowest counts evicted to half when exceeded), so every worker learns from every
page of the crawl. One HASH per host, ``wacky:<crawl>:template:<host>``: field = the block hash
as 8 bytes, value = pages; field ``p`` + the page's 8-byte
:func:`~wackycrawl.text.templates.page_signature` = copies of that page seen (a page with the
same blocks as one counted before is not counted again). :meth:`RedisTemplateStore.learn` is
one Lua script (the page's field, one HMGET and one HSET of the page's distinct hashes, HLEN,
eviction by a counting sort of the counts, the counts back, 0 for a block the eviction
dropped: 5 Redis commands per page, 7 when it evicts), so concurrent workers
never lose a count and a table never outgrows its bound. Memory: about ``max_blocks`` x 50
bytes per host (small tables stay listpacks below ``hash-max-listpack-entries``); the keys live
as long as the crawl's other keys. Errors: redis's ``ConnectionError`` / ``ResponseError`` as
they come.
"""

from __future__ import annotations

from collections.abc import Iterable

import redis

from wackycrawl.text.templates import MAX_BLOCKS, MIN_PAGES, page_signature

# KEYS[1]: the host's HASH. ARGV[1]: max_blocks; ARGV[2]: the page's field; ARGV[3..]: the
# page's distinct hashes. Returns each hash's count after this page (unchanged for a copy; 0
# when the eviction dropped it). Reads and writes go CHUNK fields per command (Lua's unpack
# has a limit of a few thousand values).
LEARN = """
local CHUNK = 1000
local function each_chunk(list, call)
  for i = 1, #list, CHUNK do call({unpack(list, i, math.min(i + CHUNK - 1, #list))}) end
end
local fields, out = {}, {}
for i = 3, #ARGV do fields[i - 2] = ARGV[i] end
if redis.call('HINCRBY', KEYS[1], ARGV[2], 1) > 1 then
  each_chunk(fields, function(chunk)
    for _, n in ipairs(redis.call('HMGET', KEYS[1], unpack(chunk))) do
      out[#out + 1] = tonumber(n) or 0
    end
  end)
  return out
end
each_chunk(fields, function(chunk)
  local old = redis.call('HMGET', KEYS[1], unpack(chunk))
  local kv = {}
  for j = 1, #chunk do
    local n = (tonumber(old[j]) or 0) + 1
    out[#out + 1] = n
    kv[2 * j - 1], kv[2 * j] = chunk[j], n
  end
  redis.call('HSET', KEYS[1], unpack(kv))
end)
local max = tonumber(ARGV[1])
if redis.call('HLEN', KEYS[1]) > max then
  -- drop the lowest counts down to max / 2, ties in the table's order: a stable counting
  -- sort over the counts (small integers), no list of entries and no sort of them
  local all = redis.call('HGETALL', KEYS[1])
  local per_count, low, high = {}, math.huge, 0
  for i = 2, #all, 2 do
    local n = tonumber(all[i])
    per_count[n] = (per_count[n] or 0) + 1
    if n < low then low = n end
    if n > high then high = n end
  end
  local left, cut = #all / 2 - math.floor(max / 2), low  -- entries to drop; the cut count
  for n = low, high do
    local c = per_count[n] or 0
    if c >= left then cut = n break end
    left = left - c
  end
  local drop = {}
  for i = 1, #all, 2 do
    local n = tonumber(all[i + 1])
    if n < cut then drop[#drop + 1] = all[i]
    elseif n == cut and left > 0 then drop[#drop + 1] = all[i]; left = left - 1 end
  end
  each_chunk(drop, function(chunk) redis.call('HDEL', KEYS[1], unpack(chunk)) end)
  -- a block of this page that was dropped counts 0 now, as in the in-process store
  local dropped = {}
  for _, f in ipairs(drop) do dropped[f] = true end
  for j = 1, #fields do
    if dropped[fields[j]] then out[j] = 0 end
  end
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
                             args=[self.max_blocks, b"p" + page_signature(distinct),
                                   *map(_field, distinct)])
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
