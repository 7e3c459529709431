"""Plugin ``parse-xml``: generic XML documents → text (feeds served as XML go to the feed reader).

The document is read with the safe XML reader (:mod:`..support.safexml`: no entities,
``parser.xml.max.depth`` and ``parser.xml.max.elements``).  The text is the document's
character data, a line per element that holds some; the title is the text of the first
element named ``title`` (any namespace), if any.  Parse metadata: ``xml.root`` (the root
element's local name) and ``xml.namespace`` (its namespace URI, when it has one).

An RSS or Atom document (root ``rss``, ``rdf:RDF`` or ``feed``) is parsed exactly as
``parse-feed`` parses it, since feeds are often served as ``text/xml`` or
``application/xml``.  No outlinks otherwise (XML has no general notion of a link).
"""

from __future__ import annotations

from gossamer.core import Content, Settings
from gossamer.plugins.api import Parser, ParseResult
from gossamer.plugins.builtin.parse_feed import FEED_ROOTS, feed_result, read_xml
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.docparse import document_result, tidy_text
from gossamer.plugins.support.safexml import limits_from, local_name


class XmlParser(Parser):
    """Generic XML parser (see the module docstring)."""

    content_types = ("application/xml", "text/xml", "application/x-xml")

    def __init__(self, settings: Settings) -> None:
        self.limits = limits_from(settings)

    def parse(self, content: Content) -> ParseResult:
        """Text, title and root facts of one XML document; ``ValueError`` when not well-formed or hostile."""
        root = read_xml(content.content, self.limits, "XML document")
        base = content.base_url or content.url
        name = local_name(root.tag)
        if name in FEED_ROOTS:
            return feed_result(root, base)
        lines = [text for element in root.iter() for text in (element.text, element.tail) if text and text.strip()]
        title = next(("".join(e.itertext()).strip() for e in root.iter() if local_name(e.tag) == "title"), "")
        meta = {"xml.root": name}
        if root.tag.startswith("{"):
            meta["xml.namespace"] = root.tag[1:].partition("}")[0]
        return document_result(base, tidy_text("\n".join(lines)), title, (), meta)


PLUGIN = PluginInfo(
    id="parse-xml",
    point="Parser",
    factory=XmlParser,
    description="Generic XML: the text of the document (feeds served as XML are read as feeds)",
)
