"""The package layer of Office Open XML (ECMA-376 part 2): relationships, the main part, core properties.

An OOXML file is a ZIP (:class:`~gossamer.plugins.support.safezip.SafeZip`) whose parts are
linked by relationship parts: ``_rels/.rels`` for the package, ``dir/_rels/name.rels`` for
the part ``dir/name``.  A relationship has an id, a type (a URI ending in ``/officeDocument``,
``/hyperlink``, ``/slide`` …), a target and a target mode; targets of internal
relationships are resolved against the source part's folder.  Only the transitional
namespaces are known (Strict OOXML documents are reported as having no main part).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from gossamer.plugins.support.docparse import core_properties
from gossamer.plugins.support.safexml import XmlLimits, xml_tree
from gossamer.plugins.support.safezip import SafeZip

REL_NS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
OFFICE_DOCUMENT = "/officeDocument"
HYPERLINK = "/hyperlink"


@dataclass(frozen=True)
class Relationship:
    """One relationship: type URI, target (a part path when internal, as written when external)."""

    type: str
    target: str
    external: bool


class OoxmlPackage:
    """Parts and relationships of one OOXML package read under the zip and XML limits."""

    def __init__(self, package: SafeZip, limits: XmlLimits) -> None:
        self.zip = package
        self.limits = limits

    def xml(self, part: str) -> bytes:
        """The bytes of ``part``; ``ValueError`` when the package lacks it."""
        data = self.zip.read_optional(part)
        if data is None:
            raise ValueError(f"{self.zip.kind}: missing part {part}")
        return data

    def relationships(self, part: str) -> dict[str, Relationship]:
        """Relationships of ``part`` (``""`` for the package) by id; empty when it has none."""
        folder, name = posixpath.split(part)
        rels_part = posixpath.join(folder, "_rels", name + ".rels") if part else "_rels/.rels"
        data = self.zip.read_optional(rels_part)
        if data is None:
            return {}
        found: dict[str, Relationship] = {}
        for rel in xml_tree(data, self.limits, rels_part).iter(REL_NS + "Relationship"):
            target = rel.get("Target", "")
            external = rel.get("TargetMode", "") == "External"
            if not external:
                target = posixpath.normpath(posixpath.join("/" + folder, target)).lstrip("/")
            found[rel.get("Id", "")] = Relationship(rel.get("Type", ""), target, external)
        return found

    def main_part(self) -> str:
        """The main document part (the package's ``officeDocument`` relationship)."""
        for rel in self.relationships("").values():
            if rel.type.endswith(OFFICE_DOCUMENT) and not rel.external:
                return rel.target
        raise ValueError(f"{self.zip.kind}: no main document part (not an OOXML package?)")

    def hyperlinks(self, part: str) -> dict[str, str]:
        """External hyperlink targets of ``part`` by relationship id."""
        return {rid: rel.target for rid, rel in self.relationships(part).items()
                if rel.external and rel.type.endswith(HYPERLINK)}

    def properties(self) -> dict[str, str]:
        """Core properties (``docProps/core.xml`` or wherever the package points) as parse metadata."""
        for rel in self.relationships("").values():
            if rel.type.endswith("/core-properties") and self.zip.has(rel.target):
                return core_properties(xml_tree(self.xml(rel.target), self.limits, rel.target))
        return {}
