"""``nodedumper``: the top nodes of the web graph by inlinks, outlinks or score (Nutch's ``NodeDumper``).

:func:`top_nodes` streams the live ``nodes`` version (only the URL and the measured
column) and keeps the ``top_n`` largest values in a bounded heap, so memory stays at
``top_n`` entries (``top_n=None``: every node, sorted in memory).  With ``group``
(``("host" | "domain", "sum" | "max")``) the values are first aggregated per host or
registered domain (memory: one entry per host / domain), then ranked.  Ties are
broken by key, ascending, so the output is deterministic.

Lines (:func:`format_entry`): ``key<TAB>value``, or ``key=value`` with ``as_eff``
(Solr's ExternalFileField format, Nutch's ``-asEff``).  Counts print as integers,
scores as Python floats.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass

from gossamer.core import Settings
from gossamer.graph.rules import url_domain, url_host
from gossamer.graph.schema import NODES
from gossamer.store import Place, as_place, open_live

MEASURES = {"inlinks": "num_inlinks", "outlinks": "num_outlinks", "scores": "score"}
"""What ``by`` may name, and the nodes column it reads."""
GROUP_KEYS = {"host": url_host, "domain": url_domain}
AGGREGATES = ("sum", "max")


@dataclass(frozen=True)
class NodeValue:
    """One line of the dump: a URL (or host / domain) and its value."""

    key: str
    value: float | int


def _check(by: str, top_n: int | None, group: tuple[str, str] | None) -> None:
    if by not in MEASURES:
        raise ValueError(f"unknown measure {by!r}: choose one of {', '.join(MEASURES)}")
    if top_n is not None and top_n < 0:
        raise ValueError(f"top_n must be 0 or more, not {top_n}")
    if group is not None and (group[0] not in GROUP_KEYS or group[1] not in AGGREGATES):
        raise ValueError(f"-group takes host|domain and sum|max, not {' '.join(group)}")


def _values(nodes_dir: Place, column: str) -> Iterator[tuple[str, float | int]]:
    with open_live(nodes_dir) as version:
        for batch in version.iter_batches(columns=["url", column]):
            yield from zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True)


def _grouped(values: Iterator[tuple[str, float | int]], group: tuple[str, str]) -> Iterator[tuple[str, float | int]]:
    key_of, use_max = GROUP_KEYS[group[0]], group[1] == "max"
    totals: dict[str, float | int] = {}
    for url, value in values:
        key = key_of(url)
        if not key:
            continue
        if key not in totals:
            totals[key] = value
        else:
            totals[key] = max(totals[key], value) if use_max else totals[key] + value
    yield from totals.items()


def top_nodes(webgraph_dir: Place | str, by: str, top_n: int | None = None, group: tuple[str, str] | None = None,
              settings: Settings | None = None) -> list[NodeValue]:
    """The ``top_n`` nodes (or hosts / domains) with the largest ``by`` values, largest first.

    Raises :class:`ValueError` for an unknown measure or group and
    :class:`~gossamer.store.TableError` when there is no nodes table.
    """
    _check(by, top_n, group)
    values = _values(as_place(webgraph_dir, settings) / NODES, MEASURES[by])
    if group is not None:
        values = _grouped(values, group)
    def rank(entry: tuple[str, float | int]) -> tuple[float | int, str]:
        return (-entry[1], entry[0])

    best = sorted(values, key=rank) if top_n is None else heapq.nsmallest(top_n, values, key=rank)
    return [NodeValue(key, value) for key, value in best]


def format_entry(entry: NodeValue, as_eff: bool = False) -> str:
    """``key<TAB>value``, or ``key=value`` for Solr's ExternalFileField (``as_eff``)."""
    return f"{entry.key}{'=' if as_eff else chr(9)}{entry.value}"


def dump_nodes(webgraph_dir: Place | str, by: str = "inlinks", top_n: int | None = None,
               group: tuple[str, str] | None = None, as_eff: bool = False,
               settings: Settings | None = None) -> list[str]:
    """:func:`top_nodes` as text lines (:func:`format_entry`)."""
    return [format_entry(entry, as_eff) for entry in top_nodes(webgraph_dir, by, top_n, group, settings)]
