"""``readdb``: dump, look up and rank crawldb entries (Nutch's CrawlDbReader, reference §1.1).

* ``dump``: one output file per crawldb part (``<out>/part-NNNNN``), in Nutch's
  ``normal`` layout (``url<TAB>CrawlDatum.toString()``), ``csv`` (Nutch's header)
  or ``json`` (one object per line); filters by status, regex (matched against
  the whole URL, as Nutch's ``matches()``), retries and a sample fraction.
* ``lookup``: one URL, read from a single row group.
* ``top_n``: the N highest-scoring URLs (``score<TAB>url`` lines).
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gossamer.core import SECONDS_PER_DAY, CrawlDatum, java_date, java_float, status_by_name
from gossamer.crawl.readdb.stats import connect, parquet_relation
from gossamer.store import TableVersion, batch_to_datums

FORMATS = ("normal", "csv", "json")
CSV_HEADER = ["Url", "Status code", "Status name", "Fetch Time", "Modified Time", "Retries since fetch",
              "Retry interval seconds", "Retry interval days", "Score", "Signature", "Metadata"]


@dataclass(frozen=True)
class DumpFilter:
    """Which rows ``dump`` writes."""

    status: int | None = None
    regex: str | None = None
    retry: int | None = None
    sample: float | None = None

    @classmethod
    def build(cls, status: str | None = None, regex: str | None = None, retry: int | None = None,
              sample: float | None = None) -> DumpFilter:
        """Validate user input; raises :class:`ValueError` with a clear message."""
        code = None
        if status is not None:
            code = int(status) if status.isdigit() else status_by_name(status)
            if code < 0:
                raise ValueError(f"unknown status {status!r} (e.g. db_unfetched, db_fetched, db_gone)")
        if regex is not None:
            try:
                re.compile(regex)
            except re.error as exc:
                raise ValueError(f"bad -regex {regex!r}: {exc}") from None
        if sample is not None and not 0.0 < sample <= 1.0:
            raise ValueError("-sample must be a fraction in (0, 1]")
        return cls(code, regex, retry, sample)


def format_record(url: str, datum: CrawlDatum, fmt: str) -> str:
    """One dumped record, with its trailing newline."""
    if fmt == "normal":
        return f"{url}\t{datum.to_text()}\n"
    if fmt == "json":
        return json.dumps(_json_record(url, datum), ensure_ascii=False) + "\n"
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([
        url, datum.status, datum.status_name, java_date(datum.fetch_time), java_date(datum.modified_time),
        datum.retries, datum.fetch_interval, datum.fetch_interval // SECONDS_PER_DAY, java_float(datum.score),
        datum.signature_hex() or "null", "|".join(f"{k}:{v}" for k, v in datum.metadata.items()),
    ])
    return buffer.getvalue()


def _json_record(url: str, datum: CrawlDatum) -> dict[str, object]:
    return {
        "url": url, "statusCode": datum.status, "statusName": datum.status_name,
        "fetchTime": java_date(datum.fetch_time), "fetchTimeMillis": datum.fetch_time,
        "modifiedTime": java_date(datum.modified_time), "modifiedTimeMillis": datum.modified_time,
        "retriesSinceFetch": datum.retries, "retryIntervalSeconds": datum.fetch_interval,
        "retryIntervalDays": datum.fetch_interval / SECONDS_PER_DAY, "score": float(java_float(datum.score)),
        "signature": datum.signature_hex(), "metadata": datum.metadata,
    }


def _selected(version: TableVersion, part: int, flt: DumpFilter,
              rng: random.Random) -> Iterator[tuple[str, CrawlDatum]]:
    pattern = re.compile(flt.regex) if flt.regex else None
    for batch in version.iter_part(part, 16384):
        for url, datum in batch_to_datums(batch):
            if flt.status is not None and datum.status != flt.status:
                continue
            if flt.retry is not None and datum.retries != flt.retry:
                continue
            if pattern is not None and not pattern.fullmatch(url):
                continue
            if flt.sample is not None and rng.random() >= flt.sample:
                continue
            yield url, datum


def dump(version: TableVersion, out: Path, fmt: str = "normal", flt: DumpFilter = DumpFilter()) -> int:
    """Write ``out/part-NNNNN`` files (one per non-empty crawldb part); returns the records written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown dump format {fmt!r} (choose from {', '.join(FORMATS)})")
    prepare_output_dir(out)
    rng = random.Random(0)
    written = 0
    for part in range(version.parts):
        handle = None
        try:
            for url, datum in _selected(version, part, flt, rng):
                if handle is None:
                    handle = open(out / f"part-{part:05d}", "w", encoding="utf-8", newline="")  # noqa: SIM115
                    if fmt == "csv":
                        csv.writer(handle, lineterminator="\n").writerow(CSV_HEADER)
                handle.write(format_record(url, datum, fmt))
                written += 1
        finally:
            if handle is not None:
                handle.close()
    return written


def prepare_output_dir(out: Path) -> None:
    """Create ``out``; refuse (like Hadoop's output formats) when it exists and is not empty."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"output directory {out} already exists and is not empty; choose another")
    out.mkdir(parents=True, exist_ok=True)


def lookup(version: TableVersion, url: str) -> CrawlDatum | None:
    """The datum of ``url``, or ``None``."""
    rows = batch_to_datums(version.lookup(url))
    return rows[0][1] if rows else None


def top_n(version: TableVersion, n: int, min_score: float | None = None) -> list[tuple[float, str]]:
    """The ``n`` best-scoring URLs with score ≥ ``min_score`` (ties by URL)."""
    con = connect()
    where = "WHERE score >= ?" if min_score is not None else ""
    params: list[object] = [min_score] if min_score is not None else []
    rows = con.execute(
        f"SELECT score, url FROM {parquet_relation(version)} {where} ORDER BY score DESC, url LIMIT ?",
        [*params, int(n)],
    ).fetchall()
    return [(float(f"{score:.7g}"), url) for score, url in rows]


def write_top_n(rows: list[tuple[float, str]], out: Path) -> Path:
    """Write ``score<TAB>url`` lines to ``out/part-00000``."""
    prepare_output_dir(out)
    path = out / "part-00000"
    path.write_text("".join(f"{score}\t{url}\n" for score, url in rows), encoding="utf-8")
    return path
