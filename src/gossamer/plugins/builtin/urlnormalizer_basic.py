"""``urlnormalizer-basic``: Nutch's BasicURLNormalizer (reference §8.1), rule for rule.

1. ``""`` is returned as is; the URL is trimmed and parsed like ``java.net.URL``
   (:mod:`gossamer.plugins.support.javaurl`); a malformed URL raises ``ValueError``.
2. The protocol is lowercased.  For http, https and ftp: the host is
   percent-decoded (a bad escape raises), lowercased, optionally converted to
   ASCII/Unicode (``urlnormalizer.basic.host.idn``, IDNA2003 or
   ``…host.idna2008``) and stripped of a trailing dot
   (``…host.trim-trailing-dot``); the default port and an empty port are dropped;
   an empty path becomes ``/`` and a relative one gets a leading ``/``; the
   fragment is dropped; http(s) user info is dropped, ftp keeps ``user[:pass]@``.
3. In path and query, ``%XX`` of unreserved characters is decoded, other escapes
   are uppercased; control characters, space, ``"<>[]^`{|}\\``, DEL and all
   non-ASCII (as UTF-8 bytes) are escaped; a ``%`` not starting an escape
   becomes ``%25``.
4. Dot segments are removed and ``//`` collapsed in the path (http, https, ftp
   and file), leading ``/..`` segments are dropped, an empty path becomes ``/``.

A URL nothing changes is returned as the very same string.  Clean http(s)/ftp
URLs take a single precompiled-regex fast path.
"""

from __future__ import annotations

import re

import pyarrow as pa

from gossamer.core import Settings
from gossamer.plugins.api import URLNormalizer
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support import idn
from gossamer.plugins.support.javaurl import (
    JavaURL,
    MalformedURLError,
    build_java_url,
    java_trim,
    parse_java_url,
    remove_dot_segments,
)
from gossamer.plugins.support.urlscreen import number_except, screened

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_ESCAPE_ANY = re.compile(r"%([0-9A-Fa-f]{2})")
_MUST_ESCAPE = re.compile(r'[\x00-\x20"<>\[\]^`{|}\\\x7f-\U0010ffff]|%(?![0-9A-Fa-f]{2})')
_NORMALIZABLE_PATH = re.compile(r"/[./]|[.]/")
_URI_ILLEGAL_HOST = re.compile(r'[\x00-\x20"<>\\^`{|}%]')

# An http(s)/ftp URL already in normal form (but for a fragment, which is dropped):
# lowercase ASCII host without user info, an optional non-default port without
# leading zeros, a path of allowed characters and uppercase escapes of reserved bytes.
_ESC = r"%(?!2[DE]|3[0-9]|4[1-9A-F]|5[0-9AF]|6[1-9A-F]|7[0-9AE])[0-9A-F]{2}"
# Each loop is "unrolled" (a run of plain characters, then escapes each followed by such a run): the
# parts are disjoint, so a failed match gives back in linear time without possessive quantifiers, which
# Python 3.11.2's re (Debian 12's) mis-matches (``…?q=foobar%`` was taken as already normal).
_FAST = re.compile(
    r"(?P<scheme>https?|ftp)://[a-z0-9_-]+(?:\.[a-z0-9_-]+)*(?::(?P<port>[1-9][0-9]{0,4}))?"
    rf"(?P<path>/[!$&-;=@-Z_a-z~]*(?:{_ESC}[!$&-;=@-Z_a-z~]*)*)"
    rf"(?:\?[!$&-;=?-Z_a-z~]*(?:{_ESC}[!$&-;=?-Z_a-z~]*)*)?"
    r"(?P<fragment>#.*)?",
    re.DOTALL,
)
_DEFAULT_PORTS = {"http": "80", "https": "443", "ftp": "21"}

# RE2 form of a subset of the fast path's URLs that ``normalize`` returns unchanged: no default
# port, no escapes, no fragment, and path segments neither empty nor starting or ending with "."
# (so the path has no "/.", "./" or "//").  Character classes are those of ``_FAST`` without "%".
_SEG_EDGE = r"[!$\x26-\x2d\x30-\x3b=\x40-\x5a_a-z~]"
_SEG = rf"{_SEG_EDGE}(?:[!$\x26-\x2e\x30-\x3b=\x40-\x5a_a-z~]*{_SEG_EDGE})?"
_RE2_AUTHORITY = "|".join(
    rf"{scheme}://[a-z0-9_-]+(?:\.[a-z0-9_-]+)*(?::{number_except(int(port))})?"
    for scheme, port in _DEFAULT_PORTS.items()
)
UNCHANGED_RE2 = (
    rf"^(?:{_RE2_AUTHORITY})/(?:{_SEG}(?:/{_SEG})*/?)?"
    r"(?:\?[!$\x26-\x3b=\x3f-\x5a_a-z~]*)?$"
)
_HTTP_LIKE = ("http", "https", "ftp")


def _fix_escape(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else match.group(0).upper()


def _escape_char(match: re.Match[str]) -> str:
    text = match.group(0)
    if text == "%":
        return "%25"
    return "".join(f"%{byte:02X}" for byte in text.encode("utf-8", "replace"))


def normalize_escapes(file: str) -> str:
    """Rule 3: decode unreserved escapes, uppercase others, escape what must be escaped."""
    if "%" in file:
        file = _ESCAPE_ANY.sub(_fix_escape, file)
    return _MUST_ESCAPE.sub(_escape_char, file)


def normalize_file_path(file: str) -> str:
    """Rule 4 on ``path?query``: dot segments and ``//`` in the path, leading ``/..`` dropped."""
    path, sep, query = file.partition("?")
    if _NORMALIZABLE_PATH.search(path):
        path = remove_dot_segments(path)
        while path.startswith("/..") and (len(path) == 3 or path[3] == "/"):
            path = path[3:]
    if not path:
        path = "/"
    return path + sep + query


class BasicURLNormalizer(URLNormalizer):
    """Nutch's basic normalization (see the module docstring); pure and thread-safe."""

    def __init__(self, idn_mode: str = "", idna2008: bool = False, trim_trailing_dot: bool = False) -> None:
        mode = idn_mode.strip().lower()
        if mode not in ("", "toascii", "tounicode"):
            raise ValueError(f"urlnormalizer.basic.host.idn: expected toAscii or toUnicode, got {idn_mode!r}")
        self.to_ascii = mode == "toascii"
        self.to_unicode = mode == "tounicode"
        self.idna2008 = idna2008
        self.trim_trailing_dot = trim_trailing_dot

    def normalize(self, url: str, scope: str) -> str:
        """Return the normalized URL; raise ``ValueError`` for a malformed one."""
        match = _FAST.fullmatch(url)
        if (match is not None and not _NORMALIZABLE_PATH.search(match.group("path"))
                and match.group("port") != _DEFAULT_PORTS[match.group("scheme")]
                and not (self.to_unicode and "xn--" in url)):
            return url if match.group("fragment") is None else url[:match.start("fragment")]
        if url == "":
            return url
        return self._normalize_slow(java_trim(url))

    def unchanged_mask(self, urls: pa.StringArray, scope: str) -> pa.BooleanArray:
        """True for URLs of the ``UNCHANGED_RE2`` shape (not ``xn--`` ones under ``toUnicode``)."""
        return screened(urls, UNCHANGED_RE2, "xn--" if self.to_unicode else None)

    def _normalize_slow(self, url: str) -> str:
        parsed = parse_java_url(url)
        protocol, host, port, file, userinfo = parsed.protocol, parsed.host, parsed.port, parsed.file, None
        changed = not url.startswith(protocol)
        normalize_path = protocol == "file"
        if protocol in _HTTP_LIKE:
            changed |= self._host_changed(parsed)
            host = self.normalize_host(host)
            if port == parsed.default_port:
                port, changed = -1, True
            normalize_path = True
            if not file.startswith("/"):
                file, changed, normalize_path = "/" + file, True, False
            changed |= parsed.ref is not None
            userinfo = parsed.userinfo if protocol == "ftp" else None
        else:
            userinfo = parsed.userinfo
        escaped = normalize_escapes(file)
        if escaped != file:
            file, changed = escaped, True
        if normalize_path and not _URI_ILLEGAL_HOST.search(host):
            normalized = normalize_file_path(file)
            if normalized != file:
                file, changed = normalized, True
        if not changed:
            return url
        return build_java_url(protocol, host, port, file, userinfo)

    def _host_changed(self, parsed: JavaURL) -> bool:
        if parsed.authority is None:
            return True
        return parsed.authority != self.normalize_host(parsed.host)

    def normalize_host(self, host: str) -> str:
        """Rule 2 for a host: percent-decode, lowercase, IDN conversion, trailing dot."""
        try:
            host = idn.percent_decode_host(host).lower()
            if self.to_ascii and not host.isascii():
                host = idn.to_ascii(host, self.idna2008)
            elif self.to_unicode and "xn--" in host:
                host = idn.to_unicode(host, self.idna2008)
        except ValueError as exc:
            raise MalformedURLError(str(exc)) from None
        if self.trim_trailing_dot and host.endswith("."):
            host = host[:-1]
        return host


def _build(settings: Settings) -> BasicURLNormalizer:
    return BasicURLNormalizer(
        idn_mode=settings.get_str("urlnormalizer.basic.host.idn"),
        idna2008=settings.get_bool("urlnormalizer.basic.host.idna2008"),
        trim_trailing_dot=settings.get_bool("urlnormalizer.basic.host.trim-trailing-dot"),
    )


PLUGIN = PluginInfo(
    id="urlnormalizer-basic",
    point="URLNormalizer",
    factory=_build,
    description="Nutch's basic URL normalization: case, ports, escapes, dot segments, IDN, fragments",
    aliases=("org.apache.nutch.net.urlnormalizer.basic.BasicURLNormalizer", "BasicURLNormalizer"),
)
