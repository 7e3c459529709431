"""Value checks of the properties: ranges and choices, applied when settings are read.

A check is called with a parsed value of the property's type and raises ValueError with
a one-line reason when the property cannot take it; :meth:`Property.parse` adds the
property's name.  So a bad value stops any command at start-up (exit code 2, one line)
instead of failing deep inside a job, being silently coerced, or making every fetch fail.
Every check also offers ``bad_value`` (a value it refuses: the tests set each property
to it) and ``describe()`` (the settings reference shows it).

:data:`CHECKS` maps property names to checks; :mod:`gossamer.core.defaults` attaches them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gossamer.core.property import Value


@dataclass(frozen=True)
class AtLeast:
    """A number not below ``low``."""

    low: float

    @property
    def bad_value(self) -> float:
        """A value below the bound."""
        return self.low - 1

    def describe(self) -> str:
        """How the settings reference states the rule."""
        return f"≥ {self.low:g}"

    def __call__(self, value: Value) -> None:
        """ValueError unless ``value >= low``."""
        if isinstance(value, (int, float)) and value < self.low:
            raise ValueError(f"must be at least {self.low:g}, got {value:g}")


@dataclass(frozen=True)
class Between:
    """A number from ``low`` to ``high``, both included."""

    low: float
    high: float

    @property
    def bad_value(self) -> float:
        """A value above the range."""
        return self.high + 1

    def describe(self) -> str:
        """How the settings reference states the rule."""
        return f"{self.low:g} … {self.high:g}"

    def __call__(self, value: Value) -> None:
        """ValueError unless ``low <= value <= high``."""
        if isinstance(value, (int, float)) and not self.low <= value <= self.high:
            raise ValueError(f"must be between {self.low:g} and {self.high:g}, got {value:g}")


@dataclass(frozen=True)
class OneOf:
    """One of ``choices``, compared without case."""

    choices: tuple[str, ...]

    bad_value = "bogus-value"

    def describe(self) -> str:
        """How the settings reference states the rule."""
        return "one of " + ", ".join(c if c else '""' for c in self.choices)

    def __call__(self, value: Value) -> None:
        """ValueError unless ``value`` is one of the choices."""
        if str(value).strip().lower() not in {c.lower() for c in self.choices}:
            raise ValueError(f"must be {self.describe()}, got {value!r}")


def one_of(*choices: str) -> OneOf:
    """The check for a property that takes one of ``choices``."""
    return OneOf(tuple(choices))


def _each(names: Iterable[str], check: object) -> dict[str, object]:
    return dict.fromkeys(names, check)


POSITIVE = AtLeast(1)
NON_NEGATIVE = AtLeast(0)
MINUS_ONE_OR_MORE = AtLeast(-1)
FRACTION = Between(0, 1)
BY_UNIT = one_of("byHost", "byDomain", "byIP")

CHECKS: dict[str, object] = {
    # HTTP and other protocols
    "http.timeout": POSITIVE, "ftp.timeout": POSITIVE, "ftp.server.timeout": POSITIVE,
    "http.robots.redirect.max": NON_NEGATIVE, "http.robots.503.defer.visits.delay": NON_NEGATIVE,
    "http.robots.503.defer.visits.retries": NON_NEGATIVE, "http.proxy.port": Between(1, 65535),
    "http.proxy.type": one_of("HTTP", "SOCKS"), "http.client": one_of("lean", "aiohttp"),
    "index.static.rank": one_of("scoring", "linkrank", "none"),
    "search.semantic.fusion": one_of("rrf", "linear"), "search.semantic.page.chars": NON_NEGATIVE,
    "search.semantic.candidates": POSITIVE, "search.semantic.weight": NON_NEGATIVE,
    "search.semantic.rrf.k": NON_NEGATIVE,
    # crawldb, schedules, scores, signatures
    "db.fetch.interval.default": POSITIVE, "db.fetch.interval.max": POSITIVE, "db.fetch.retry.max": NON_NEGATIVE,
    "db.fetch.schedule.adaptive.inc_rate": FRACTION, "db.fetch.schedule.adaptive.dec_rate": FRACTION,
    "db.fetch.schedule.adaptive.min_interval": NON_NEGATIVE, "db.fetch.schedule.adaptive.max_interval": NON_NEGATIVE,
    "db.fetch.schedule.adaptive.sync_delta_rate": FRACTION, "db.update.max.inlinks": NON_NEGATIVE,
    "db.ignore.external.links.mode": one_of("byHost", "byDomain"), "db.max.anchor.length": NON_NEGATIVE,
    "db.signature.text_profile.min_token_len": POSITIVE, "db.signature.text_profile.quant_rate": FRACTION,
    "linkdb.max.inlinks": NON_NEGATIVE, "linkdb.max.anchor.length": NON_NEGATIVE,
    # generate and partitioning
    "generate.max.count": MINUS_ONE_OR_MORE, "generate.count.mode": one_of("host", "domain"),
    "generate.min.interval": MINUS_ONE_OR_MORE, "crawl.gen.delay": NON_NEGATIVE, "partition.url.mode": BY_UNIT,
    # fetcher
    "fetcher.server.delay": NON_NEGATIVE, "fetcher.server.min.delay": NON_NEGATIVE,
    "fetcher.max.crawl.delay": MINUS_ONE_OR_MORE, "fetcher.min.crawl.delay": NON_NEGATIVE,
    "fetcher.queue.readahead": POSITIVE, "fetcher.processes": NON_NEGATIVE, "fetcher.threads.fetch": POSITIVE,
    "fetcher.threads.start.delay": NON_NEGATIVE, "fetcher.threads.per.queue": POSITIVE,
    "fetcher.queue.mode": BY_UNIT, "fetcher.queue.depth.multiplier": POSITIVE,
    "fetcher.max.exceptions.per.queue": MINUS_ONE_OR_MORE, "fetcher.exceptions.per.queue.delay": NON_NEGATIVE,
    "fetcher.checkpoint.seconds": NON_NEGATIVE, "fetcher.turn.page.ms": NON_NEGATIVE,
    "http.keepalive.timeout": POSITIVE, "http.dns.cache.seconds": NON_NEGATIVE,
    "fetcher.threads.timeout.divisor": POSITIVE, "fetcher.timelimit.mins": MINUS_ONE_OR_MORE,
    "fetcher.throughput.threshold.pages": MINUS_ONE_OR_MORE, "fetcher.throughput.threshold.retries": NON_NEGATIVE,
    "fetcher.throughput.threshold.check.after": NON_NEGATIVE, "fetcher.bandwidth.target": MINUS_ONE_OR_MORE,
    "fetcher.maxNum.threads": POSITIVE, "fetcher.bandwidth.target.check.everyNSecs": POSITIVE,
    "fetcher.warc.compression.level": Between(1, 9), "fetcher.follow.outlinks.depth": MINUS_ONE_OR_MORE,
    "fetcher.follow.outlinks.num.links": NON_NEGATIVE, "fetcher.follow.outlinks.depth.divisor": POSITIVE,
    "fetcher.redirect.dedupcache.size": NON_NEGATIVE,
    # parsing and URL handling
    "encodingdetector.charset.min.confidence": Between(-1, 100),
    "parser.caching.forbidden.policy": one_of("none", "content", "all"),
    "parser.html.impl": one_of("neko", "tagsoup"), "parser.timeout": MINUS_ONE_OR_MORE,
    "parser.html.max.depth": POSITIVE,
    "parser.zip.max.members": POSITIVE, "parser.zip.max.bytes": POSITIVE, "parser.xml.max.depth": POSITIVE,
    "parser.xml.max.elements": POSITIVE, "parser.rtf.max.depth": POSITIVE, "parser.rtf.max.bytes": POSITIVE,
    "parser.outlink.cache.size": NON_NEGATIVE, "parser.processes": NON_NEGATIVE,
    "urlnormalizer.loop.count": POSITIVE, "urlnormalizer.basic.host.idn": one_of("", "toAscii", "toUnicode"),
    # scoring, link analysis, indexing
    "scoring.depth.max": POSITIVE, "scoring.depth.max.override": POSITIVE,
    "scoring.orphan.mark.gone.after": NON_NEGATIVE,
    "scoring.orphan.mark.orphan.after": NON_NEGATIVE, "link.analyze.num.iterations": POSITIVE,
    "link.analyze.damping.factor": FRACTION,
    "link.analyze.convergence": NON_NEGATIVE, "indexer.max.title.length": MINUS_ONE_OR_MORE,
    "indexer.max.content.length": MINUS_ONE_OR_MORE, "indexer.max.tokens": MINUS_ONE_OR_MORE,
    "index.shards": Between(1, 256), "index.writer.heap.mb": AtLeast(16), "index.remote.check.seconds": NON_NEGATIVE,
    "lang.analyze.max.length": NON_NEGATIVE,
    "hostdb.recheck.interval": NON_NEGATIVE, "hostdb.purge.failed.hosts.threshold": NON_NEGATIVE,
    "hostdb.num.resolvers.threads": POSITIVE, "sitemap.redir.max": NON_NEGATIVE, "sitemap.size.max": POSITIVE,
    "sitemap.urls.max": POSITIVE, "sitemap.index.depth.max": NON_NEGATIVE,
    # search and the web server
    "searcher.max.hits": MINUS_ONE_OR_MORE, "searcher.max.hits.per.site": NON_NEGATIVE,
    "searcher.hostgrouping.rawhits.factor": AtLeast(1), "searcher.node.timeout": AtLeast(0.01),
    "searcher.summary.context": NON_NEGATIVE, "searcher.summary.length": POSITIVE,
    "searcher.summary.scan.chars": NON_NEGATIVE,
    "searcher.filter.cache.size": NON_NEGATIVE, "searcher.filter.cache.threshold": FRACTION,
    **_each(("query.phrase.boost", "query.url.boost", "query.anchor.boost", "query.title.boost",
             "query.host.boost", "query.content.boost"), NON_NEGATIVE),
    "query.stem.boost": NON_NEGATIVE, "query.coord.power": NON_NEGATIVE,
    "web.connections.max": POSITIVE, "web.keepalive.timeout": POSITIVE,
    # engine and storage
    "engine": one_of("local", "spark"), "engine.local.workers": NON_NEGATIVE, "engine.local.inline.mb": NON_NEGATIVE,
    "engine.memory.budget.mb": POSITIVE,
    "engine.memory.pool": one_of("", "jemalloc", "mimalloc", "system"), "engine.batch.rows": POSITIVE,
    "engine.task.retries": NON_NEGATIVE,
    "spark.log.level": one_of("ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF"),
    "store.parts": Between(1, 1024), "store.row.group.rows": POSITIVE,
    "store.compression": one_of("zstd", "snappy", "gzip", "brotli", "lz4", "none"),
    "store.lock.wait.seconds": NON_NEGATIVE, "fs.s3.scheme": one_of("", "http", "https"),
    "cli.max.reported.errors": NON_NEGATIVE, "settings.profile": one_of("gossamer", "nutch"),
}
