"""What a Nutch crawl directory holds: crawldb, linkdb and segments of Nutch 1.x, 0.5 or 0.4.

Nutch 1.x (reference §6.3)::

    crawldb/current/part-r-NNNNN/{data,index}     Text → CrawlDatum (MapFiles)
    linkdb/current/part-r-NNNNN/{data,index}      Text → Inlinks
    segments/<name>/crawl_generate/part-r-NNNNN   SequenceFile Text → CrawlDatum
                    crawl_fetch/part-r-NNNNN/     MapFile Text → CrawlDatum
                    crawl_parse/part-r-NNNNN      SequenceFile Text → CrawlDatum
                    content/, parse_data/, parse_text/   MapFiles Text → Content / ParseData / ParseText

Nutch 0.4 segments (seed ``000``) hold ArrayFiles ``fetchlist``, ``fetcher``,
``fetcher_content``, ``fetcher_text``; 0.5 segments ``fetchlist``, ``fetcher``, ``content``,
``parse_text``, ``parse_data``.  A segment directory may sit under ``segments/`` or be the
crawl directory's direct child (0.x crawls put them under ``segments/`` too).

:func:`scan` finds all of it and raises :class:`NotANutchCrawl` when the directory holds
none of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gossamer.store import Place
from gossamer.store.hadoop import HadoopFormatError, data_files

SEGMENT_TABLES_1X = ("crawl_generate", "crawl_fetch", "crawl_parse", "content", "parse_data", "parse_text")
SEGMENT_TABLES_05 = ("fetchlist", "fetcher", "content", "parse_text", "parse_data")
SEGMENT_TABLES_04 = ("fetchlist", "fetcher", "fetcher_content", "fetcher_text")
CURRENT = "current"


class NotANutchCrawl(ValueError):
    """The directory given is not a Nutch crawl directory (nor a Nutch segment)."""


@dataclass
class NutchSegment:
    """One segment: its name, its generation (``1.x``, ``0.5`` or ``0.4``) and table → data files."""

    name: str
    place: Place
    kind: str
    tables: dict[str, list[Place]] = field(default_factory=dict)


@dataclass
class NutchCrawl:
    """The Nutch tables found under one directory."""

    root: Place
    crawldb: list[Place] = field(default_factory=list)
    linkdb: list[Place] = field(default_factory=list)
    segments: list[NutchSegment] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Directories that looked like Nutch tables but could not be listed."""


def _files(place: Place, problems: list[str]) -> list[Place]:
    """The data files of a table directory (parts, MapFiles or one file); [] with a note when unreadable."""
    try:
        return data_files(place)
    except HadoopFormatError as exc:
        problems.append(str(exc))
        return []


def _db_files(db: Place, problems: list[str]) -> list[Place]:
    if not db.is_dir():
        return []
    current = db / CURRENT
    return _files(current if current.is_dir() else db, problems)


def segment_kind(place: Place) -> str | None:
    """``1.x``, ``0.5``, ``0.4`` or ``None`` for a directory that is not a Nutch segment."""
    if not place.is_dir():
        return None
    names = set(place.child_names())
    if names & {"crawl_generate", "crawl_fetch", "crawl_parse", "parse_text", "parse_data"} \
            and "fetchlist" not in names and "fetcher" not in names:
        return "1.x"
    if "fetchlist" in names or "fetcher" in names:
        return "0.4" if names & {"fetcher_content", "fetcher_text"} else "0.5"
    if "content" in names and not names & {"crawldb", "linkdb", "segments"}:
        return "1.x"
    return None


def read_segment(place: Place, problems: list[str]) -> NutchSegment | None:
    """The tables of one segment directory, or ``None`` when it is not one."""
    kind = segment_kind(place)
    if kind is None:
        return None
    wanted = {"1.x": SEGMENT_TABLES_1X, "0.5": SEGMENT_TABLES_05, "0.4": SEGMENT_TABLES_04}[kind]
    segment = NutchSegment(place.name, place, kind)
    for table in wanted:
        if (place / table).is_dir() or (place / table).is_file():
            segment.tables[table] = _files(place / table, problems)
    return segment


def scan(root: Place) -> NutchCrawl:
    """Everything Nutch under ``root`` (a crawl directory, a segments directory or one segment).

    Raises :class:`NotANutchCrawl` when nothing there is a Nutch table.
    """
    if not root.is_dir():
        raise NotANutchCrawl(f"{root.display()}: no such directory")
    crawl = NutchCrawl(root)
    crawl.crawldb = _db_files(root / "crawldb", crawl.problems)
    crawl.linkdb = _db_files(root / "linkdb", crawl.problems)
    single = read_segment(root, crawl.problems)
    if single is not None:
        crawl.segments.append(single)
    else:
        holder = root / "segments" if (root / "segments").is_dir() else root
        for name in sorted(holder.child_names()):
            if name.startswith((".", "_")) or name in ("crawldb", "linkdb"):
                continue
            segment = read_segment(holder / name, crawl.problems)
            if segment is not None:
                crawl.segments.append(segment)
    if not crawl.crawldb and not crawl.linkdb and not crawl.segments:
        detail = f" ({crawl.problems[0]})" if crawl.problems else ""
        raise NotANutchCrawl(f"{root.display()}: not a Nutch crawl directory: no crawldb/current, linkdb/current "
                             f"or segments with Nutch tables{detail}")
    return crawl
