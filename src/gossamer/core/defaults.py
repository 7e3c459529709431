"""Every setting Gossamer knows: names, defaults, types and one-line descriptions.

This module is the single source of default values.  No other module hard-codes a
default; code asks :class:`gossamer.core.settings.Settings` for a name listed here.

* Names follow Apache Nutch (``conf/nutch-default.xml``) wherever Nutch has the setting,
  with Nutch's units (milliseconds or seconds as Nutch uses them, stated in each
  description) and, unless documented otherwise, Nutch's default.  Such properties have
  ``nutch=True``; Gossamer's own settings (engine, storage, CLI) have ``nutch=False``.
* A string default may refer to another property as ``${name}``; the settings layer
  expands it (e.g. ``fetcher.min.crawl.delay``).
* :data:`NUTCH_ONLY` names Nutch properties Gossamer does not implement (Hadoop, Tika,
  Selenium, Solr/Elastic, RabbitMQ and other plugin internals).  A user's nutch-site.xml
  may still set them: they are accepted with a warning instead of an error.
"""

from __future__ import annotations

from dataclasses import replace

from gossamer.core.defaults_crawldb import CRAWLDB_PROPERTIES
from gossamer.core.defaults_fetch import FETCH_PROPERTIES
from gossamer.core.defaults_index import INDEX_PROPERTIES
from gossamer.core.defaults_parse import PARSE_PROPERTIES
from gossamer.core.property import Property, Value
from gossamer.core.property_checks import CHECKS

PROPERTIES: tuple[Property, ...] = (*FETCH_PROPERTIES, *CRAWLDB_PROPERTIES, *PARSE_PROPERTIES, *INDEX_PROPERTIES)
"""Every property, by area (:mod:`.defaults_fetch`, :mod:`.defaults_crawldb`, :mod:`.defaults_parse`,
:mod:`.defaults_index`); the checks of :mod:`.property_checks` are attached below."""
PROPERTIES = tuple(replace(p, check=CHECKS[p.name]) if p.name in CHECKS else p  # type: ignore[arg-type]
                   for p in PROPERTIES)
"""All properties, grouped by prefix; names are unique; ranges and choices from :mod:`.property_checks`."""

PROFILE_PROPERTY = "settings.profile"
PROFILES: dict[str, dict[str, Value]] = {
    "gossamer": {},
    "nutch": {
        "linkdb.ignore.internal.links": True,
        "db.max.outlinks.per.page": 100,
        "http.content.limit": 1048576,
        "query.soft": False,
        "index.analysis.fields": [],
        "query.stem.boost": 0.0,
    },
}
"""Per ``settings.profile``: the defaults it replaces.  ``nutch`` restores Nutch 1.x's values of the
properties whose Gossamer default departs from Nutch (issue 20: site-search defaults, measured in
``docs/search.md``); every other property already has Nutch's default."""

PROPERTY_PATTERNS: tuple[Property, ...] = (
    Property("urlnormalizer.scope.<scope>", "", "str",
             "Space-separated normalizers for one scope (inject, fetcher, outlink …); empty = the default chain"),
    Property("urlnormalizer.order.<scope>", "", "str",
             "Normalizer order for one scope; empty = urlnormalizer.order"),
    Property("urlnormalizer.regex.file.<scope>", "", "str",
             "Rule file of the regex normalizer for one scope; empty = urlnormalizer.regex.file"),
    Property("spark.<key>", "", "str",
             "Any other Spark property (spark.executor.memory, spark.executor.instances …): given to the Spark "
             "session that engine=spark creates (a session already running keeps its configuration)", nutch=False),
)
"""Families of properties whose last part is a free name (``<scope>``; ``<key>`` may contain dots)."""

NUTCH_ONLY: frozenset[str] = frozenset(
    {
        # HTTP internals of Java protocol plugins
        "http.connection.pool.okhttp", "http.log.exceptions.suppress.stack",
        # Nutch's store.* (protocol recording; Gossamer's store.* are its table settings)
        "store.ip.address", "store.http.request", "store.http.headers",
        # Tika / Any23 / MIME
        "tika.config.file", "tika.uppercase.element.names", "tika.extractor",
        "tika.extractor.boilerpipe.algorithm", "tika.extractor.boilerpipe.mime.types", "tika.parse.embedded",
        "tika.htmlmapper.classname", "any23.extractors", "any23.content_types", "mime.types.file",
        # plugin internals
        "parsefilter.naivebayes.trainfile", "parsefilter.naivebayes.wordlist", "scoring.similarity.model",
        "scoring.similarity.ngrams", "cosine.goldstandard.file", "scoring.similarity.stopword.file",
        "index.jexl.filter", "index.replace.regexp", "index.geoip.usage", "index.geoip.userid",
        "index.geoip.licensekey", "subcollection.default.fieldname", "subcollection.case.insensitive",
        "mimetype.filter.file", "hostdb.crawldatum.processors",
        "exchanges.exchanges.file",
        # browsers (Selenium, HtmlUnit)
        "page.load.delay", "take.screenshot", "screenshot.location", "htmlunit.enable.javascript",
        "htmlunit.javascript.timeout", "htmlunit.enable.css", "selenium.driver", "selenium.hub.port",
        "selenium.hub.path", "selenium.hub.host", "selenium.hub.protocol", "selenium.grid.driver",
        "selenium.grid.binary", "selenium.enable.headless", "selenium.firefox.allowed.hosts",
        "selenium.firefox.binary.timeout", "selenium.firefox.enable.flash", "selenium.firefox.load.image",
        "selenium.firefox.load.stylesheet", "webdriver.chrome.driver", "interactiveselenium.handlers",
        # publishers (RabbitMQ)
        "fetcher.publisher", "publisher.order", "rabbitmq.publisher.server.uri", "rabbitmq.publisher.binding",
        "rabbitmq.publisher.binding.arguments", "rabbitmq.publisher.exchange.name",
        "rabbitmq.publisher.exchange.options", "rabbitmq.publisher.queue.name",
        "rabbitmq.publisher.queue.options", "rabbitmq.publisher.routingkey",
        "rabbitmq.publisher.headers.static",
        # Hadoop
        "hadoop.job.history.user.location", "io.serializations",
        "mapreduce.fileoutputcommitter.marksuccessfuljobs",
        # index back-ends of older nutch-default.xml (now in index-writers.xml)
        "solr.server.url", "solr.server.type", "solr.zookeeper.url", "solr.loadbalance.urls",
        "solr.mapping.file", "solr.commit.size", "solr.commit.index", "solr.auth", "solr.auth.username",
        "solr.auth.password", "elastic.host", "elastic.port", "elastic.cluster", "elastic.index",
        "elastic.max.bulk.docs", "elastic.max.bulk.size",
        # renamed or removed in older Nutch versions
        "db.default.fetch.interval", "db.max.inlinks", "http.max.delays", "http.verbose",
        "generate.max.per.host", "fetcher.threads.per.host", "indexer.mergeFactor",
    }
)
"""Nutch property names Gossamer does not implement; accepted in nutch-site.xml with a warning."""
