"""Link analysis (Nutch 1.x's WebGraph, LinkRank, ScoreUpdater, NodeDumper).

Tables and node ids: :mod:`.schema`.  See docs/link-analysis.md.
"""

from gossamer.graph.schema import (
    INLINKS_SCHEMA,
    NODES_SCHEMA,
    OUTLINKS_SCHEMA,
    WEBGRAPH_DIR,
    dense_ids,
    generation,
    node_id,
)

__all__ = [
    "INLINKS_SCHEMA",
    "NODES_SCHEMA",
    "OUTLINKS_SCHEMA",
    "WEBGRAPH_DIR",
    "dense_ids",
    "generation",
    "node_id",
]
