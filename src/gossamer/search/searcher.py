"""Opening a searcher, and what a hit offers on demand: the cached page and the anchors pointing at it.

``open_searcher(crawl_dir, settings)`` opens every shard of ``<crawl>/index`` in
this process (``index=`` names another index: a path or a URI such as
``s3://bucket/crawl/index``, searched through a local cache, see
:mod:`gossamer.search.shards`); with ``nodes=["host:port", …]`` it talks to search
nodes instead (:mod:`gossamer.search.remote`).  Either way the result is a
:class:`~gossamer.search.broker.Broker`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fastwarc.warc import ArchiveIterator

from gossamer.core import Inlink, Settings
from gossamer.search.broker import Broker
from gossamer.search.shards import ShardSet
from gossamer.store import CrawlLayout, Place

CACHED_LIMIT = 8 << 20


def open_searcher(crawl_dir: Path | None, settings: Settings, nodes: Sequence[str] | None = None,
                  index: Place | str | None = None) -> Broker:
    """A broker over the crawl's index (or ``index``, a path or URI), or over the given search nodes.

    ``crawl_dir`` may be ``None`` when ``index`` is given.
    """
    if nodes:
        from gossamer.search.remote import RemoteNode

        remotes = [RemoteNode(address, settings.get_float("searcher.node.timeout")) for address in nodes]
        return Broker(remotes, settings, names=list(nodes))
    if index is None:
        if crawl_dir is None:
            raise ValueError("open_searcher needs a crawl directory or an index")
        index = CrawlLayout(Path(crawl_dir)).index
    shards = ShardSet(index, settings, crawl_dir=Path(crawl_dir) if crawl_dir is not None else None)
    return Broker([shards], settings, names=["local index"])


@dataclass(frozen=True)
class CachedPage:
    """A stored response: URL, status, content type and body (at most 8 MB)."""

    url: str
    status: int
    content_type: str
    body: bytes


def cached_page(crawl_dir: Path, locator: str) -> CachedPage | None:
    """The WARC response a document's ``warc`` field points at (``<segment>/<file>:<offset>``).

    Returns ``None`` when the locator is malformed or leaves the segments
    directory, or the file or record is missing.
    """
    segment, _, rest = locator.partition("/")
    name, _, offset_text = rest.rpartition(":")
    if not segment or not name or not offset_text.isdigit() or "/" in name or name.startswith(".") \
            or segment.startswith("."):
        return None
    segments = CrawlLayout(Path(crawl_dir)).segments.resolve()
    path = (segments / segment / "content" / name).resolve()
    if segments not in path.parents or not path.is_file():
        return None
    with open(path, "rb") as stream:
        stream.seek(int(offset_text))
        for record in ArchiveIterator(stream, parse_http=True):
            http = record.http_headers
            if http is None:
                return None
            return CachedPage(record.headers.get("WARC-Target-URI") or "", http.status_code or 0,
                              http.get("Content-Type") or "", record.reader.read(CACHED_LIMIT))
    return None


def anchors(crawl_dir: Path, url: str, limit: int = 100) -> list[Inlink]:
    """The inlinks (source URL, anchor text) of ``url`` from the crawl's linkdb ([] without one)."""
    from gossamer.crawl.linkdb import read_inlinks

    return read_inlinks(CrawlLayout(Path(crawl_dir)).linkdb, url, limit=limit)
