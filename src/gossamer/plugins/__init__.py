"""Extension points, plugin discovery and chains.

Interfaces live in :mod:`gossamer.plugins.api` (one file, every contract); discovery and
activation in :mod:`gossamer.plugins.registry`; the URL chains in :mod:`gossamer.plugins.urlchain`
(with their batch screens, :mod:`gossamer.plugins.support.urlscreen`: ``valid_url_mask``);
the choice of a Protocol plugin by URL scheme (pages and robots.txt) in
:mod:`gossamer.plugins.protocols`; built-ins in :mod:`gossamer.plugins.builtin` (found through the
``gossamer.plugins`` entry-point group like any third-party plugin; nothing outside this package
imports them), their helpers in :mod:`gossamer.plugins.support`.  Built-ins whose code belongs to
an algorithm live with it: ``indexer-tantivy`` in :mod:`gossamer.index`, the QueryFilters in
:mod:`gossamer.search`.
"""

from gossamer.plugins.api import (
    EXTENSION_POINTS,
    FetchSchedule,
    HtmlParseFilter,
    IndexField,
    IndexingFilter,
    IndexInput,
    IndexWriter,
    Parser,
    ParseResult,
    PluginNotConfigured,
    Protocol,
    ProtocolOutput,
    QueryFilter,
    RobotsRequest,
    RobotsResponse,
    ScoringFilter,
    Signature,
    URLExemptionFilter,
    URLFilter,
    URLNormalizer,
)
from gossamer.plugins.index_batch import IndexBatch, MetadataColumn
from gossamer.plugins.protocols import ProtocolSelector
from gossamer.plugins.registry import ENTRY_POINT_GROUP, PluginInfo, PluginRepository, PluginState, discover
from gossamer.plugins.support.urlscreen import valid_url_mask
from gossamer.plugins.urlchain import URLChain, memo_url_step, settings_key, task_chain

__all__ = [
    "ENTRY_POINT_GROUP",
    "EXTENSION_POINTS",
    "FetchSchedule",
    "HtmlParseFilter",
    "IndexBatch",
    "MetadataColumn",
    "IndexField",
    "IndexInput",
    "IndexWriter",
    "IndexingFilter",
    "ParseResult",
    "Parser",
    "PluginInfo",
    "PluginNotConfigured",
    "PluginRepository",
    "PluginState",
    "Protocol",
    "ProtocolOutput",
    "ProtocolSelector",
    "QueryFilter",
    "RobotsRequest",
    "RobotsResponse",
    "ScoringFilter",
    "Signature",
    "URLChain",
    "URLExemptionFilter",
    "URLFilter",
    "URLNormalizer",
    "discover",
    "settings_key",
    "memo_url_step",
    "task_chain",
    "valid_url_mask",
]
