"""The fetcher core: politeness queues, the HTTP protocol plugin, WARC output and the async fetch loop.

* :mod:`gossamer.crawl.fetch.queues` — queues per host/domain/IP with Nutch's delays and limits.
* :mod:`gossamer.plugins.builtin.protocol_http` — plugin ``protocol-http`` on aiohttp.
* :mod:`gossamer.crawl.fetch.warc` — WARC request/response records with FastWARC.
* :mod:`gossamer.crawl.fetch.fetcher` — :func:`~gossamer.crawl.fetch.fetcher.fetch_all`, one single-process loop.

See ``docs/fetching.md``.
"""
