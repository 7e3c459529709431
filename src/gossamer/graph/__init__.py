"""Link analysis (Nutch 1.x's WebGraph, LinkRank, ScoreUpdater, NodeDumper).

Tables and node ids: :mod:`.schema`; building the graph: :func:`build_webgraph`
(:mod:`.webgraph`); the top nodes: :func:`dump_nodes` (:mod:`.nodedumper`).
See docs/link-analysis.md.
"""

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
from gossamer.graph.webgraph import WebGraphReport, build_webgraph, check_generation, graph_tables

__all__ = [
    "INLINKS_SCHEMA",
    "MEASURES",
    "NODES_SCHEMA",
    "OUTLINKS_SCHEMA",
    "WEBGRAPH_DIR",
    "NodeValue",
    "WebGraphReport",
    "build_webgraph",
    "check_generation",
    "dense_ids",
    "dump_nodes",
    "format_entry",
    "generation",
    "graph_tables",
    "node_id",
    "top_nodes",
]
