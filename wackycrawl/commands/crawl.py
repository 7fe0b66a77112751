"""``scrapy crawl`` with one check first: a JOBDIR whose frontier another live crawl holds
(:func:`wackycrawl.distributed.local.check_free`, an ``flock``) is refused in one ERROR line
with exit status 1, before any component opens a file of that job (its TREC files, dedup
state). A crawl that loses the race anyway is closed by the scheduler with the finish reason
``frontier_locked``, also exit status 1. Everything else is Scrapy's own ``crawl``.
"""

from __future__ import annotations

import logging

from scrapy.commands.crawl import Command as ScrapyCrawl

from wackycrawl.distributed.local import FrontierLockedError, check_free
from wackycrawl.distributed.scheduler import LOCKED_REASON, frontier_mode

logger = logging.getLogger(__name__)


class Command(ScrapyCrawl):
    def run(self, args, opts) -> None:
        jobdir = self.settings.get("JOBDIR")
        try:
            local = bool(jobdir) and frontier_mode(self.settings) == "local"
        except ValueError:  # a bad WACKY_FRONTIER: the scheduler reports it
            local = False
        if local:
            try:
                check_free(jobdir)
            except FrontierLockedError as exc:
                logger.error("%s: another crawl runs on JOBDIR %s; wait for it or stop it "
                             "(Ctrl-C once) before resuming", exc, jobdir)
                self.exitcode = 1
                return
        if len(args) != 1:
            super().run(args, opts)  # Scrapy's usage errors
            return
        crawler = self._create_crawler(args[0])
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed or (
                crawler.stats.get_value("finish_reason") == LOCKED_REASON):
            self.exitcode = 1
