"""What plugin discovery found, handed from a process to the processes it starts.

Discovery (:func:`gossamer.plugins.registry.discover`) imports the module of every entry
point of the group, because only the loaded :class:`PluginInfo` says which extension point
a plugin serves.  That is about a third of a second of CPU (the index and search packages,
aiohttp …) in every process, and a crawl starts several fetch and map processes that use
only a few plugins.  So a process that has discovered publishes a *manifest* in its
environment (:data:`ENV_MANIFEST`, inherited by every child it starts afterwards): its pid, for each
entry point of the group its name, value and distribution, and for each plugin it yielded the
id, point, description and aliases, plus the load errors.

A process that inherits a manifest compares the entry points it sees itself with the
manifest's (reading the list costs a few milliseconds, importing nothing).  When they are the
same, it takes the plugins from the manifest, each with an :class:`EntryPointFactory` that
imports the plugin's module on first use only; otherwise (another environment, a package
installed in between) it discovers as usual.  Third-party plugins work exactly like built-ins
either way: both are entry points.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from typing import Any, NamedTuple

from gossamer.core import Settings

ENV_MANIFEST = "GOSSAMER__PLUGINS"
"""Environment variable holding the manifest (``GOSSAMER__`` names are never read as settings)."""

Listing = list[tuple[str, str, str]]
"""``(entry point name, value, distribution)`` of every entry point of the group, sorted."""


class PluginSpec(NamedTuple):
    """What the registry needs to know of a plugin before building it (a PluginInfo's fields)."""

    id: str
    point: str
    description: str
    aliases: tuple[str, ...]
    source: str
    factory: EntryPointFactory


def listing(entry_points: list[EntryPoint]) -> Listing:
    """The entry points as the manifest compares them."""
    return sorted((ep.name, ep.value, distribution_name(ep)) for ep in entry_points)


_DIST_NAMES: dict[str, str] = {}


def distribution_name(ep: EntryPoint) -> str:
    """The name of the distribution that publishes ``ep`` (``"?"`` when unknown).

    ``Distribution.name`` parses the distribution's whole METADATA file each time it is
    asked (about 0.2 ms); a discovery asks it for every entry point, all but a few of the
    same distribution.  So names are remembered per distribution directory (its
    ``.dist-info`` path, whose name carries the distribution and version) for this process.
    """
    dist = ep.dist
    if dist is None:
        return "?"
    where = getattr(dist, "_path", None)  # PathDistribution's directory; other kinds are asked each time
    if where is None:
        return dist.name
    key = str(where)
    name = _DIST_NAMES.get(key)
    if name is None:
        name = _DIST_NAMES[key] = dist.name
    return name


@dataclass(frozen=True)
class EntryPointFactory:
    """A plugin factory that imports the plugin's entry point when first called.

    ``value`` is the entry point's ``module:attribute``; the attribute is a
    :class:`PluginInfo` or a list of them, of which the one with id ``plugin_id`` builds the
    plugin.  Picklable (two strings), so it travels to the parse worker without importing.
    """

    group: str
    value: str
    plugin_id: str

    def info(self) -> Any:
        """The loaded PluginInfo; ``LookupError`` when the entry point no longer yields it."""
        loaded = EntryPoint(name=self.plugin_id, value=self.value, group=self.group).load()
        for item in loaded if isinstance(loaded, (list, tuple)) else [loaded]:
            if getattr(item, "id", None) == self.plugin_id:
                return item
        raise LookupError(f"entry point {self.value} yields no plugin {self.plugin_id!r}")

    def __call__(self, settings: Settings) -> Any:
        """Build the plugin (its module is imported now, once per process)."""
        return self.info().factory(settings)


def publish(seen: Listing, found: list[tuple[Any, str, str]], errors: list[str]) -> None:
    """Put the manifest of a discovery in this process's environment.

    ``found``: ``(plugin, distribution, entry point value)`` of every plugin discovered.
    """
    plugins = [[info.id, info.point, info.description, list(info.aliases), dist, value]
               for info, dist, value in found]
    os.environ[ENV_MANIFEST] = json.dumps({"pid": os.getpid(), "entry_points": seen, "plugins": plugins,
                                           "errors": errors})


def inherited(seen: Listing, group: str) -> tuple[list[PluginSpec], list[str]] | None:
    """The plugins and load errors of the inherited manifest, or ``None`` when there is none or it does not fit.

    A manifest this process published itself is not used: the process that discovers keeps
    the loaded plugins' own objects (factories that cannot be pickled included).
    """
    text = os.environ.get(ENV_MANIFEST)
    if not text:
        return None
    try:
        manifest = json.loads(text)
        if manifest["pid"] == os.getpid() or [tuple(row) for row in manifest["entry_points"]] != seen:
            return None
        plugins = [PluginSpec(str(plugin_id), str(point), str(description), tuple(aliases), str(dist),
                              EntryPointFactory(group, str(value), str(plugin_id)))
                   for plugin_id, point, description, aliases, dist, value in manifest["plugins"]]
        return plugins, [str(error) for error in manifest["errors"]]
    except (ValueError, KeyError, TypeError):  # not ours, or from another version: discover
        return None
