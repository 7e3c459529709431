"""The dashboard's top pages by score: the web graph's LinkRank when it has been run, else the crawldb's score.

:func:`top_pages` asks DuckDB for the ``TOP_PAGES`` highest scores of the live
``<crawl>/webgraph/nodes`` version (with each page's inlink count) when it exists,
else of the live crawldb (the scoring filters' score: OPIC by default, or LinkRank
after ``scoreupdater``).  ``None`` when neither table is there.  Read-only, uncached
(the caller caches by the table's ``_table.json`` time).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gossamer.crawl.readdb import connect, parquet_relation
from gossamer.store import TableError, TableVersion, live_version_dir

TOP_PAGES = 20


@dataclass(frozen=True)
class TopPage:
    """One page: URL, score and (from the web graph) the number of pages linking to it."""

    url: str
    score: float
    inlinks: int | None = None


@dataclass(frozen=True)
class TopPages:
    """The best pages and where their scores come from: ``linkrank`` (web graph) or ``crawldb``."""

    source: str
    pages: list[TopPage] = field(default_factory=list)


def score_table(crawl_dir: Path) -> tuple[str, Path] | None:
    """Which table the scores come from: ``("linkrank", nodes version)``, ``("crawldb", version)`` or ``None``."""
    nodes = live_version_dir(crawl_dir / "webgraph" / "nodes")
    if nodes is not None:
        return "linkrank", Path(nodes)
    crawldb = live_version_dir(crawl_dir / "crawldb")
    return ("crawldb", Path(crawldb)) if crawldb is not None else None


def top_pages(crawl_dir: Path, memory_mb: int) -> TopPages | None:
    """The :data:`TOP_PAGES` best-scored pages of the crawl (see the module docstring)."""
    chosen = score_table(crawl_dir)
    if chosen is None:
        return None
    source, directory = chosen
    try:
        version = TableVersion(directory)
    except TableError:
        return None
    con = connect(memory_mb)
    try:
        if not version.parts:
            return TopPages(source)
        inlinks = "num_inlinks" if source == "linkrank" else "NULL"
        rows = con.execute(f"SELECT url, score, {inlinks} FROM {parquet_relation(version)} "
                           f"ORDER BY score DESC, url LIMIT {TOP_PAGES}").fetchall()
    finally:
        con.close()
        version.close()
    return TopPages(source, [TopPage(url, float(score), None if links is None else int(links))
                             for url, score, links in rows])
