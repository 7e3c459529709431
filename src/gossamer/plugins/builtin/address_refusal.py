"""Refused addresses, shared by the network protocols' guards; no aiohttp here (see :mod:`.http_guard`).

:mod:`.protocol_ftp` uses these without the HTTP guard's aiohttp resolver, so that importing
it (every plugin discovery does) does not import aiohttp.
"""

from __future__ import annotations

import ipaddress
import socket

REFUSED_PREFIX = "address refused: "
"""How every refusal message starts (ProtocolStatus args, robots.txt errors)."""


class AddressRefused(OSError):
    """No address of a host may be connected to; ``reason`` says why (one line)."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"{host}: {reason}")
        self.host, self.reason = host, reason


def ip_literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a host name spells, legacy IPv4 forms included (``2130706433``, ``127.1``, ``0x7f.1``)."""
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    if host and all(c in "0123456789abcdefxABCDEFX." for c in host) and host[0].isdigit():
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def refused_reason(exc: BaseException) -> str | None:
    """The guard's reason if ``exc`` (or what caused it) is an :class:`AddressRefused`."""
    seen: BaseException | None = exc
    for _ in range(8):  # a cause chain is short; never loop on a cyclic one
        if seen is None:
            return None
        if isinstance(seen, AddressRefused):
            return f"{seen.host}: {seen.reason}"
        seen = seen.__cause__ or getattr(seen, "os_error", None)
    return None
