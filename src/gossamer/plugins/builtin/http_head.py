"""The head of an HTTP/1.x response (status line and header fields), parsed with ``bytes.find``/``split``.

For the lean client of plugin ``protocol-http`` (:mod:`.http_lean`).  Caps, as aiohttp's parser
has them: a line (status line or one header field) of at most :data:`MAX_LINE` bytes and a whole
head of at most :data:`MAX_HEAD` bytes (which bounds the number of fields).  Lines may end in
CRLF or a bare LF.  A head that breaks these rules or is not HTTP/1.x raises :class:`BadResponse`
with a one-line message; nothing else is raised for any input.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_LINE = 8190
"""Bytes in one line of the head (aiohttp's ``max_line_size`` / ``max_field_size``)."""
MAX_HEAD = 65536
"""Bytes in the whole head, status line and blank line included."""
_OWS = " \t"


class BadResponse(ValueError):
    """The server's bytes are not an acceptable HTTP/1.x response (the message says what is wrong)."""


@dataclass(slots=True)
class Head:
    """One parsed response head; ``headers`` keep the names' case and order as sent (values trimmed)."""

    version: str
    status: int
    reason: str
    headers: list[tuple[str, str]]
    first: dict[str, str]
    """Lower-cased name → its first value (the lookups of the client and the plugin)."""

    def tokens(self, name: str) -> set[str]:
        """The comma-separated, lower-cased tokens of every ``name`` field (e.g. ``connection``)."""
        lowered = name.lower()
        return {t.strip().lower() for k, v in self.headers if k.lower() == lowered for t in v.split(",")}


def head_end(buffer: bytes | bytearray, start: int = 0) -> int:
    """The offset just after the blank line ending the head in ``buffer``, or -1 when it is not complete.

    ``start``: where to begin looking (bytes before it were looked at already, less the 3 a separator spans).
    """
    crlf = buffer.find(b"\n\r\n", start)
    bare = buffer.find(b"\n\n", start, crlf if crlf >= 0 else len(buffer))
    if bare >= 0:
        return bare + 2
    return crlf + 3 if crlf >= 0 else -1


def parse_head(data: bytes | bytearray) -> Head:
    """The head ``data`` holds (up to and including its blank line); :class:`BadResponse` if it is not one."""
    if len(data) > MAX_HEAD:
        raise BadResponse(f"response headers longer than {MAX_HEAD} bytes")
    lines = data.decode("latin-1").split("\n")
    status_line = lines[0].removesuffix("\r")
    _check_length(status_line)
    parts = status_line.split(" ", 2)
    version = parts[0][5:]
    if (len(parts) < 2 or not parts[0].startswith("HTTP/") or len(version) != 3 or version[1] != "."
            or not (version[0].isdigit() and version[2].isdigit()) or version[0] != "1"):
        raise BadResponse(f"not an HTTP/1.x status line: {status_line[:80]!r}")
    code = parts[1]
    if len(code) != 3 or not code.isdigit() or not code.isascii():
        raise BadResponse(f"bad status code in {status_line[:80]!r}")
    headers: list[tuple[str, str]] = []
    first: dict[str, str] = {}
    long_lines = len(data) > MAX_LINE  # a shorter head cannot hold a line over the cap: no check per line
    for raw in lines[1:]:
        line = raw.removesuffix("\r")
        if not line:
            break
        if long_lines:
            _check_length(line)
        if line[0] in _OWS:  # obsolete line folding: a continuation of the previous field
            if not headers:
                raise BadResponse(f"a continuation line before any header field: {line[:80]!r}")
            name, value = headers.pop()
            headers.append((name, (value + " " + line.strip(_OWS)).strip(_OWS)))
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or not name.isprintable() or " " in name or "\t" in name:
            raise BadResponse(f"bad header line: {line[:80]!r}")
        headers.append((name, value.strip(_OWS)))
    for name, value in headers:
        lowered = name.lower()
        known = first.setdefault(lowered, value)
        if known != value and lowered == "content-length":
            raise BadResponse(f"two different Content-Length values: {known[:20]!r}, {value[:20]!r}")
    reason = parts[2].strip() if len(parts) == 3 else ""
    return Head(version, int(code), reason, headers, first)


def _check_length(line: str) -> None:
    if len(line) > MAX_LINE:
        raise BadResponse(f"a response header line longer than {MAX_LINE} bytes")
