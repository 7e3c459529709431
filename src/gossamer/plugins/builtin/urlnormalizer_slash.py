"""``urlnormalizer-slash``: adds or removes the trailing slash per host (Nutch's SlashURLNormalizer).

Rules (``urlnormalizer.slashes.rules`` inline, else the file
``urlnormalizer.slashes.file``, default ``slashes.txt``), one per line::

    www.example.org  +      # paths end with "/"
    www.example.net  -      # paths never end with "/"

Only hosts listed are touched, and never the root path ``/``.  With ``+`` a slash
is added unless the last path segment looks like a file name: a dot within the
last six characters of a path of six or more characters (``/page.html``,
``/noise.mp3`` stay; ``/this.is.not.an_extension`` gets its slash).  With ``-``
(in fact any value but ``+``) one trailing slash is removed.  The query follows
the new path.
"""

from __future__ import annotations

from gossamer.core import Settings
from gossamer.plugins.api import URLNormalizer
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.hostrules import host_rule_lines, read_host_rules
from gossamer.plugins.support.javaurl import parse_java_url, with_parts


def _looks_like_file(path: str) -> bool:
    dot = path.rfind(".")
    return len(path) >= 6 and dot != -1 and dot >= len(path) - 6


class SlashURLNormalizer(URLNormalizer):
    """Makes trailing slashes consistent per host; pure and thread-safe."""

    def __init__(self, hosts: dict[str, bool]) -> None:
        self.hosts = hosts

    def normalize(self, url: str, scope: str) -> str:
        """Return ``url`` with its trailing slash added or removed; ``ValueError`` if malformed."""
        parsed = parse_java_url(url)
        add = self.hosts.get(parsed.host)
        path = parsed.path
        if add is None or len(path) <= 1:
            return url
        if path.endswith("/"):
            return url if add else with_parts(parsed, path=path[:-1])
        if add and not _looks_like_file(path):
            return with_parts(parsed, path=path + "/")
        return url


def _build(settings: Settings) -> SlashURLNormalizer:
    rules = read_host_rules(settings, "urlnormalizer.slashes.file", "urlnormalizer.slashes.rules")
    return SlashURLNormalizer({host: value == "+" for _, host, value in host_rule_lines(rules)})


PLUGIN = PluginInfo(
    id="urlnormalizer-slash",
    point="URLNormalizer",
    factory=_build,
    description="Adds or removes trailing slashes per host from a rule file",
    aliases=("org.apache.nutch.net.urlnormalizer.slash.SlashURLNormalizer", "SlashURLNormalizer"),
)
