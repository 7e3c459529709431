"""Running a map/reduce job on the engine the ``engine`` setting names."""

from __future__ import annotations

from gossamer.core import Settings, SettingsError
from gossamer.engine.api import Job, JobResult
from gossamer.engine.local import LocalEngine, ProgressFn
from gossamer.store import Place


def run_job(job: Job, output_dir: Place, settings: Settings,
            progress: ProgressFn | None = None) -> JobResult:
    """Run ``job`` on the configured engine, writing its parts into ``output_dir`` (local or a Location)."""
    engine = settings.get_str("engine")
    if engine == "local":
        return LocalEngine(settings, progress).run(job, output_dir)
    if engine == "spark":
        try:
            import pyspark  # noqa: F401 - only to give a clear message when it is missing
        except ImportError as exc:
            raise SettingsError("engine=spark needs PySpark: install gossamer[spark] (and Java 17+)") from exc
        from gossamer.engine.spark import SparkEngine

        return SparkEngine(settings, progress).run(job, output_dir)
    raise SettingsError(f"engine={engine!r}: the engines are 'local' (embedded) and 'spark'")
