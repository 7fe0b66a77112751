"""The exact and near-duplicate index on Redis, shared by the workers of a crawl (issue 3, 4).

The decision is :class:`~wackycrawl.dedup.detector.DuplicateDetector`'s (exact checksum first,
then simhash candidates within Hamming distance ``k`` for texts with at least ``min_features``
feature words, confirmed by word-shingle resemblance), taken and stored so that two workers
adding near-identical documents at the same moment cannot both keep theirs. Layout (key names
in :mod:`.keys`):

* exact: the 64-bit checksum's leading 16 bits name a HASH ``checksum:<hhhh>``; its field is the
  other 48 bits (an integer), its value the document's owner (below). ``HGET`` + ``HSET``.
* near: the permuted tables of :class:`~wackycrawl.dedup.index.SimhashIndex` (Manku, Jain and
  Das Sarma, WWW 2007, section 3: four 16-bit blocks, and probes of every block value within
  ``k // 4`` bits, so every fingerprint within ``k`` shares a probed bucket): table ``t`` files
  a fingerprint under its block ``t`` in the STRING ``near:<t>:<block hex>``, the other 48
  bits appended as 6 bytes (big-endian; exact in Lua's doubles). The record of a fingerprint
  (owner, 8 bytes; checksum, 8 bytes little-endian; shingle sketch, ``4 + 2 m`` bytes) is in
  the HASH ``near:rec:<block 0 hex>`` under the same 6 bytes of table 0.

One Lua script reads every probed bucket of the four tables with one ``MGET`` (the probed key
names are built in the script from the query's blocks and the probe masks, so the client
packs 6 keys, not ``4 * probes``) and returns the candidates within ``k`` that the client has
not yet seen, each once with its record - the ``MAX_CONFIRM`` nearest (ties: the smaller
simhash), as many as :func:`~wackycrawl.dedup.detector.confirm` compares - or, when there are
none, stores the document
(checksum, four ``APPEND``, the record) in the same atomic step: 11 Redis commands and one
round trip for a new document without candidates, 3 commands for an exact duplicate. The
client confirms the candidates by shingle resemblance (it holds the document's full text)
against the sketches of their records; when none is a near duplicate it calls the script
again with them excluded, so a document added by another worker in between is seen before
this one is stored. The tables' version (``near:version``, counting the documents added)
comes back with the candidates: if it has not moved when the client calls again, no
document can have been added in between and the document is stored without probing again.

Owner: the first 8 bytes of the document URL's fingerprint
(:func:`~wackycrawl.distributed.fingerprint.url_fingerprint`). A match owned by the same URL is
the document's own earlier copy - its worker died after the index took it but before the TREC
file did, and the request was leased again (C20) - so it is kept again (verdict
``"refetched"``) instead of being lost.

Memory: ``benchmarks/redis_memory.py`` (bytes per document). Cost: ``4 * probes`` bucket
lookups in one MGET per check (k = 11: 548 keys), cheap while buckets are small (a few entries
per 100k documents); each bucket entry is compared by byte-wise XOR and a table of bit counts
(literals in the script, not built per call), two bytes at a time, leaving it at the first
pair that puts it beyond ``k``; a fingerprint found in several tables is taken in the first
only (it is found in every table where its block lies within the probe radius), and the
nearest ``MAX_CONFIRM`` are kept in order while the buckets are read (no list of all
candidates, no sort), so the script builds records for the candidates it returns alone.
``benchmarks/crawl.py``'s crowded simhashes (about 200 fingerprints within k = 11 of each
document after 2,000, 1,500 bucket entries read): 0.63 ms of redis-server CPU per document
(0.76 with a sort of all candidates and the tables built per call).
Errors: redis's ``ConnectionError`` / ``ResponseError`` as they come.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import redis

from wackycrawl.dedup.detector import MAX_CONFIRM, MIN_FEATURES, Decision, Fingerprint, K, confirm
from wackycrawl.dedup.index import BLOCK_BITS, MAX_K, TABLES, block_values, probe_masks
from wackycrawl.dedup.shingles import RESEMBLANCE, SHINGLE_SIZE
from wackycrawl.distributed.fingerprint import url_fingerprint
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.written import CLAIM

CHECKSUM_SHARD_BITS = 16
OWNER_BYTES = 8
REST_BYTES = (64 - BLOCK_BITS) // 8
BLOCKS = [(BLOCK_BITS * t, BLOCK_BITS) for t in range(TABLES)]  # (start from the top, width)

# KEYS: checksum shard, record HASH of the own block 0, own bucket of tables 0..3, the tables'
# version (a counter of the documents added to them)[, the written SET[, the writer's write
# intents SET (:mod:`wackycrawl.distributed.written`): a URL not written goes into it]].
# ARGV: checksum rest, owner, '1' to check/add the simhash, k, record, bucket key prefix
# ('<crawl prefix>near:'), probe masks (2 bytes each, big-endian), the query's block per table
# (4 integers), its rest per table (4 x 6 bytes), the version the client's candidates came
# from ('' on a first call), the most candidates to return, the URL fingerprint to look up in
# the written SET ('' = none), then the excluded candidates' names. A candidate's name is
# '<block 0>:<rest of table 0>' (integers); the reply gives the version, then name, distance
# and record of each candidate, nearest first (ties: the smaller simhash), as many as asked
# for: the client compares no more than that.
CHECK_AND_ADD = """
if ARGV[18] ~= '' then
  if redis.call('SISMEMBER', KEYS[8], ARGV[18]) == 1 then return {'already_written'} end
  if KEYS[9] then redis.call('SADD', KEYS[9], ARGV[18]) end
end
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if owner then return {'exact_duplicate', owner} end
if ARGV[3] == '1' then
  local version = redis.call('GET', KEYS[7]) or '0'
  -- tables unchanged since the client's candidates were found: none can be new
  if ARGV[16] ~= version then
    local k, masks, prefix, limit = tonumber(ARGV[4]), ARGV[7], ARGV[6], tonumber(ARGV[17])
    local xor, floor, TOP48 = bit.bxor, math.floor, 2 ^ 48
    local ones, hex = ONES, HEX  -- bits set and 2 hex digits per byte value
    local probes, flipped = {}, {}
    for i = 1, #masks, 2 do
      local hi, lo = masks:byte(i, i + 1)
      probes[#probes + 1], flipped[#flipped + 1] = hi * 256 + lo, ones[hi] + ones[lo]
    end
    local P, names = #probes, {}
    local radius = flipped[P]
    for t = 0, 3 do
      local q, table_prefix = tonumber(ARGV[8 + t]), prefix .. t .. ':'
      for i = 1, P do
        local block = xor(q, probes[i])
        names[t * P + i] = table_prefix .. hex[floor(block / 256)] .. hex[block % 256]
      end
    end
    local buckets = redis.call('MGET', unpack(names))
    -- excluded candidates: block 0 -> {rest of table 0 -> true}
    local excluded, any_excluded = {}, #ARGV >= 19
    for e = 19, #ARGV do
      local b0, r0 = ARGV[e]:match('^(%d+):(%d+)$')
      b0, r0 = tonumber(b0), tonumber(r0)
      excluded[b0] = excluded[b0] or {}
      excluded[b0][r0] = true
    end
    -- the best `limit` candidates so far, nearest first (ties: the smaller simhash): sort
    -- key (distance, then the simhash's top 48 bits) and its last 16 bits, kept in order
    local best_key, best_low, n = {}, {}, 0
    for t = 0, 3 do
      local q = tonumber(ARGV[8 + t])
      local q1, q2, q3, q4, q5, q6 = ARGV[12 + t]:byte(1, 6)
      for i = 1, P do
        local s = buckets[t * P + i]
        if s then
          local room, block = k - flipped[i], xor(q, probes[i])
          for j = 1, #s, 6 do
            local a1, a2, a3, a4, a5, a6 = s:byte(j, j + 5)
            local d1 = ones[xor(a1, q1)] + ones[xor(a2, q2)]
            -- within k, and not found already in an earlier table (whose block the rest
            -- holds first: it is found in every table where its block is within the radius)
            if d1 <= room and (t < 1 or d1 > radius) then
              local d2 = ones[xor(a3, q3)] + ones[xor(a4, q4)]
              if d1 + d2 <= room and (t < 2 or d2 > radius) then
                local d3 = ones[xor(a5, q5)] + ones[xor(a6, q6)]
                if d1 + d2 + d3 <= room and (t < 3 or d3 > radius) then
                  local r1, r2, r3 = a1 * 256 + a2, a3 * 256 + a4, a5 * 256 + a6
                  local x1, x2, x3, x4 = block, r1, r2, r3
                  if t == 1 then x1, x2 = r1, block
                  elseif t == 2 then x1, x2, x3 = r1, r2, block
                  elseif t == 3 then x1, x2, x3, x4 = r1, r2, r3, block end
                  local key = (k - room + d1 + d2 + d3) * TOP48 + (x1 * 65536 + x2) * 65536 + x3
                  if (n < limit or key < best_key[n] or (key == best_key[n] and x4 < best_low[n]))
                     and not (any_excluded and excluded[x1]
                              and excluded[x1][(x2 * 65536 + x3) * 65536 + x4]) then
                    local pos = n < limit and n + 1 or n
                    while pos > 1 and (key < best_key[pos - 1] or (key == best_key[pos - 1]
                                                                   and x4 < best_low[pos - 1])) do
                      best_key[pos], best_low[pos] = best_key[pos - 1], best_low[pos - 1]
                      pos = pos - 1
                    end
                    best_key[pos], best_low[pos] = key, x4
                    if n < limit then n = n + 1 end
                  end
                end
              end
            end
          end
        end
      end
    end
    local reply, found = {'candidates', version}, 0
    for c = 1, n do
      local key, x4 = best_key[c], best_low[c]
      local top = key % TOP48
      local x1, x2, x3 = floor(top / 2 ^ 32), floor(top / 65536) % 65536, top % 65536
      local record = redis.call('HGET', prefix .. 'rec:' .. hex[floor(x1 / 256)]
                                .. hex[x1 % 256], string.char(
                                  floor(x2 / 256), x2 % 256, floor(x3 / 256), x3 % 256,
                                  floor(x4 / 256), x4 % 256))
      if record then
        reply[#reply + 1] = string.format('%d:%d', x1, (x2 * 65536 + x3) * 65536 + x4)
        reply[#reply + 1] = floor(key / TOP48)
        reply[#reply + 1] = record
        found = found + 1
      end
    end
    if found > 0 then return reply end
  end
  for t = 0, 3 do redis.call('APPEND', KEYS[3 + t], ARGV[12 + t]) end
  redis.call('HSET', KEYS[2], ARGV[12], ARGV[5])
  redis.call('INCR', KEYS[7])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '1' then return {'new'} end
return {'too_few_features'}
""".replace("ONES", "{[0] = " + ", ".join(str(v.bit_count()) for v in range(256)) + "}").replace(
    "HEX", "{[0] = " + ", ".join(f"'{v:02x}'" for v in range(256)) + "}")


def split(value: int, start: int, width: int) -> tuple[int, int]:
    """``(block, rest)`` of a 64-bit ``value``: the ``width`` bits from bit ``start`` counted
    from the top, and the other bits closed up (an int below ``2**(64 - width)``)."""
    low_bits = 64 - start - width
    block = (value >> low_bits) & ((1 << width) - 1)
    return block, ((value >> (64 - start)) << low_bits) | (value & ((1 << low_bits) - 1))


def join(block: int, rest: int, start: int, width: int) -> int:
    """The inverse of :func:`split`."""
    low_bits = 64 - start - width
    high = rest >> low_bits
    return (high << (64 - start)) | (block << low_bits) | (rest & ((1 << low_bits) - 1))


class RedisDedupIndex:
    """Check-and-add of documents' :class:`Fingerprint` against the crawl's shared index.

    ``server`` is a ``redis.Redis`` client, ``keys`` the crawl's key names; ``k`` in
    ``0..MAX_K`` (ValueError otherwise); ``min_features``, ``threshold`` and ``shingle_size``
    as in :class:`~wackycrawl.dedup.detector.DuplicateDetector` (the sketch comes with each
    :class:`Fingerprint`). ``written``: the key of the crawl's written SET
    (:mod:`wackycrawl.distributed.pipeline`), looked up in the same script before the index:
    a document whose URL is in it gets the verdict ``"already_written"``; ``pending``: the
    key of the writer's write intents SET, where the same call puts a URL not yet written
    (:mod:`wackycrawl.distributed.written`). ``aserver``: a
    ``redis.asyncio.Redis`` client of the same server, for :meth:`check_and_add_async`.
    """

    def __init__(self, server, keys: CrawlKeys, k: int = K, min_features: int = MIN_FEATURES,
                 threshold: float = RESEMBLANCE, shingle_size: int = SHINGLE_SIZE,
                 written: str | None = None, aserver=None, pending: str | None = None):
        if not 0 <= k <= MAX_K:
            raise ValueError(f"the Redis simhash index needs k in 0..{MAX_K}, not {k}")
        self.server, self.keys, self.k, self.min_features = server, keys, k, min_features
        self.threshold, self.shingle_size, self.written = threshold, shingle_size, written
        self.pending = pending if written else None
        self._masks = b"".join(m.to_bytes(2, "big") for m in probe_masks(k // TABLES))
        self._near = keys.near_bucket_prefix
        self._version = keys.near_bucket_prefix + "version"
        self._script, self._claim = (server.register_script(s) for s in (CHECK_AND_ADD, CLAIM))
        self.aserver = aserver
        self._ascripts = ({kind: aserver.register_script(src) for kind, src in
                           (("script", CHECK_AND_ADD), ("claim", CLAIM))}
                          if aserver is not None else None)

    def check_and_add(self, fp: Fingerprint, url: str, text: str | np.ndarray = "") -> Decision:
        """The decision for the document at ``url`` (str) with fingerprint ``fp`` of the clean
        ``text`` (or its shingle hashes, as :func:`~wackycrawl.dedup.detector.confirm` takes
        them; needed to confirm candidates); a document that is not a duplicate is stored
        at once. Verdicts: those of :meth:`DuplicateDetector.check` (an ``"empty"`` text is
        neither checked nor stored), plus ``"refetched"`` (matched the same URL's own earlier
        copy: keep it) and, with ``written``, ``"already_written"``."""
        steps = self._steps(fp, url, text)
        try:
            call = next(steps)
            while True:
                call = steps.send(self._call(call))
        except StopIteration as done:
            return done.value

    async def check_and_add_async(self, fp: Fingerprint, url: str,
                                  text: str | np.ndarray = "") -> Decision:
        """:meth:`check_and_add` through ``aserver`` (the event loop runs while it waits); a
        call it cannot deliver (``ConnectionError``, ``TimeoutError``) is sent again through
        ``server``, whose retry waits out an outage (:mod:`wackycrawl.distributed.connection`);
        other errors (``ResponseError``) as they come. Needs ``aserver``."""
        steps = self._steps(fp, url, text)
        try:
            call = next(steps)
            while True:
                try:
                    reply = await self._ascripts[call[0]](keys=call[1], args=call[2])
                except (redis.ConnectionError, redis.TimeoutError):
                    reply = self._call(call)
                call = steps.send(reply)
        except StopIteration as done:
            return done.value

    def _call(self, call: tuple):
        script = self._script if call[0] == "script" else self._claim
        return script(keys=call[1], args=call[2])

    def _steps(self, fp: Fingerprint, url: str, text: str | np.ndarray):
        """The check as a generator: yields each Redis call (``("script", keys, args)`` or
        ``("claim", keys, args)``: :data:`~wackycrawl.distributed.written.CLAIM`), is sent
        its reply, returns the Decision."""
        url_fp = url_fingerprint(url)
        written_keys = [self.written, *([self.pending] if self.pending else [])]
        if fp.n_features == 0:
            seen = self.written and (yield "claim", written_keys, [url_fp])
            return Decision("already_written" if seen else "empty", fp.checksum, fp.simhash, 0,
                            fp.sketch)
        owner = url_fp[:OWNER_BYTES]
        shard, rest = split(fp.checksum, 0, CHECKSUM_SHARD_BITS)
        blocks = block_values(fp.simhash)
        rests = [split(fp.simhash, *b)[1].to_bytes(REST_BYTES, "big") for b in BLOCKS]
        keys = [self.keys.checksum_shard(f"{shard:04x}"), self.keys.near_record(f"{blocks[0]:04x}")]
        keys += [f"{self._near}{t}:{blocks[t]:04x}" for t in range(TABLES)]
        keys.append(self._version)
        written = b""
        if self.written:
            keys += written_keys
            written = url_fp
        near = fp.n_features >= self.min_features
        record = owner + fp.checksum.to_bytes(8, "little") + fp.sketch
        excluded, candidates, version = [], {}, ""
        while True:
            answer = yield "script", keys, [rest, owner, "1" if near else "0", self.k, record,
                                            self._near, self._masks, *blocks, *rests, version,
                                            MAX_CONFIRM, written, *excluded]
            verdict, written = answer[0].decode(), b""  # the written SET: looked up once
            if verdict != "candidates":
                break
            version = answer[1]
            names = [name.decode() for name in answer[2::3]]
            for name, d, row in zip(names, answer[3::3], answer[4::3], strict=True):
                block0, rest0 = (int(x) for x in name.split(":"))
                match = join(block0, rest0, *BLOCKS[0])
                candidates[match] = (int(d), match, row[2 * OWNER_BYTES:], row)
            excluded += names
            decision = confirm(fp, text, [
                (d, m, sk, int.from_bytes(row[OWNER_BYTES:2 * OWNER_BYTES], "little"))
                for d, m, sk, row in candidates.values()], self.threshold, self.shingle_size)
            if decision.is_duplicate:
                row = candidates[decision.match][3]
                return self._refetched(decision, row[:OWNER_BYTES] == owner)
        if verdict == "exact_duplicate":
            decision = Decision(verdict, fp.checksum, fp.simhash, fp.n_features, fp.sketch,
                                fp.checksum, 0, 1.0, fp.checksum)
            return self._refetched(decision, answer[1] == owner)
        if verdict in ("too_few_features", "already_written") or not candidates:
            return Decision(verdict, fp.checksum, fp.simhash, fp.n_features, fp.sketch)
        return decision  # new, with the nearest candidate that was not confirmed

    @staticmethod
    def _refetched(decision: Decision, own: bool) -> Decision:
        return replace(decision, verdict="refetched") if own else decision
