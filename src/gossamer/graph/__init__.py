"""Link analysis (Nutch 1.x's WebGraph, LinkRank, ScoreUpdater, NodeDumper).

Tables and node ids: :mod:`.schema`; building the graph: :func:`build_webgraph`
(:mod:`.webgraph`); LinkRank: :func:`link_rank` (:mod:`.linkrank`, its arithmetic in
:mod:`.linkrank_math`, where it runs in :mod:`.linkrank_runners`, reciprocal links in
:mod:`.loops`); node scores into the crawldb: :func:`update_scores`; the top nodes:
:func:`dump_nodes` (:mod:`.nodedumper`); a graph's tables from arrays: :func:`write_graph`.
See docs/link-analysis.md.
"""

from gossamer.graph.graph_writer import write_graph
from gossamer.graph.linkrank import GraphError, LinkRankOptions, LinkRankReport, link_rank
from gossamer.graph.nodedumper import MEASURES, NodeValue, dump_nodes, format_entry, top_nodes
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
from gossamer.graph.webgraph import WebGraphReport, build_webgraph, check_generation, graph_tables

__all__ = [
    "INLINKS_SCHEMA",
    "MEASURES",
    "NODES_SCHEMA",
    "OUTLINKS_SCHEMA",
    "WEBGRAPH_DIR",
    "GraphError",
    "LinkRankOptions",
    "LinkRankReport",
    "NodeValue",
    "ScoreUpdateReport",
    "WebGraphReport",
    "build_webgraph",
    "check_generation",
    "dense_ids",
    "dump_nodes",
    "format_entry",
    "generation",
    "graph_tables",
    "link_rank",
    "node_id",
    "top_nodes",
    "update_scores",
    "write_graph",
]
