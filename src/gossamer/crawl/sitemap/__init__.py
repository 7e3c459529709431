"""``sitemap``: URLs from sitemaps into the crawldb (Nutch's SitemapProcessor, crawler-commons' parser rules).

* :mod:`.formats` — one sitemap document (XML urlset/index, RSS/Atom, text; gzip) and :mod:`.fields` its values;
* :mod:`.sources` — where sitemaps come from, and the cross-host rule;
* :mod:`.fetching` — fetching sitemaps level by level with the crawler's fetch loop;
* :mod:`.merge` — the job's map and reduce (inject's merge);
* :mod:`.processor` — :func:`sitemap`: sources, fetch, stage, merge, report.
"""

from gossamer.crawl.sitemap.formats import ParsedSitemap, SitemapEntry, parse_sitemap
from gossamer.crawl.sitemap.processor import SitemapOptions, SitemapReport, sitemap
from gossamer.crawl.sitemap.sources import ScopeRule

__all__ = ["ParsedSitemap", "ScopeRule", "SitemapEntry", "SitemapOptions", "SitemapReport", "parse_sitemap", "sitemap"]
