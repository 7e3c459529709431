"""Core records, status codes and settings: the bottom layer every other part uses.

* records: :class:`CrawlDatum` (:mod:`.datum`), Content, Parse, Outlink … (:mod:`.records`), the
  HTTP exchange and User-Agent (:mod:`.http`), the query AST (:mod:`.query`), job reports
  (:mod:`.reports`);
* codes and keys: status codes and schedule states (:mod:`.status`), shared metadata keys
  (:mod:`.metadata`);
* helpers: URLs, hosts, registered domains and public suffixes (:mod:`.urls`), process checks
  (:mod:`.processes`);
* settings: every property with its default (:mod:`.defaults`), typed declarations
  (:mod:`.property`), the layers (:mod:`.settings`).
"""

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
