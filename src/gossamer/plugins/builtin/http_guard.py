"""The SSRF guard of plugin ``protocol-http``: check every address after DNS, connect only to it.

:class:`GuardedResolver` is the aiohttp session's resolver: it resolves a host name as
aiohttp would and drops every address the :class:`AddressPolicy` refuses; when none is
left it raises :class:`AddressRefused`.  aiohttp connects only to the addresses its
resolver returned, so what was checked is what is connected to (no DNS rebinding between
the check and the connection).  Host names that are IP literals never reach a resolver, so
:meth:`HttpGuard.refusal_for` checks them before a request; with a proxy, the proxy is
the operator's choice and is not checked, while the target is resolved and checked here
before the request (the proxy resolves it again: that window is the proxy's to close).

Every request of the plugin, pages, redirect hops (each one is a new ``fetch``) and
robots.txt with its redirects, passes through :meth:`HttpGuard.refusal_for` and the
resolver.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from urllib.parse import urlsplit

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from gossamer.core import AddressPolicy
from gossamer.plugins.builtin.address_refusal import REFUSED_PREFIX, AddressRefused, ip_literal, refused_reason
from gossamer.plugins.builtin.http_dns_cache import CachingResolver

__all__ = ["REFUSED_PREFIX", "AddressRefused", "GuardedResolver", "HttpGuard", "ip_literal", "refused_reason"]

LITERAL_CACHE = 10_000
"""Host names whose IP-literal check :meth:`HttpGuard.refusal_for` keeps (all forgotten when full)."""
_UNKNOWN: object = object()


class GuardedResolver(AbstractResolver):
    """aiohttp's default resolver with the policy applied to every answer (module docstring)."""

    def __init__(self, policy: AddressPolicy, exempt_hosts: frozenset[str] = frozenset(),
                 inner: Callable[[], AbstractResolver] = DefaultResolver) -> None:
        """``inner`` makes the resolver that answers (aiohttp's default; one per event loop)."""
        self.policy, self.exempt_hosts, self.make_inner = policy, exempt_hosts, inner
        self._inner: AbstractResolver | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.first_address: dict[str, str] = {}
        """Host → the first allowed address of its last answer: the one aiohttp tries first."""

    def _resolver(self) -> AbstractResolver:
        """Aiohttp's resolver for the running loop (a threaded one is bound to the loop it was made in)."""
        loop = asyncio.get_running_loop()
        if self._inner is None or self._loop is not loop:
            self._inner, self._loop = self.make_inner(), loop
        return self._inner

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        """The allowed addresses of ``host``; AddressRefused when there are none."""
        answers = await self._resolver().resolve(host, port, family)
        if host.lower().rstrip(".") in self.exempt_hosts:
            allowed = answers
        else:
            allowed = [a for a in answers if self.policy.refusal(a["host"]) is None]
        if not allowed:
            reason = self.policy.refusal(answers[0]["host"]) if answers else "no address"
            raise AddressRefused(host, reason or "no address")
        self.first_address[host] = allowed[0]["host"]
        return allowed

    async def close(self) -> None:
        """Release the inner resolver."""
        if self._inner is not None:
            await self._inner.close()
            self._inner = None


class HttpGuard:
    """The guard of one HttpProtocol: its policy, its resolver and the checks before a request.

    The resolver asks aiohttp's default resolver through a per-process cache that keeps each
    answer ``dns_ttl`` seconds (:mod:`~gossamer.plugins.builtin.http_dns_cache`); the policy is
    applied to every answer, cached or not.
    """

    def __init__(self, policy: AddressPolicy, proxy_host: str | None = None, dns_ttl: float = 300.0) -> None:
        self.policy, self.proxy_host, self.dns_ttl = policy, proxy_host, dns_ttl
        exempt = frozenset({proxy_host.lower()}) if proxy_host else frozenset()
        self.resolver = GuardedResolver(policy, exempt, inner=lambda: CachingResolver(DefaultResolver(), dns_ttl))
        self._literals: dict[str, tuple[str | None] | None] = {}
        """Host → None (a name) or the policy's verdict on the address it spells (1-tuple); per request it
        saved parsing the host as an address again (~10 µs with the exceptions of ``ipaddress``)."""

    async def refusal_for(self, url: str) -> str | None:
        """Why a request for ``url`` may not be made (IP-literal host, or any host behind a proxy)."""
        try:
            parts = urlsplit(url)
            host, port = parts.hostname or "", parts.port
        except ValueError as exc:
            return f"bad URL: {exc}"
        known = self._literals.get(host, _UNKNOWN)
        if known is _UNKNOWN:
            literal = ip_literal(host)
            known = None if literal is None else (self.policy.refusal(literal),)
            if len(self._literals) >= LITERAL_CACHE:
                self._literals.clear()
            self._literals[host] = known
        if known is not None:
            return known[0]
        if self.proxy_host:
            default_port = 443 if parts.scheme == "https" else 80
            try:
                await self.resolver.resolve(host, port or default_port, socket.AF_UNSPEC)
            except AddressRefused as exc:
                return exc.reason
            except OSError:
                return None  # the proxy will say what is wrong with the name
        return None
