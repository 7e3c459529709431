"""The URL normalizer and filter chains of one scope, as one callable step.

``URLChain.process(url)`` normalizes with every active URLNormalizer (for
``urlnormalizer.loop.count`` passes, stopping early when a pass changes
nothing), then runs every active URLFilter; it returns the URL to keep or
``None`` when a filter rejects it.  A normalizer's :class:`ValueError` (a
malformed URL) propagates to the caller, who reports and counts it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from gossamer.core import Settings
from gossamer.plugins.api import URLFilter, URLNormalizer
from gossamer.plugins.registry import PluginRepository
from gossamer.plugins.support.urlscreen import all_true

if TYPE_CHECKING:
    import pyarrow as pa


class URLChain:
    """Normalizers then filters, for ``scope``; either half can be switched off."""

    def __init__(
        self, repository: PluginRepository, scope: str, normalize: bool = True, filter: bool = True
    ) -> None:
        self.scope = scope
        self.normalizers: list[URLNormalizer] = repository.chain(URLNormalizer, scope) if normalize else []
        self.filters: list[URLFilter] = repository.chain(URLFilter) if filter else []
        self.loops = max(1, repository.settings.get_int("urlnormalizer.loop.count"))

    def normalize(self, url: str) -> str:
        """Apply the normalizers (raises :class:`ValueError` for malformed URLs)."""
        for _ in range(self.loops):
            before = url
            for normalizer in self.normalizers:
                url = normalizer.normalize(url, self.scope)
            if url == before:
                break
        return url

    def apply(self, url: str, report: Callable[[str], None] | None = None) -> str | None:
        """Normalize, then filter; ``None`` when rejected or malformed (``report`` gets the reason)."""
        try:
            return self.filter(self.normalize(url))
        except ValueError as exc:
            if report is not None:
                report(f"{url!r}: {exc}")
            return None

    def unchanged_mask(self, urls: pa.StringArray) -> pa.BooleanArray | None:
        """True where :meth:`apply` certainly returns the URL itself (normalized already and accepted).

        The conjunction of every plugin's mask (``URLNormalizer.unchanged_mask``,
        ``URLFilter.accepted_mask``), each asked only about the URLs still true; ``None`` when a
        plugin offers no batch shortcut.  False means "not known": run :meth:`apply`.
        """
        import pyarrow.compute as pc  # here, not at module level: the parse worker never loads pyarrow

        masks = [lambda u, n=n: n.unchanged_mask(u, self.scope) for n in self.normalizers]
        masks += [f.accepted_mask for f in self.filters]
        result = all_true(len(urls))
        for mask_of in masks:
            if not len(urls) or not pc.any(result).as_py():
                break
            mask = mask_of(urls if pc.all(result).as_py() else urls.filter(result))
            if mask is None:
                return None
            result = pc.replace_with_mask(result, result, mask)
        return result

    def filter(self, url: str) -> str | None:
        """Apply the filters; ``None`` when one rejects the URL."""
        for url_filter in self.filters:
            result = url_filter.filter(url)
            if result is None:
                return None
            url = result
        return url


class TaskCache(Protocol):
    """What :func:`task_chain` needs of a task context."""

    settings: Settings

    def cached(self, key: str, build: Callable[[], Any]) -> Any:
        """``build()`` once per process and key."""
        ...


def settings_key(settings: Settings, *parts: object) -> str:
    """A cache key that changes whenever the settings do (for per-process plugin caches)."""
    return repr((sorted((k, repr(v)) for k, v in settings.values.items()), str(settings.conf_dir), parts))


def task_chain(ctx: TaskCache, scope: str, normalize: bool = True, filter: bool = True) -> URLChain:
    """The URL chain of ``scope`` for a map or reduce task, built once per worker process and settings.

    ``ctx`` is the task's :class:`~gossamer.engine.TaskContext` (anything with ``settings`` and
    ``cached(key, build)``).
    """
    return ctx.cached(settings_key(ctx.settings, "url-chain", scope, normalize, filter),
                      lambda: URLChain(PluginRepository(ctx.settings), scope, normalize, filter))


def memo_url_step(ctx: TaskCache, scope: str, normalize: bool, filter: bool,
                  report: Callable[[str], None]) -> Callable[[str], str | None]:
    """Normalize then filter one URL through :func:`task_chain`, each distinct URL once per task.

    Returns the URL to keep, or ``None`` when rejected or malformed (``report`` gets the reason).
    """
    chain = task_chain(ctx, scope, normalize, filter)
    seen: dict[str, str | None] = {}

    def step(url: str) -> str | None:
        if url not in seen:
            seen[url] = chain.apply(url, report)
        return seen[url]

    return step
