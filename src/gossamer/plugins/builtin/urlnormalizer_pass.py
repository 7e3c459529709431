"""``urlnormalizer-pass``: the no-op normalizer (Nutch's PassURLNormalizer)."""

from __future__ import annotations

import pyarrow as pa

from gossamer.core import Settings
from gossamer.plugins.api import URLNormalizer
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.urlscreen import all_true


class PassURLNormalizer(URLNormalizer):
    """Returns every URL unchanged (useful as a placeholder in per-scope chains)."""

    def normalize(self, url: str, scope: str) -> str:
        """Return ``url`` as it is."""
        return url

    def unchanged_mask(self, urls: pa.StringArray, scope: str) -> pa.BooleanArray:
        """Every URL is returned unchanged."""
        return all_true(len(urls))


def _build(settings: Settings) -> PassURLNormalizer:
    return PassURLNormalizer()


PLUGIN = PluginInfo(
    id="urlnormalizer-pass",
    point="URLNormalizer",
    factory=_build,
    description="No-op URL normalizer",
    aliases=("org.apache.nutch.net.urlnormalizer.pass.PassURLNormalizer",),
)
