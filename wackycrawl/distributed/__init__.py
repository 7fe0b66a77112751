"""The crawl frontier that survives crashes: a lease/acknowledge request queue and a seen set,
on Redis for a cluster of workers (:mod:`.leasequeue`, :mod:`.seen`, key layout in :mod:`.keys`)
or in an SQLite file in ``JOBDIR`` for one machine (:mod:`.local`). The Scrapy adapters are
:mod:`.scheduler` and :mod:`.pipeline`; everything else here is free of Scrapy."""
