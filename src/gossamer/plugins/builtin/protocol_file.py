"""Plugin ``protocol-file``: ``file:`` URLs read from the local filesystem, as Nutch's protocol-file.

Contract of :meth:`FileProtocol.fetch` (it never raises; the blocking calls run in a thread):

* The URL names a local path: ``file:/p``, ``file:///p`` or ``file://localhost/p``, percent-
  decoded to the filesystem's bytes.  Any other host: NOTFOUND (``file:`` URLs are local).
* A regular file: SUCCESS with at most ``file.content.limit`` bytes (<0: no limit; a longer
  file is cut and flagged ``http.content.truncated`` with reason ``length``), its type from
  the name's extension (stdlib :mod:`mimetypes`; ``application/octet-stream`` when unknown —
  the parse step detects the real type) and ``Last-Modified`` from its mtime.
* A directory: SUCCESS with an HTML link page of its entries (:func:`.protocol_pages.listing_page`),
  plus a ``../`` link when ``file.crawl.parent`` is true and it is not ``/``.  A directory URL
  without a trailing ``/`` is MOVED to the one with it, so relative links resolve.
* Symlinks: with ``file.crawl.redirect_noncanonical`` (the default) a path that is not its own
  canonical form (a symlink anywhere in it, ``..``) is MOVED to the canonical ``file:`` URL,
  so a page is crawled once under its real name and symlink loops end; with it false the
  link is followed and the content served under the URL asked for.
* Not modified since the datum's modified time: NOTMODIFIED (Nutch's rule ``mtime <= modified``).
* Missing (or a path through a non-directory): NOTFOUND.  Permission denied: ACCESS_DENIED.
  A FIFO, socket or device is never opened (a FIFO would block, a device never ends):
  ACCESS_DENIED ``not a regular file``.  A symlink loop or too long a name: GONE.  Any other
  I/O error: EXCEPTION (retried later).

The plugin is off by default (``plugin.includes``), and the default ``regex-urlfilter.txt``
rejects ``file:`` URLs, as Nutch's does: a crawl reads local files only when the user both
activates the plugin and lets ``file:`` URLs through their URL filters.  No robots.txt applies.
"""

from __future__ import annotations

import asyncio
import errno
import mimetypes
import os
import stat
import time
from urllib.parse import quote, unquote_to_bytes, urlsplit

from gossamer.core import CrawlDatum, ProtocolStatus, ProtocolStatusCode, Settings
from gossamer.plugins.api import Protocol, ProtocolOutput
from gossamer.plugins.builtin.protocol_pages import (
    LISTING_TYPE,
    Entry,
    failure,
    listing_page,
    local_output,
    read_limited,
)
from gossamer.plugins.registry import PluginInfo

GENERIC_TYPE = "application/octet-stream"


def local_path(url: str) -> tuple[str, str]:
    """``(path, "")`` for a local ``file:`` URL, ``("", reason)`` for one that names no local path."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return "", f"malformed file: URL: {exc}"
    if parts.scheme.lower() != "file":
        return "", f"not a file: URL: {url}"
    if parts.netloc.lower() not in ("", "localhost"):
        return "", f"file: URLs name local files only, not host {parts.netloc!r}"
    path = os.fsdecode(unquote_to_bytes(parts.path or "/"))
    if not path.startswith("/"):
        path = "/" + path
    return path, ""


def file_url(path: str) -> str:
    """The canonical ``file:/…`` URL of an absolute path (percent-encoded as the normalizers write it)."""
    return "file:" + quote(os.fsencode(path), safe="/-._~!$&'()*+,;=:@")


def _status_for(exc: OSError) -> ProtocolStatus:
    """An OSError of stat/open/scandir as a protocol status (module docstring)."""
    what = f"{type(exc).__name__}: {exc.strerror or exc}"
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return failure(ProtocolStatusCode.NOTFOUND, what)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return failure(ProtocolStatusCode.ACCESS_DENIED, what)
    if exc.errno in (errno.ELOOP, errno.ENAMETOOLONG):
        return failure(ProtocolStatusCode.GONE, what)
    return failure(ProtocolStatusCode.EXCEPTION, what)


class FileProtocol(Protocol):
    """``file:`` URLs (see the module docstring for the contract)."""

    schemes = ("file",)

    def __init__(self, settings: Settings) -> None:
        self.limit = settings.get_int("file.content.limit")
        self.crawl_parent = settings.get_bool("file.crawl.parent")
        self.canonical = settings.get_bool("file.crawl.redirect_noncanonical")

    async def fetch(self, url: str, datum: CrawlDatum) -> ProtocolOutput:
        """Read the file or list the directory ``url`` names; never raises."""
        return await asyncio.to_thread(self.fetch_now, url, datum.modified_time)

    def fetch_now(self, url: str, modified_since: int = 0) -> ProtocolOutput:
        """The blocking body of :meth:`fetch` (``modified_since``: the datum's modified time, ms)."""
        started = time.monotonic()
        path, problem = local_path(url)
        if problem:
            return local_output(url, failure(ProtocolStatusCode.NOTFOUND, problem), started=started)
        try:
            info = os.stat(path)
        except OSError as exc:
            return local_output(url, _status_for(exc), started=started)
        is_dir = stat.S_ISDIR(info.st_mode)
        wanted = path
        if self.canonical:
            wanted = os.path.realpath(path)
        if is_dir and not wanted.endswith("/"):
            wanted += "/"
        if wanted != path:
            return local_output(url, failure(ProtocolStatusCode.MOVED, file_url(wanted)), started=started)
        if not is_dir and not stat.S_ISREG(info.st_mode):
            return local_output(url, failure(ProtocolStatusCode.ACCESS_DENIED,
                                             f"not a regular file: {path} (never read)"), started=started)
        mtime = int(info.st_mtime * 1000)
        if 0 < modified_since and mtime <= modified_since:
            return local_output(url, ProtocolStatus(ProtocolStatusCode.NOTMODIFIED, (), mtime), started=started)
        try:
            if is_dir:
                (body, cut), content_type = self._listing(path), LISTING_TYPE
            else:
                with open(path, "rb") as stream:
                    body, cut = read_limited(stream, self.limit)
                content_type = mimetypes.guess_type(path, strict=False)[0] or GENERIC_TYPE
        except OSError as exc:
            return local_output(url, _status_for(exc), started=started)
        status = ProtocolStatus(ProtocolStatusCode.SUCCESS, (), mtime)
        return local_output(url, status, body, content_type, cut, started=started)

    def _listing(self, path: str) -> tuple[bytes, str]:
        entries = []
        with os.scandir(path) as listing:
            for item in listing:
                try:
                    is_dir = item.is_dir()
                    info = item.stat()
                    entries.append(Entry(item.name, is_dir, -1 if is_dir else info.st_size,
                                         int(info.st_mtime * 1000)))
                except OSError:  # a dangling symlink, a file gone meanwhile: listed, without facts
                    entries.append(Entry(item.name, False))
        return listing_page(path, entries, self.crawl_parent and path != "/", self.limit)


PLUGIN = PluginInfo(
    id="protocol-file",
    point="Protocol",
    factory=FileProtocol,
    description="file: URLs from the local filesystem; directories become link pages (off by default; "
                "the default URL filters reject file: too)",
    aliases=("org.apache.nutch.protocol.file.File", "File"),
)
