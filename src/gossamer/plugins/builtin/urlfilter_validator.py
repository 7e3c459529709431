"""``urlfilter-validator``: rejects syntactically invalid URLs (Nutch's UrlValidator).

Nutch's rules (after commons-validator's UrlValidator, RFC 2396), no settings:

* the whole URL is printable ASCII (``0x21``–``0x7E``: no spaces, no controls, no
  non-ASCII characters);
* a scheme of letters only, followed by ``//`` and an authority;
* the authority is ``host[:port]`` with nothing else (user info is rejected):
  either an IPv4 address with every part ≤ 255, or a host name of at least two
  labels of letters, digits and ``-`` whose last label has at least two
  characters and starts with a letter; the port, if present, is 1–5 digits
  (IPv6 literals are rejected);
* the path is empty or starts with ``/`` and uses only letters, digits and
  ``-_:@&?=+,.!/~*'%$;()``; it may hold ``..`` segments only while fewer of them
  than its real segments;
* any query and fragment are accepted.
"""

from __future__ import annotations

import re

from gossamer.core import Settings
from gossamer.plugins.api import URLFilter
from gossamer.plugins.registry import PluginInfo

_URL = re.compile(r"^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?", re.ASCII | re.DOTALL)
_LEGAL_ASCII = re.compile(r"[\x21-\x7E]+")
_SCHEME = re.compile(r"[a-zA-Z]+")
_AUTHORITY = re.compile(r"([a-zA-Z0-9\-.]*)(:\d*)?(.*)", re.ASCII | re.DOTALL)
_IPV4 = re.compile(r"(\d{1,3})[.](\d{1,3})[.](\d{1,3})[.](\d{1,3})", re.ASCII)
_LABEL = r"[^\s;/@&=,.?:+$]+"
_HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*", re.ASCII)
_PORT = re.compile(r":\d{1,5}", re.ASCII)
_PATH = re.compile(r"(/[-\w:@&?=+,.!/~*'%$;()]*)?", re.ASCII)


def _count(token: str, text: str) -> int:
    """Occurrences of ``token`` in ``text``, overlapping ones included (``"..."`` holds two ``..``)."""
    count, at = 0, text.find(token)
    while at >= 0:
        count += 1
        at = text.find(token, at + 1)
    return count


def _valid_authority(authority: str | None) -> bool:
    if authority is None:
        return False
    parts = _AUTHORITY.fullmatch(authority)
    if parts is None:
        return False
    host = parts.group(1)
    if ip := _IPV4.fullmatch(host):
        if any(int(octet) > 255 for octet in ip.groups()):
            return False
    elif _HOSTNAME.fullmatch(host):
        labels = host.split(".")
        top = labels[-1]
        if len(top) < 2 or not top[0].isascii() or not top[0].isalpha() or len(labels) < 2:
            return False
    else:
        return False
    port = parts.group(2)
    if port is not None and not _PORT.fullmatch(port):
        return False
    return not parts.group(3).strip()


def _valid_path(path: str) -> bool:
    if not _PATH.fullmatch(path):
        return False
    dots = _count("..", path)
    return dots <= 0 or (_count("/", path) - _count("//", path) - 1) > dots


def is_valid_url(url: str) -> bool:
    """Whether ``url`` passes Nutch's UrlValidator (see the module docstring)."""
    if not _LEGAL_ASCII.fullmatch(url):
        return False
    parts = _URL.fullmatch(url)
    if parts is None:
        return False
    scheme = parts.group(2)
    if scheme is None or not _SCHEME.fullmatch(scheme):
        return False
    return _valid_authority(parts.group(4)) and _valid_path(parts.group(5))


class UrlValidator(URLFilter):
    """Accepts syntactically valid URLs only."""

    def filter(self, url: str) -> str | None:
        """Return ``url`` when valid, else ``None``."""
        return url if is_valid_url(url) else None


def _build(settings: Settings) -> UrlValidator:
    return UrlValidator()


PLUGIN = PluginInfo(
    id="urlfilter-validator",
    point="URLFilter",
    factory=_build,
    description="Reject syntactically invalid URLs (scheme, host name or IPv4 address, port, path characters)",
    aliases=("org.apache.nutch.urlfilter.validator.UrlValidator",),
)
