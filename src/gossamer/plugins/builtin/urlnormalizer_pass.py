"""``urlnormalizer-pass``: the no-op normalizer (Nutch's PassURLNormalizer)."""

from __future__ import annotations

from gossamer.core import Settings
from gossamer.plugins.api import URLNormalizer
from gossamer.plugins.registry import PluginInfo


class PassURLNormalizer(URLNormalizer):
    """Returns every URL unchanged (useful as a placeholder in per-scope chains)."""

    def normalize(self, url: str, scope: str) -> str:
        """Return ``url`` as it is."""
        return url


def _build(settings: Settings) -> PassURLNormalizer:
    return PassURLNormalizer()


PLUGIN = PluginInfo(
    id="urlnormalizer-pass",
    point="URLNormalizer",
    factory=_build,
    description="No-op URL normalizer",
    aliases=("org.apache.nutch.net.urlnormalizer.pass.PassURLNormalizer",),
)
