"""The lease queue as scrapy-redis's ``SCHEDULER_QUEUE_CLASS``: a ``scrapy_redis.queue.Base``.

:class:`FrontierQueue` is built as scrapy-redis builds its queues (``server``, ``spider``,
``key`` = ``SCHEDULER_QUEUE_KEY``, ``serializer`` = ``SCHEDULER_SERIALIZER``, default
pickle) over :class:`~wackycrawl.distributed.leasequeue.LeaseQueue` (Redis; its other keys
are ``<key>:requests`` etc., see :mod:`.keys`) or, with ``server=None`` and ``key`` = the
JOBDIR, over :class:`~wackycrawl.distributed.local.LocalFrontier` (SQLite). What it adds to
scrapy-redis's queues: ``pop`` leases instead of removing, and :meth:`FrontierQueue.beat`
acknowledges the requests Scrapy's engine has finished (left its ``inprogress`` set: after
the spider callback, the item pipelines and the requests it yielded), renews the leases
still held (also of requests waiting for their host's turn in the politeness middleware:
they are in ``inprogress`` too) and puts expired leases of dead workers back.

Payloads: one format-version byte (:data:`FORMAT`) then the serialized ``Request.to_dict``
without the fields at their default. An entry a worker cannot decode (another version,
a corrupt or foreign payload, a callback the spider lacks) is moved to the dead-letter list
``<key>:dead`` (``<reason>\\t<id>\\t<payload>``) with an ERROR line and
``wacky/frontier/dead_letter``, never dropped silently and never a crash.

Seeds pushed to the spider's start-URL key (scrapy-redis's ``redis_key``) are moved into the
queue as they are by :meth:`FrontierQueue.pull_seeds` and leased like requests; when one is
popped, :attr:`FrontierQueue.seed_requests` (set by the scheduler: the spider's
``make_request_from_data`` and the seen set) makes its requests, and one script replaces the
leased seed by them (:meth:`.LeaseQueue.queue_seed`), so a worker killed at any point loses
no seed and queues none twice. A seed that makes no request is a dead letter (``bad_seed``).

A request whose ``meta["wacky_not_before"]`` (``time.time()`` seconds) lies ahead is
*parked* in the frontier until then (robots.txt unreachable, Retry-After; C01, C06), so a
``kill -9`` loses none. A request pushed while this worker holds its lease (a retry, a
parked request, a graceful stop) hands the lease back atomically.
"""

from __future__ import annotations

import logging
import pickle
import time

from scrapy import Request
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.request import request_from_dict
from scrapy_redis.queue import Base

from wackycrawl.distributed import local
from wackycrawl.distributed.connection import Outage
from wackycrawl.distributed.fingerprint import fingerprint
from wackycrawl.distributed.keys import QueueKeys
from wackycrawl.distributed.leasequeue import LEASE_SECONDS, SEED_PREFIX, LeaseQueue
from wackycrawl.pipelines import crawl_worker_id

logger = logging.getLogger(__name__)

FORMAT = 1  # payload format version: the first byte of every payload
NOT_BEFORE_META = "wacky_not_before"  # time.time() before which a request is not sent
_DEFAULTS = Request("http://x.test/").to_dict()


class PayloadError(ValueError):
    """A queue entry that cannot be turned back into a request; ``reason`` names why."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


class _Pickle:
    @staticmethod
    def dumps(obj) -> bytes:
        return pickle.dumps(obj, protocol=4)

    loads = staticmethod(pickle.loads)


def encode(request: Request, spider=None, serializer=_Pickle) -> bytes:
    """The payload of ``request``: :data:`FORMAT` byte + serialized dict without defaults
    (under half the bytes of scrapy-redis's; ``request_from_dict`` restores them)."""
    d = request.to_dict(spider=spider)
    d = {k: v for k, v in d.items() if k == "url" or k not in _DEFAULTS or v != _DEFAULTS[k]}
    return bytes([FORMAT]) + serializer.dumps(d)


def decode(payload: bytes | None, spider=None, serializer=_Pickle) -> Request:
    """The request of a payload; raises :class:`PayloadError` (reason ``missing``,
    ``version``, ``corrupt`` or ``request``)."""
    if not payload:
        raise PayloadError("missing", "no payload")
    if payload[0] != FORMAT:
        raise PayloadError("version", f"format {payload[0]}, this worker reads {FORMAT}")
    try:
        data = serializer.loads(payload[1:])
    except Exception as exc:  # noqa: BLE001 - unpickling raises anything
        raise PayloadError("corrupt", repr(exc)[:200]) from None
    try:
        return request_from_dict(data, spider=spider)
    except Exception as exc:  # noqa: BLE001 - missing callback, bad fields
        raise PayloadError("request", repr(exc)[:200]) from None


class FrontierQueue(Base):
    """scrapy-redis queue with leases (module doc); ``len()`` = requests ready to lease."""

    def __init__(self, server, spider, key, serializer=None):
        super().__init__(server, spider, key, serializer or _Pickle)
        crawler = spider.crawler
        s = crawler.settings
        self.stats, self.worker = crawler.stats, crawl_worker_id(crawler)
        self.lease_seconds = s.getfloat("WACKY_LEASE_SECONDS", LEASE_SECONDS)
        self.renew_every = s.getfloat("WACKY_LEASE_RENEW_SECONDS", 10.0)
        if server is None:
            self.backend = local.LocalFrontier(self.key, self.worker)
            back = self.backend.open()
            self.stats.inc_value("wacky/frontier/reclaimed", back)
            logger.info("local frontier %s: %d queued, %d parked, %d in flight in the last run "
                        "put back", self.backend.path, len(self), self.backend.parked()[0], back)
        else:
            self.backend = LeaseQueue(server, QueueKeys(self.key), self.worker,
                                      self.lease_seconds)
        self.held: dict[Request, tuple[str, str]] = {}  # request -> (id, lease token)
        self._not_written: set[str] = set()  # URLs of pages whose documents were not written
        self._ids: dict[str, Request] = {}
        self._outages = Outage.count
        self._lost: set[str] = set()  # tokens of held leases found lost (warned about once)
        self._renewed = time.monotonic()  # when the last renewal of every held lease was sent
        #: raw seed (bytes) -> the requests to queue for it ([] if all were filtered),
        #: or None if it makes no request (a dead letter); the scheduler sets it
        self.seed_requests = None

    def __len__(self) -> int:
        return self.backend.queued()

    def push(self, request: Request) -> bool:
        """Queue ``request`` (parked while its ``wacky_not_before`` lies ahead); False if it
        is already queued, parked or leased by any worker."""
        rid = fingerprint(request.method, request.url, request.body).hex()
        delay = (request.meta.get(NOT_BEFORE_META) or 0.0) - time.time()
        token = ""
        if (mine := self._ids.pop(rid, None)) is not None:
            token = self.held.pop(mine)[1]
            self._lost.discard(token)
        host = urlparse_cached(request).netloc if delay > 0 else ""
        ok = self.backend.push(rid, request.priority, self._encode_request(request), token,
                               max(0.0, delay), host)
        if delay > 0 and ok:
            self.stats.inc_value("wacky/frontier/parked")
        return ok

    def promote(self, request: Request) -> bool:
        """A link to a URL already seen, found at a smaller depth (``meta["depth"]``): the
        queued copy (SQLite frontier) gets its priority and payload, a copy this worker
        leased and has not parsed yet gets its depth (its links are then one deeper). True
        if either happened; the Redis queue is not changed."""
        rid = fingerprint(request.method, request.url, request.body).hex()
        depth = request.meta.get("depth", 0)
        mine = self._ids.get(rid)
        if mine is not None:
            if depth < mine.meta.get("depth", 0):
                mine.meta["depth"] = depth
                return True
            return False
        promote = getattr(self.backend, "promote", None)
        return bool(promote and promote(rid, request.priority,
                                        lambda: self._encode_request(request)))

    def push_seen(self, request: Request, seen_key: str) -> int:
        """:meth:`push` with the request's fingerprint recorded in the seen SET ``seen_key``
        in the same step (Redis only; start requests): -1 if it was seen (filtered unless
        ``dont_filter``), 0 if already queued, parked or leased, 1 if queued."""
        fp = fingerprint(request.method, request.url, request.body)
        if fp.hex() in self._ids:  # this worker leased it, so it was recorded when queued:
            # a retry or park (dont_filter) hands the lease back, a copy is filtered
            return int(self.push(request)) if request.dont_filter else -1
        delay = (request.meta.get(NOT_BEFORE_META) or 0.0) - time.time()
        host = urlparse_cached(request).netloc if delay > 0 else ""
        return self.backend.push_seen(fp.hex(), request.priority, self._encode_request(request),
                                      seen_key, fp, request.dont_filter, max(0.0, delay), host)

    def _encode_request(self, request: Request) -> bytes:
        return encode(request, self.spider, self.serializer)

    def pop(self, timeout=0) -> Request | None:
        """Lease the next request (never blocks: ``timeout``, scrapy-redis's BRPOP wait,
        stalls the reactor, notes/stack.md 4.4). Undecodable entries become dead letters."""
        return self._take(self.backend.pop())

    def ack_and_pop(self, in_progress, start_key: str | None = None) -> Request | None:
        """:meth:`ack_finished` and :meth:`pop` with one round trip to the frontier;
        ``start_key``: see :meth:`.LeaseQueue.ack_and_pop` (Redis only)."""
        finished = self._give_back_not_written(self._finished(in_progress))
        leases = [(rid, token) for _, rid, token in finished]
        acked, leased = (self.backend.ack_and_pop(leases, start_key) if self.server is not None
                         else self.backend.ack_and_pop(leases))
        for (request, _, token), held in zip(finished, acked, strict=True):
            self._acked(request, held, token)
        return self._take(leased)

    def _take(self, leased) -> Request | None:
        """The request of ``leased`` (None: nothing to lease); a raw seed is queued as its
        requests and a dead letter moved away, and the next is leased instead."""
        while leased is not None:
            if leased.id.startswith(SEED_PREFIX):
                self._queue_seed(leased)
            else:
                try:
                    request = decode(leased.payload, self.spider, self.serializer)
                except PayloadError as exc:
                    self._dead_letter(leased, exc)
                else:
                    self.held[request] = (leased.id, leased.token)
                    self._ids[leased.id] = request
                    return request
            leased = self.backend.pop()
        return None

    def _dead_letter(self, leased, exc: PayloadError) -> None:
        entry = f"{exc.reason}\t{leased.id}\t".encode() + (leased.payload or b"")
        self.backend.ack(leased.id, leased.token, dead=entry)
        self.stats.inc_value("wacky/frontier/dead_letter")
        logger.error("frontier entry %s cannot be read (%s): moved to the dead letters %s",
                     leased.id, exc, f"{self.key}:dead" if self.server is not None else
                     f"{self.backend.path} (table dead)")

    # -- seeds --------------------------------------------------------------------------------
    def pull_seeds(self, start_key: str, kind: str, n: int) -> int:
        """Move up to ``n`` seeds of the start-URL key into the queue (see the module doc);
        returns how many. Repeats of a seed already queued are counted
        (``wacky/seeds/repeated``, ``wacky/frontier/repeated``)."""
        moved, repeated, first = self.backend.pull_seeds(start_key, kind, n)
        if repeated:
            self._repeated(repeated, first.decode("utf-8", "replace"))
        return moved

    def _queue_seed(self, leased) -> None:
        """Replace a leased raw seed by its requests (or a dead letter), in one step."""
        raw = leased.payload or b""
        try:
            requests = self.seed_requests(raw)
        except Exception:  # noqa: BLE001 - a spider's make_request_from_data may raise anything
            logger.exception("seed %r could not be read", raw[:200])
            requests = None
        if requests is None:
            entries, dead = [], b"bad_seed\t-\t" + raw
        else:
            entries, dead = [(fingerprint(r.method, r.url, r.body).hex(), r.priority,
                              self._encode_request(r)) for r in requests], b""
        done = self.backend.queue_seed(leased.id, leased.token, entries, dead)
        if done is None:  # reclaimed meanwhile: the worker holding it now queues it
            logger.info("seed %r was given to another worker before it was queued", raw[:200])
            return
        if dead:
            self.stats.inc_value("wacky/frontier/dead_letter")
            logger.warning("bad seed moved to the dead letters %s:dead: %r", self.key, raw[:200])
        self.stats.inc_value("wacky/frontier/seeds", sum(done))
        if repeated := [r for r, queued in zip(requests or [], done) if not queued]:
            self._repeated(len(repeated), repeated[0].url)

    def _repeated(self, n: int, first: str) -> None:
        if not self.stats.get_value("wacky/seeds/repeated"):
            logger.info("Seed %s pushed again while queued: fetched once (further repeats "
                        "counted in wacky/seeds/repeated)", first[:200])
        self.stats.inc_value("wacky/seeds/repeated", n)
        self.stats.inc_value("wacky/frontier/repeated", n)

    # -- leases ------------------------------------------------------------------------------
    def ack_finished(self, in_progress) -> None:
        """Acknowledge the held requests that are not in ``in_progress`` (the engine's); those
        whose document could not be written (:meth:`not_written`) go back to the queue."""
        for request, rid, token in self._give_back_not_written(self._finished(in_progress)):
            self._acked(request, self.backend.ack(rid, token), token)

    def _give_back_not_written(self, finished: list) -> list:
        """Of ``finished`` (:meth:`_finished`), give the requests whose page was not written
        (:meth:`not_written`) back to the queue; the others, to acknowledge."""
        if not self._not_written:
            return finished
        rest = []
        for request, rid, token in finished:
            if request.url not in self._not_written:
                rest.append((request, rid, token))
                continue
            self._not_written.discard(request.url)
            self._lost.discard(token)
            if self.backend.ack(rid, token, requeue=True):
                self.stats.inc_value("wacky/frontier/requeued")
        return rest

    def not_written(self, url: str) -> None:
        """The page of ``url`` was kept but its document not written: its request is given
        back to the queue when the engine is done with it, not acknowledged."""
        self._not_written.add(url)

    def _finished(self, in_progress) -> list[tuple[Request, str, str]]:
        """The held requests not in ``in_progress``, with their ids and lease tokens, no
        longer held."""
        finished = []
        for request in [r for r in self.held if r not in in_progress]:
            rid, token = self.held.pop(request)
            if self._ids.get(rid) is request:  # else leased again since (a lost lease)
                del self._ids[rid]
            finished.append((request, rid, token))
        return finished

    def _acked(self, request: Request, held: bool, token: str) -> None:
        if held:
            self.stats.inc_value("wacky/frontier/acked")
        elif token in self._lost:  # warned about and counted when the heartbeat found it
            self._lost.discard(token)
        else:
            logger.warning("lease of %s was lost before it was acknowledged", request)
            self.stats.inc_value("wacky/frontier/lease_lost")

    def beat(self, in_progress) -> None:
        """The heartbeat: acknowledge, renew, and reclaim dead workers' leases. After a
        Redis outage (or a stall of the server) seen by any worker no lease is reclaimed for
        one lease period, so every live worker has renewed its own first (the server's clock
        ran on while nobody could renew; :meth:`.LeaseQueue.reclaim`). A lease found lost is
        warned about once (here, or when its request is acknowledged)."""
        self.ack_finished(in_progress)
        self._renew()
        outages = Outage.count
        if back := self.backend.reclaim(outage=outages != self._outages):
            logger.warning("%d requests of a dead worker put back into the queue", back)
            self.stats.inc_value("wacky/frontier/reclaimed", back)
        self._outages = outages

    def _renew(self) -> None:
        """Renew every held lease not yet found lost; warn once about those found lost."""
        sent = time.monotonic()  # a lease renewed now lasts at least lease_seconds from here
        held = [lease for lease in self.held.values() if lease[1] not in self._lost]
        lost = [lease for lease, kept in zip(held, self.backend.renew_each(held), strict=True)
                if not kept]
        self._renewed = sent
        if lost:
            self._lost.update(token for _, token in lost)
            logger.warning("%d leases of this worker expired and were given to others; those "
                           "of their requests not sent yet are not fetched here", len(lost))
            self.stats.inc_value("wacky/frontier/lease_lost", len(lost))

    def lease_lost(self, request: Request) -> bool:
        """Whether this worker's lease of ``request`` is lost (it expired, so another worker
        may fetch the page): then the request must not be sent. Asked just before a request
        is sent. A request this queue did not lease (robots.txt) has no lease: False. When
        the leases were last renewed more than two renewal intervals
        (``WACKY_LEASE_RENEW_SECONDS``) ago - the process was stopped (SIGSTOP, a stalled
        machine) or its event loop blocked - every held lease is renewed first, one round
        trip; otherwise no Redis command is sent. Raises redis's errors as the renewal does
        (an outage past ``WACKY_REDIS_OUTAGE_SECONDS``)."""
        lease = self.held.get(request)
        if lease is None:
            return False
        if (lease[1] not in self._lost and self.server is not None
                and time.monotonic() - self._renewed > 2 * self.renew_every):
            self._renew()
        return lease[1] in self._lost

    def give_back(self) -> int:
        """A graceful stop: every lease still held goes back to the queue at its place."""
        n = 0
        for rid, token in self.held.values():
            n += self.backend.ack(rid, token, requeue=True)
        self.held.clear()
        self._ids.clear()
        self._lost.clear()
        return n

    def clear(self) -> None:
        self.backend.clear()

    def close(self) -> None:
        if self.server is None:
            self.backend.close()
