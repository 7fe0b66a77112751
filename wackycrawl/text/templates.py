"""Host-level template learning: blocks that repeat on many pages of one host are boilerplate.

A site's menus, footers, banners and sidebars come from one template and repeat, word for
word, on its pages; a single-page extractor must guess them, a crawl can count them. This
is the site-level template detection of Bar-Yossef & Rajagopalan (2002, "Template detection
via data mining and its applications", WWW: a pagelet is template when it recurs on many
pages of a site) and Gibson, Punera & Tomkins (2005, "The volume and evolution of web page
templates", WWW), over the blocks of :mod:`wackycrawl.text.blocks` (64-bit hashes of their
text, :func:`wackycrawl.text.blocks.block_hash`).

Per host, a bounded table counts on how many pages each block hash was seen (a hash counts
once per page). A block is template once seen on at least ``min_pages`` pages. A page whose
set of blocks is exactly that of a page already counted (the same article under another URL:
a print version, a session or tracking parameter) is not counted again: it repeats one page,
not the site's template, and counting it would make that article's own paragraphs template
(the copy is then the duplicate stage's to judge). The table remembers each counted page by
:func:`page_signature` (an entry of its own, bounded and evicted like the blocks). When a table
exceeds ``max_blocks`` entries, the entries with the lowest counts (the oldest first among
equal counts) are evicted down to half of it: template blocks, seen on page after page, keep
high counts while one-page content blocks come and go. At most ``max_hosts`` hosts are kept
(least recently used evicted). Memory: about ``max_hosts * max_blocks * 100`` bytes at most.

:class:`TemplateStore` lives in one process (a stage worker, ``wackycrawl clean``);
:class:`wackycrawl.distributed.templates.RedisTemplateStore` has the same methods over Redis
for the workers of a distributed crawl, and
:class:`wackycrawl.distributed.localtemplates.LocalTemplateStore` over an SQLite file in a
JOBDIR (the tables of :func:`count_page`, kept for a resumed crawl, shared by its stage
workers).
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections import OrderedDict
from collections.abc import Iterable

#: Pages of a host a block must be seen on to be template (no published value; Bar-Yossef &
#: Rajagopalan count a pagelet by its frequency in the site). Learnt as a crawl goes, a host's
#: first pages are judged before the counts exist: with 2, only the first page of a host keeps
#: its template blocks (with 3, the first two). On the devset's multi-page hosts (57 hosts, 128
#: pages, ``benchmarks/boilerplate_eval.py``), 3 removed nothing in crawl order and 2 raised
#: CE-F from 0.924 to 0.931 (learnt over all pages first: 0.941). A page repeating another
#: page's exact set of blocks is not counted (:func:`count_page`), so the same article under a
#: second URL does not make its own paragraphs template.
MIN_PAGES = 2
#: Block hashes counted per host (eviction to half when exceeded).
MAX_BLOCKS = 512
#: Hosts kept in one process (least recently used evicted).
MAX_HOSTS = 1000


def evict(counts: dict[int, int], keep: int) -> list[int]:
    """Keys to delete from ``counts`` so that ``keep`` remain: lowest counts first, among equal
    counts the first inserted (``counts`` in insertion order)."""
    drop = len(counts) - keep
    if drop <= 0:
        return []
    return sorted(counts, key=counts.__getitem__)[:drop]  # a stable sort


def page_signature(distinct: list[int]) -> bytes:
    """8 bytes naming a page's set of block hashes (unsigned 64-bit ints, as
    :func:`wackycrawl.text.blocks.block_hash` gives; order and repeats ignored): BLAKE2b of
    the sorted hashes. Raises OverflowError for a hash outside ``0 <= h < 2**64``."""
    data = array("Q", sorted(set(distinct)))
    if sys.byteorder == "little":
        data.byteswap()  # big-endian
    return hashlib.blake2b(data, digest_size=8).digest()


def count_page(table: dict, distinct: list[int], max_blocks: int) -> None:
    """Count one page with the block hashes ``distinct`` (no repeats, not empty) in a host's
    ``table`` (block hash -> pages, ``("page", page_signature)`` -> copies of that page, in
    insertion order), evicting to half of ``max_blocks`` entries when exceeded."""
    page = ("page", page_signature(distinct))
    if page in table:
        table[page] += 1
        return
    table[page] = 1
    for h in distinct:
        table[h] = table.get(h, 0) + 1
    if len(table) > max_blocks:
        for h in evict(table, max_blocks // 2):
            del table[h]


class TemplateStore:
    """Block-hash counts per host, in this process.

    ``min_pages``, ``max_blocks`` and ``max_hosts`` as in the module doc; ValueError if one
    is below 1.
    """

    def __init__(self, min_pages: int = MIN_PAGES, max_blocks: int = MAX_BLOCKS,
                 max_hosts: int = MAX_HOSTS):
        if min(min_pages, max_blocks, max_hosts) < 1:
            raise ValueError("min_pages, max_blocks and max_hosts must be at least 1")
        self.min_pages, self.max_blocks, self.max_hosts = min_pages, max_blocks, max_hosts
        self._hosts: OrderedDict[str, dict[int, int]] = OrderedDict()

    def __len__(self) -> int:
        """Hosts in the store."""
        return len(self._hosts)

    def _table(self, host: str) -> dict[int, int]:
        table = self._hosts.get(host)
        if table is None:
            table = self._hosts[host] = {}
            if len(self._hosts) > self.max_hosts:
                self._hosts.popitem(last=False)
        else:
            self._hosts.move_to_end(host)
        return table

    def observe(self, host: str, hashes: Iterable[int]) -> None:
        """Count one page of ``host`` with these block hashes (duplicates count once; a page
        with the same set of blocks as one counted before is not counted)."""
        distinct = list(dict.fromkeys(hashes))
        if distinct:
            count_page(self._table(host), distinct, self.max_blocks)

    def templates(self, host: str, hashes: Iterable[int]) -> set[int]:
        """Those of ``hashes`` seen on at least ``min_pages`` pages of ``host`` (no counting)."""
        table = self._hosts.get(host)
        if not table:
            return set()
        return {h for h in hashes if table.get(h, 0) >= self.min_pages}

    def learn(self, host: str, hashes: Iterable[int]) -> set[int]:
        """:meth:`observe` this page, then its :meth:`templates` (as the crawl goes: a block is
        template on the page that makes it reach ``min_pages``, and on every later page)."""
        hashes = list(hashes)
        self.observe(host, hashes)
        return self.templates(host, hashes)

    def count(self, host: str, block: int) -> int:
        """Pages of ``host`` block hash ``block`` was seen on (0 if unknown or evicted)."""
        return self._hosts.get(host, {}).get(block, 0)
