"""Metadata keys that several parts share: what the fetcher, parsers, WARC files and indexer agree on.

Keys of a page's *datum* metadata (kept in the crawldb), of its *content* metadata
(response headers plus crawl facts, stored with parse_data) and of its *parse*
metadata.  A plugin that sets one of these and a job that reads it both import it from
here, so no algorithm depends on a built-in plugin's module.
"""

from __future__ import annotations

META_ETAG = "ETag"
"""Datum metadata key of a page's last ETag, sent back as If-None-Match."""
META_COOKIE = "Cookie"
"""Datum metadata key whose value is sent as the Cookie header (http.enable.cookie.header)."""
TRUNCATED = "http.content.truncated"
"""Content metadata key: ``true`` when the content was cut (Nutch's Response.TRUNCATED_CONTENT)."""
TRUNCATED_REASON = "http.content.truncated.reason"
"""Why: ``length`` (size limits), ``time`` (http.time.limit) or ``disconnect`` (http.partial.truncated)."""
DECODING_ERROR = "http.content.decoding.error"
"""Content metadata key set when the Content-Encoding could not be fully decoded (content is best effort)."""
CRAWL_SCORE_KEY = "nutch.crawl.score"
"""Content (and parse content) metadata key carrying the page's crawldb score to the parse (Nutch.SCORE_KEY)."""
DIGEST_KEY = "nutch.content.digest"
"""Content metadata key of the page signature (hex), as Nutch names it."""
WARC_RECORD_KEY = "_warc_"
"""Content-metadata key holding a page's WARC response record as ``<file name>:<byte offset>``
(the file in the segment's ``content`` directory; the offset is the start of the record's gzip member)."""
REFRESH_URL = "refresh.url"
"""Parse metadata key: absolute target of a meta refresh (the page signals a redirect)."""
REFRESH_SECONDS = "refresh.seconds"
"""Parse metadata key: delay of the meta refresh in whole seconds."""

_ROBOT_SEPARATORS = str.maketrans(",;", "  ")


def robots_words(value: str) -> set[str]:
    """The lower-cased directive words of a robots meta value (``"NOINDEX, nofollow"`` → both)."""
    return set(value.lower().translate(_ROBOT_SEPARATORS).split())
