"""URL parsing with the semantics of ``java.net.URL``, as Nutch's normalizers see URLs.

Nutch's URL normalizers parse with ``java.net.URL`` and rebuild with
``new URL(protocol, host, port, file).toString()``.  Gossamer must give the same
answers, so this module models that parser (not WHATWG's, not ``urllib``'s):

* the input is trimmed of characters ``<= U+0020``; an optional ``url:`` prefix is skipped;
* the protocol must be a valid scheme *and* one Java has a handler for
  (:data:`KNOWN_PROTOCOLS`), else :class:`MalformedURLError`;
* the fragment starts at the first ``#``, the query at the first ``?`` before it;
* ``//`` introduces an authority that ends at the next ``/`` (or the end);
  ``user@`` is split off at the ``@``; the port is what follows the first ``:``
  (or ``]:`` for bracketed IPv6); an empty port means none;
* nothing is decoded, lowercased or validated beyond that (backslashes, tabs and
  spaces stay as they are — unlike WHATWG).

:func:`remove_dot_segments` is ``java.net.URI.normalize()`` for an absolute path
(which also collapses runs of ``/``).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

KNOWN_PROTOCOLS = frozenset({"http", "https", "ftp", "file", "jar", "mailto"})
"""Protocols ``java.net.URL`` accepts out of the box (others raise ``unknown protocol``)."""

DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}
"""``URL.getDefaultPort()`` per protocol; -1 for the others."""

_OPAQUE = frozenset({"mailto", "jar"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9.+-]*")
_PORT = re.compile(r"[+-]?[0-9]+")
_JAVA_WHITESPACE = "".join(chr(c) for c in range(0x21))


class MalformedURLError(ValueError):
    """The URL cannot be parsed (Java's ``MalformedURLException``)."""


def java_trim(text: str) -> str:
    """``String.trim()``: strip every character ``<= U+0020`` from both ends."""
    return text.strip(_JAVA_WHITESPACE)


@dataclass(frozen=True, slots=True)
class JavaURL:
    """The parts of a URL as ``java.net.URL`` reports them.

    ``authority`` is ``None`` without ``//``; ``host`` is ``""`` when absent and keeps
    IPv6 brackets; ``port`` is -1 when absent; ``query``/``ref`` are ``None`` when the
    URL has no ``?``/``#``.  ``host_start`` is the offset of the host in ``spec``.
    """

    spec: str
    protocol: str
    authority: str | None
    userinfo: str | None
    host: str
    port: int
    path: str
    query: str | None
    ref: str | None
    host_start: int

    @property
    def file(self) -> str:
        """``getFile()``: path plus ``?query``."""
        return self.path if self.query is None else f"{self.path}?{self.query}"

    @property
    def default_port(self) -> int:
        """``getDefaultPort()``."""
        return DEFAULT_PORTS.get(self.protocol, -1)


def parse_java_url(spec: str) -> JavaURL:
    """Parse ``spec`` like ``new java.net.URL(spec)``; raises :class:`MalformedURLError`."""
    start, limit = 0, len(spec)
    while limit > 0 and spec[limit - 1] <= " ":
        limit -= 1
    while start < limit and spec[start] <= " ":
        start += 1
    if spec[start:start + 4].lower() == "url:":
        start += 4
    colon = -1
    if not spec.startswith("#", start):
        for i in range(start, limit):
            ch = spec[i]
            if ch == "/":
                break
            if ch == ":":
                colon = i
                break
    if colon < 0 or not _SCHEME.fullmatch(spec, start, colon):
        raise MalformedURLError(f"no protocol: {spec}")
    protocol = spec[start:colon].lower()
    if protocol not in KNOWN_PROTOCOLS:
        raise MalformedURLError(f"unknown protocol: {protocol}")
    start = colon + 1
    ref = None
    hash_at = spec.find("#", start, limit)
    if hash_at >= 0:
        ref, limit = spec[hash_at + 1:limit], hash_at
    if protocol in _OPAQUE:
        if protocol == "jar" and "!/" not in spec[start:limit]:
            raise MalformedURLError(f"no !/ in spec: {spec}")
        return JavaURL(spec, protocol, None, None, "", -1, spec[start:limit], None, ref, start)
    query = None
    query_at = spec.find("?", start, limit)
    if query_at >= 0:
        query, limit = spec[query_at + 1:limit], query_at
    authority = userinfo = None
    host, port, host_start = "", -1, start
    if spec.startswith("//", start) and start + 2 <= limit:
        start += 2
        end = spec.find("/", start, limit)
        end = limit if end < 0 else end
        authority = spec[start:end]
        host_start = start
        userinfo, host, port, offset = _split_authority(authority, spec)
        host_start += offset
        start = end
    path = spec[start:limit]
    return JavaURL(spec, protocol, authority, userinfo, host, port, path, query, ref, host_start)


def _split_authority(authority: str, spec: str) -> tuple[str | None, str, int, int]:
    """``(userinfo, host, port, host offset in authority)`` of an authority."""
    userinfo, host, offset = None, authority, 0
    at = authority.find("@")
    if at >= 0:
        if at != authority.rfind("@"):
            # Java would silently lose the host; Gossamer reports the URL (see docs).
            raise MalformedURLError(f"more than one '@' in authority: {spec}")
        userinfo, host, offset = authority[:at], authority[at + 1:], at + 1
    port_text = None
    if host.startswith("["):
        close = host.find("]")
        if close <= 2:
            raise MalformedURLError(f"invalid authority field: {authority}")
        literal = host[1:close].partition("%")[0]
        try:
            ipaddress.IPv6Address(literal)
        except ValueError:
            raise MalformedURLError(f"invalid host: {host[:close + 1]}") from None
        rest = host[close + 1:]
        if rest and not rest.startswith(":"):
            raise MalformedURLError(f"invalid authority field: {authority}")
        host, port_text = host[:close + 1], rest[1:] if rest else None
    elif ":" in host:
        host, _, port_text = host.partition(":")
    return userinfo, host, _parse_port(port_text, spec), offset


def _parse_port(text: str | None, spec: str) -> int:
    if not text:
        return -1
    if not _PORT.fullmatch(text):
        raise MalformedURLError(f'for input string: "{text}" in {spec}')
    port = int(text)
    if port < -1 or port > 0x7FFFFFFF:
        raise MalformedURLError(f"invalid port number: {text} in {spec}")
    return port


def build_java_url(protocol: str, host: str, port: int, file: str, userinfo: str | None = None) -> str:
    """``new URL(protocol, host, port, file).toString()``, optionally with ``userinfo@``.

    An empty authority is written without ``//`` (``http:/path``), as Java does.
    """
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    authority = host if port == -1 else f"{host}:{port}"
    if userinfo is not None:
        authority = f"{userinfo}@{authority}"
    return f"{protocol}://{authority}{file}" if authority else f"{protocol}:{file}"


def remove_dot_segments(path: str) -> str:
    """``java.net.URI.normalize()`` of an absolute path.

    Removes ``.`` segments and ``segment/..`` pairs, collapses runs of ``/`` and
    keeps a trailing slash; ``..`` segments that have nothing left to remove
    stay (``/../a`` is unchanged).  Paths not starting with ``/`` are returned as is.
    """
    if not path.startswith("/"):
        return path
    parts = [seg for seg in path.split("/") if seg]
    trailing = [path.endswith("/") if i == len(parts) - 1 else True for i in range(len(parts))]
    kept: list[int] = []
    for i, seg in enumerate(parts):
        if seg == ".":
            continue
        if seg == ".." and kept and parts[kept[-1]] != "..":
            kept.pop()
            continue
        kept.append(i)
    # A removed "." or "seg/.." at the end leaves the previous segment with its slash.
    out = ["/"]
    for i in kept:
        out.append(parts[i])
        if trailing[i]:
            out.append("/")
    return "".join(out)


_UNSET: str = "\0unset"


def with_parts(url: JavaURL, *, protocol: str | None = None, host: str | None = None,
               path: str | None = None, query: str | None = _UNSET) -> str:
    """``url`` written back (``URL.toExternalForm()``) with some parts replaced.

    User info, port and fragment are kept; ``//`` is written when the URL had an
    authority or gets a non-empty host.
    """
    host = url.host if host is None else host
    authority = url.authority
    if authority is not None or host:
        authority = host if url.port == -1 else f"{host}:{url.port}"
        if url.userinfo is not None:
            authority = f"{url.userinfo}@{authority}"
    query = url.query if query == _UNSET else query
    return "".join((
        protocol or url.protocol, ":",
        f"//{authority}" if authority else "",
        url.path if path is None else path,
        "" if query is None else f"?{query}",
        "" if url.ref is None else f"#{url.ref}",
    ))
