"""What every job reports: a typed dataclass that merges with another of its kind and has one JSON form.

A job's report is a dataclass deriving from :class:`Report`.  Parallel parts of a job
(fetch shares, parse groups, map tasks) each produce one; the driver combines them with
:meth:`Report.merge`, field by field, by the value's type:

* numbers add (fields named in ``MERGE_MAX`` take the larger value: elapsed times of
  parts that ran at once);
* :class:`~collections.Counter` and other ``dict`` values add key by key;
* lists extend; the lists named in ``SAMPLES`` (sample error messages) keep at most
  ``sample_limit`` items — one limit for every report, the setting
  ``cli.max.reported.errors`` (:func:`sample_limit`); the count of all errors is a
  number field of the report, so nothing is lost but the extra texts;
* a nested :class:`Report` merges recursively; strings keep the first non-empty value;
  anything else keeps this report's value.

:meth:`Report.to_json` is *the* JSON form of a report (``--json`` summaries and the
dashboard print it): every field (``sample_limit`` excepted), counters as plain
objects, plus what :meth:`Report.json_extra` adds.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, ClassVar, Self

from gossamer.core.settings import Settings

DEFAULT_SAMPLE_LIMIT = 20
"""``cli.max.reported.errors``'s default: sample messages a report keeps."""


def sample_limit(settings: Settings | None) -> int:
    """How many sample error messages a report keeps: ``cli.max.reported.errors``."""
    return DEFAULT_SAMPLE_LIMIT if settings is None else max(0, settings.get_int("cli.max.reported.errors"))


@dataclasses.dataclass
class Report:
    """Base of every job report (see the module docstring)."""

    SAMPLES: ClassVar[tuple[str, ...]] = ("errors",)
    """List fields holding sample messages, capped at ``sample_limit`` when merged or added."""
    MERGE_MAX: ClassVar[tuple[str, ...]] = ()
    """Number fields merged by taking the larger value instead of the sum."""

    sample_limit: int = dataclasses.field(default=DEFAULT_SAMPLE_LIMIT, kw_only=True, repr=False, compare=False)

    def merge(self, other: Self) -> Self:
        """Add ``other`` (a report of the same job) into this one; returns ``self``."""
        if type(other) is not type(self):
            raise TypeError(f"cannot merge a {type(other).__name__} into a {type(self).__name__}")
        for item in dataclasses.fields(self):
            if item.name == "sample_limit":
                continue
            setattr(self, item.name, self._merged(item.name, getattr(self, item.name), getattr(other, item.name)))
        return self

    def _merged(self, name: str, mine: Any, theirs: Any) -> Any:
        if isinstance(mine, bool):
            return mine or theirs
        if isinstance(mine, int | float) and isinstance(theirs, int | float):
            return max(mine, theirs) if name in self.MERGE_MAX else mine + theirs
        if isinstance(mine, dict):
            merged = Counter(mine) if isinstance(mine, Counter) else dict(mine)
            for key, value in theirs.items():
                merged[key] = merged.get(key, 0) + value
            return merged
        if isinstance(mine, list):
            if name in self.SAMPLES:
                return mine + list(theirs[: max(0, self.sample_limit - len(mine))])
            return mine + list(theirs)
        if isinstance(mine, Report):
            return mine.merge(theirs)
        if isinstance(mine, str):
            return mine or theirs
        return mine

    def add_sample(self, message: str, field_name: str = "errors") -> None:
        """Append a sample message to ``field_name`` unless it holds ``sample_limit`` already."""
        samples: list[str] = getattr(self, field_name)
        if len(samples) < self.sample_limit:
            samples.append(message)

    def json_extra(self) -> dict[str, Any]:
        """Derived values the JSON form adds (rates, totals); none by default."""
        return {}

    def to_json(self) -> dict[str, Any]:
        """The report as one JSON-able object (see the module docstring)."""
        out: dict[str, Any] = {}
        for item in dataclasses.fields(self):
            if item.name != "sample_limit":
                out[item.name] = _plain(getattr(self, item.name))
        out.update(self.json_extra())
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Report):
        return value.to_json()
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, str | int | bool) or value is None:
        return value
    return str(value)
