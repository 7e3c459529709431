"""Plugins ``creativecommons`` and ``creativecommons-index``: a page's license (Nutch's CCParseFilter/CCIndexingFilter).

The parse filter looks for the page's license, in Nutch's order of preference:

1. ``rdf`` — embedded license RDF (:mod:`.creativecommons_rdf`);
2. ``rel`` — the first ``<a rel="license" href>`` or ``<link rel="license" href>``
   (any license, not only Creative Commons; ``rel`` may hold other words too);
3. ``a`` — the first plain link to a creativecommons.org license.

and stores the absolute license URL under ``License-Url``, where it was found under
``License-Location`` (``rdf``, ``rel`` or ``a``) and the RDF's work type (``text``,
``image``, ``audio``, ``video``, ``interactive``, ``software``, ``dataset``) under
``Work-Type``.  With ``creativecommons.exclude.unlicensed`` a page without a license
fails to parse (Nutch throws a ParseException), so it is not indexed.

The indexing filter fills the text field ``cc`` with Nutch's features: the license
type and version of a creativecommons.org URL (``by-sa``, ``4.0``; text analysis
makes ``by`` and ``sa`` terms of it), ``license=<url>``, ``meta=<location>`` and the
work type.  The ``cc:`` query operator (plugin ``creativecommons-query``) searches
it: ``cc:by-sa``, ``cc:nc``, ``cc:4.0``, ``cc:text``.
"""

from __future__ import annotations

import re
from typing import Any

from gossamer.core import Content, Settings
from gossamer.plugins.api import HtmlParseFilter, IndexField, IndexingFilter, IndexInput, ParseResult
from gossamer.plugins.builtin.creativecommons_rdf import is_cc_license, license_features, read_rdf
from gossamer.plugins.builtin.htmlfilter_common import base_url, rel_words, resolve
from gossamer.plugins.builtin.parse_html import CHARSET_KEYS
from gossamer.plugins.registry import PluginInfo

LICENSE_URL = "License-Url"
LICENSE_LOCATION = "License-Location"
WORK_TYPE = "Work-Type"
"""Parse-metadata keys (Nutch's ``CreativeCommons`` constants)."""

_HAS_RDF = re.compile(rb"<rdf:rdf\b", re.IGNORECASE)


class CCParseFilter(HtmlParseFilter):
    """License URL, location and work type → parse metadata (see the module docstring)."""

    reads_text = False

    def __init__(self, settings: Settings) -> None:
        self.exclude_unlicensed = settings.get_bool("creativecommons.exclude.unlicensed")

    def filter(self, content: Content, result: ParseResult, tree: Any) -> ParseResult:
        meta = result.data.parse_metadata
        rdf = self._rdf(content, meta.get(CHARSET_KEYS[1]) or "utf-8")
        license_url, location = rdf.license_url, "rdf"
        if not license_url:
            license_url, location = self._from_links(content, tree)
        if license_url:
            meta[LICENSE_URL] = license_url
            meta[LICENSE_LOCATION] = location
        elif self.exclude_unlicensed:
            raise ValueError("no license found (creativecommons.exclude.unlicensed)")
        if rdf.work_type:
            meta[WORK_TYPE] = rdf.work_type
        return result

    @staticmethod
    def _rdf(content: Content, charset: str) -> Any:
        data = content.content
        if not _HAS_RDF.search(data):
            return read_rdf("")
        try:
            return read_rdf(data.decode(charset, errors="replace"))
        except LookupError:
            return read_rdf(data.decode("utf-8", errors="replace"))

    @staticmethod
    def _from_links(content: Content, tree: Any) -> tuple[str, str]:
        base = base_url(content, tree)
        anchor = ""
        for node in tree.css("a[href], link[href]"):
            url = resolve(base, node.attributes.get("href"))
            if not url:
                continue
            if "license" in rel_words(node):
                return url, "rel"
            if not anchor and node.tag == "a" and is_cc_license(url):
                anchor = url
        return (anchor, "a") if anchor else ("", "")


def cc_features(meta: dict[str, str]) -> list[str]:
    """The ``cc`` field values of a page's parse metadata (``[]`` when it has no license facts)."""
    features: list[str] = []
    url = meta.get(LICENSE_URL, "")
    if url:
        features.append(f"license={url}")
        features.extend(license_features(url))
    location = meta.get(LICENSE_LOCATION, "")
    if location:
        features.append(f"meta={location}")
    work_type = meta.get(WORK_TYPE, "")
    if work_type:
        features.append(work_type)
    return features


class CCIndexingFilter(IndexingFilter):
    """cc: license features of the page."""

    reads_inlink_sources = False

    fields = (IndexField("cc", "text", description="Creative Commons license: type, version, license=URL, meta=…"),)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        features = cc_features(page.parse.data.parse_metadata)
        if features:
            doc["cc"] = features
        return doc


PARSE_PLUGIN = PluginInfo(
    id="creativecommons",
    point="HtmlParseFilter",
    factory=CCParseFilter,
    description="license links and RDF into License-Url, License-Location, Work-Type",
    aliases=("org.creativecommons.nutch.CCParseFilter", "CCParseFilter"),
)
INDEX_PLUGIN = PluginInfo(
    id="creativecommons-index",
    point="IndexingFilter",
    factory=CCIndexingFilter,
    description="cc: license type, version, URL and work type",
    aliases=("org.creativecommons.nutch.CCIndexingFilter", "CCIndexingFilter"),
)
