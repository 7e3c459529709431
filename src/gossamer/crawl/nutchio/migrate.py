"""``import-nutch`` and ``export-nutch``: whole crawls between Nutch's files and Gossamer's.

:func:`import_nutch` scans the Nutch directory (:mod:`.nutch_layout`; not a Nutch crawl →
:class:`~.nutch_layout.NotANutchCrawl`), imports the crawldb and the linkdb as table jobs
(:mod:`.table_import`) and the segments as task sets (:mod:`.segment_import`,
:mod:`.legacy_import`).  :func:`export_nutch` writes the crawldb, linkdb and segments of a
Gossamer crawl as Nutch 1.x files (:mod:`.table_export`, :mod:`.segment_export`).  Both
return a :class:`MigrationReport`: records converted and records that could not be, per
table, with sample messages.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from gossamer.core import Settings, sample_limit
from gossamer.crawl.nutchio.nutch_layout import scan
from gossamer.crawl.nutchio.segment_export import export_segments
from gossamer.crawl.nutchio.segment_import import import_segments
from gossamer.crawl.nutchio.segment_rows import PartTally
from gossamer.crawl.nutchio.table_export import export_tables
from gossamer.crawl.nutchio.table_import import import_table
from gossamer.store import CrawlLayout, Place, list_segments, live_version_dir


@dataclass
class MigrationReport:
    """Per table: records converted and records not converted (bad); samples, notes, time."""

    converted: Counter[str] = field(default_factory=Counter)
    bad: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    segments: list[str] = field(default_factory=list)
    seconds: float = 0.0
    limit: int = 20

    def add(self, tally: PartTally) -> None:
        """Add a tally of part tasks."""
        self.converted.update(tally.converted)
        self.bad.update(tally.bad)
        self.samples.extend(tally.samples[:max(0, self.limit - len(self.samples))])

    def add_job(self, table: str, counters: Counter[str], errors: list[str]) -> None:
        """Add a table job's counters (``converted``, ``bad``, ``duplicates``) and error samples."""
        self.converted[table] += counters.get("converted", 0)
        self.bad[table] += counters.get("bad", 0)
        if counters.get("duplicates"):
            self.notes.append(f"{table}: {counters['duplicates']} duplicate URL(s) dropped (one row per URL kept)")
        self.samples.extend(errors[:max(0, self.limit - len(self.samples))])

    def lines(self, verb: str) -> list[str]:
        """The summary printed by the commands: one line per table."""
        tables = sorted(set(self.converted) | set(self.bad), key=_table_order)
        out = [f"{table}: {self.converted[table]} record(s) {verb}, {self.bad[table]} could not be"
               for table in tables]
        if self.segments:
            out.append(f"segments: {len(self.segments)} ({', '.join(self.segments)})")
        out.extend(self.notes)
        out.append(f"done in {self.seconds:.1f} s")
        return out


ORDER = ("crawldb", "linkdb", "crawl_generate", "crawl_fetch", "content", "crawl_parse", "parse_data", "parse_text")


def _table_order(name: str) -> tuple[int, str]:
    return (ORDER.index(name) if name in ORDER else len(ORDER), name)


def import_nutch(nutch_dir: Place, crawl_dir: Place, settings: Settings,
                 split_bytes: int | None = None) -> MigrationReport:
    """Import the Nutch crawl (or segments directory, or segment) at ``nutch_dir`` into ``crawl_dir``.

    The crawldb and linkdb replace any there (the old version stays as ``old``); segments
    already present are skipped.  Segments need a local ``crawl_dir``.  Raises
    :class:`~.nutch_layout.NotANutchCrawl` when ``nutch_dir`` holds nothing of Nutch's.
    """
    started = time.monotonic()
    report = MigrationReport(limit=sample_limit(settings))
    crawl = scan(nutch_dir)
    report.notes.extend(f"unreadable: {problem}" for problem in crawl.problems)
    layout = CrawlLayout(crawl_dir)
    fetched = [s.name for s in crawl.segments if "crawl_fetch" in s.tables or "fetcher" in s.tables]
    for kind, files in (("crawldb", crawl.crawldb), ("linkdb", crawl.linkdb)):
        if not files:
            continue
        table_dir = layout.crawldb if kind == "crawldb" else layout.linkdb
        result = import_table(table_dir, kind, files, settings, absorbs=fetched if kind == "crawldb" else (),
                              split_bytes=split_bytes)
        report.add_job(kind, result.counters, result.errors)
    if crawl.segments:
        if not crawl_dir.is_local:
            report.notes.append("segments: not imported (segments are imported into a local crawl directory only)")
        else:
            tally, imported, notes = import_segments(crawl.segments, layout.segments.local_path(), settings)
            report.add(tally)
            report.segments = imported
            report.notes.extend(notes)
    report.seconds = time.monotonic() - started
    return report


def export_nutch(crawl_dir: Place, out_dir: Path, settings: Settings, parts: int | None = None) -> MigrationReport:
    """Write the crawldb, linkdb and segments of the Gossamer crawl at ``crawl_dir`` as Nutch 1.x files."""
    started = time.monotonic()
    report = MigrationReport(limit=sample_limit(settings))
    layout = CrawlLayout(crawl_dir)
    tables = [(kind, table_dir, out_dir / kind) for kind, table_dir in
              (("crawldb", layout.crawldb), ("linkdb", layout.linkdb)) if live_version_dir(table_dir) is not None]
    found = bool(tables)
    if tables:
        report.add(export_tables(tables, settings, parts))
    segments = list_segments(layout.segments)
    if segments:
        found = True
        report.add(export_segments(segments, out_dir / "segments", settings))
        report.segments = [segment.name for segment in segments]
    if not found:
        raise ValueError(f"{crawl_dir.display()}: no crawldb, linkdb or segments to export")
    report.seconds = time.monotonic() - started
    return report
