"""Creative Commons license RDF embedded in a page, and what a license URL says.

Pages marked up by the CC license chooser (2004–2008) carry an ``<rdf:RDF>`` block,
usually inside an HTML comment, sometimes inline::

    <rdf:RDF xmlns="http://web.resource.org/cc/" xmlns:dc="http://purl.org/dc/elements/1.1/" …>
      <Work rdf:about=""><dc:type rdf:resource="http://purl.org/dc/dcmitype/Text"/>
        <license rdf:resource="http://creativecommons.org/licenses/by-sa/2.0/"/></Work>
    </rdf:RDF>

:func:`read_rdf` finds such blocks in the page source and returns the work's
license (``cc:license``, else ``dc:rights`` with an ``rdf:resource``) and its work
type (``dc:type`` mapped to Nutch's names).  Elements are matched by local name, so
the old (``web.resource.org/cc/``) and new (``creativecommons.org/ns#``) namespaces
both work.  Blocks are bounded (:data:`MAX_BLOCKS` of at most :data:`MAX_BLOCK_CHARS`),
DTDs and entities are refused (defusedxml), and XML that does not parse is ignored.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from urllib.parse import urlsplit

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RESOURCE = f"{{{RDF_NS}}}resource"
ABOUT = f"{{{RDF_NS}}}about"
MAX_BLOCKS = 8
MAX_BLOCK_CHARS = 65536
CC_HOSTS = frozenset({"creativecommons.org", "www.creativecommons.org"})

WORK_TYPES = {
    "Text": "text", "StillImage": "image", "Image": "image", "Sound": "audio", "MovingImage": "video",
    "Interactive": "interactive", "Software": "software", "Dataset": "dataset",
}
"""DCMI type (the last part of the ``dc:type`` resource) → work type, as Nutch names them."""

_OPEN = re.compile(r"<rdf:RDF\b", re.IGNORECASE)
_CLOSE = re.compile(r"</rdf:RDF\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class RdfLicense:
    """What an embedded RDF block says: the license URL and the work type (either may be empty)."""

    license_url: str = ""
    work_type: str = ""


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _resource(element: ET.Element) -> str:
    return (element.get(RESOURCE) or element.get(ABOUT) or (element.text or "")).strip()


def _read_block(block: str) -> RdfLicense:
    try:
        root = fromstring(block, forbid_dtd=True)
    except (ET.ParseError, DefusedXmlException):
        return RdfLicense()
    license_url = work_type = ""
    for work in (e for e in root.iter() if _local(e.tag) == "Work"):
        for child in work:
            name = _local(child.tag)
            if name == "license" and not license_url:
                license_url = _resource(child)
            elif name == "rights" and not license_url and child.get(RESOURCE):
                license_url = _resource(child)
            elif name == "type" and not work_type:
                work_type = WORK_TYPES.get(_resource(child).rstrip("/").rpartition("/")[2], "")
    return RdfLicense(license_url, work_type)


def read_rdf(source: str) -> RdfLicense:
    """The first license and work type found in the ``<rdf:RDF>`` blocks of ``source`` (page text).

    At most :data:`MAX_BLOCKS` openings are looked at, and a block must close within
    :data:`MAX_BLOCK_CHARS` characters, so the work is linear in the page size.
    """
    license_url = work_type = ""
    for count, match in enumerate(_OPEN.finditer(source)):
        if count >= MAX_BLOCKS:
            break
        start = match.start()
        close = _CLOSE.search(source, start, start + MAX_BLOCK_CHARS)
        if close is None:
            continue
        found = _read_block(source[start:close.end()])
        license_url = license_url or found.license_url
        work_type = work_type or found.work_type
        if license_url and work_type:
            break
    return RdfLicense(license_url, work_type)


def is_cc_license(url: str) -> bool:
    """Whether ``url`` is a license or public-domain deed on creativecommons.org."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return (parts.hostname or "") in CC_HOSTS and parts.path.startswith(("/licenses/", "/publicdomain/"))


def license_features(url: str) -> list[str]:
    """What a creativecommons.org license URL says: its type and version (``by-sa``, ``4.0``); ``[]`` for others.

    ``https://creativecommons.org/licenses/by-nc-sa/2.0/fr/`` → ``["by-nc-sa", "2.0", "fr"]``;
    ``…/publicdomain/zero/1.0/`` → ``["publicdomain", "zero", "1.0"]``.
    """
    if not is_cc_license(url):
        return []
    parts = [p.lower() for p in urlsplit(url).path.split("/") if p]
    if parts and parts[0] == "licenses":
        parts = parts[1:]
    return [p for p in parts if not p.startswith(("legalcode", "deed", "rdf"))]
