"""The command a ``gossamer`` command line names, read before any parsing (no imports beyond the standard library)."""

from __future__ import annotations

_VALUED_OPTIONS = frozenset({"-D", "--define", "--engine", "--conf"})


def command_of(args: list[str]) -> str | None:
    """The command named in ``args`` (the first word that is not an option or an option's value)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _VALUED_OPTIONS:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


__all__ = ["command_of"]
