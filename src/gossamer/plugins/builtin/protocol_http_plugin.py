"""Registration of plugin ``protocol-http`` without importing aiohttp (:mod:`.protocol_http` has the plugin).

Plugin discovery loads every entry point; a process that only injects, generates or
updates never fetches, and importing aiohttp (with the SSL contexts it makes at import)
cost ~0.3 s of CPU in each such process.  The plugin's module is imported when the plugin is
built.
"""

from __future__ import annotations

from typing import Any

from gossamer.core import Settings
from gossamer.plugins.registry import PluginInfo


def _build(settings: Settings) -> Any:
    from gossamer.plugins.builtin.protocol_http import HttpProtocol

    return HttpProtocol(settings)


PLUGIN = PluginInfo(
    id="protocol-http",
    point="Protocol",
    factory=_build,
    description="HTTP and HTTPS on a lean HTTP/1.1 client (aiohttp through a proxy): Nutch's headers, limits, "
                "conditional GET and status mapping",
    aliases=("org.apache.nutch.protocol.http.Http", "Http"),
)
