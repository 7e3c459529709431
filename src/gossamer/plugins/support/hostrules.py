"""Per-host rule files of the host, protocol and slash URL normalizers (Nutch's formats).

Each of those plugins reads ``<host><whitespace><value>`` lines from an inline
property (``urlnormalizer.hosts.rules`` …), which wins when non-empty, or else
from a file (``urlnormalizer.hosts.file`` …) looked up like every plugin file.
Blank lines and lines starting with ``#`` are skipped; other lines are trimmed
and split at the first space or tab.  A line without a value is reported with
:func:`warnings.warn` (file and line number) and skipped, where Nutch's readers
would fail or store garbage.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator

from gossamer.core import Settings
from gossamer.plugins.support.rulefiles import RuleText, load_rules

_SPLIT = re.compile(r"[ \t]+")


class HostRuleWarning(UserWarning):
    """A line of a host/protocol/slash rule file was skipped."""


def read_host_rules(settings: Settings, file_prop: str, rules_prop: str) -> RuleText:
    """The rule text (inline property first, else the file); ``PluginNotConfigured`` if neither exists."""
    return load_rules(settings, file_prop, rules_prop)


def host_rule_lines(rules: RuleText) -> Iterator[tuple[int, str, str]]:
    """``(line number, host, value)`` of every rule line; the value may contain spaces."""
    for number, line in rules.lines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = _SPLIT.split(line.strip(), maxsplit=1)
        if len(fields) < 2 or not fields[1].strip():
            warn(rules, number, f"expected '<host> <value>', got {line.strip()!r}")
            continue
        yield number, fields[0], fields[1].strip()


def warn(rules: RuleText, number: int, message: str) -> None:
    """Report a skipped line of ``rules``."""
    warnings.warn(f"{rules.origin}, line {number}: {message}; line skipped", HostRuleWarning, stacklevel=3)
