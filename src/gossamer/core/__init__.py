"""Core records, status codes and settings: the bottom layer every other part uses."""

from gossamer.core.datum import CrawlDatum, now_millis
from gossamer.core.records import (
    Content,
    Inlink,
    Outlink,
    ParseData,
    ParseStatusCode,
    ParseText,
    ProtocolStatus,
    ProtocolStatusCode,
)
from gossamer.core.settings import Settings, SettingsError, UnknownPropertyError, load_settings
from gossamer.core.status import CrawlStatus, status_by_name, status_name

__all__ = [
    "Content",
    "CrawlDatum",
    "CrawlStatus",
    "Inlink",
    "Outlink",
    "ParseData",
    "ParseStatusCode",
    "ParseText",
    "ProtocolStatus",
    "ProtocolStatusCode",
    "Settings",
    "SettingsError",
    "UnknownPropertyError",
    "load_settings",
    "now_millis",
    "status_by_name",
    "status_name",
]
