"""``wackycrawl seeds push FILE --redis URL [--crawl NAME] [--key KEY] [--set]``: add seeds
to a Redis crawl.

Each usable line of FILE is pushed to the
spider's scrapy-redis ``redis_key`` (default ``wacky:NAME:start_urls``, the default
``REDIS_START_URLS_KEY``; ``--key`` for another) as JSON ``{"url": ...}``, the format
scrapy-redis documents, so ``redis-cli LPUSH wacky:seeds:start_urls '{"url": "https://..."}'``
(or a bare URL) does the same; ``--set`` adds them to a SET (``REDIS_START_URLS_AS_SET``).
The crawl is ``--crawl``, else ``$WACKY_CRAWL_NAME``, else ``seeds`` (the workers' default);
the output names the key, and a crawl no worker has joined yet gets a hint on stderr naming
the crawls that exist. Workers pull them when their queue runs empty, also while the crawl
is running. FILE is read by the ``seeds`` spider's rule
(:func:`wackycrawl.seeding.seedfile.read_seed_file`): bad lines (junk, NUL bytes) are skipped
and named on stderr, a file with no usable URL (binary, empty) is refused. Exit status: 0, 1
if FILE is unreadable or holds no usable URL, 2 if Redis cannot be reached (or the URL is no
Redis URL).
"""

import json
import sys

import redis

from wackycrawl.cli import error, redis_client
from wackycrawl.distributed.keys import CrawlKeys, default_crawl, known_crawls, redis_url
from wackycrawl.seeding.seedfile import bad_line_messages, read_seed_file


def register(subparsers) -> None:
    p = subparsers.add_parser("seeds", help="push seed URLs to a distributed (Redis) crawl")
    sub = p.add_subparsers(dest="action", required=True)
    push = sub.add_parser("push", help="push the URLs of a seed file")
    push.add_argument("file", metavar="FILE", help="one http(s) URL per line, # comments")
    push.add_argument("--redis", default=None, help="Redis URL (default: $REDIS_URL)")
    push.add_argument("--crawl", default=default_crawl(),
                      help="crawl name, the workers' WACKY_CRAWL_NAME (default: "
                           "$WACKY_CRAWL_NAME or seeds; now %(default)s)")
    push.add_argument("--key", default=None,
                      help="Redis key of the seeds (default wacky:CRAWL:start_urls)")
    push.add_argument("--set", action="store_true",
                      help="SADD to a SET (workers with REDIS_START_URLS_AS_SET)")
    push.set_defaults(func=run)


def run(args) -> int:
    url = redis_url({"REDIS_URL": args.redis})
    if not url:
        error("seeds", "no Redis URL (--redis or REDIS_URL)")
        return 2
    try:
        found = read_seed_file(args.file)
    except OSError as exc:
        error("seeds", f"{args.file}: {exc.strerror}")
        return 1
    if found.refusal:
        error("seeds", found.refusal)
        return 1
    for message in bad_line_messages(found):
        print(f"wackycrawl seeds: {message}", file=sys.stderr)
    urls = found.urls
    key = args.key or CrawlKeys(args.crawl).start_urls
    if (server := redis_client("seeds", url)) is None:
        return 2
    try:
        with server.pipeline() as pipe:
            for u in urls:
                (pipe.sadd if args.set else pipe.lpush)(key, json.dumps({"url": u}))
            pipe.execute()
        crawls = known_crawls(server)
    except redis.RedisError as exc:
        error("seeds", f"Redis {url}: {exc}")
        return 2
    print(f"pushed {len(urls)} seeds to {key} (crawl {args.crawl})")
    if args.key is None and args.crawl not in crawls:
        print(f"wackycrawl seeds: no worker has joined crawl {args.crawl!r} yet; crawls on "
              f"this Redis: {', '.join(crawls) or 'none'} (--crawl NAME or $WACKY_CRAWL_NAME, "
              "as the workers' -s WACKY_CRAWL_NAME)", file=sys.stderr)
    return 0
