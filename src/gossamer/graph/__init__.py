"""Link analysis (Nutch 1.x's WebGraph, LinkRank, ScoreUpdater, NodeDumper).

Tables and node ids: :mod:`.schema`; LinkRank: :func:`link_rank` (:mod:`.linkrank`, its
arithmetic in :mod:`.linkrank_math`, where it runs in :mod:`.linkrank_runners`, reciprocal
links in :mod:`.loops`); node scores into the crawldb: :func:`update_scores`; a graph's tables
from arrays: :func:`write_graph`.  See docs/link-analysis.md.
"""

from gossamer.graph.graph_writer import write_graph
from gossamer.graph.linkrank import GraphError, LinkRankOptions, LinkRankReport, link_rank
from gossamer.graph.schema import (
    INLINKS_SCHEMA,
    NODES_SCHEMA,
    OUTLINKS_SCHEMA,
    WEBGRAPH_DIR,
    dense_ids,
    generation,
    node_id,
)
from gossamer.graph.scoreupdater import ScoreUpdateReport, update_scores

__all__ = [
    "GraphError",
    "LinkRankOptions",
    "LinkRankReport",
    "ScoreUpdateReport",
    "INLINKS_SCHEMA",
    "NODES_SCHEMA",
    "OUTLINKS_SCHEMA",
    "WEBGRAPH_DIR",
    "dense_ids",
    "generation",
    "link_rank",
    "node_id",
    "update_scores",
    "write_graph",
]
