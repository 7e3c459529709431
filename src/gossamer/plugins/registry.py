"""Plugin discovery, activation (``plugin.includes``) and ordered chains.

Every plugin — built-in or third-party — is a :class:`PluginInfo` published
through the entry-point group ``gossamer.plugins``::

    [project.entry-points."gossamer.plugins"]
    urlfilter-mine = "my_package.my_module:PLUGIN"

Activation follows Nutch: a plugin of a chain extension point is active when its
id matches ``plugin.includes`` (a Java-style regex matched against the whole id)
and does not match ``plugin.excludes``.  Single-choice points are selected by a
property naming a plugin id or Nutch class name (``db.fetch.schedule.class``,
``db.signature.class``).  Chains run in the order of their ``*.order`` property
(ids or Nutch class names, space or comma separated); active plugins not named
there follow in id order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, TypeVar

from gossamer.core import Settings
from gossamer.plugins import manifest
from gossamer.plugins.api import EXTENSION_POINTS, PluginNotConfigured
from gossamer.plugins.support.regexrules import regex_alternatives

ENTRY_POINT_GROUP = "gossamer.plugins"

SELECTED_BY: dict[str, str] = {
    "FetchSchedule": "db.fetch.schedule.class",
    "Signature": "db.signature.class",
}
"""Single-choice extension points and the property that names the chosen plugin."""

ORDERED_BY: dict[str, str] = {
    "URLNormalizer": "urlnormalizer.order",
    "URLFilter": "urlfilter.order",
    "ScoringFilter": "scoring.filter.order",
    "IndexingFilter": "indexingfilter.order",
    "HtmlParseFilter": "htmlparsefilter.order",
}
"""Chain extension points whose order a property sets."""

T = TypeVar("T")


@dataclass(frozen=True)
class PluginInfo:
    """A plugin: id (Nutch-style, e.g. ``urlfilter-regex``), extension point, factory.

    ``factory(settings)`` builds the plugin object; it may raise
    :class:`~gossamer.plugins.api.PluginNotConfigured`.  ``aliases`` are other names
    that select or order it (Nutch class names).
    """

    id: str
    point: str
    factory: Callable[[Settings], Any]
    description: str
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.point not in EXTENSION_POINTS:
            raise ValueError(f"plugin {self.id!r}: unknown extension point {self.point!r}")

    def names(self) -> tuple[str, ...]:
        """The id and every alias."""
        return (self.id, *self.aliases)


@dataclass(frozen=True)
class PluginState:
    """A plugin and whether it runs under the current settings (with the reason)."""

    info: PluginInfo
    active: bool
    reason: str
    source: str


_DISCOVERED: dict[str, tuple[manifest.Listing, list[tuple[PluginInfo, str]], list[str],
                             list[tuple[PluginInfo, str, str]] | None]] = {}
"""The last discovery of this process: its entry points, plugins, load errors and what it published.

A driver builds a plugin repository for every job (inject, each round's generate and
updatedb …): each would load every entry point again (~30 ms with the modules imported). The
plugin objects are immutable, so a discovery of the same entry points returns the same ones;
entry points added or removed since (a package installed) make it discover afresh.
"""


def discover() -> tuple[list[tuple[PluginInfo, str]], list[str]]:
    """Load every entry point of the group: ``([(plugin, distribution)], [load errors])``.

    A broken third-party plugin is reported, never fatal.  A process started by one that
    has discovered takes the plugins from its manifest instead when the entry points are the
    same, importing a plugin's module only when the plugin is built
    (:mod:`gossamer.plugins.manifest`); the result is the same list either way.
    """
    entry_point_list = list(entry_points(group=ENTRY_POINT_GROUP))
    seen = manifest.listing(entry_point_list)
    known = _DISCOVERED.get("last")
    if known is not None and known[0] == seen:  # this process discovered these entry points already
        _, plugins, errors, published = known
        if published is not None:
            manifest.publish(seen, published, errors)
        return list(plugins), list(errors)
    plugins, errors, published = _discover(entry_point_list, seen)
    _DISCOVERED["last"] = (seen, plugins, errors, published)
    return list(plugins), list(errors)


def _discover(entry_point_list: list[Any], seen: manifest.Listing) -> tuple[
        list[tuple[PluginInfo, str]], list[str], list[tuple[PluginInfo, str, str]] | None]:
    """:func:`discover`'s work: ``(plugins, errors, what was published or None when inherited)``."""
    inherited = manifest.inherited(seen, ENTRY_POINT_GROUP)
    if inherited is not None:
        specs, load_errors = inherited
        try:
            lazy = [(PluginInfo(spec.id, spec.point, spec.factory, spec.description, spec.aliases), spec.source)
                    for spec in specs]
        except ValueError:  # an extension point this version does not have: discover
            lazy = None
        if lazy is not None:
            return sorted(lazy, key=lambda pair: pair[0].id), load_errors, None
    found: list[tuple[PluginInfo, str, str]] = []
    errors: list[str] = []
    for ep in entry_point_list:
        dist = manifest.distribution_name(ep)
        try:
            loaded = ep.load()
        except Exception as exc:  # noqa: BLE001 - any import error of a plugin is reported
            errors.append(f"plugin {ep.name!r} ({ep.value}) failed to load: {exc}")
            continue
        items = loaded if isinstance(loaded, (list, tuple)) else [loaded]
        for item in items:
            if isinstance(item, PluginInfo):
                found.append((item, dist, ep.value))
            else:
                errors.append(f"plugin {ep.name!r} ({ep.value}) is not a PluginInfo")
    manifest.publish(seen, found, errors)
    plugins = [(info, dist) for info, dist, _ in found]
    plugins.sort(key=lambda pair: pair[0].id)
    return plugins, errors, found


def _names(text: str) -> set[str]:
    return {n for n in re.split(r"[\s,]+", text.strip()) if n}


def unmatched_includes(includes: str, ids: list[str]) -> list[str]:
    """The alternatives of ``plugin.includes`` that match no plugin id (``parse-tika``, ``indexer-solr`` …).

    Nutch configurations name plugins Gossamer does not have; they are harmless, but a
    typo looks the same, so the CLI warns naming them.  An alternative that is not a valid
    regex on its own counts as matching (the whole pattern is checked where it is used).
    """
    unmatched = []
    for part in regex_alternatives(includes):
        try:
            compiled = re.compile(part)
        except re.error:
            continue
        if not any(compiled.fullmatch(plugin_id) for plugin_id in ids):
            unmatched.append(part)
    return unmatched


class PluginRepository:
    """The plugins of one set of settings: which are active, and their instances.

    Instances are built lazily, once, and cached.  Use one repository per
    process (jobs build it through ``TaskContext.cached``).
    """

    def __init__(self, settings: Settings, plugins: list[tuple[PluginInfo, str]] | None = None) -> None:
        self.settings = settings
        if plugins is None:
            plugins, self.load_errors = discover()
        else:
            self.load_errors = []
        self._plugins = plugins
        self._instances: dict[str, Any] = {}
        self._not_configured: dict[str, str] = {}

    def states(self) -> list[PluginState]:
        """Every known plugin with its activation state, by extension point then id."""
        result = [PluginState(info, *self._activation(info), source) for info, source in self._plugins]
        return sorted(result, key=lambda s: (s.info.point, s.info.id))

    def unmatched_includes(self) -> list[str]:
        """The alternatives of ``plugin.includes`` that match none of these plugins (see :func:`unmatched_includes`)."""
        return unmatched_includes(self.settings.get_str("plugin.includes"), [info.id for info, _ in self._plugins])

    def _activation(self, info: PluginInfo) -> tuple[bool, str]:
        if info.point in SELECTED_BY:
            prop = SELECTED_BY[info.point]
            chosen = self.settings.get_str(prop)
            if chosen in info.names():
                return True, f"selected by {prop}"
            return False, f"not selected by {prop}"
        includes = self.settings.get_str("plugin.includes")
        excludes = self.settings.get_str("plugin.excludes")
        if not re.fullmatch(includes, info.id):
            return False, "not in plugin.includes"
        if excludes and re.fullmatch(excludes, info.id):
            return False, "in plugin.excludes"
        if info.id in self._not_configured:
            return False, f"not configured: {self._not_configured[info.id]}"
        return True, "in plugin.includes"

    def _instance(self, info: PluginInfo) -> Any | None:
        if info.id not in self._instances:
            try:
                self._instances[info.id] = info.factory(self.settings)
            except PluginNotConfigured as exc:
                self._not_configured[info.id] = str(exc)
                self._instances[info.id] = None
        return self._instances[info.id]

    def chain(self, point: type[T], scope: str | None = None) -> list[T]:
        """Active, configured plugins of a chain extension point, in order.

        For URLNormalizer and a ``scope`` (Nutch's rule): ``urlnormalizer.scope.<scope>``,
        when set, restricts the chain to the plugins it names, and
        ``urlnormalizer.order.<scope>`` (else ``urlnormalizer.order``) orders it.
        """
        name = point.__name__
        active = [info for info, _ in self._plugins if info.point == name and self._activation(info)[0]]
        order_prop = ORDERED_BY.get(name)
        if name == "URLNormalizer" and scope:
            allowed = _names(self.settings.get_str(f"urlnormalizer.scope.{scope}"))
            if allowed:
                active = [info for info in active if allowed & set(info.names())]
            if self.settings.get_str(f"urlnormalizer.order.{scope}").strip():
                order_prop = f"urlnormalizer.order.{scope}"
        order = [n for n in re.split(r"[\s,]+", self.settings.get_str(order_prop).strip()) if n] \
            if order_prop else []
        rank = {alias: i for i, alias in enumerate(order)}

        def position(info: PluginInfo) -> tuple[int, str]:
            ranks = [rank[n] for n in info.names() if n in rank]
            return (min(ranks) if ranks else len(rank), info.id)

        instances = [self._instance(info) for info in sorted(active, key=position)]
        return [item for item in instances if item is not None]

    def named(self, point: type[T], name: str) -> T:
        """The plugin of ``point`` whose id or alias is ``name``, active or not (for checker tools).

        Raises :class:`LookupError` naming the known ones when there is none, or the
        reason when it is not configured.
        """
        for info, _ in self._plugins:
            if info.point == point.__name__ and name in info.names():
                instance = self._instance(info)
                if instance is None:
                    raise LookupError(f"{info.id}: {self._not_configured[info.id]}")
                return instance
        known = sorted(i.id for i, _ in self._plugins if i.point == point.__name__)
        raise LookupError(f"no {point.__name__} plugin named {name!r}; known: {', '.join(known)}")

    def single(self, point: type[T]) -> T:
        """The plugin selected for a single-choice extension point; ``LookupError`` if none."""
        name = point.__name__
        prop = SELECTED_BY[name]
        chosen = self.settings.get_str(prop)
        for info, _ in self._plugins:
            if info.point == name and chosen in info.names():
                instance = self._instance(info)
                if instance is None:
                    raise LookupError(f"{prop}={chosen}: {self._not_configured[info.id]}")
                return instance
        known = sorted(i.id for i, _ in self._plugins if i.point == name)
        raise LookupError(f"{prop}={chosen!r} names no {name} plugin; known: {', '.join(known)}")
