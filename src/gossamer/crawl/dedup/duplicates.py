"""Finding duplicates in a crawldb: Nutch's DeduplicationJob, first job (map + reduce).

Candidates are the ``db_fetched`` / ``db_notmodified`` rows with a non-empty
signature.  Their group key is the signature, plus the host (``-group host``) or
the registered domain (``-group domain``).  An engine job (so it runs on Spark too)
maps every crawldb part to its candidates keyed by group, shuffles them by that key
and runs Nutch's reducer over each group in its reduce (:func:`fold_group`, members
sorted by URL); its output is the list of duplicate URLs.

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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import CrawlStatus, Settings, domain_of
from gossamer.engine import Input, Job, TableSource, TaskContext, run_job
from gossamer.store import KEY_PARTITIONER_NAME, Place, TableVersion, part_name, read_parquet_file

GROUP_MODES = ("none", "host", "domain")
CRITERIA = ("score", "fetchTime", "httpsOverHttp", "urlLength")
REQUIRED_CRITERIA = ("score", "fetchTime", "urlLength")
DEFAULT_COMPARE_ORDER = ("score", "fetchTime", "urlLength")
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


MEMBER_SCHEMA = pa.schema([pa.field("gkey", pa.string(), nullable=False), pa.field("url", pa.string(), nullable=False),
                           pa.field("score", pa.float32()), pa.field("fetch_ms", pa.int64())])
DUPLICATE_SCHEMA = pa.schema([pa.field("url", pa.string(), nullable=False)])
_ELIGIBLE = pa.array([int(CrawlStatus.DB_FETCHED), int(CrawlStatus.DB_NOTMODIFIED)], pa.uint8())


@dataclass(frozen=True)
class GroupMembers:
    """Map: the candidates of a crawldb batch with their group key (signature in hex, then host/domain)."""

    group: str

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the candidates in :data:`MEMBER_SCHEMA`; count total, previous duplicates and candidates."""
        status, signature = batch.column("status"), batch.column("signature")
        ctx.count("total", batch.num_rows)
        ctx.count("previous", pc.sum(pc.equal(status, int(CrawlStatus.DB_DUPLICATE))).as_py() or 0)
        eligible = pc.and_(pc.is_in(status, value_set=_ELIGIBLE),
                           pc.fill_null(pc.greater(pc.binary_length(signature), 0), False))
        rows = batch.filter(eligible)
        if rows.num_rows == 0:
            return
        ctx.count("candidates", rows.num_rows)
        if self.group == "none":
            suffixes = [""] * rows.num_rows
        else:
            hosts = rows.column("host").to_pylist()
            suffixes = hosts if self.group == "host" else [domain_of(h) for h in hosts]
        keys = [f"{sig.hex()} {suffix}" for sig, suffix in zip(rows.column("signature").to_pylist(), suffixes,
                                                                  strict=True)]
        fetch_ms = rows.column("fetch_time").cast(pa.int64())
        yield pa.RecordBatch.from_arrays([pa.array(keys, pa.string()), rows.column("url"), rows.column("score"),
                                          fetch_ms], schema=MEMBER_SCHEMA)


@dataclass(frozen=True)
class FoldGroups:
    """Reduce: Nutch's reducer over every group of two or more members; yields the duplicate URLs."""

    order: tuple[str, ...]

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Fold the groups of ``batch`` (whole groups, by the engine's contract), members in URL order."""
        table = pa.Table.from_batches([batch]).select(MEMBER_SCHEMA.names)
        table = table.take(pc.sort_indices(table, sort_keys=[("gkey", "ascending"), ("url", "ascending")]))
        if table.num_rows < 2:
            return
        keys = table.column("gkey")
        n = table.num_rows
        starts = [0, *(i + 1 for i in pc.indices_nonzero(pc.not_equal(keys.slice(1), keys.slice(0, n - 1)))
                       .to_pylist()), n]
        groups = sum(1 for lo, hi in zip(starts, starts[1:], strict=False) if hi - lo > 1)
        if groups == 0:
            return
        ctx.count("groups", groups)
        duplicates, _ = _fold_table(table, starts, self.order)
        if len(duplicates):
            yield pa.RecordBatch.from_arrays([duplicates], schema=DUPLICATE_SCHEMA)


def find_duplicates(version: TableVersion, settings: Settings, group: str, order: Sequence[str],
                    work_dir: Place) -> Duplicates:
    """Run the first job over a crawldb version (module docstring), its output written into ``work_dir``.

    ``work_dir`` is a staging directory of the crawldb, on whatever filesystem the
    crawldb lives (on a cluster the reduce tasks write it); its parts are read back here.
    """
    job = Job("dedup-find", [Input(TableSource(str(version.directory)), GroupMembers(group))], MEMBER_SCHEMA,
              FoldGroups(tuple(order)), DUPLICATE_SCHEMA, version.parts, key="gkey",
              partitioner=KEY_PARTITIONER_NAME)
    result = run_job(job, work_dir, settings)
    counts = result.counters
    urls = [read_parquet_file(work_dir / part_name(i), ["url"]).column("url") for i in range(job.parts)]
    chunks = [chunk for column in urls for chunk in column.chunks]
    return Duplicates(pa.concat_arrays(chunks) if chunks else pa.array([], pa.string()), counts["candidates"],
                      counts["groups"], counts["previous"], counts["total"])


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
