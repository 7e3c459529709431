"""The blocking half of ``protocol-ftp``: one logged-in FTP control connection on :mod:`ftplib`.

:class:`FtpSession` is used by one thread at a time (the plugin's per-host lock sees to it).
Paths are URL paths, taken relative to the login directory as RFC 1738 says (for anonymous
FTP that is the server's root).  Every method raises :mod:`ftplib`'s errors, ``EOFError`` or
``OSError`` for trouble; :func:`status_for_error` turns any of them into a protocol status.

* :meth:`FtpSession.retrieve` reads a file (``TYPE I``, ``RETR``) up to a limit; a data
  connection that ends before the file's ``SIZE`` or without the server's ``226`` raises
  :class:`TransferBroken` (the connection was dropped mid-file).  A limit cut leaves the
  session unusable for more commands (``usable`` false): the plugin then closes it.
* :meth:`FtpSession.listing` lists a directory (``MLSD``, or ``LIST`` where the server has no
  ``MLSD``, parsing Unix and DOS listing lines) as :class:`~.protocol_pages.Entry` items.
* Data connections go to the control connection's peer only: the address a ``PASV`` reply
  names is ignored (ftplib's default), so a server cannot point the crawler elsewhere.
"""

from __future__ import annotations

import ftplib
import logging
import posixpath
import re
from calendar import timegm
from time import monotonic, strptime

from gossamer.core import ProtocolStatus, ProtocolStatusCode
from gossamer.plugins.builtin.protocol_pages import Entry, failure, read_limited

LOG = logging.getLogger("gossamer.ftp")
NOT_SUPPORTED = ("500", "501", "502", "504")
"""Replies meaning "this command is not implemented here"."""
_UNIX = re.compile(r"^([-dl])\S{9}\S*\s+\d+\s+\S+\s+\S+\s+(\d+)\s+\w{3}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})\s+(.+)$")
_DOS = re.compile(r"^\d{2}-\d{2}-\d{2,4}\s+\d{1,2}:\d{2}(?:[AP]M)?\s+(<DIR>|\d+)\s+(.+)$", re.IGNORECASE)


class TransferBroken(Exception):
    """The data connection ended before the whole file arrived."""


class FtpSession:
    """One logged-in control connection (see the module docstring)."""

    def __init__(self, address: str, port: int, user: str, password: str, timeout: float,
                 passive: bool = True, talk: bool = False) -> None:
        """Connect to ``address`` (an IP address the caller has checked) and log in."""
        self.address, self.talk = address, talk
        self.ftp = ftplib.FTP(timeout=timeout)
        self.ftp.connect(address, port)
        self._say(f"connected to {address}:{port}: {self.ftp.welcome}")
        self.ftp.login(user, password)
        self.ftp.set_pasv(passive)
        self.ftp.voidcmd("TYPE I")
        self.home = self.ftp.pwd() or "/"
        self.usable = True
        self.last_used = monotonic()

    def _say(self, line: str) -> None:
        if self.talk:
            LOG.info("ftp %s: %s", self.address, line)

    def full_path(self, path: str) -> str:
        """``path`` (a URL path) below the login directory."""
        return posixpath.join(self.home, path.lstrip("/")) or "/"

    def retrieve(self, path: str, limit: int, deadline: float | None = None) -> tuple[bytes, str]:
        """The file's bytes (at most ``limit``, <0 no limit; until ``deadline``) and why they were cut.

        The reason is ``""`` (whole file), ``length`` or ``time`` (see :func:`.read_limited`).
        """
        full = self.full_path(path)
        self.ftp.voidcmd("TYPE I")  # a listing (retrlines) leaves the session in ASCII mode
        size = self._size(full)
        self._say(f"RETR {full} (size {size})")
        with self.ftp.transfercmd(f"RETR {full}") as data, data.makefile("rb") as stream:
            body, cut = read_limited(stream, limit, deadline)
        if cut:
            self.usable = False  # the server still sends (or has aborted) the rest: start afresh
            return body, cut
        try:
            reply = self.ftp.voidresp()
        except (ftplib.error_temp, ftplib.error_perm, EOFError, OSError) as exc:
            raise TransferBroken(f"{len(body)} bytes, then: {str(exc).strip() or type(exc).__name__}") from exc
        self._say(reply)
        if size is not None and len(body) < size:
            raise TransferBroken(f"{len(body)} of {size} bytes")
        return body, ""

    def _size(self, full: str) -> int | None:
        try:
            return self.ftp.size(full)
        except (ftplib.error_perm, ftplib.error_temp, ValueError):
            return None

    def modified(self, path: str) -> int:
        """The file's modification time (``MDTM``, epoch ms), 0 when the server does not say."""
        try:
            reply = self.ftp.sendcmd(f"MDTM {self.full_path(path)}")
            stamp = reply.split()[1][:14]
            return timegm(strptime(stamp, "%Y%m%d%H%M%S")) * 1000
        except (ftplib.error_perm, ftplib.error_temp, ftplib.error_reply, IndexError, ValueError):
            return 0

    def is_directory(self, path: str) -> bool:
        """Whether ``path`` is a directory (``CWD`` succeeds; the working directory goes back home)."""
        try:
            self.ftp.cwd(self.full_path(path))
        except ftplib.error_perm:
            return False
        self.ftp.cwd(self.home)
        return True

    def listing(self, path: str) -> list[Entry]:
        """The entries of directory ``path`` (``MLSD``, else ``LIST``)."""
        full = self.full_path(path)
        self.ftp.cwd(full)  # a clear 550 for a missing directory, whatever the listing command
        try:
            try:
                return [_mlsd_entry(name, facts) for name, facts in self.ftp.mlsd("", ["type", "size", "modify"])
                        if facts.get("type", "file").lower() not in ("cdir", "pdir")]
            except ftplib.error_perm as exc:
                if not str(exc).startswith(NOT_SUPPORTED):
                    raise
            lines: list[str] = []
            self.ftp.retrlines("LIST", lines.append)
            return [entry for entry in map(parse_list_line, lines) if entry is not None]
        finally:
            self.ftp.cwd(self.home)

    def close(self) -> None:
        """Say goodbye (``QUIT``) and close; never raises."""
        try:
            self.ftp.quit()
        except (ftplib.Error, EOFError, OSError):
            self.ftp.close()


def _mlsd_entry(name: str, facts: dict[str, str]) -> Entry:
    is_dir = facts.get("type", "file").lower() == "dir"
    size = int(facts["size"]) if facts.get("size", "").isdigit() else -1
    modified = 0
    try:
        modified = timegm(strptime(facts.get("modify", "")[:14], "%Y%m%d%H%M%S")) * 1000
    except ValueError:
        pass
    return Entry(name, is_dir, size, modified)


def parse_list_line(line: str) -> Entry | None:
    """One ``LIST`` line (Unix ``ls -l`` or DOS style) as an entry; ``None`` for lines that are not one."""
    match = _UNIX.match(line)
    if match:
        kind, size, name = match.groups()
        if kind == "l":
            name = name.split(" -> ", 1)[0]  # a symlink: fetched by name, the server resolves it
        return Entry(name, kind == "d", int(size))
    match = _DOS.match(line)
    if match:
        size, name = match.groups()
        return Entry(name, size.upper() == "<DIR>", -1 if size.upper() == "<DIR>" else int(size))
    return None


def status_for_error(exc: BaseException) -> ProtocolStatus:
    """Any FTP failure as a protocol status.

    550/553 NOTFOUND, 530/532 ACCESS_DENIED, other 5xx GONE; 4xx, broken transfers, timeouts
    and network errors EXCEPTION (retried later).
    """
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, ftplib.error_perm):
        if text.startswith(("550", "553")):
            return failure(ProtocolStatusCode.NOTFOUND, f"ftp {text}")
        if text.startswith(("530", "532")):
            return failure(ProtocolStatusCode.ACCESS_DENIED, f"ftp {text}")
        return failure(ProtocolStatusCode.GONE, f"ftp {text}")
    if isinstance(exc, TransferBroken):
        return failure(ProtocolStatusCode.EXCEPTION, f"connection dropped mid-file: {text}")
    if isinstance(exc, TimeoutError):
        return failure(ProtocolStatusCode.EXCEPTION, f"TimeoutError: {text} (ftp.timeout)")
    return failure(ProtocolStatusCode.EXCEPTION, f"{type(exc).__name__}: {text}")
