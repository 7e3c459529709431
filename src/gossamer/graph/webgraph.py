"""``webgraph``: build or update the web graph from segments (Nutch's ``org.apache.nutch.scoring.webgraph.WebGraph``).

:func:`build_webgraph` runs four engine jobs under the writer locks of all three
tables (taken in the order outlinks, nodes, inlinks, held for the whole run):

1. ``outlinks`` ← the stored outlinks + the segments (:mod:`.outlinks_job`); installed.
2. ``nodes`` ← the new outlinks (:mod:`.nodes_job`); installed.
3. outlinks + nodes → each link with its source's node id (:mod:`.inlinks_job`), an
   intermediate table in a staging directory of ``nodes/`` (``tmp-*``: removed when the
   run ends, and by the next writer's recovery after a crash).
4. ``inlinks`` ← step 3's links inverted, joined with the nodes; installed.

Every table keeps the part count of the stored outlinks (``store.parts`` for a new
graph), so the three are co-partitioned.  Each install is atomic; the three new
versions carry the same ``graph:<token>`` generation (and the names of the segments
the graph holds) in their description's ``absorbed``.  A crash between installs leaves
tables of different generations — :func:`check_generation` refuses them — and the next
``webgraph`` run repairs it: nodes and inlinks are rebuilt from the outlinks each run,
and applying a segment twice changes nothing (its links tie with themselves).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

from gossamer.core import Report, Settings
from gossamer.engine import Input, Job, JobResult, ProgressFn, TableJobRun, TableSource, run_job, run_table_job
from gossamer.engine import table_lock as make_lock
from gossamer.graph.inlinks_job import (
    INVERTED_SCHEMA,
    SOURCED_SCHEMA,
    InlinkReducer,
    invert,
    nodes_as_inverted,
    nodes_as_sourced,
    outlinks_as_sourced,
    source_ids,
)
from gossamer.graph.nodes_job import COUNT_SCHEMA, count_links, node_reducer
from gossamer.graph.outlinks_job import EVENT_SCHEMA, FetchMapper, OutlinkReducer, ParseDataMapper, segment_time
from gossamer.graph.outlinks_job import stored_outlinks as stored_outlinks_map
from gossamer.graph.rules import GraphSettings
from gossamer.graph.schema import (
    GENERATION_PREFIX,
    INLINKS,
    INLINKS_SCHEMA,
    NODES,
    NODES_SCHEMA,
    OUTLINKS,
    OUTLINKS_SCHEMA,
    generation,
)
from gossamer.store import (
    Place,
    TableDescription,
    TableError,
    TableVersion,
    as_place,
    discard,
    finish_version,
    live_version_dir,
    new_staging_dir,
    open_live,
    place_text,
    table_present,
)

PARSE_DATA, CRAWL_FETCH = "parse_data", "crawl_fetch"


@dataclass
class WebGraphReport(Report):
    """What one ``webgraph`` run did.

    ``done`` is false when there was nothing to do (no usable segment and no graph yet).
    ``segments`` are the segments read, ``skipped`` one message per segment left out;
    ``outlinks`` / ``nodes`` / ``inlinks`` the rows of the new versions; ``generation``
    their ``graph:<token>``.  Counters (summed over the jobs): ``pages``, ``pages_not_parsed``,
    ``pages_bad``, ``pages_filtered``, ``pages_no_fetch_time``, ``pages_gone``, ``links``,
    ``links_bad``, ``links_filtered``, ``links_stored``, ``links_stale``, ``links_duplicate``,
    ``links_internal_host``, ``links_internal_domain``, ``links_kept``, ``sources``,
    ``sources_gone``, ``sources_without_links``, ``nodes``, ``inlinks``, ``inlinks_counted``,
    ``links_without_node``, ``errors``.
    """

    counters: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    segments: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)
    outlinks: int = 0
    nodes: int = 0
    inlinks: int = 0
    generation: str = ""
    done: bool = True

    def add(self, result: JobResult, recovered: Sequence[str] = (), limit: int = 20) -> None:
        """Add a job's counters, sample errors and recovery actions."""
        for name, value in result.counters.items():
            self.counters[name] = self.counters.get(name, 0) + value
        self.errors.extend(result.errors[:max(limit - len(self.errors), 0)])
        self.recovered.extend(recovered)


def graph_tables(webgraph_dir: Place | str, settings: Settings | None = None) -> tuple[Place, Place, Place]:
    """The outlinks, nodes and inlinks table directories of a web graph."""
    root = as_place(webgraph_dir, settings)
    return root / OUTLINKS, root / NODES, root / INLINKS


def check_generation(webgraph_dir: Place | str, settings: Settings | None = None) -> str:
    """The ``graph:<token>`` of the graph's nodes and inlinks; :class:`TableError` when they differ or are absent."""
    _, nodes_dir, inlinks_dir = graph_tables(webgraph_dir, settings)
    found = []
    for directory in (nodes_dir, inlinks_dir):
        with open_live(directory) as version:  # TableError: no table
            found.append(generation(version.description.absorbed))
    if found[0] is None or found[0] != found[1]:
        raise TableError(f"the web graph at {place_text(as_place(webgraph_dir, settings))} is inconsistent: nodes "
                         f"are of generation {found[0]}, inlinks of {found[1]} (a webgraph run stopped between "
                         "installs); run webgraph again to repair it")
    return found[0]


def _segment_inputs(segment_dirs: Sequence[Place | str], settings: Settings, normalize: bool, filter: bool,
                    report: WebGraphReport) -> tuple[list[Input], list[str]]:
    """The parse_data (and, with ``link.delete.gone``, crawl_fetch) inputs of the usable segments, and their names."""
    delete_gone = GraphSettings.from_settings(settings).delete_gone
    inputs: list[Input] = []
    names: list[str] = []
    for given in segment_dirs:
        segment = as_place(given, settings)
        name = place_text(segment)
        if not segment.is_dir():
            raise FileNotFoundError(f"no such segment directory: {name}")
        tables = []
        for table, mapper in ((PARSE_DATA, ParseDataMapper(segment_time(segment.name), normalize, filter)),
                              (CRAWL_FETCH, FetchMapper(normalize, filter))):
            if table == CRAWL_FETCH and not delete_gone:
                continue
            data = segment / table
            try:
                if not table_present(data):
                    raise TableError(f"no {table} (not {'parsed' if table == PARSE_DATA else 'fetched'} yet)")
                TableVersion(data).close()
            except TableError as exc:
                if table == PARSE_DATA:
                    report.skipped.append(f"{name}: {exc}")
                    break
                continue
            tables.append(Input(TableSource(str(data)), mapper))
        else:
            inputs.extend(tables)
            report.segments.append(name)
            names.append(segment.name)
    report.counters["segments_skipped"] = len(report.skipped)
    return inputs, names


@contextmanager
def _all_locked(directories: Sequence[Place], settings: Settings) -> Iterator[list]:
    """Hold the writer locks of ``directories`` (taken in order, released in reverse)."""
    with ExitStack() as stack:
        locks = []
        for directory in directories:
            lock = make_lock(directory, settings)
            lock.acquire()
            stack.callback(lock.release)
            locks.append(lock)
        yield locks


def _not_generation(name: str) -> bool:
    return not name.startswith(GENERATION_PREFIX)


def build_webgraph(webgraph_dir: Place | str, segment_dirs: Sequence[Place | str], settings: Settings,
                   normalize: bool = False, filter: bool = False, progress: ProgressFn | None = None) -> WebGraphReport:
    """Merge ``segment_dirs`` into the web graph at ``webgraph_dir`` (see the module docstring).

    Creates the graph when it does not exist; with no usable segment an existing graph
    is rebuilt from its outlinks (repairing a crashed run).  Raises
    :class:`FileNotFoundError` for a segment directory that does not exist,
    :class:`~gossamer.store.LockedError` when another writer holds one of the tables and
    :class:`~gossamer.store.TableError` for a stored table of another kind.
    """
    started = time.monotonic()
    report = WebGraphReport()
    limit = settings.get_int("cli.max.reported.errors")
    seg_inputs, names = _segment_inputs(segment_dirs, settings, normalize, filter, report)
    outlinks_dir, nodes_dir, inlinks_dir = graph_tables(webgraph_dir, settings)
    with _all_locked((outlinks_dir, nodes_dir, inlinks_dir), settings) as locks:
        if not seg_inputs and live_version_dir(outlinks_dir) is None:
            report.done = False
            report.seconds = time.monotonic() - started
            return report
        report.generation = GENERATION_PREFIX + uuid.uuid4().hex
        parts: list[int] = []

        def build_outlinks(run: TableJobRun) -> Job:
            inputs = []
            if run.existing is not None:
                _check_kind(run.existing, OUTLINKS)
                inputs.append(Input(TableSource(str(run.existing.directory)), stored_outlinks_map, copartitioned=True))
            parts.append(run.parts)
            return Job("webgraph-outlinks", [*inputs, *seg_inputs], EVENT_SCHEMA, OutlinkReducer(),
                       OUTLINKS_SCHEMA, run.parts)

        result, recovered = run_table_job(outlinks_dir, OUTLINKS, settings, build_outlinks, progress, locks[0],
                                          [*names, report.generation], carry=_not_generation)
        report.add(result, recovered, limit)
        report.outlinks = result.rows
        with open_live(outlinks_dir) as version:
            absorbed = version.description.absorbed
            outlinks = TableSource(str(version.directory))

        def build_nodes(run: TableJobRun) -> Job:
            return Job("webgraph-nodes", [Input(outlinks, count_links)], COUNT_SCHEMA, node_reducer, NODES_SCHEMA,
                       parts[0])

        result, recovered = run_table_job(nodes_dir, NODES, settings, build_nodes, progress, locks[1], absorbed,
                                          carry=lambda _: False)
        report.add(result, recovered, limit)
        report.nodes = result.rows
        with open_live(nodes_dir) as version:
            nodes = TableSource(str(version.directory))
        staging = new_staging_dir(nodes_dir)
        try:
            sourced = Job("webgraph-sources", [Input(nodes, nodes_as_sourced, copartitioned=True),
                                               Input(outlinks, outlinks_as_sourced, copartitioned=True)],
                          SOURCED_SCHEMA, source_ids, SOURCED_SCHEMA, parts[0])
            result = run_job(sourced, staging, settings, progress)
            report.add(result, (), limit)
            finish_version(staging, TableDescription(kind="webgraph-sources", parts=parts[0], rows=result.rows,
                                                     job=sourced.name, created=int(time.time() * 1000)))

            def build_inlinks(run: TableJobRun) -> Job:
                return Job("webgraph-inlinks", [Input(nodes, nodes_as_inverted, copartitioned=True),
                                                Input(TableSource(str(staging)), invert)],
                           INVERTED_SCHEMA, InlinkReducer(), INLINKS_SCHEMA, parts[0])

            result, recovered = run_table_job(inlinks_dir, INLINKS, settings, build_inlinks, progress, locks[2],
                                              absorbed, carry=lambda _: False)
            report.add(result, recovered, limit)
            report.inlinks = result.rows
        finally:
            discard(staging)
    report.seconds = time.monotonic() - started
    return report


def _check_kind(version: TableVersion, kind: str) -> None:
    if version.description.kind != kind:
        raise TableError(f"{place_text(version.directory)} holds a {version.description.kind!r} table, not {kind}")
