"""``urlnormalizer-protocol``: forces the protocol per host (Nutch's ProtocolURLNormalizer).

Rules (``urlnormalizer.protocols.rules`` inline, else the file
``urlnormalizer.protocols.file``, default ``protocols.txt``), one per line,
host and protocol separated by a tab or spaces::

    example.org      http
    *.example.com    https

``*.<domain>`` applies to the domain itself and every host below it; an exact
host rule wins over domain rules, and the longest matching domain wins among
those.  A URL with an explicit port keeps its protocol.  Lines with more than
two fields or a protocol that is not a valid scheme name are skipped with a
warning (as Nutch skips them).
"""

from __future__ import annotations

import re

from gossamer.core import Settings
from gossamer.plugins.api import URLNormalizer
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.hostrules import host_rule_lines, read_host_rules, warn
from gossamer.plugins.support.javaurl import parse_java_url, with_parts

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")


class ProtocolURLNormalizer(URLNormalizer):
    """Rewrites ``http``/``https`` (or any protocol) per host or domain; pure and thread-safe."""

    def __init__(self, hosts: dict[str, str], domains: dict[str, str]) -> None:
        self.hosts = hosts
        self.domains = domains

    def required(self, host: str) -> str | None:
        """The protocol rules require for ``host``, or ``None``."""
        found = self.hosts.get(host)
        if found is not None or not self.domains:
            return found
        dot = host.find(".")
        while dot >= 0:  # longest suffix first
            found = self.domains.get(host[dot:])
            if found is not None:
                return found
            dot = host.find(".", dot + 1)
        return None

    def normalize(self, url: str, scope: str) -> str:
        """Return ``url`` with the protocol its host requires; ``ValueError`` if malformed."""
        parsed = parse_java_url(url)
        if parsed.port != -1:
            return url
        protocol = self.required(parsed.host)
        if protocol is None or protocol == parsed.protocol:
            return url
        return with_parts(parsed, protocol=protocol)


def _build(settings: Settings) -> ProtocolURLNormalizer:
    rules = read_host_rules(settings, "urlnormalizer.protocols.file", "urlnormalizer.protocols.rules")
    hosts: dict[str, str] = {}
    domains: dict[str, str] = {}
    for number, host, protocol in host_rule_lines(rules):
        if not _SCHEME.fullmatch(protocol):
            warn(rules, number, f"invalid protocol {protocol!r}")
            continue
        if host.startswith("*."):
            domains[host[1:]] = protocol
            hosts[host[2:]] = protocol
        else:
            hosts[host] = protocol
    return ProtocolURLNormalizer(hosts, domains)


PLUGIN = PluginInfo(
    id="urlnormalizer-protocol",
    point="URLNormalizer",
    factory=_build,
    description="Forces http or https per host or domain from a rule file",
    aliases=("org.apache.nutch.net.urlnormalizer.protocol.ProtocolURLNormalizer", "ProtocolURLNormalizer"),
)
