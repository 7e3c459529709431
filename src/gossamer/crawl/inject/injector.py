"""``inject``: add seed URLs to a crawldb (Nutch's Injector, reference §1.1 and §5).

The job's map and reduce functions are in :mod:`gossamer.crawl.inject.seed_merge`; this
module runs them as one table job (lock, run, atomic install) and reports.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gossamer.core import Settings, now_millis
from gossamer.crawl.inject.seed_merge import ExistingMapper, InjectOptions, InjectReducer, SeedMapper
from gossamer.engine import Input, Job, ProgressFn, TableJobReport, TableJobRun, TableSource, TextSource, run_table_job
from gossamer.store import CRAWLDB_SCHEMA, Place


@dataclass
class InjectReport(TableJobReport):
    """What ``inject`` did: counters, sample error messages, rows in the new crawldb."""

    def summary_lines(self) -> list[str]:
        """Nutch-style summary lines."""
        c = self.counters
        lines = [
            f"Injector: Total seed lines read: {c.get('seed_lines', 0)}",
            f"Injector: Total bad seed lines (skipped): {c.get('urls_bad', 0)}",
            f"Injector: Total urls rejected by filters: {c.get('urls_filtered', 0)}",
            "Injector: Total urls injected after normalization and filtering: "
            f"{c.get('urls_injected_total', 0)}",
            f"Injector: Total urls injected but already in CrawlDb: {c.get('urls_merged', 0)}",
            f"Injector: Total duplicate urls in the seeds (last line kept): {c.get('urls_duplicate_in_seeds', 0)}",
            f"Injector: Total new urls injected: {c.get('urls_injected', 0)}",
        ]
        if c.get("urls_overwritten") or c.get("urls_updated"):
            lines.append(f"Injector: Total urls overwritten: {c.get('urls_overwritten', 0)}, "
                         f"updated: {c.get('urls_updated', 0)}")
        if c.get("urls_purged_404"):
            lines.append(f"Injector: Total urls with status gone removed from CrawlDb: {c['urls_purged_404']}")
        lines.append(f"Injector: Total urls in CrawlDb: {self.total_urls}")
        return lines


def inject(
    crawldb: Place | str, seeds: Place, settings: Settings, options: InjectOptions | None = None,
    progress: ProgressFn | None = None,
) -> InjectReport:
    """Inject the seeds at ``seeds`` (a file or a directory of files) into ``crawldb``.

    The new crawldb replaces the old one atomically under the crawldb lock.
    """
    options = options or InjectOptions()
    overwrite = options.overwrite or settings.get_bool("db.injector.overwrite")
    update = (options.update or settings.get_bool("db.injector.update")) and not overwrite
    options = replace(options, overwrite=overwrite, update=update)
    source = TextSource.from_path(seeds)

    def build(run: TableJobRun) -> Job:
        inputs: list[Input] = []
        if run.existing is not None:
            inputs.append(Input(TableSource(str(run.existing.directory)), ExistingMapper(options),
                                copartitioned=not options.filter_normalize_all))
        seed_src = len(inputs)
        inputs.append(Input(source, SeedMapper(options, now_millis())))
        return Job("inject", inputs, CRAWLDB_SCHEMA, InjectReducer(options, seed_src), CRAWLDB_SCHEMA,
                   run.parts, host_column="host")  # both maps fill "host" with hosts_of(url)

    result, recovered = run_table_job(crawldb, "crawldb", settings, build, progress)
    counters = dict(result.counters)
    return InjectReport(counters, result.errors, result.rows, result.seconds, recovered)


__all__ = ["InjectOptions", "InjectReport", "inject"]
