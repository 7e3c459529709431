"""Plugin ``parse-text``: plain text, after Nutch's TxtParser.

The text is the content decoded by the rules of
:mod:`~gossamer.plugins.builtin.parse_charset` (no ``<meta>`` step), kept as it is
(line breaks included); the title is empty.  Outlinks are the absolute
``http``/``https``/``ftp`` URLs written in the text (Nutch's OutlinkExtractor does
the same), without anchors; trailing punctuation such as a full stop or a closing
parenthesis is not part of a URL.  The codec used is stored in the parse metadata
under ``OriginalCharEncoding`` and ``CharEncodingForConversion``.
"""

from __future__ import annotations

import re

from gossamer.core import Content, Outlink, ParseData, ParseStatusCode, ParseText, Settings
from gossamer.plugins.api import Parser, ParseResult
from gossamer.plugins.builtin.parse_charset import choose_charset
from gossamer.plugins.registry import PluginInfo

_URL = re.compile(r"""\b(?:https?|ftp)://[^\s<>"'`{}|\\^\[\]]+""", re.I)
_TRAILING = ".,;:!?)]}'\""


def text_urls(text: str) -> list[str]:
    """Absolute URLs written in ``text``, in order, each once."""
    found: dict[str, None] = {}
    for match in _URL.finditer(text):
        url = match.group(0).rstrip(_TRAILING)
        if url.count("(") > url.count(")") and match.group(0)[len(url):len(url) + 1] == ")":
            url += ")"
        if "://" in url and not url.endswith("://"):
            found.setdefault(url, None)
    return list(found)


class TextParser(Parser):
    """Plain-text parser (see the module docstring)."""

    content_types = ("text/plain",)

    def __init__(self, settings: Settings) -> None:
        self.default_charset = settings.get_str("parser.character.encoding.default")
        self.detect = settings.get_int("encodingdetector.charset.min.confidence") >= 0

    def parse(self, content: Content) -> ParseResult:
        """Decode the text and collect the URLs written in it."""
        decoded = choose_charset(content.content, content.content_type, self.default_charset, self.detect,
                                 html=False)
        text = decoded.text()
        outlinks = [Outlink(url) for url in text_urls(text)]
        meta = {"OriginalCharEncoding": decoded.charset, "CharEncodingForConversion": decoded.charset}
        return ParseResult(ParseData(ParseStatusCode.SUCCESS, "", outlinks, {}, meta), ParseText(text))


PLUGIN = PluginInfo(
    id="parse-text",
    point="Parser",
    factory=TextParser,
    description="Plain text: the decoded text and the URLs written in it",
    aliases=("org.apache.nutch.parse.text.TxtParser", "TxtParser"),
)
