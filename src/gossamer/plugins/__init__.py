"""Extension points, plugin discovery and chains.

Interfaces live in :mod:`gossamer.plugins.api`; discovery and activation in
:mod:`gossamer.plugins.registry`; built-ins in :mod:`gossamer.plugins.builtin`.
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
from gossamer.plugins.protocols import ProtocolSelector
from gossamer.plugins.registry import ENTRY_POINT_GROUP, PluginInfo, PluginRepository, PluginState, discover
from gossamer.plugins.urlchain import URLChain, settings_key, task_chain

__all__ = [
    "ENTRY_POINT_GROUP",
    "EXTENSION_POINTS",
    "FetchSchedule",
    "HtmlParseFilter",
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
    "RobotsRequest",
    "RobotsResponse",
    "QueryFilter",
    "ScoringFilter",
    "Signature",
    "URLChain",
    "URLExemptionFilter",
    "URLFilter",
    "URLNormalizer",
    "discover",
    "settings_key",
    "task_chain",
]
