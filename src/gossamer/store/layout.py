"""The crawl directory layout (DESIGN.md §2), on the local filesystem or any :class:`Location`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from gossamer.store.location import Location

Root = TypeVar("Root", Path, Location)


@dataclass(frozen=True)
class CrawlLayout(Generic[Root]):
    """Places inside a crawl directory; nothing is created until a job writes.

    ``root`` is a :class:`~pathlib.Path` (the local filesystem) or a
    :class:`~gossamer.store.location.Location` (``s3://bucket/crawl`` …); every
    place inside it has the same type as ``root``.
    """

    root: Root

    @classmethod
    def of_table(cls, table_dir: Path) -> CrawlLayout[Path]:
        """The crawl directory holding a table directory such as ``crawl/crawldb``."""
        return CrawlLayout(table_dir.resolve().parent)

    @property
    def crawldb(self) -> Root:
        """URL → CrawlDatum."""
        return self.root / "crawldb"

    @property
    def linkdb(self) -> Root:
        """URL → inlinks."""
        return self.root / "linkdb"

    @property
    def segments(self) -> Root:
        """One directory per generate/fetch/parse round."""
        return self.root / "segments"

    @property
    def webgraph(self) -> Root:
        """Nodes, outlinks, inlinks and scores."""
        return self.root / "webgraph"

    @property
    def index(self) -> Root:
        """Full-text index shards."""
        return self.root / "index"

    @property
    def config_file(self) -> Root:
        """The crawl's own settings file."""
        return self.root / "gossamer.toml"
