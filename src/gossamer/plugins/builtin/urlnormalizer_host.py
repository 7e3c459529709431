"""``urlnormalizer-host``: rewrites host names by rules (Nutch's HostURLNormalizer).

Rules (``urlnormalizer.hosts.rules`` inline, else the file
``urlnormalizer.hosts.file``, default ``host-urlnormalizer.txt``), one per line::

    # host            target
    example.org       www.example.org
    *.example.com     example.com

An exact host rule wins.  Otherwise wildcard rules ``*.<domain>`` are tried for
the host's parent domains from the shortest (two labels) to the longest, and
the first one found applies; a wildcard never matches the bare domain itself
(``*.example.com`` leaves ``example.com`` alone) and no single-label ``*.com``
rule is ever looked up — all as Nutch does.  Host names are compared as
written (the basic normalizer lowercases them first in the default chain).
"""

from __future__ import annotations

from gossamer.core import Settings
from gossamer.plugins.api import URLNormalizer
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.hostrules import host_rule_lines, read_host_rules
from gossamer.plugins.support.javaurl import parse_java_url


class HostURLNormalizer(URLNormalizer):
    """Maps hosts to their preferred form; pure and thread-safe."""

    def __init__(self, hosts: dict[str, str]) -> None:
        self.hosts = hosts

    def target(self, host: str) -> str | None:
        """The replacement host for ``host``, or ``None``."""
        if host in self.hosts:
            return self.hosts[host]
        labels = host.split(".")
        while labels and labels[-1] == "":
            labels.pop()
        for first in range(len(labels) - 2, 0, -1):
            found = self.hosts.get("*." + ".".join(labels[first:]))
            if found is not None:
                return found
        return None

    def normalize(self, url: str, scope: str) -> str:
        """Return ``url`` with its host replaced when a rule applies; ``ValueError`` if malformed."""
        parsed = parse_java_url(url)
        target = self.target(parsed.host)
        if target is None:
            return url
        start = parsed.host_start
        return url[:start] + target + url[start + len(parsed.host):]


def _build(settings: Settings) -> HostURLNormalizer:
    rules = read_host_rules(settings, "urlnormalizer.hosts.file", "urlnormalizer.hosts.rules")
    return HostURLNormalizer({host: target for _, host, target in host_rule_lines(rules)})


PLUGIN = PluginInfo(
    id="urlnormalizer-host",
    point="URLNormalizer",
    factory=_build,
    description="Rewrites host names by a rule file (example.org -> www.example.org, *.domain wildcards)",
    aliases=("org.apache.nutch.net.urlnormalizer.host.HostURLNormalizer", "HostURLNormalizer"),
)
