"""The web graph's tables (``<crawl>/webgraph/``): outlinks, nodes, inlinks; and node ids.

Nutch's WebGraph keeps three MapFile databases; Gossamer keeps three tables,
partitioned and sorted like the crawldb (host-hash parts, URL order), so each
joins the crawldb and the others part by part:

* ``outlinks`` — key ``url`` (the source page): one row per kept link,
  ``to_url``, ``anchor`` and ``timestamp`` (ms: the fetch time of the page the
  link was read from).  It is what later ``webgraph`` runs merge new segments into.
* ``nodes`` — key ``url``: every URL that is the source or the target of a kept
  link, with ``num_inlinks``, ``num_outlinks`` and ``score`` (the LinkRank score;
  ``link.analyze.initial.score`` until ``linkrank`` has run).  Scores are float64
  (Nutch keeps float32).
* ``inlinks`` — key ``url`` (the target): one row per kept link, ``from_url``,
  ``anchor``, ``timestamp``, the numeric ids ``from_id`` and ``to_id`` of both
  ends (see below), and ``counted``: whether LinkRank counts this link under
  ``link.ignore.limit.page`` / ``link.ignore.limit.domain`` (decided when the
  graph is built; the first inlink of a target from each source page / domain,
  in ``from_id`` order, counts).

Node ids
--------
A node's id is its place in the ``nodes`` version: ``part << 40 | row`` (the
engine's ``_seq`` of a co-partitioned row, :data:`~gossamer.engine.api.SEQ_SPLIT_SHIFT`).
Ids are valid for one graph generation: every ``webgraph`` run renumbers, and
``linkrank`` rewrites ``nodes`` row for row, so ids stay valid across it.
:func:`dense_ids` maps them to ``0 … N-1`` for array work.

Generations
-----------
The three versions one ``webgraph`` run installs carry the same ``graph:<token>``
entry among their description's ``absorbed`` names (beside the segment names the
graph holds); :func:`generation` reads it, and jobs that read ids refuse tables of
different generations (a crash between two installs).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

NODE_ID_SHIFT = 40
"""``id = part << NODE_ID_SHIFT | row`` (the engine's ``SEQ_SPLIT_SHIFT``)."""
ROW_MASK = (1 << NODE_ID_SHIFT) - 1
"""``id & ROW_MASK`` is the node's row in its part."""
GENERATION_PREFIX = "graph:"
"""The ``absorbed`` entry naming a table version's graph generation."""

OUTLINKS = "outlinks"
NODES = "nodes"
INLINKS = "inlinks"
WEBGRAPH_DIR = "webgraph"
"""The web graph's folder in a crawl directory."""

OUTLINKS_SCHEMA = pa.schema([
    pa.field("url", pa.string(), nullable=False),
    pa.field("to_url", pa.string(), nullable=False),
    pa.field("anchor", pa.string(), nullable=False),
    pa.field("timestamp", pa.int64(), nullable=False),
])

NODES_SCHEMA = pa.schema([
    pa.field("url", pa.string(), nullable=False),
    pa.field("num_inlinks", pa.int32(), nullable=False),
    pa.field("num_outlinks", pa.int32(), nullable=False),
    pa.field("score", pa.float64(), nullable=False),
])

INLINKS_SCHEMA = pa.schema([
    pa.field("url", pa.string(), nullable=False),
    pa.field("from_url", pa.string(), nullable=False),
    pa.field("anchor", pa.string(), nullable=False),
    pa.field("timestamp", pa.int64(), nullable=False),
    pa.field("from_id", pa.int64(), nullable=False),
    pa.field("to_id", pa.int64(), nullable=False),
    pa.field("counted", pa.bool_(), nullable=False),
])


def node_id(part: int, row: int) -> int:
    """The id of row ``row`` of part ``part`` of a nodes version."""
    return part << NODE_ID_SHIFT | row


def dense_ids(ids: np.ndarray, part_offsets: np.ndarray) -> np.ndarray:
    """Node ids → ``0 … N-1`` (int64): ``part_offsets[p]`` is the number of nodes in parts before ``p``."""
    ids = np.asarray(ids, dtype=np.int64)
    return part_offsets[ids >> NODE_ID_SHIFT] + (ids & ROW_MASK)


def generation(absorbed: tuple[str, ...] | list[str]) -> str | None:
    """The ``graph:<token>`` generation among a description's ``absorbed`` names, or ``None``."""
    for name in absorbed:
        if name.startswith(GENERATION_PREFIX):
            return name
    return None
