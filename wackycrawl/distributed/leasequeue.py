"""A Redis request queue with leases: nothing popped is lost when a worker dies (case C20).

The reliable-queue pattern (Redis docs, "Pattern: Reliable queue"; scrapy-redis loses the
requests a killed worker had popped, C20) with deadlines instead of a processing list:

* :meth:`LeaseQueue.push` puts a request id (its fingerprint, hex) into the ``queue`` ZSET,
  its payload into the ``requests`` HASH; with a delay it is *parked* instead (``parked``
  ZSET by not-before time: a host whose robots.txt is unreachable, a Retry-After), and
  :meth:`LeaseQueue.pop` queues it once its time has come, so a parked request is in
  Redis, not in a worker's memory;
* :meth:`LeaseQueue.pop` moves the first id into ``inflight`` (ZSET by deadline = Redis
  server time + ``lease_seconds``) and records the lease token ``<worker>#<run>.<n>`` in
  ``leases`` (``run`` is random per process, so a restarted worker's tokens are new);
* :meth:`LeaseQueue.ack` forgets the request, only if the token still holds the lease;
  with ``requeue=True`` it goes back to the queue at its old place (a graceful stop);
* :meth:`LeaseQueue.renew` moves the deadlines of leases still held (the heartbeat of a
  worker whose requests are legitimately slow);
* :meth:`LeaseQueue.reclaim` (any worker, periodically) puts requests whose lease expired
  (their worker died) back into the queue;
* :meth:`LeaseQueue.pull_seeds` moves seeds pushed to a start-URL key (scrapy-redis's
  ``redis_key``: a LIST read from the head as scrapy-redis's ``LRANGE``/``LTRIM``, a SET by
  ``SPOP``, a ZSET highest score first) into the queue as they are (id ``seed:<SHA-1 of the
  entry>``, so the same entry pushed twice while one is queued or leased is queued once);
  a worker leases such a raw seed like any request, and :meth:`LeaseQueue.queue_seed`
  replaces it by the requests made from it (or a dead letter). A seed is therefore always in
  the start key, the queue, a lease or the queue as its request: a worker killed at any
  point between loses none and queues none twice.

Every step is one Lua script, so it is atomic across workers, and deadlines use the Redis
server's clock (``TIME``), not the workers'. Order: higher priority first, FIFO within one
priority (score ``-priority * 1e12 + n``). Pushing an id already queued, parked or leased
is a no-op (so a duplicate can never take a live worker's lease away); the worker holding
the lease pushes it back with its token (a retry, a wait for the host), atomically.
"""

from __future__ import annotations

import itertools
import os
import time
from typing import NamedTuple

from wackycrawl.distributed.keys import QUEUE_PARTS, CrawlKeys, QueueKeys

LEASE_SECONDS = 60.0
SEED_PREFIX = "seed:"  # id prefix of a raw seed moved from the start-URL key into the queue
PROMOTE_LIMIT = 100  # parked requests made ready per pop at most

_NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) + tonumber(t[2]) / 1e6 "
_OWNS = "local v = redis.call('HGET', KEYS[4], ARGV[1]) " \
        "if not v or string.sub(v, 1, #ARGV[2] + 1) ~= ARGV[2] .. '|' then return 0 end "

# KEYS: queue, requests, inflight, leases, seq, parked, parked_hosts[, seen SET]
# ARGV: id, token ('' = not leased by the caller), priority, payload, delay (s; > 0 parks), host
# [, fingerprint, '1' if dont_filter]: with the seen SET the fingerprint is recorded in the
# same step, and -1 returned (nothing queued) if it was there and the request is filtered.
PUT = _NOW + """
if KEYS[8] and redis.call('SADD', KEYS[8], ARGV[7]) == 0 and ARGV[8] ~= '1' then return -1 end
if ARGV[2] == '' then
  if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZSCORE', KEYS[6], ARGV[1])
     or redis.call('ZSCORE', KEYS[3], ARGV[1]) then return 0 end
else
  local v = redis.call('HGET', KEYS[4], ARGV[1])
  if not v or string.sub(v, 1, #ARGV[2] + 1) ~= ARGV[2] .. '|' then return 0 end
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('HDEL', KEYS[4], ARGV[1])
  if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
if tonumber(ARGV[5]) > 0 then
  redis.call('ZADD', KEYS[6], string.format('%.3f', now + tonumber(ARGV[5])), ARGV[1])
  redis.call('HSET', KEYS[7], ARGV[1], ARGV[6] .. '|' .. ARGV[3])
else
  local score = -tonumber(ARGV[3]) * 1e12 + redis.call('INCR', KEYS[5])
  redis.call('ZADD', KEYS[1], string.format('%.0f', score), ARGV[1])
end
return 1
"""
# KEYS: queue, requests, inflight, leases, seq, parked, parked_hosts[, start-URL key]; ARGV:
# token, lease s, limit, then (id, token) of each lease to acknowledge first (as ACK). Returns
# {id, payload} of the request leased (false, false if none), 1 if none was and the start-URL
# key exists (else 0), then 1 per lease acknowledged, 0 per one lost.
POP = _NOW + """
local reply = {false, false, 0}
for i = 4, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  local v = redis.call('HGET', KEYS[4], id)
  if v and string.sub(v, 1, #token + 1) == token .. '|' then
    redis.call('HDEL', KEYS[4], id)
    redis.call('ZREM', KEYS[3], id)
    if not redis.call('ZSCORE', KEYS[1], id) then redis.call('HDEL', KEYS[2], id) end
    reply[#reply + 1] = 1
  else
    reply[#reply + 1] = 0
  end
end
local due = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(due) do
  local hp = redis.call('HGET', KEYS[7], id) or '|0'
  local prio = tonumber(string.match(hp, '|([^|]*)$')) or 0
  redis.call('ZREM', KEYS[6], id)
  redis.call('HDEL', KEYS[7], id)
  redis.call('ZADD', KEYS[1], 'NX', string.format('%.0f', -prio * 1e12 + redis.call('INCR', KEYS[5])), id)
end
local r = redis.call('ZPOPMIN', KEYS[1])
if #r == 0 then
  if KEYS[8] then reply[3] = redis.call('EXISTS', KEYS[8]) end
  return reply
end
redis.call('ZADD', KEYS[3], string.format('%.3f', now + tonumber(ARGV[2])), r[1])
redis.call('HSET', KEYS[4], r[1], ARGV[1] .. '|' .. r[2])
reply[1], reply[2] = r[1], redis.call('HGET', KEYS[2], r[1]) or false
return reply
"""
# ARGV: id, token, '1' = back into the queue at its old place, else '0'; a dead letter:
# ARGV[4] = the entry to push to KEYS[5] (the dead-letter LIST)
ACK = _OWNS + """
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[1], 'NX', string.match(v, '|(.*)$'), ARGV[1])
elseif not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('HDEL', KEYS[2], ARGV[1])
end
if ARGV[4] then redis.call('LPUSH', KEYS[5], ARGV[4]) end
return 1
"""
# Returns 1 per lease still held (renewed), 0 per one lost.
RENEW = _NOW + """
local kept = {}
for i = 2, #ARGV, 2 do
  local v = redis.call('HGET', KEYS[2], ARGV[i])
  if v and string.sub(v, 1, #ARGV[i + 1] + 1) == ARGV[i + 1] .. '|' then
    redis.call('ZADD', KEYS[1], 'XX', string.format('%.3f', now + tonumber(ARGV[1])), ARGV[i])
    kept[#kept + 1] = 1
  else
    kept[#kept + 1] = 0
  end
end
return kept
"""

# KEYS: queue, inflight, leases, resumed; ARGV: limit, hold (s), '1' if the caller came back
# from an outage, the server time of the caller's previous call ('' = none), the caller's
# own seconds since that call, the clock jump (s) that counts as a stall. A stall (an outage,
# or the server's clock ran ahead of the caller's by more than the jump: all leases aged at
# once) is recorded in KEYS[4]; for ``hold`` seconds after the last one nothing is reclaimed
# (every live worker renews first). Returns {requests put back, or -1 if held off; now}.
RECLAIM = _NOW + """
local resumed = tonumber(redis.call('GET', KEYS[4]) or '0') or 0
local stall = ARGV[3] == '1'
if ARGV[4] ~= '' and (now - tonumber(ARGV[4])) - tonumber(ARGV[5]) > tonumber(ARGV[6]) then
  stall = true
end
if stall and now > resumed then
  resumed = now
  redis.call('SET', KEYS[4], string.format('%.3f', now))
end
if now < resumed + tonumber(ARGV[2]) then return {-1, string.format('%.6f', now)} end
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for _, id in ipairs(ids) do
  local v = redis.call('HGET', KEYS[3], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZADD', KEYS[1], 'NX', v and string.match(v, '|(.*)$') or '0', id)
end
return {#ids, string.format('%.6f', now)}
"""

# KEYS: start-URL key, queue, requests, seq; ARGV: type (list, set, zset), n, id prefix.
# Returns {moved, repeated, first repeated entry}, or {-1, the key's type} on a type mismatch.
PULL = """
local t = redis.call('TYPE', KEYS[1]).ok
if t == 'none' then return {0, 0} end
if t ~= ARGV[1] then return {-1, t} end
local n = tonumber(ARGV[2])
local raws
if t == 'set' then
  raws = redis.call('SPOP', KEYS[1], n)
elseif t == 'zset' then
  raws = redis.call('ZREVRANGE', KEYS[1], 0, n - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], -n, -1)
else
  raws = redis.call('LRANGE', KEYS[1], 0, n - 1)
  redis.call('LTRIM', KEYS[1], n, -1)
end
local moved, repeated, first = 0, 0, ''
for _, raw in ipairs(raws) do
  local id = ARGV[3] .. redis.sha1hex(raw)
  if redis.call('HSETNX', KEYS[3], id, raw) == 1 then
    redis.call('ZADD', KEYS[2], string.format('%.0f', redis.call('INCR', KEYS[4])), id)
    moved = moved + 1
  else
    if repeated == 0 then first = raw end
    repeated = repeated + 1
  end
end
return {moved, repeated, first}
"""
# KEYS: queue, requests, inflight, leases, seq, parked, dead; ARGV: raw seed id, token,
# dead-letter entry ('' = none), then (id, priority, payload) of each request made from it.
# Returns 0 if the lease was lost, else a list: 1 per request queued, 0 per one already there.
SEED = _OWNS + """
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[3] ~= '' then redis.call('LPUSH', KEYS[7], ARGV[3]) end
local done = {}
for i = 4, #ARGV, 3 do
  local id = ARGV[i]
  if redis.call('ZSCORE', KEYS[1], id) or redis.call('ZSCORE', KEYS[6], id)
     or redis.call('ZSCORE', KEYS[3], id) then
    done[#done + 1] = 0
  else
    redis.call('HSET', KEYS[2], id, ARGV[i + 2])
    local score = -tonumber(ARGV[i + 1]) * 1e12 + redis.call('INCR', KEYS[5])
    redis.call('ZADD', KEYS[1], string.format('%.0f', score), id)
    done[#done + 1] = 1
  end
end
return done
"""
START_KINDS = ("list", "set", "zset")


class StartKeyTypeError(ValueError):
    """The start-URL key holds another Redis type than the settings say."""


class Leased(NamedTuple):
    """A popped request: ``payload`` is None if it was missing (a damaged queue)."""

    id: str
    token: str
    payload: bytes | None


class LeaseQueue:
    """The lease/acknowledge queue of one crawl for one worker (see the module doc).

    ``server`` is a ``redis.Redis`` client (bytes replies); raises redis's ConnectionError
    and ResponseError as they come.
    """

    def __init__(self, server, keys: CrawlKeys | QueueKeys, worker: str,
                 lease_seconds: float = LEASE_SECONDS):
        self.server, self.keys, self.worker = server, keys, worker
        self.lease_seconds = lease_seconds
        self._tokens, self._run = itertools.count(), os.urandom(3).hex()  # unique per process
        self.seeds_waiting = True  # see ack_and_pop
        self._clock: tuple[str, float] | None = None  # (server time, monotonic) of reclaim
        self._put, self._pop, self._ack, self._renew, self._reclaim, self._pull, self._seed = (
            server.register_script(s) for s in (PUT, POP, ACK, RENEW, RECLAIM, PULL, SEED))
        k = keys
        self._k4 = [k.queue, k.requests, k.inflight, k.leases]
        self._k7 = self._k4 + [k.seq, k.parked, k.parked_hosts]

    def push(self, rid: str, priority: int, payload: bytes, token: str = "",
             delay: float = 0.0, host: str = "") -> bool:
        """Queue a request, or with ``delay`` > 0 seconds park it until then (``host`` is
        recorded for the progress line). Without ``token``: False if ``rid`` is already
        queued, parked or leased (it is being handled). With the ``token`` of this
        worker's lease on ``rid``: the lease ends and the request goes back (a retry, a
        wait for its host); False if the lease was lost."""
        return bool(self._put(keys=self._k7, args=[rid, token, priority, payload, delay, host]))

    def push_seen(self, rid: str, priority: int, payload: bytes, seen_key: str, fp: bytes,
                  dont_filter: bool = False, delay: float = 0.0, host: str = "") -> int:
        """Record ``fp`` in the seen SET ``seen_key`` and queue (or park) the request in one
        step, so no worker dies between the two: -1 if it was seen (nothing queued unless
        ``dont_filter``), 0 if already queued, parked or leased, 1 if queued."""
        return int(self._put(keys=self._k7 + [seen_key], args=[
            rid, "", priority, payload, delay, host, fp, "1" if dont_filter else "0"]))

    def pop(self) -> Leased | None:
        """Lease the first queued request to this worker, or None if the queue is empty;
        parked requests whose time has come are queued first."""
        return self.ack_and_pop([])[1]

    def ack_and_pop(self, leases: list[tuple[str, str]],
                    start_key: str | None = None) -> tuple[list[bool], Leased | None]:
        """:meth:`ack` each of ``leases`` ``(id, token)`` (True if held, False if lost),
        then :meth:`pop`, in one step (one round trip). With ``start_key`` (a start-URL key),
        :attr:`seeds_waiting` says after a pop that leased nothing whether that key exists
        (so :meth:`pull_seeds` has something to pull)."""
        token = f"{self.worker}#{self._run}.{next(self._tokens)}"
        r = self._pop(keys=self._k7 + ([start_key] if start_key else []),
                      args=[token, self.lease_seconds, PROMOTE_LIMIT,
                            *(x for lease in leases for x in lease)])
        self.seeds_waiting = bool(int(r[2]))
        acked = [bool(int(x)) for x in r[3:]]
        return acked, Leased(r[0].decode(), token, r[1]) if r[0] is not None else None

    def ack(self, rid: str, token: str, requeue: bool = False, dead: bytes | None = None) -> bool:
        """Forget (or with ``requeue`` put back) a leased request; False if the lease was lost.
        ``dead``: the entry to keep in the dead-letter list instead of the request."""
        args = [rid, token, "1" if requeue else "0"] + ([dead] if dead is not None else [])
        return bool(self._ack(keys=self._k4 + [self.keys.dead], args=args))

    def renew(self, leases: list[tuple[str, str]]) -> int:
        """Extend the leases ``(id, token)`` still held; returns how many were."""
        return sum(self.renew_each(leases))

    def renew_each(self, leases: list[tuple[str, str]]) -> list[bool]:
        """:meth:`renew`: per lease, True if it was still held (and is renewed)."""
        if not leases:
            return []
        args = [self.lease_seconds] + [x for pair in leases for x in pair]
        return [bool(int(x)) for x in self._renew(keys=[self.keys.inflight, self.keys.leases],
                                                  args=args)]

    def reclaim(self, limit: int = 1000, outage: bool = False) -> int:
        """Put up to ``limit`` requests with expired leases back into the queue; returns how
        many (0 while held off). Not for one lease period after the last stall of the server
        that any worker saw (``queue:resumed``): ``outage`` True says this worker came back
        from one; a jump of the server's clock against this worker's since its previous
        call counts as one too. Every live worker renews its leases meanwhile, so only those
        of dead workers are put back (the server's clock ran on while nobody could renew)."""
        k = self.keys
        mark = time.monotonic()
        prev, since = ("", 0.0) if self._clock is None else (
            self._clock[0], mark - self._clock[1])
        n, now = self._reclaim(keys=[k.queue, k.inflight, k.leases, k.resumed], args=[
            limit, self.lease_seconds, "1" if outage else "0", prev, since,
            max(1.0, self.lease_seconds / 4)])
        self._clock = (now.decode() if isinstance(now, bytes) else str(now), time.monotonic())
        return max(0, int(n))

    def pull_seeds(self, start_key: str, kind: str, n: int) -> tuple[int, int, bytes]:
        """Move up to ``n`` entries of the start-URL key ``start_key`` (``kind`` = ``list``,
        ``set`` or ``zset``) into the queue as raw seeds, atomically. Returns ``(moved,
        repeated, first repeated entry or b"")``: an entry already queued or leased as a raw
        seed is repeated, not queued again. Raises :class:`StartKeyTypeError` if the key
        holds another type (nothing is moved)."""
        r = self._pull(keys=[start_key, self.keys.queue, self.keys.requests, self.keys.seq],
                       args=[kind, n, SEED_PREFIX])
        if r[0] == -1:
            raise StartKeyTypeError(f"{start_key} is a Redis {r[1].decode()}, not a {kind}")
        return int(r[0]), int(r[1]), r[2] if len(r) > 2 else b""

    def queue_seed(self, rid: str, token: str, requests: list[tuple[str, int, bytes]],
                   dead: bytes = b"") -> list[bool] | None:
        """Replace the raw seed ``rid`` this worker leased (``token``) by ``requests``
        ``(id, priority, payload)``, and keep ``dead`` (if any) in the dead-letter list, in
        one step. Returns per request True if queued, False if it was already queued,
        parked or leased; None if the lease was lost (another worker has the seed)."""
        k = self.keys
        args = [rid, token, dead] + [x for req in requests for x in req]
        done = self._seed(keys=self._k7[:6] + [k.dead], args=args)
        return [bool(d) for d in done] if isinstance(done, list) else None  # 0: lease lost

    def queued(self) -> int:
        """Requests ready to be leased (parked ones not counted)."""
        return self.server.zcard(self.keys.queue)

    def in_flight(self) -> int:
        """Leases held by all workers of the crawl."""
        return self.server.zcard(self.keys.inflight)

    def parked(self) -> tuple[int, int, float | None]:
        """``(requests, hosts, seconds until the next is due or None)`` of parked requests."""
        k = self.keys
        with self.server.pipeline(transaction=False) as pipe:
            pipe.zcard(k.parked).hvals(k.parked_hosts).zrange(k.parked, 0, 0, withscores=True)
            pipe.time()
            n, hosts, first, (sec, usec) = pipe.execute()
        wait = max(0.0, first[0][1] - sec - usec / 1e6) if first else None
        return n, len({h.rsplit(b"|", 1)[0] for h in hosts}), wait

    def dead_letters(self) -> int:
        return self.server.llen(self.keys.dead)

    def clear(self) -> None:
        """Delete every key of this queue (SCHEDULER_FLUSH_ON_START, SCHEDULER_PERSIST off)."""
        k = self.keys
        self.server.delete(k.queue, *(getattr(k, p) for p in QUEUE_PARTS))


def start_urls_size(server, key: str, kind: str | None = None) -> int:
    """Entries waiting in a start-URL key (0 if it is missing, or not of type ``kind``)."""
    found = server.type(key).decode()
    if kind is not None and found != kind:
        return 0
    return {"list": server.llen, "set": server.scard, "zset": server.zcard}.get(
        found, lambda _: 0)(key)


def leases_per_worker(server, keys: CrawlKeys) -> dict[str, int]:
    """Leases currently held, by worker id (from the lease tokens)."""
    counts: dict[str, int] = {}
    for v in server.hvals(keys.leases):
        worker = v.decode().split("|", 1)[0].rsplit("#", 1)[0]
        counts[worker] = counts.get(worker, 0) + 1
    return counts
