"""Finding duplicates in a crawldb: Nutch's DeduplicationJob, first job (map + reduce).

Candidates are the ``db_fetched`` / ``db_notmodified`` rows with a non-empty
signature.  Their group key is the signature, plus the host (``-group host``) or
the registered domain (``-group domain``).  DuckDB scans the crawldb parts and
returns only the rows of groups with two members or more, sorted by group key and
then URL; a streaming pass then runs Nutch's reducer over each group
(:func:`fold_group`), so memory holds one batch and the largest group.

:func:`fold_group` is Nutch's ``DedupReducer``: the first member is the
"existing" document; each next member is compared with it by the compare order,
criterion after criterion, the first one that differs deciding which of the two
is the duplicate (it is marked; if it was the existing one, the new member takes
its place); when every criterion is equal nothing is marked and the existing one
stays.  Members are visited in URL order (Nutch's order is whatever Hadoop hands
the reducer), so the result depends only on the crawldb's content.  A member tied
with the existing document is never compared again, so it stays unmarked even if
a later member beats both (Nutch's behaviour, kept).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core.settings import Settings
from gossamer.core.status import CrawlStatus
from gossamer.crawl.readdb_stats import connect, parquet_relation
from gossamer.plugins.support.domains import domain_of
from gossamer.store.table import TableVersion

GROUP_MODES = ("none", "host", "domain")
CRITERIA = ("score", "fetchTime", "httpsOverHttp", "urlLength")
REQUIRED_CRITERIA = ("score", "fetchTime", "urlLength")
DEFAULT_COMPARE_ORDER = ("score", "fetchTime", "urlLength")
READ_BATCH_ROWS = 65536
DUCKDB_MIN_MEMORY_MB = 128
"""DuckDB needs some working memory whatever ``engine.memory.budget.mb`` says (it fails below ~32 MB)."""


def _eligible(alias: str = "") -> str:
    """SQL condition: the row takes part in deduplication (``alias``: table alias with its dot)."""
    return (f"{alias}status IN ({int(CrawlStatus.DB_FETCHED)}, {int(CrawlStatus.DB_NOTMODIFIED)}) "
            f"AND {alias}signature IS NOT NULL AND octet_length({alias}signature) > 0")


def parse_compare_order(order: str | Sequence[str]) -> tuple[str, ...]:
    """Validate a compare order (``"score,fetchTime,urlLength"`` or a sequence of names).

    Every name must be one of :data:`CRITERIA`, at most once, and score, fetchTime
    and urlLength must all be there (Nutch's rule).  Raises :class:`ValueError`.
    """
    names = tuple(n.strip() for n in (order.split(",") if isinstance(order, str) else order))
    unknown = [n for n in names if n not in CRITERIA]
    if unknown:
        raise ValueError(f"-compareOrder: unknown criterion {unknown[0]!r} (use {', '.join(CRITERIA)})")
    if len(set(names)) != len(names):
        raise ValueError(f"-compareOrder: a criterion is listed twice in {','.join(names)!r}")
    if not set(REQUIRED_CRITERIA) <= set(names):
        raise ValueError("-compareOrder must contain score, fetchTime and urlLength")
    return names


def check_group(group: str) -> str:
    """Validate a ``-group`` value; raises :class:`ValueError`."""
    if group not in GROUP_MODES:
        raise ValueError(f"-group must be one of {', '.join(GROUP_MODES)}, not {group!r}")
    return group


def java_decoded_length(url: str) -> int:
    """Length of the percent-decoded URL in UTF-16 code units (Java's ``URLDecoder.decode(url).length()``).

    Runs of ``%XX`` are decoded as UTF-8 (bad bytes become U+FFFD); ``+`` becomes
    a space, which keeps the length.  A ``%`` not followed by two hex digits is
    kept as it is (Java throws there, and the Nutch job fails).
    """
    if "%" not in url and url.isascii():
        return len(url)
    decoded = unquote(url, errors="replace")
    return len(decoded) + sum(1 for ch in decoded if ord(ch) > 0xFFFF)


def decoded_lengths(urls: pa.Array) -> list[int]:
    """:func:`java_decoded_length` of every URL; plain ASCII URLs without ``%`` are measured by Arrow."""
    lengths = pc.binary_length(urls).to_pylist()
    special = pc.invert(pc.and_(pc.string_is_ascii(urls), pc.invert(pc.match_substring(urls, "%"))))
    for i in pc.indices_nonzero(special).to_pylist():
        lengths[i] = java_decoded_length(urls[i].as_py())
    return lengths


@dataclass(frozen=True)
class Members:
    """Rows to fold (each group's rows together, in URL order): URL, score, fetch time (ms), decoded URL length."""

    urls: Sequence[str]
    scores: Sequence[float]
    fetch_times: Sequence[int]
    lengths: Sequence[int]


@dataclass(frozen=True)
class _Keys:
    """Sort keys of the rows to fold: tuples of criterion values where larger means "keep".

    ``before``: the criteria before ``httpsOverHttp`` (all of them when it is not in
    the order); ``after``: those after it (``None`` when it is not in the order).
    """

    before: list[tuple[float, ...]]
    after: list[tuple[float, ...]] | None
    urls: Sequence[str]


def _tuples(members: Members, criteria: Sequence[str]) -> list[tuple[float, ...]]:
    columns: list[Sequence[float]] = []
    for name in criteria:
        if name == "score":
            columns.append(members.scores)
        elif name == "fetchTime":
            columns.append(members.fetch_times)
        else:  # urlLength: the shorter URL is kept
            columns.append([-n for n in members.lengths])
    return list(zip(*columns, strict=True)) if columns else [()] * len(members.urls)


def _keys(members: Members, order: Sequence[str]) -> _Keys:
    if "httpsOverHttp" not in order:
        return _Keys(_tuples(members, order), None, members.urls)
    cut = order.index("httpsOverHttp")
    return _Keys(_tuples(members, order[:cut]), _tuples(members, order[cut + 1:]), members.urls)


def _https_pair(existing: str, new: str) -> int:
    """1 when ``existing`` is the https twin of ``new``, -1 when ``new`` is the https twin, else 0."""
    if existing.startswith("https://") and new.startswith("http://") and existing[8:] == new[7:]:
        return 1
    if new.startswith("https://") and existing.startswith("http://") and new[8:] == existing[7:]:
        return -1
    return 0


def fold_group(members: Members, order: Sequence[str], lo: int = 0, hi: int | None = None) -> list[int]:
    """Indices (in ``lo``..``hi``) of the members Nutch's reducer marks as duplicates (module docstring)."""
    return _fold(_keys(members, order), lo, len(members.urls) if hi is None else hi)


def _fold(keys: _Keys, lo: int, hi: int) -> list[int]:
    before, after, urls = keys.before, keys.after, keys.urls
    marked: list[int] = []
    best = lo
    for i in range(lo + 1, hi):
        kb, ki = before[best], before[i]
        if ki < kb:
            marked.append(i)
            continue
        if kb < ki:
            marked.append(best)
            best = i
            continue
        if after is None:
            continue
        pair = _https_pair(urls[best], urls[i])
        if pair == 0:
            kb, ki = after[best], after[i]
            pair = 1 if ki < kb else -1 if kb < ki else 0
        if pair > 0:
            marked.append(i)
        elif pair < 0:
            marked.append(best)
            best = i
    return marked


@dataclass
class Duplicates:
    """What :func:`find_duplicates` found: the URLs to mark and counts of the crawldb."""

    urls: pa.Array
    candidates: int = 0
    groups: int = 0
    previous: int = 0
    total: int = 0


def _group_sql(version: TableVersion, con: duckdb.DuckDBPyConnection, group: str) -> tuple[str, str]:
    """The group-key expression and the join it needs (domain mode registers host → domain)."""
    if group == "host":
        return "c.host", ""
    if group == "domain":
        names = [h for (h,) in con.execute(
            f"SELECT DISTINCT host FROM {parquet_relation(version)} WHERE {_eligible()}").fetchall()]
        con.register("dedup_domains", pa.table(
            {"host": pa.array(names, pa.string()), "domain": pa.array(map(domain_of, names), pa.string())}))
        return "d.domain", "JOIN dedup_domains d ON c.host = d.host"
    return "''", ""


def find_duplicates(version: TableVersion, settings: Settings, group: str, order: Sequence[str],
                    temp_dir: Path) -> Duplicates:
    """Run the first job over a crawldb version (module docstring).

    DuckDB gets ``engine.memory.budget.mb`` (at least :data:`DUCKDB_MIN_MEMORY_MB`)
    and spills into ``temp_dir`` beyond it.
    """
    con = connect(max(settings.get_int("engine.memory.budget.mb"), DUCKDB_MIN_MEMORY_MB))
    try:
        con.execute(f"SET temp_directory='{str(temp_dir).replace(chr(39), chr(39) * 2)}'")
        return _find(version, con, group, order)
    finally:
        con.close()


def _find(version: TableVersion, con: duckdb.DuckDBPyConnection, group: str, order: Sequence[str]) -> Duplicates:
    src = parquet_relation(version)
    [row] = con.execute(f"SELECT count(*) FILTER (WHERE {_eligible()}), count(*) FILTER (WHERE status = "
                        f"{int(CrawlStatus.DB_DUPLICATE)}), count(*) FROM {src}").fetchall()
    found = Duplicates(pa.array([], pa.string()), int(row[0]), 0, int(row[1]), int(row[2]))
    if found.candidates < 2:
        return found
    key, join = _group_sql(version, con, group)
    query = (f"WITH k AS (SELECT c.url, c.score, epoch_ms(c.fetch_time) AS fetch_ms, c.signature, {key} AS gkey "
             f"FROM {src} c {join} WHERE {_eligible('c.')}"
             "), m AS (SELECT *, count(*) OVER (PARTITION BY signature, gkey) AS n FROM k) "
             "SELECT url, score, fetch_ms, signature, gkey FROM m WHERE n > 1 ORDER BY signature, gkey, url")
    chunks: list[pa.Array] = []
    for urls, groups in _fold_stream(con.sql(query).to_arrow_reader(READ_BATCH_ROWS), order):
        chunks.append(urls)
        found.groups += groups
    if chunks:
        found.urls = pa.concat_arrays(chunks)
    return found


def _fold_stream(batches: Iterable[pa.RecordBatch], order: Sequence[str]) -> Iterator[tuple[pa.Array, int]]:
    """Per batch of group rows: the duplicate URLs and the number of groups folded.

    A group may span batches: the rows of the batch's last group wait for the next batch.
    """
    tail: pa.Table | None = None
    for batch in batches:
        table = pa.Table.from_batches([batch])
        if tail is not None:
            table = pa.concat_tables([tail, table])
        table = table.combine_chunks()
        if not table.num_rows:
            continue
        starts = _group_starts(table)
        if starts[-1] > 0:
            yield _fold_table(table.slice(0, starts[-1]), starts, order)
        tail = table.slice(starts[-1])
    if tail is not None and tail.num_rows:
        yield _fold_table(tail, [0, tail.num_rows], order)


def _group_starts(table: pa.Table) -> list[int]:
    """The first row of every group of a non-empty table sorted by group key."""
    n = table.num_rows
    sig, key = table.column("signature"), table.column("gkey")
    differs = pc.or_(pc.not_equal(sig.slice(1), sig.slice(0, n - 1)), pc.not_equal(key.slice(1), key.slice(0, n - 1)))
    return [0, *(i + 1 for i in pc.indices_nonzero(differs).to_pylist())]


def _fold_table(table: pa.Table, bounds: list[int], order: Sequence[str]) -> tuple[pa.Array, int]:
    """Fold every group of ``table`` (``bounds``: the first row of each group, then the row count)."""
    url_column = table.column("url").combine_chunks()
    score = table.column("score")
    scores = pc.if_else(pc.is_nan(score), pa.scalar(float("-inf"), score.type), score).to_pylist()
    members = Members(url_column.to_pylist(), scores, table.column("fetch_ms").to_pylist(),
                      decoded_lengths(url_column))
    keys = _keys(members, order)
    marked: list[int] = []
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        marked.extend(_fold(keys, lo, hi))
    return url_column.take(pa.array(marked, pa.int64())), len(bounds) - 1
