"""``signature-md5``: MD5 of the raw content (Nutch's MD5Signature)."""

from __future__ import annotations

import hashlib

from gossamer.core import Content, Settings
from gossamer.plugins.api import ParseResult, Signature
from gossamer.plugins.registry import PluginInfo


class MD5Signature(Signature):
    """MD5 over the content bytes; over the URL (UTF-8) when the content is empty."""

    def calculate(self, content: Content, parse: ParseResult | None) -> bytes:
        """16-byte digest."""
        data = content.content if content.content else content.url.encode("utf-8")
        return hashlib.md5(data).digest()


def _build(settings: Settings) -> MD5Signature:
    return MD5Signature()


PLUGIN = PluginInfo(
    id="signature-md5",
    point="Signature",
    factory=_build,
    description="Content signature: MD5 of the raw bytes",
    aliases=("org.apache.nutch.crawl.MD5Signature", "MD5Signature"),
)
