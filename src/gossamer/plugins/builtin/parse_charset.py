"""Character set of fetched text, shared by the ``parse-html`` and ``parse-text`` parsers.

:func:`choose_charset` decides in this order (the first that answers wins):

1. a byte-order mark (UTF-8, UTF-16 LE/BE) — unambiguous, as the HTML standard says;
2. the ``charset`` parameter of the HTTP ``Content-Type`` header;
3. for HTML, a ``<meta charset>`` or ``<meta http-equiv="Content-Type" content="…; charset=…">``
   declaration in the first :data:`META_SCAN_BYTES` bytes;
4. the bytes are valid UTF-8 (pure ASCII included);
5. auto-detection with resiliparse's ``detect_encoding`` (uchardet) when
   ``encodingdetector.charset.min.confidence`` ≥ 0 (Nutch's switch for its detector);
6. ``parser.character.encoding.default`` (Nutch: windows-1252).

Labels are mapped to Python codecs by the WHATWG table (resiliparse's
``map_encoding_to_html5``), so ``ISO-8859-1`` and ``latin1`` decode as
windows-1252 and unknown labels are ignored (the next rule answers).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from resiliparse.parse.encoding import detect_encoding, map_encoding_to_html5

META_SCAN_BYTES = 8192
"""How far into an HTML document a ``<meta>`` charset declaration is looked for."""

_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([^\s;"',]+)""", re.I)
_META_CHARSET = re.compile(rb"""<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


@dataclass(frozen=True, slots=True)
class Decoded:
    """A document ready for a parser.

    ``document`` is ``bytes`` when the charset is UTF-8 (BOM removed; HTML parsers read
    UTF-8 bytes directly) and ``str`` otherwise; ``charset`` is the Python codec used and
    ``source`` says which rule chose it (``bom``, ``header``, ``meta``, ``utf-8``,
    ``detected`` or ``default``).
    """

    document: bytes | str
    charset: str
    source: str

    def text(self) -> str:
        """The document as a string (invalid UTF-8 sequences become U+FFFD)."""
        doc = self.document
        return doc if isinstance(doc, str) else doc.decode("utf-8", "replace")


def codec_for(label: str) -> str | None:
    """Python codec for a charset label (WHATWG mapping); ``None`` when the label is unknown."""
    label = label.strip().strip("\"'")
    if not label:
        return None
    mapped = map_encoding_to_html5(label, fallback_utf8=False)
    if mapped is None:
        return None
    try:
        return codecs.lookup(mapped).name
    except LookupError:
        return None


def header_charset(content_type: str) -> str | None:
    """Codec named by the ``charset`` parameter of a Content-Type value, or ``None``."""
    if not content_type or "charset" not in content_type.lower():
        return None
    match = _HEADER_CHARSET.search(content_type)
    return codec_for(match.group(1)) if match else None


def meta_charset(data: bytes) -> str | None:
    """Codec declared by a ``<meta>`` tag near the start of an HTML document, or ``None``.

    A declared UTF-16 is read as UTF-8, as the HTML standard prescribes (the bytes
    were readable as ASCII to find the declaration, so they are not UTF-16).
    """
    match = _META_CHARSET.search(data, 0, META_SCAN_BYTES)
    if match is None:
        return None
    codec = codec_for(match.group(1).decode("ascii"))
    if codec is not None and codec.startswith("utf-16"):
        return "utf-8"
    return codec


def _decode(data: bytes, codec: str, source: str) -> Decoded:
    if codec == "utf-8":
        return Decoded(data, "utf-8", source)
    return Decoded(data.decode(codec, "replace"), codec, source)


def choose_charset(data: bytes, content_type: str, default: str, detect: bool = False,
                   html: bool = True) -> Decoded:
    """Decode ``data`` by the rules of the module docstring (never raises for bad bytes)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return _decode(data[len(bom):], codec, "bom")
    codec = header_charset(content_type)
    if codec is not None:
        return _decode(data, codec, "header")
    if html:
        codec = meta_charset(data)
        if codec is not None:
            return _decode(data, codec, "meta")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return Decoded(data if html else text, "utf-8", "utf-8")
    if detect:
        codec = codec_for(detect_encoding(data, html5_compatible=True) or "")
        if codec is not None:
            return _decode(data, codec, "detected")
    return _decode(data, codec_for(default) or "cp1252", "default")
