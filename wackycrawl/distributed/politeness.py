"""Cluster-wide politeness: the rules of :class:`~wackycrawl.crawl.politeness.HostSchedule`
with the per-host state in Redis, so every worker of a crawl sees one schedule (issue 3, 3).

Each politeness key (a host, or ``ip:<address>`` for the per-IP limit) is one HASH
``wacky:<crawl>:host:<key>`` (:meth:`CrawlKeys.host`) with the fields

=============  =================================================================================
``interval``   own interval, seconds (``set_interval``: DOWNLOAD_DELAY / Crawl-delay, RFC 9309)
``robots:<k>`` the interval the robots.txt of scheme+host+port ``<k>`` asks for; ``interval``
               is the largest of them (``set_source_interval``: a host name's robots.txt on
               other ports, http and https, parsed by any worker, never lower another's)
``raised``     back-off interval while the host answers 429/503 (C06), and ``raised_at``
``hold``       no request before this time (Retry-After, RFC 9110 10.2.3, or the back-off wait)
``last``       start of the last request; after its answer, the end of it
``owner``      lease token of the request in flight (``<worker>#<run>.<n>``), and ``lease``,
               the time its claim expires: a dead worker blocks its hosts until then only
=============  =================================================================================

All times are the Redis server's clock (``TIME``, seconds since the epoch), so the workers'
clocks do not matter. :meth:`RedisHostSchedule.claim` and :meth:`~RedisHostSchedule.release`
are Lua scripts (atomic across workers: check the owner and the next allowed start of every
key, then take them), and so is relax (on a success, in the release's round trip: one per
answer); hold and back-off are
optimistic transactions (WATCH/MULTI)
over :class:`~wackycrawl.crawl.politeness.Backoff`'s arithmetic. :meth:`clock` is the
server's time estimated locally (the last ``TIME`` seen plus the local monotonic time since),
so the middleware's send times and holds compare with the server's.

Errors: every method raises redis's ``ConnectionError`` / ``ResponseError`` as they come.
"""

from __future__ import annotations

import itertools
import os
import time

from wackycrawl.crawl.politeness import Backoff
from wackycrawl.distributed.keys import CrawlKeys
from wackycrawl.distributed.leasequeue import _NOW

#: Seconds a claim holds its keys when its worker never releases them (it died). Must exceed
#: DOWNLOAD_TIMEOUT plus the slot delay, or a slow answer overlaps the next request.
HOST_LEASE_SECONDS = 60.0

_INTERVAL = """
local function interval(key)
  local v = redis.call('HMGET', key, 'interval', 'raised')
  return math.max(tonumber(v[1]) or tonumber(ARGV[2]), tonumber(v[2]) or 0)
end
"""

# KEYS: host hashes; ARGV: token, default interval, lease seconds.
# Returns {'0' | wait seconds | 'busy', server time}.
CLAIM = _NOW + _INTERVAL + """
local stamp = string.format('%.6f', now)
for _, k in ipairs(KEYS) do
  local o = redis.call('HMGET', k, 'owner', 'lease')
  if o[1] and o[1] ~= ARGV[1] and tonumber(o[2]) > now then return {'busy', stamp} end
end
local wait = -1
for _, k in ipairs(KEYS) do
  local v = redis.call('HMGET', k, 'last', 'hold')
  if v[1] then wait = math.max(wait, tonumber(v[1]) + interval(k) - now) end
  if v[2] then wait = math.max(wait, tonumber(v[2]) - now) end
end
if wait > 0 then return {string.format('%.6f', wait), stamp} end
for _, k in ipairs(KEYS) do
  redis.call('HSET', k, 'last', stamp)
  if interval(k) > 0 then
    redis.call('HSET', k, 'owner', ARGV[1], 'lease', string.format('%.6f', now + tonumber(ARGV[3])))
  else
    redis.call('HDEL', k, 'owner', 'lease')
  end
end
return {'0', stamp}
"""

# A success: the raised interval of the host hash ``key`` shrinks by ``decay``; most hosts were
# never raised: then nothing is written.
_RELAX = """
local function relax(key, decay, default)
  local raised = tonumber(redis.call('HGET', key, 'raised'))
  if not raised then return 0 end
  raised = raised * tonumber(decay)
  local own = tonumber(redis.call('HGET', key, 'interval')) or tonumber(default)
  if raised <= own then redis.call('HDEL', key, 'raised', 'raised_at')
  else redis.call('HSET', key, 'raised', string.format('%.17g', raised)) end
  return 1
end
"""

# KEYS: host hashes[, the host hash to relax first]; ARGV: token[, decay, default interval].
# The intervals run from the end of the request.
RELEASE = _NOW + _RELAX + """
local held, n = 0, #KEYS
if ARGV[2] then
  relax(KEYS[n], ARGV[2], ARGV[3])
  n = n - 1
end
for i = 1, n do
  local k = KEYS[i]
  local last = tonumber(redis.call('HGET', k, 'last'))
  if not last or last < now then redis.call('HSET', k, 'last', string.format('%.6f', now)) end
  if redis.call('HGET', k, 'owner') == ARGV[1] then
    redis.call('HDEL', k, 'owner', 'lease')
    held = 1
  end
end
return held
"""


# KEYS: host hash; ARGV: decay, default interval.
RELAX = _RELAX + "return relax(KEYS[1], ARGV[1], ARGV[2])"

# KEYS: host hash; ARGV: source field ('robots:<scheme+host+port>'), seconds.
# The host's interval becomes the largest of its sources; returns it (a string).
SET_SOURCE_INTERVAL = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local top = tonumber(ARGV[2])
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if string.sub(all[i], 1, 7) == 'robots:' then top = math.max(top, tonumber(all[i + 1])) end
end
local v = string.format('%.17g', top)
redis.call('HSET', KEYS[1], 'interval', v)
return v
"""


class RedisHostSchedule:
    """:class:`~wackycrawl.crawl.politeness.HostSchedule`'s interface over Redis (module doc).

    ``server`` is a ``redis.Redis`` client, ``keys`` the crawl's key names, ``worker`` this
    worker's id (part of the lease tokens), ``default_interval`` seconds (DOWNLOAD_DELAY) for
    keys without their own, ``lease_seconds`` how long a claim outlives a dead worker.
    ``claim`` answers 0.0 (go), seconds to wait, or None while a request of any worker holds
    one of the keys; ``owner`` is any object, the same for claim and release.
    """

    def __init__(self, server, keys: CrawlKeys, worker: str, default_interval: float,
                 backoff: Backoff | None = None, lease_seconds: float = HOST_LEASE_SECONDS):
        self.server, self.keys = server, keys
        self.default_interval = default_interval
        self.backoff = backoff or Backoff()
        self.lease_seconds = lease_seconds
        self._prefix = f"{worker}#{os.urandom(3).hex()}."
        self._n = itertools.count()
        self._tokens: dict[int, str] = {}  # id(owner) -> lease token of its claim
        self._claim, self._release, self._relax, self._set_source = (
            server.register_script(x) for x in (CLAIM, RELEASE, RELAX, SET_SOURCE_INTERVAL))
        self._sync(server.time())

    def _sync(self, server_time: tuple[int, int] | float) -> None:
        if isinstance(server_time, tuple):
            server_time = server_time[0] + server_time[1] / 1e6
        self._offset = server_time - time.monotonic()

    def clock(self) -> float:
        """The Redis server's time now (seconds since the epoch), estimated locally."""
        return time.monotonic() + self._offset

    def _hash(self, key: str) -> str:
        return self.keys.host(key)

    def set_interval(self, key: str, seconds: float) -> None:
        self.server.hset(self._hash(key), "interval", repr(float(seconds)))

    def set_source_interval(self, key: str, source: str, seconds: float) -> float:
        """As :meth:`HostSchedule.set_source_interval`, across all workers (one atomic step)."""
        return float(self._set_source(keys=[self._hash(key)],
                                      args=[f"robots:{source}", repr(float(seconds))]))

    def interval(self, key: str) -> float:
        own, raised = self.server.hmget(self._hash(key), "interval", "raised")
        return max(float(own) if own else self.default_interval, float(raised or 0.0))

    def claim(self, keys: str | tuple[str, ...], owner: object) -> float | None:
        """As :meth:`HostSchedule.claim`. ``owner`` keeps one token over all its attempts
        until :meth:`release` or :meth:`forget`: a claim whose reply was lost (a timeout in
        an outage) may have been taken on the server, and the next attempt is then its own,
        not a stranger blocking the host until the claim's lease runs out."""
        keys = (keys,) if isinstance(keys, str) else keys
        token = self._tokens.setdefault(id(owner), f"{self._prefix}{next(self._n)}")
        answer, now = self._claim(keys=[self._hash(k) for k in keys],
                                  args=[token, self.default_interval, self.lease_seconds])
        self._sync(float(now))
        if answer == b"busy":
            return None
        if answer == b"0":
            return 0.0
        return float(answer)

    def forget(self, owner: object) -> None:
        """``owner`` stops trying to claim (it goes back to the frontier)."""
        self._tokens.pop(id(owner), None)

    def release(self, keys: str | tuple[str, ...], owner: object, relax: str | None = None) -> bool:
        """As :meth:`HostSchedule.release`; with ``relax`` (a key) :meth:`relax` in the same
        round trip."""
        keys = (keys,) if isinstance(keys, str) else keys
        token = self._tokens.pop(id(owner), "")
        names, args = [self._hash(k) for k in keys], [token]
        if relax is not None:
            names.append(self._hash(relax))
            args += [self.backoff.decay, self.default_interval]
        return bool(self._release(keys=names, args=args))

    def hold(self, key: str, until: float) -> None:
        """Send nothing under ``key`` before server time ``until`` (a later hold wins)."""
        self._update(key, lambda s: {"hold": max(until, _f(s, b"hold", until))})

    def back_off(self, key: str, sent_at: float, retry_after: float | None,
                 u: float = 0.0) -> float:
        """As :meth:`HostSchedule.back_off`; ``sent_at`` is server time (:meth:`clock`)."""
        waits = []

        def change(s: dict) -> dict:
            now, fields = self.clock(), {}
            own, raised = _f(s, b"interval", self.default_interval), _f(s, b"raised", 0.0)
            if sent_at >= _f(s, b"raised_at", float("-inf")):
                raised = self.backoff.raised(max(own, raised))
                fields = {"raised": raised, "raised_at": now}
            waits.append(self.backoff.wait(max(own, raised), retry_after, u))
            return {**fields, "hold": max(now + waits[-1], _f(s, b"hold", now))}

        self._update(key, change)
        return waits[-1]

    def relax(self, key: str) -> None:
        """A success: the raised interval shrinks by ``decay``; it ends at the normal one."""
        self._relax(keys=[self._hash(key)], args=[self.backoff.decay, self.default_interval])

    def _update(self, key: str, change) -> None:
        """Read the key's HASH, write ``change(state)`` (None values deleted) unless another
        worker changed it in between (then again)."""
        name = self._hash(key)

        def txn(pipe):
            fields = change(pipe.hgetall(name))
            if fields is None:
                return
            pipe.multi()
            if gone := [f for f, v in fields.items() if v is None]:
                pipe.hdel(name, *gone)
            if kept := {f: repr(float(v)) for f, v in fields.items() if v is not None}:
                pipe.hset(name, mapping=kept)

        self.server.transaction(txn, name)


def _f(state: dict, field: bytes, default: float) -> float:
    value = state.get(field)
    return float(value) if value is not None else default

