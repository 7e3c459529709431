"""The crawl directory layout (DESIGN.md §2)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CrawlLayout:
    """Paths inside a crawl directory; nothing is created until a job writes."""

    root: Path

    @classmethod
    def of_table(cls, table_dir: Path) -> CrawlLayout:
        """The crawl directory holding a table directory such as ``crawl/crawldb``."""
        return cls(table_dir.resolve().parent)

    @property
    def crawldb(self) -> Path:
        """URL → CrawlDatum."""
        return self.root / "crawldb"

    @property
    def linkdb(self) -> Path:
        """URL → inlinks."""
        return self.root / "linkdb"

    @property
    def segments(self) -> Path:
        """One directory per generate/fetch/parse round."""
        return self.root / "segments"

    @property
    def webgraph(self) -> Path:
        """Nodes, outlinks, inlinks and scores."""
        return self.root / "webgraph"

    @property
    def index(self) -> Path:
        """Full-text index shards."""
        return self.root / "index"

    @property
    def config_file(self) -> Path:
        """The crawl's own settings file."""
        return self.root / "gossamer.toml"
