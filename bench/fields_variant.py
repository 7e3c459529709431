"""Schema variants of :mod:`bench.tantivy_fields`: what one run changes in Gossamer's index schema."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Variant:
    """One variant: fields kept or dropped, index options, stored / indexed flags, writer settings."""

    keep: set[str] | None = None
    drop: set[str] = field(default_factory=set)
    options: dict[str, str] = field(default_factory=dict)
    nostore: set[str] = field(default_factory=set)
    noindex: set[str] = field(default_factory=set)
    threads: int = 0
    heap_mb: int = 0
    no_deletes: bool = False

    def keeps(self, name: str) -> bool:
        """Whether field ``name`` is in the variant's schema."""
        return name not in self.drop and (self.keep is None or name in self.keep)


def parse_variant(spec: str) -> Variant:
    """The variant ``spec`` names: ``full``, or items joined by ``,`` (see :mod:`bench.tantivy_fields`).

    Raises ``ValueError`` for an unknown item.
    """
    v = Variant()
    for item in spec.split(","):
        key, _, value = item.partition(":")
        if item in ("full", ""):
            continue
        if item == "nodel":
            v.no_deletes = True
        elif key == "keep":
            v.keep = set(value.split("+"))
        elif key == "drop":
            v.drop.add(value)
        elif key == "opt":
            name, _, option = value.partition("=")
            v.options[name] = option
        elif key == "nostore":
            v.nostore.add(value)
        elif key == "noindex":
            v.noindex.add(value)
        elif key == "threads":
            v.threads = int(value)
        elif key == "heap":
            v.heap_mb = int(value)
        else:
            raise ValueError(f"unknown variant item {item!r}")
    return v
