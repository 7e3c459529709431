"""Plugin ``protocol-ftp``: ``ftp://`` URLs with :mod:`ftplib`, one thread per request, as Nutch's protocol-ftp.

Contract of :meth:`FtpProtocol.fetch` (never raises; the blocking client is
:mod:`.ftp_client`, run with ``asyncio.to_thread``):

* Login with the URL's ``user:password@`` if it has one, else ``ftp.username`` /
  ``ftp.password`` (anonymous by default).  Paths are relative to the login directory.
* A path ending in ``/`` is a directory: SUCCESS with an HTML link page of its entries
  (:func:`.protocol_pages.listing_page`, a ``../`` link unless at the root).  Any other path is
  a file: SUCCESS with at most ``ftp.content.limit`` bytes read within ``ftp.time.limit``
  seconds (a longer file is cut and flagged ``http.content.truncated``, reason ``length`` or
  ``time``), its type guessed from the name, its ``MDTM``
  as ``Last-Modified`` (NOTMODIFIED when not newer than the datum's modified time).  A file
  path that is a directory is MOVED to the path with ``/``.
* 550/553 NOTFOUND (fetch_gone), 530 ACCESS_DENIED, other 5xx GONE; 4xx replies, timeouts
  (``ftp.timeout`` per socket operation), refused or dropped connections and a transfer that
  ends early (the connection dropped mid-file) EXCEPTION, which the crawldb retries later.
* Connections: one control connection per ``(host, port, user)``, used by one request at a
  time (requests to a host wait their turn, whatever ``fetcher.threads.per.queue`` says), kept
  for the next URL of the host when ``ftp.keep.connection`` is true and dropped once idle
  longer than ``ftp.server.timeout``.  ``ftp.passive`` chooses passive (PASV/EPSV) or active
  (PORT) data connections.  A reused connection found dead is replaced once.
* Every connection passes the SSRF address policy of ``protocol-http``
  (``http.filter.ipaddress.include`` / ``…exclude``): the host is resolved here and only an
  allowed address is connected to; a refusal is ACCESS_DENIED ``address refused: …``.

robots.txt is read over FTP too (``/robots.txt`` of the host), as Nutch's FtpRobotRulesParser does.
"""

from __future__ import annotations

import asyncio
import ftplib
import mimetypes
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import unquote, urlsplit

from gossamer.core import AddressPolicy, CrawlDatum, ProtocolStatus, ProtocolStatusCode, Settings
from gossamer.plugins.api import Protocol, ProtocolOutput, RobotsRequest, RobotsResponse
from gossamer.plugins.builtin.address_refusal import REFUSED_PREFIX, AddressRefused, ip_literal
from gossamer.plugins.builtin.ftp_client import FtpSession, status_for_error
from gossamer.plugins.builtin.protocol_pages import (
    HTTP_CODES,
    LISTING_TYPE,
    failure,
    listing_page,
    local_output,
)
from gossamer.plugins.registry import PluginInfo

T = TypeVar("T")
STALE = (EOFError, ConnectionError, ftplib.error_temp)
"""What a reused connection that the server has closed meanwhile fails with."""


@dataclass(frozen=True)
class FtpTarget:
    """Where one ``ftp://`` URL points: server, credentials and the path (percent-decoded)."""

    host: str
    port: int
    user: str
    password: str
    path: str

    @property
    def key(self) -> tuple[str, int, str]:
        """The connection this URL is fetched over."""
        return self.host, self.port, self.user


def ftp_target(url: str, user: str, password: str) -> FtpTarget:
    """The target of ``url``; ``user``/``password`` unless the URL has its own.  ValueError if malformed."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "ftp" or not parts.hostname:
        raise ValueError(f"not an ftp:// URL with a host: {url}")
    if parts.username:
        user, password = unquote(parts.username), unquote(parts.password or "")
    path = unquote(parts.path, errors="surrogateescape") or "/"
    return FtpTarget(parts.hostname.lower(), parts.port or 21, user, password, path)


class FtpProtocol(Protocol):
    """``ftp://`` URLs (see the module docstring for the contract)."""

    schemes = ("ftp",)

    def __init__(self, settings: Settings) -> None:
        self.user = settings.get_str("ftp.username")
        self.password = settings.get_str("ftp.password")
        self.limit = settings.get_int("ftp.content.limit")
        self.timeout = settings.get_int("ftp.timeout") / 1000.0
        self.time_limit = settings.get_int("ftp.time.limit")
        self.server_timeout = settings.get_int("ftp.server.timeout") / 1000.0
        self.keep = settings.get_bool("ftp.keep.connection")
        self.passive = settings.get_bool("ftp.passive")
        self.talk = settings.get_bool("ftp.follow.talk")
        self.policy = AddressPolicy.from_settings(settings)
        self.idle: dict[tuple[str, int, str], FtpSession] = {}
        self.locks: dict[tuple[str, int, str], asyncio.Lock] = {}
        self.connections = 0
        """Control connections opened so far (a measure of reuse)."""

    async def fetch(self, url: str, datum: CrawlDatum) -> ProtocolOutput:
        """Fetch ``url``: a directory listing or a file; never raises."""
        started = time.monotonic()
        try:
            target = ftp_target(url, self.user, self.password)
        except ValueError as exc:
            return local_output(url, failure(ProtocolStatusCode.GONE, f"malformed URL: {exc}"), started=started)
        try:
            return await self._run(target, lambda s: self._page(s, target, url, datum.modified_time, started))
        except AddressRefused as exc:
            status = failure(ProtocolStatusCode.ACCESS_DENIED, f"{REFUSED_PREFIX}{exc.host}: {exc.reason}")
        except Exception as exc:  # noqa: BLE001 - every failure (ftplib, socket, broken transfer) is a status
            status = status_for_error(exc)
        return local_output(url, status, started=started)

    async def fetch_robots(self, robots_url: str, request: RobotsRequest) -> RobotsResponse:
        """The host's ``/robots.txt`` over FTP: 200 with its bytes, 404 when missing, an error otherwise."""
        try:
            target = ftp_target(robots_url, self.user, self.password)
            body, _ = await self._run(target, lambda s: s.retrieve(target.path, request.max_bytes))
        except AddressRefused as exc:
            return RobotsResponse(None, error=f"{REFUSED_PREFIX}{exc.host}: {exc.reason}")
        except Exception as exc:  # noqa: BLE001 - every failure is an answer
            status = status_for_error(exc)
            if status.code == ProtocolStatusCode.EXCEPTION:
                return RobotsResponse(None, error=status.args[0])
            return RobotsResponse(HTTP_CODES[status.code][0])
        return RobotsResponse(200, body, "text/plain")

    async def close(self) -> None:
        """Close every kept connection."""
        sessions, self.idle = list(self.idle.values()), {}
        for session in sessions:
            await asyncio.to_thread(session.close)

    # --- connections ---------------------------------------------------------------------------

    async def _run(self, target: FtpTarget, operation: Callable[[FtpSession], T]) -> T:
        """Run ``operation`` on the host's connection, one request per host at a time."""
        lock = self.locks.setdefault(target.key, asyncio.Lock())
        async with lock:
            return await asyncio.to_thread(self._run_now, target, operation)

    def _run_now(self, target: FtpTarget, operation: Callable[[FtpSession], T]) -> T:
        session = self.idle.pop(target.key, None)
        if session is not None and not (session.usable and time.monotonic() - session.last_used < self.server_timeout):
            session.close()
            session = None
        if session is not None:
            try:
                return self._use(target, session, operation)
            except STALE:
                pass  # closed by the server while idle: once more on a new connection
        return self._use(target, self._connect(target), operation)

    def _use(self, target: FtpTarget, session: FtpSession, operation: Callable[[FtpSession], T]) -> T:
        """``operation`` on ``session``; the session is kept after success or a 5xx reply, else closed."""
        try:
            result = operation(session)
        except ftplib.error_perm:
            self._finish(target, session, None)
            raise
        except BaseException:
            session.close()
            raise
        return self._finish(target, session, result)

    def _finish(self, target: FtpTarget, session: FtpSession, result: T) -> T:
        """Keep ``session`` for the host (``ftp.keep.connection``) or close it; returns ``result``."""
        if self.keep and session.usable:
            session.last_used = time.monotonic()
            self.idle[target.key] = session
        else:
            session.close()
        return result

    def _connect(self, target: FtpTarget) -> FtpSession:
        literal = ip_literal(target.host)
        if literal is not None:
            candidates = [str(literal)]
        else:
            infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
            candidates = [str(info[4][0]) for info in infos]
        allowed = [a for a in candidates if self.policy.refusal(a) is None]
        if not allowed:
            reason = self.policy.refusal(candidates[0]) if candidates else "no address"
            raise AddressRefused(target.host, reason or "no address")
        self.connections += 1
        return FtpSession(allowed[0], target.port, target.user, target.password, self.timeout,
                          self.passive, self.talk)

    # --- one page ------------------------------------------------------------------------------

    def _page(self, session: FtpSession, target: FtpTarget, url: str, modified_since: int,
              started: float) -> ProtocolOutput:
        path = target.path
        if path.endswith("/"):
            body, cut = listing_page(path, session.listing(path), path != "/", self.limit)
            return local_output(url, ProtocolStatus(ProtocolStatusCode.SUCCESS), body, LISTING_TYPE, cut,
                                session.address, started)
        modified = session.modified(path)
        if 0 < modified_since and 0 < modified <= modified_since:
            return local_output(url, ProtocolStatus(ProtocolStatusCode.NOTMODIFIED, (), modified),
                                ip=session.address, started=started)
        deadline = started + self.time_limit if self.time_limit > 0 else None
        try:
            body, cut = session.retrieve(path, self.limit, deadline)
        except ftplib.error_perm as exc:
            if str(exc).startswith("550") and session.is_directory(path):
                moved = urlsplit(url)._replace(path=urlsplit(url).path + "/").geturl()
                return local_output(url, failure(ProtocolStatusCode.MOVED, moved), ip=session.address,
                                    started=started)
            raise
        content_type = mimetypes.guess_type(path, strict=False)[0] or "application/octet-stream"
        return local_output(url, ProtocolStatus(ProtocolStatusCode.SUCCESS, (), modified), body, content_type,
                            cut, session.address, started)


PLUGIN = PluginInfo(
    id="protocol-ftp",
    point="Protocol",
    factory=FtpProtocol,
    description="ftp:// URLs on ftplib: directory listings become link pages, files are fetched; one "
                "connection per host (off by default; the default URL filters reject ftp: too)",
    aliases=("org.apache.nutch.protocol.ftp.Ftp", "Ftp"),
)
