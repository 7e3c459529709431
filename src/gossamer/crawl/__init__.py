"""The crawl: one package or module per command, each named as in Nutch.

======================  =============================================================
``inject/``             seed lines → crawldb (Injector): seeds, the map/reduce merge
``generate/``           due URLs → fetch lists (Generator): candidates job, selection
``fetch/``              polite async fetching (Fetcher): queues, loop, sink, WARC
``parse/``              WARC content → parse tables (ParseSegment): page parser, outlinks
``updatedb/``           fetch/parse results → crawldb (CrawlDb): the state machine
``linkdb/``             invertlinks / mergelinkdb / readlinkdb (LinkDb)
``dedup/``              duplicate marking (DeduplicationJob)
``robots/``             robots.txt rules, parsing and fetching
``readdb/``             crawldb dumps, lookups and statistics (CrawlDbReader)
``readseg``             segment listings and dumps (SegmentReader)
``mergedb``             crawldb merge (CrawlDbMerger)
``cycle``               the ``crawl`` command: Nutch's ``bin/crawl`` loop
======================  =============================================================

Each sub-package's ``__init__`` is its public face; other packages import from there.
"""
