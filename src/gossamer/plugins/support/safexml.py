"""XML read safely from untrusted documents: stdlib expat with hard limits, no entities, no network.

:func:`feed_xml` drives a target with ElementTree's target protocol (``start(tag, attrs)``,
``end(tag)``, ``data(text)``) from a byte string; :func:`xml_tree` builds an
:class:`xml.etree.ElementTree.Element` tree that way.  Tags and attribute names are in
ElementTree's ``{namespace}local`` form.  The contract, for any input:

* entity declarations (internal or external, general or parameter) are refused at the
  first one, so entity expansion ("billion laughs") and external entities (XXE) cannot
  happen; a DOCTYPE without declarations is accepted and never fetched;
* elements may nest at most ``limits.max_depth`` deep and a document may have at most
  ``limits.max_elements`` elements: past either the parse stops at once;
* every failure is a :class:`ValueError` whose message names the part and the reason
  (``too deeply nested``, ``too many elements``, ``entity declarations``, ``malformed
  XML … line N``), so callers turn it into ``parse_failed`` without a traceback.

The input is fed to expat in slices, so a hostile document is refused after reading only
as far as the first broken limit.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any, Protocol
from xml.parsers import expat

from gossamer.core import Settings

_SLICE = 1 << 16


@dataclass(frozen=True)
class XmlLimits:
    """Bounds on one XML document: nesting depth and number of elements."""

    max_depth: int = 256
    max_elements: int = 2_000_000


class XmlTarget(Protocol):
    """ElementTree's parser-target protocol (what :func:`feed_xml` calls)."""

    def start(self, tag: str, attrs: dict[str, str], /) -> Any:
        """An element opens."""

    def end(self, tag: str, /) -> Any:
        """An element closes."""

    def data(self, text: str, /) -> Any:
        """Character data (possibly in several pieces)."""


def _qualify(name: str) -> str:
    """Expat's ``uri}local`` (separator ``}``) → ``{uri}local``; names without namespace unchanged."""
    return "{" + name if "}" in name else name


class _Driver:
    """Runs one expat parser for one document, enforcing the limits."""

    def __init__(self, target: XmlTarget, limits: XmlLimits, part: str) -> None:
        self.target, self.limits, self.part = target, limits, part
        self.depth = 0
        self.elements = 0
        parser = expat.ParserCreate(namespace_separator="}")
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = target.data
        parser.EntityDeclHandler = self._entity
        parser.UnparsedEntityDeclHandler = self._entity
        parser.ExternalEntityRefHandler = self._external
        parser.buffer_text = True
        self.parser = parser

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        self.depth += 1
        self.elements += 1
        if self.depth > self.limits.max_depth:
            raise ValueError(f"{self.part}: XML too deeply nested (over {self.limits.max_depth} levels)")
        if self.elements > self.limits.max_elements:
            raise ValueError(f"{self.part}: XML has too many elements (over {self.limits.max_elements})")
        if attrs and any("}" in key for key in attrs):
            attrs = {_qualify(key): value for key, value in attrs.items()}
        self.target.start(_qualify(name), attrs)

    def _end(self, name: str) -> None:
        self.depth -= 1
        self.target.end(_qualify(name))

    def _entity(self, *_args: object) -> None:
        raise ValueError(f"{self.part}: XML entity declarations are not allowed (entity expansion)")

    def _external(self, *_args: object) -> int:
        raise ValueError(f"{self.part}: XML external entities are not allowed")

    def run(self, data: bytes) -> None:
        parse = self.parser.Parse
        try:
            for start in range(0, len(data), _SLICE):
                parse(data[start:start + _SLICE], False)
            parse(b"", True)
        except expat.ExpatError as exc:
            raise ValueError(f"{self.part}: malformed XML ({expat.ErrorString(exc.code)}, line {exc.lineno})") \
                from None
        except RecursionError:
            raise ValueError(f"{self.part}: XML too deeply nested") from None


def feed_xml(data: bytes, target: XmlTarget, limits: XmlLimits, part: str = "document") -> None:
    """Parse ``data`` into ``target`` under ``limits``; ``part`` names the document in errors."""
    _Driver(target, limits, part).run(data)


def xml_tree(data: bytes, limits: XmlLimits, part: str = "document") -> ET.Element:
    """The document as an ElementTree element (for small parts: properties, relationships, manifests)."""
    builder = ET.TreeBuilder()
    feed_xml(data, builder, limits, part)
    root = builder.close()
    if root is None:
        raise ValueError(f"{part}: empty XML document")
    return root


def local_name(tag: str) -> str:
    """``{uri}local`` → ``local``."""
    return tag.rpartition("}")[2]


def limits_from(settings: Settings) -> XmlLimits:
    """The XML limits configured in ``settings`` (``parser.xml.max.depth``, ``parser.xml.max.elements``)."""
    return XmlLimits(settings.get_int("parser.xml.max.depth"), settings.get_int("parser.xml.max.elements"))
