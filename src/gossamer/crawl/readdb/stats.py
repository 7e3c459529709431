"""``readdb -stats``: crawldb statistics computed by DuckDB straight from the Parquet parts.

DuckDB streams the parts under a memory limit, so statistics of a crawldb far
larger than memory take seconds.  The text layout follows Nutch's CrawlDbReader.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from gossamer.core import java_date, status_name
from gossamer.store import Place, TableError, TableVersion, as_place, parts_dataset


@dataclass
class CrawlDbStats:
    """Totals of a crawldb; times in epoch ms, intervals in seconds."""

    total: int = 0
    interval: tuple[float, float, float] = (0, 0, 0)
    fetch_time: tuple[int, float, int] = (0, 0, 0)
    score: tuple[float, float, float] = (0, 0, 0)
    quantiles: list[tuple[float, float]] = field(default_factory=list)
    retries: list[tuple[int, int]] = field(default_factory=list)
    statuses: list[tuple[int, int]] = field(default_factory=list)
    hosts: dict[int, list[tuple[str, int]]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "total": self.total,
            "fetch_interval": dict(zip(("min", "avg", "max"), self.interval, strict=True)),
            "fetch_time": dict(zip(("min", "avg", "max"), self.fetch_time, strict=True)),
            "score": dict(zip(("min", "avg", "max"), self.score, strict=True)),
            "score_quantiles": {str(q): v for q, v in self.quantiles},
            "retries": {str(r): n for r, n in self.retries},
            "status": {status_name(s): n for s, n in self.statuses},
            "hosts": {status_name(s): dict(h) for s, h in self.hosts.items()},
        }

    def to_text(self, name: str) -> str:
        """Nutch's ``readdb -stats`` layout."""
        lines = [f"Statistics for CrawlDb: {name}", f"TOTAL urls:\t{self.total}"]
        if self.total:
            lines += [
                f"shortest fetch interval:\t{days_hms(self.interval[0])}",
                f"avg fetch interval:\t{days_hms(self.interval[1])}",
                f"longest fetch interval:\t{days_hms(self.interval[2])}",
                f"earliest fetch time:\t{java_date(self.fetch_time[0])}",
                f"avg of fetch times:\t{java_date(int(self.fetch_time[1]))}",
                f"latest fetch time:\t{java_date(self.fetch_time[2])}",
            ]
            lines += [f"retry {r}:\t{n}" for r, n in self.retries]
            lines += [f"score quantile {q}:\t{v}" for q, v in self.quantiles]
            lines += [f"min score:\t{self.score[0]}", f"avg score:\t{self.score[1]}",
                      f"max score:\t{self.score[2]}"]
            for status, count in self.statuses:
                lines.append(f"status {status} ({status_name(status)}):\t{count}")
                lines += [f"   {host} :\t{n}" for host, n in self.hosts.get(status, [])]
        lines.append("CrawlDb statistics: done")
        return "\n".join(lines)


def days_hms(seconds: float) -> str:
    """``30 days, 00:00:00`` (Nutch's TimingUtil.secondsToDaysHMS)."""
    whole = int(round(seconds))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{days} days, {hours:02d}:{minutes:02d}:{secs:02d}"


def connect(memory_mb: int = 1024, threads: int = 0) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with a memory limit."""
    con = duckdb.connect()
    con.execute(f"SET memory_limit='{int(memory_mb)}MB'")
    if threads > 0:
        con.execute(f"SET threads={int(threads)}")
    con.execute("SET preserve_insertion_order=false")
    return con


def parquet_relation(version: TableVersion, con: duckdb.DuckDBPyConnection | None = None) -> str:
    """SQL table expression over every part of a table version.

    DuckDB reads local parts itself; a version on another filesystem (``s3://`` …)
    is scanned as a pyarrow dataset registered on ``con`` (TableError without one).
    """
    if not as_place(version.directory).is_local:
        if con is None:
            raise TableError(f"{version.location.display()}: this query needs a table on the local filesystem")
        return _register(con, version.dataset())
    return _read_parquet([version.part_locator(i) for i in range(version.parts)])


def parts_relation(con: duckdb.DuckDBPyConnection, directory: Place, files: Sequence[str]) -> str:
    """SQL table expression over the Parquet ``files`` of ``directory`` (a job's output, say).

    Local files are read by DuckDB itself (``read_parquet``).  Files on another
    filesystem (``s3://`` …) are scanned as a pyarrow dataset registered on ``con``:
    DuckDB reaches object stores only through its httpfs extension, which is never
    downloaded.  Either way the rows are the same, so any ``ORDER BY`` over them is too.
    """
    directory = as_place(directory)
    if directory.is_local:
        return _read_parquet([str(directory / name) for name in files])
    return _register(con, parts_dataset(directory, files))


def _read_parquet(paths: Sequence[str]) -> str:
    files = ", ".join("'" + path.replace("'", "''") + "'" for path in paths)
    return f"read_parquet([{files}])"


def _register(con: duckdb.DuckDBPyConnection, dataset: object) -> str:
    name = f"arrow_dataset_{uuid.uuid4().hex[:12]}"
    con.register(name, dataset)
    return name


def crawldb_stats(
    version: TableVersion, quantiles: list[float], by_host: bool = False, memory_mb: int = 1024
) -> CrawlDbStats:
    """Compute the statistics of a crawldb version."""
    con = connect(memory_mb)
    src = parquet_relation(version, con)
    stats = CrawlDbStats()
    row = con.execute(
        f"SELECT count(*), min(fetch_interval), avg(fetch_interval), max(fetch_interval), "
        f"epoch_ms(min(fetch_time)), avg(epoch_ms(fetch_time)), epoch_ms(max(fetch_time)), "
        f"min(score), avg(score), max(score) FROM {src}"
    ).fetchone()
    assert row is not None
    stats.total = int(row[0])
    if not stats.total:
        return stats
    stats.interval = (row[1], row[2], row[3])
    stats.fetch_time = (row[4], row[5], row[6])
    stats.score = (_f32(row[7]), _f32(row[8]), _f32(row[9]))
    if quantiles:
        values = con.execute(f"SELECT quantile_cont(score, ?) FROM {src}", [quantiles]).fetchone()
        assert values is not None
        stats.quantiles = [(q, _f32(v)) for q, v in zip(quantiles, values[0], strict=True)]
    stats.retries = con.execute(f"SELECT retries, count(*) FROM {src} GROUP BY 1 ORDER BY 1").fetchall()
    stats.statuses = con.execute(f"SELECT status, count(*) FROM {src} GROUP BY 1 ORDER BY 1").fetchall()
    if by_host:
        for status, host, count in con.execute(
            f"SELECT status, host, count(*) FROM {src} GROUP BY 1, 2 ORDER BY 1, 2"
        ).fetchall():
            stats.hosts.setdefault(status, []).append((host, count))
    return stats


def _f32(value: float) -> float:
    """Round a float32-derived value to the shortest form that prints cleanly."""
    return float(f"{value:.7g}")
