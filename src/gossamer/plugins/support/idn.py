"""Host name helpers of the basic URL normalizer: percent-decoding and IDN conversion.

* IDNA2003 (the default, like Java's ``java.net.IDN``) uses the standard
  library's ``encodings.idna`` (RFC 3490 ToASCII/ToUnicode with nameprep);
  unassigned code points are rejected as Java's default flags do.
* IDNA2008 (``urlnormalizer.basic.host.idna2008``) uses the ``idna`` package with
  UTS #46 mapping, non-transitional (``straße.de`` → ``xn--strae-oqa.de``).

``to_ascii`` raises :class:`ValueError` for a host that cannot be converted;
``to_unicode`` never fails: a label that does not decode stays as it is (Java's
``IDN.toUnicode`` contract).
"""

from __future__ import annotations

import encodings.idna as idna2003
import re
import stringprep

import idna as idna2008

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_DOTS = re.compile("[.\u3002\uff0e\uff61]")


def percent_decode_host(host: str) -> str:
    """Decode ``%XX`` runs as UTF-8 (invalid bytes → U+FFFD); a bad escape raises ``ValueError``."""
    if "%" not in host:
        return host
    pieces = _ESCAPE.split(host)
    if any("%" in text for text in pieces[::2]):
        raise ValueError(f"invalid percent-escape in host {host!r}")
    out: list[str] = []
    pending = bytearray()
    for i, piece in enumerate(pieces):
        if i % 2:
            pending.append(int(piece, 16))
        elif piece:
            out.append(pending.decode("utf-8", "replace"))
            pending.clear()
            out.append(piece)
    out.append(pending.decode("utf-8", "replace"))
    return "".join(out)


def to_ascii(host: str, idna2008_rules: bool) -> str:
    """Punycode form of a (lowercased) host; ``ValueError`` when a label is invalid."""
    try:
        if idna2008_rules:
            return idna2008.encode(host, uts46=True, transitional=False).decode("ascii")
        for char in host:
            if stringprep.in_table_a1(char):
                raise ValueError(f"unassigned code point U+{ord(char):04X}")
        return host.encode("idna").decode("ascii")
    except (UnicodeError, ValueError, idna2008.IDNAError) as exc:
        raise ValueError(f"invalid IDN host {host!r}: {exc}") from None


def to_unicode(host: str, idna2008_rules: bool) -> str:
    """Unicode form of every ``xn--`` label of ``host``; undecodable labels are kept."""
    labels = _DOTS.split(host)
    out = []
    for label in labels:
        if label[:4].lower() == "xn--":
            try:
                label = idna2008.decode(label) if idna2008_rules else idna2003.ToUnicode(label)
            except (UnicodeError, ValueError, idna2008.IDNAError):
                pass
        out.append(label)
    return ".".join(out)
