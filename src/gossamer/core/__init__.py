"""Core records, status codes and settings: the bottom layer every other part uses.

* records: :class:`CrawlDatum` (:mod:`.datum`), Content, Parse, Outlink … (:mod:`.records`), a page's
  links as columns (:mod:`.link_columns`), the
  HTTP exchange and User-Agent (:mod:`.http`), the query AST (:mod:`.query`), job reports
  (:mod:`.reports`);
* codes and keys: status codes and schedule states (:mod:`.status`), shared metadata keys
  (:mod:`.metadata`);
* helpers: URLs, hosts, registered domains and public suffixes (:mod:`.urls`), process checks
  (:mod:`.processes`), the cache directory (:mod:`.cache_dir`), the CJK characters (:mod:`.cjk`), which IP
  addresses a fetch may connect to (:mod:`.address_policy`);
* settings: every property with its default (:mod:`.defaults`), typed declarations
  (:mod:`.property`), the layers (:mod:`.settings`).
"""

from gossamer.core.address_policy import AddressPolicy, special_kind
from gossamer.core.cache_dir import cache_root
from gossamer.core.cjk import CJK_CHARS, has_cjk
from gossamer.core.datum import (
    META_CONTENT_TYPE,
    META_FIXED_INTERVAL,
    META_GENERATE_TIME,
    META_PROTOCOL_CODE,
    META_PROTOCOL_STATUS,
    META_REPR_URL,
    META_RESPONSE_TIME,
    MILLIS_PER_DAY,
    SECONDS_PER_DAY,
    CrawlDatum,
    java_date,
    java_float,
    now_millis,
)
from gossamer.core.defaults import PROPERTY_PATTERNS
from gossamer.core.http import (
    DECOMPRESSED_LIMIT_PROPERTY,
    DEFAULT_DECOMPRESSED_LIMIT,
    HttpExchange,
    agent_string,
    http_date,
    retry_after_seconds,
)
from gossamer.core.lazy import lazy_attributes
from gossamer.core.link_columns import DatumColumns, LinkTargets, OutlinkList
from gossamer.core.metadata import (
    CRAWL_SCORE_KEY,
    DECODING_ERROR,
    DIGEST_KEY,
    META_COOKIE,
    META_ETAG,
    REFRESH_SECONDS,
    REFRESH_URL,
    TRUNCATED,
    TRUNCATED_REASON,
    WARC_RECORD_KEY,
    robots_words,
)
from gossamer.core.mime import (
    PARSE_PLUGIN_MAP,
    canonical_mime,
    detect_content_type,
    magic_type,
    mime_type_map,
    most_specific_mime,
)
from gossamer.core.process_start import DriverState, driver_state, enter_worker, start_server_early, worker_context
from gossamer.core.processes import die_with, die_with_parent, frozen_heap, page_work_gc, pid_alive, short_lived_gc
from gossamer.core.query import HIGHLIGHT_FIELDS, Clause, ClauseKind, DateRange, Query
from gossamer.core.records import (
    Content,
    Inlink,
    InlinkList,
    Outlink,
    ParseData,
    ParseStatusCode,
    ParseText,
    ProtocolStatus,
    ProtocolStatusCode,
)
from gossamer.core.reports import Report, sample_limit
from gossamer.core.settings import (
    Settings,
    SettingsError,
    UnknownPropertyError,
    all_properties,
    format_value,
    load_settings,
)
from gossamer.core.status import (
    STATE_MODIFIED,
    STATE_NOTMODIFIED,
    STATE_UNKNOWN,
    STATUS_DB_MAX,
    STATUS_FETCH_MAX,
    CrawlStatus,
    has_fetch_status,
    status_by_name,
    status_name,
)
from gossamer.core.urls import (
    MAX_URL_LENGTH,
    UrlParts,
    domain_and_suffix,
    domain_of,
    split_url,
    url_host,
    url_problem,
)

__all__ = [
    "CJK_CHARS",
    "has_cjk",
    "MAX_URL_LENGTH",
    "PARSE_PLUGIN_MAP",
    "canonical_mime",
    "detect_content_type",
    "magic_type",
    "mime_type_map",
    "most_specific_mime",
    "AddressPolicy",
    "cache_root",
    "Clause",
    "ClauseKind",
    "CRAWL_SCORE_KEY",
    "Content",
    "CrawlDatum",
    "CrawlStatus",
    "DECODING_ERROR",
    "DECOMPRESSED_LIMIT_PROPERTY",
    "DEFAULT_DECOMPRESSED_LIMIT",
    "DIGEST_KEY",
    "DateRange",
    "DatumColumns",
    "HIGHLIGHT_FIELDS",
    "HttpExchange",
    "Inlink",
    "InlinkList",
    "LinkTargets",
    "META_CONTENT_TYPE",
    "META_COOKIE",
    "META_ETAG",
    "META_FIXED_INTERVAL",
    "META_GENERATE_TIME",
    "META_PROTOCOL_CODE",
    "META_PROTOCOL_STATUS",
    "META_REPR_URL",
    "META_RESPONSE_TIME",
    "MILLIS_PER_DAY",
    "Outlink",
    "OutlinkList",
    "PROPERTY_PATTERNS",
    "ParseData",
    "ParseStatusCode",
    "ParseText",
    "ProtocolStatus",
    "ProtocolStatusCode",
    "Query",
    "REFRESH_SECONDS",
    "REFRESH_URL",
    "Report",
    "SECONDS_PER_DAY",
    "STATE_MODIFIED",
    "STATE_NOTMODIFIED",
    "STATE_UNKNOWN",
    "STATUS_DB_MAX",
    "STATUS_FETCH_MAX",
    "has_fetch_status",
    "Settings",
    "SettingsError",
    "TRUNCATED",
    "TRUNCATED_REASON",
    "UnknownPropertyError",
    "UrlParts",
    "WARC_RECORD_KEY",
    "agent_string",
    "all_properties",
    "domain_and_suffix",
    "domain_of",
    "format_value",
    "java_date",
    "java_float",
    "load_settings",
    "now_millis",
    "DriverState",
    "die_with",
    "driver_state",
    "enter_worker",
    "start_server_early",
    "worker_context",
    "die_with_parent",
    "frozen_heap",
    "lazy_attributes",
    "page_work_gc",
    "short_lived_gc",
    "pid_alive",
    "http_date",
    "retry_after_seconds",
    "robots_words",
    "sample_limit",
    "special_kind",
    "split_url",
    "status_by_name",
    "status_name",
    "url_host",
    "url_problem",
]
