"""Choosing the Protocol plugin by URL scheme, as Nutch's ProtocolFactory does.

:class:`ProtocolSelector` is itself a :class:`~gossamer.plugins.api.Protocol`: it holds
one instance of every active Protocol plugin and hands each URL to the first plugin (in
chain order) that lists the URL's scheme in ``schemes``.  A URL whose scheme no active
plugin serves is not an error of the run: it gets the status ``proto_not_found``
(Nutch's ProtocolNotFound), counted like any other outcome.  Adding ``file:`` or ``ftp:``
support is adding a plugin; the fetcher does not change.
"""

from __future__ import annotations

from gossamer.core import CrawlDatum, ProtocolStatus, ProtocolStatusCode
from gossamer.plugins.api import Protocol, ProtocolOutput, RobotsRequest, RobotsResponse
from gossamer.plugins.registry import PluginRepository


class ProtocolSelector(Protocol):
    """Every active Protocol plugin of ``repository``, dispatched by scheme; closes them all."""

    def __init__(self, repository: PluginRepository) -> None:
        self.plugins: list[Protocol] = repository.chain(Protocol)
        self.by_scheme: dict[str, Protocol] = {}
        for plugin in self.plugins:
            for scheme in plugin.schemes:
                self.by_scheme.setdefault(scheme.lower(), plugin)
        self.schemes = tuple(self.by_scheme)

    def protocol_for(self, url: str) -> Protocol | None:
        """The plugin serving ``url``'s scheme, or ``None``."""
        return self.by_scheme.get(url.partition(":")[0].lower())

    async def fetch(self, url: str, datum: CrawlDatum) -> ProtocolOutput:
        """Fetch with the plugin of ``url``'s scheme; ``proto_not_found`` when there is none."""
        plugin = self.protocol_for(url)
        if plugin is None:
            scheme = url.partition(":")[0]
            return ProtocolOutput(ProtocolStatus(ProtocolStatusCode.PROTO_NOT_FOUND,
                                                 (f"no protocol plugin for scheme {scheme!r}",)))
        return await plugin.fetch(url, datum)

    async def fetch_robots(self, robots_url: str, request: RobotsRequest) -> RobotsResponse | None:
        """robots.txt through the plugin of its scheme; ``None`` (everything allowed) when none serves it."""
        plugin = self.protocol_for(robots_url)
        return None if plugin is None else await plugin.fetch_robots(robots_url, request)

    async def close(self) -> None:
        """Close every plugin."""
        for plugin in self.plugins:
            await plugin.close()
