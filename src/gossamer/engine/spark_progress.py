"""Progress of a running Spark job: task counts per stage, polled from Spark's status tracker.

Spark runs a gossamer job as one Spark job of two stages — the map stage (shuffle map) and
the reduce stage (result) — so the lower stage id is ``map`` and the next one ``reduce``.
:class:`StageProgress` tags the job with a job group, polls ``statusTracker()`` from a
daemon thread every ``interval`` seconds while the job runs, and calls
``progress(phase, completed_tasks, total_tasks)`` whenever a count changes — the same
callback the local engine calls as its tasks finish.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Sequence
from typing import Any

from gossamer.engine.local import ProgressFn


class StageProgress:
    """Context manager around the action (``collect``) of one Spark job."""

    def __init__(self, context: Any, description: str, progress: ProgressFn | None,
                 phases: Sequence[str] = ("map", "reduce"), interval: float = 0.5) -> None:
        self.context = context
        self.description = description
        self.progress = progress
        self.phases = tuple(phases)
        self.interval = interval
        self.group = f"gossamer-{uuid.uuid4().hex[:12]}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reported: dict[str, tuple[int, int]] = {}

    def __enter__(self) -> StageProgress:
        self.context.setJobGroup(self.group, self.description)
        if self.progress is not None:
            self._thread = threading.Thread(target=self._poll, name="gossamer-spark-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.context.setLocalProperty("spark.jobGroup.id", None)
        self.context.setLocalProperty("spark.job.description", None)

    def _poll(self) -> None:
        tracker = self.context.statusTracker()
        while not self._stop.wait(self.interval):
            try:
                self.poll_once(tracker)
            except Exception:  # noqa: BLE001 - progress is best effort; the job itself reports failures
                return

    def poll_once(self, tracker: Any) -> None:
        """Report the current task counts of the group's stages (changed ones only)."""
        stages: set[int] = set()
        for job_id in tracker.getJobIdsForGroup(self.group):
            info = tracker.getJobInfo(job_id)
            if info is not None:
                stages.update(info.stageIds)
        for phase, stage_id in zip(self.phases, sorted(stages), strict=False):
            stage = tracker.getStageInfo(stage_id)
            if stage is None:
                continue
            counts = (stage.numCompletedTasks, stage.numTasks)
            if self._reported.get(phase) != counts and self.progress is not None:
                self._reported[phase] = counts
                self.progress(phase, *counts)
