"""Typed property definitions: the shape of every setting Gossamer knows.

A :class:`Property` names one setting (with Nutch's spelling where Nutch has it),
its default, its value type and a one-line description.  Values arrive as strings
from ``nutch-site.xml``, the environment and ``-D name=value``, or as TOML values;
:meth:`Property.parse` turns any of them into the declared type or raises
:class:`ValueError` with a message that names the property.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

PropertyType = Literal["str", "int", "float", "bool", "list"]
"""``list`` values are comma-separated strings (Nutch style); items are stripped."""

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})

Value = str | int | float | bool | list[str]


@dataclass(frozen=True, slots=True)
class Property:
    """One setting.

    ``default`` is already of ``type`` — except that a string default may contain
    ``${other.name}`` references, which :class:`gossamer.core.settings.Settings`
    expands (Nutch's variable expansion, e.g. ``fetcher.min.crawl.delay``).
    ``nutch`` is true when Nutch has a property of the same name and meaning.
    ``check``, if given, is called with every parsed value and raises ValueError (with a
    one-line reason) for a value of the right type that the property cannot take.
    """

    name: str
    default: Value
    type: PropertyType
    description: str
    nutch: bool = True
    check: Callable[[Value], None] | None = None

    def parse(self, raw: object) -> Value:
        """Convert ``raw`` (a string or a TOML value) to this property's type and check it."""
        try:
            value = _convert(self.type, raw)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"property {self.name!r} expects {self.type}, got {raw!r}: {exc}"
            ) from None
        if self.check is not None:
            try:
                self.check(value)
            except ValueError as exc:
                raise ValueError(f"property {self.name!r}: {exc}") from None
        return value


def _convert(kind: PropertyType, raw: object) -> Value:
    if kind == "str":
        if isinstance(raw, (list, dict)):
            raise TypeError("not a string")
        return str(raw)
    if kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError("not a boolean (true/false)")
    if kind == "int":
        if isinstance(raw, bool):
            raise TypeError("a boolean is not an integer")
        if isinstance(raw, int):
            return raw
        if isinstance(raw, float) and raw.is_integer():
            return int(raw)
        return int(str(raw).strip())
    if kind == "float":
        if isinstance(raw, bool):
            raise TypeError("a boolean is not a number")
        if isinstance(raw, (int, float)):
            return float(raw)
        return float(str(raw).strip())
    if kind == "list":
        if isinstance(raw, (list, tuple)):
            return [str(item).strip() for item in raw if str(item).strip()]
        return [item.strip() for item in str(raw).split(",") if item.strip()]
    raise ValueError(f"unknown property type {kind!r}")


def format_value(value: Value) -> str:
    """Render a value the way Nutch writes it in XML (lists comma-separated, booleans lower case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)
