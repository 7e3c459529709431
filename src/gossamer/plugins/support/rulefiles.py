"""Reading the rule files of the URL filter plugins, the way Nutch reads them.

Every URL filter of Nutch takes its rules either from a string property
(``urlfilter.regex.rules``, ``urlfilter.prefix.rules`` …) or, when that property
is unset, from a file named by another property (``urlfilter.regex.file`` …)
looked up in the configuration directory.  :func:`load_rules` does the same:
a non-empty inline property wins over the file (Nutch: "rules specified as a
config property will override rules specified as a config file").

Lines are split like Java's ``BufferedReader.readLine``: on ``\\n``, ``\\r`` and
``\\r\\n`` only (Python's ``str.splitlines`` also splits on form feeds and other
separators, which would change what a line is).  Line numbers in errors are
1-based and count every physical line.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass

from gossamer.core import Settings
from gossamer.plugins.support.conffiles import read_conf_text

log = logging.getLogger(__name__)

_JAVA_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class RuleFileError(ValueError):
    """A rule file (or inline rules property) that cannot be used; the message names source and line.

    Raised by plugin factories: unlike :class:`~gossamer.plugins.api.PluginNotConfigured`
    it is not swallowed by the plugin registry, so a broken rule file stops the job
    before any URL is filtered (Nutch throws as well).  Silently dropping a filter
    would widen the crawl.
    """


@dataclass(frozen=True)
class RuleText:
    """Rule text and where it came from (``file /path`` or ``property name``), for messages."""

    text: str
    origin: str

    def lines(self) -> Iterator[tuple[int, str]]:
        """``(line number, line)`` pairs, split as Java's ``readLine`` splits."""
        yield from java_lines(self.text)

    def error(self, lineno: int, message: str) -> RuleFileError:
        """A :class:`RuleFileError` for line ``lineno`` of this source."""
        return RuleFileError(f"{self.origin}, line {lineno}: {message}")

    def warn(self, lineno: int, message: str) -> None:
        """Log a skipped line (used where Nutch itself only warns)."""
        log.warning("%s, line %d: %s", self.origin, lineno, message)


def java_lines(text: str) -> Iterator[tuple[int, str]]:
    """Split ``text`` into numbered lines like ``BufferedReader.readLine`` (no trailing empty line)."""
    if not text:
        return
    parts = _JAVA_LINE_BREAK.split(text)
    if parts and parts[-1] == "":
        parts.pop()
    yield from enumerate(parts, start=1)


def load_rules(settings: Settings, file_prop: str, rules_prop: str | None = None) -> RuleText:
    """The rules of a plugin: inline ``rules_prop`` when non-empty, else the file ``file_prop`` names.

    Raises :class:`~gossamer.plugins.api.PluginNotConfigured` when the file is needed
    and cannot be found or read.
    """
    if rules_prop is not None:
        inline = settings.get_str(rules_prop)
        if inline.strip():
            return RuleText(inline, f"property {rules_prop}")
    text, path = read_conf_text(settings, file_prop)
    return RuleText(text, f"{path}")
