"""``urlnormalizer-querystring``: sorts query parameters (Nutch's QuerystringURLNormalizer).

The query is split on ``&`` like Java's ``String.split("&")`` (trailing empty
parameters vanish, ``a=1&&b=2`` keeps an empty one), the parts are sorted as
Java sorts strings (by UTF-16 code units, so ``B=`` before ``a=``) and joined
with ``&``.  Duplicate parameters stay (``a=b&a=c``).  URLs without ``?`` are
returned unchanged; scope is ignored.  Nothing is decoded or re-encoded.
"""

from __future__ import annotations

from gossamer.core import Settings
from gossamer.plugins.api import URLNormalizer
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.javaurl import parse_java_url, with_parts


def _utf16_key(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def sort_query(query: str) -> str:
    """The parameters of ``query`` in Java's sort order, joined by ``&``."""
    parts = query.split("&")
    if query:
        while parts and parts[-1] == "":
            parts.pop()
    if all(part.isascii() for part in parts):
        parts.sort()
    else:
        parts.sort(key=_utf16_key)
    return "&".join(parts)


class QuerystringURLNormalizer(URLNormalizer):
    """Sorts the query parameters of every URL; pure and thread-safe."""

    def normalize(self, url: str, scope: str) -> str:
        """Return ``url`` with its query parameters sorted; ``ValueError`` if malformed."""
        if "?" not in url:
            parse_java_url(url)
            return url
        parsed = parse_java_url(url)
        if parsed.query is None:
            return url
        return with_parts(parsed, query=sort_query(parsed.query))


def _build(settings: Settings) -> QuerystringURLNormalizer:
    return QuerystringURLNormalizer()


PLUGIN = PluginInfo(
    id="urlnormalizer-querystring",
    point="URLNormalizer",
    factory=_build,
    description="Sorts query parameters so ?b=2&a=1 and ?a=1&b=2 are one URL",
    aliases=("org.apache.nutch.net.urlnormalizer.querystring.QuerystringURLNormalizer",
             "QuerystringURLNormalizer"),
)
