"""How the local engine starts a job's worker processes: forks of a server that has the task modules loaded.

A *spawned* process is a new interpreter that imports pyarrow, NumPy and gossamer's task modules again
before its first task: ~0.3 s of CPU per process (the ``index`` job's two workers spent 0.6–0.7 s of its
~14 s that way).  With the ``forkserver`` start method one server
process per driver imports :data:`PRELOAD` once; every worker is a fork of it and starts with those
modules loaded.  That is the method once :func:`start_server_early` ran (the console script does, for a
command that runs jobs) or with ``GOSSAMER_START_METHOD=forkserver``; otherwise, with
``GOSSAMER_START_METHOD=spawn`` or on a platform without fork servers, workers are spawned.

Contract:

* :func:`worker_context` is the multiprocessing context to start workers with; the first call under
  ``forkserver`` starts the server, unless :func:`start_server_early` did (the console script does for a
  command that runs jobs: :mod:`gossamer.cli.launch`).
* A fork of the server has the *server's* working directory, environment and ``sys.path``, which are
  the driver's of when the server started.  :func:`driver_state` is the driver's now; a worker adopts it
  first (:func:`enter_worker`), so it sees what a spawned worker would (a test's ``chdir``, ``setenv``,
  ``sys.path``).  What is read only at a process's start (``MALLOC_*`` tunables, Arrow's pool, the
  interpreter's ``PYTHON*``) stays the server's: while any of those differs from the server's, workers
  are spawned (:func:`worker_context`).
* A worker's parent is the server, not the driver.  It still ends with the driver, however the driver
  ends (:func:`enter_worker`); the server ends once the driver and every worker have closed its pipe.
* The server is stopped and waited for when the driver exits, so the CPU of the server and of every
  worker it forked counts in the driver's ``RUSAGE_CHILDREN`` (benchmarks read it), as spawned workers'
  CPU does.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import sys
import threading
from dataclasses import dataclass
from multiprocessing.context import BaseContext

from gossamer.core.processes import die_with, die_with_parent

START_METHOD_ENV = "GOSSAMER_START_METHOD"
"""``forkserver`` or ``spawn``: the method whatever the command (see :func:`start_method`)."""
PRELOAD = ("gossamer.engine.local", "gossamer.engine.table_job", "gossamer.index.job", "gossamer.plugins")
"""Modules the server imports once: the engine's task functions and what every job's tasks read."""

_LOCK = threading.Lock()
_SERVER_ENVIRONMENT: list[dict[str, str]] = []
_EARLY: list[bool] = []


def start_method() -> str:
    """``forkserver`` or ``spawn`` (see the module docstring).

    :data:`START_METHOD_ENV` when it names a method this platform has; else ``forkserver`` once
    :func:`start_server_early` has started the server (a command that runs jobs), ``spawn`` otherwise: a
    program that runs jobs only now and then (a crawl, whose own task processes are spawned and kept) is
    not given a server that would stay, idle and holding ~100 MB, until it exits.
    """
    wanted = _asked_method()
    if wanted is not None:
        return wanted
    return "forkserver" if _EARLY and _has_fork_server() else "spawn"


def _asked_method() -> str | None:
    """The method :data:`START_METHOD_ENV` names, when this platform has it."""
    wanted = os.environ.get(START_METHOD_ENV, "").strip().lower()
    return wanted if wanted in ("forkserver", "spawn") and wanted in multiprocessing.get_all_start_methods() else None


def _has_fork_server() -> bool:
    return "forkserver" in multiprocessing.get_all_start_methods()


STARTUP_PREFIXES = ("MALLOC_", "MIMALLOC_", "ARROW_", "JE_", "GLIBC_", "LD_", "PYTHON", "OMP_", "OPENBLAS_")
"""Environment variables read once, when a process starts (allocator tunables, the interpreter's own): a fork
of the server has the values of the server's start, whatever :func:`enter_worker` sets."""


def startup_environment() -> dict[str, str]:
    """The variables of :data:`STARTUP_PREFIXES` in this process's environment."""
    return {k: v for k, v in os.environ.items() if k.startswith(STARTUP_PREFIXES)}


def worker_context() -> BaseContext:
    """The context to start a job's worker processes with (see the module docstring).

    Spawn, also under ``forkserver``, when a start-up-only variable (:data:`STARTUP_PREFIXES`, e.g. the
    crawl's allocator settings) differs from the server's: a fork would not have it.
    """
    if start_method() == "forkserver":
        context = multiprocessing.get_context("forkserver")
        if _ensure_server(context) == startup_environment():
            return context
    return multiprocessing.get_context("spawn")


def start_server_early() -> bool:
    """Start the server now, if ``forkserver`` is the method; whether it runs.

    Starting it is a fork and an exec (a few milliseconds here); its imports then run beside the caller's
    own start-up, on another core, instead of before a job's first task.
    """
    if not _has_fork_server() or _asked_method() == "spawn":
        return False
    _ensure_server(multiprocessing.get_context("forkserver"))
    _EARLY.append(True)
    return True


def _ensure_server(context: BaseContext) -> dict[str, str]:
    """Start the server unless it runs; the start-up-only environment it started with."""
    with _LOCK:
        if not _SERVER_ENVIRONMENT:
            context.set_forkserver_preload(list(PRELOAD))  # type: ignore[attr-defined]
            atexit.register(_stop_server)
            _SERVER_ENVIRONMENT.append(startup_environment())
        from multiprocessing import forkserver

        forkserver.ensure_running()
        return _SERVER_ENVIRONMENT[0]


def _stop_server() -> None:
    """Close the server's pipe and wait for it (it has waited for its workers), so its CPU is counted."""
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)  # CPython 3.8+; without it the server ends on its own
    if stop is not None:
        try:
            stop()
        except (OSError, ChildProcessError):
            pass


@dataclass(frozen=True)
class DriverState:
    """What a worker takes from the driver at its start: working directory, environment, import path.

    ``driver``: the driver's pid; ``forked``: the worker is a fork of the server (whose child it is).
    """

    cwd: str
    environ: dict[str, str]
    path: list[str]
    driver: int
    forked: bool


def driver_state(context: BaseContext) -> DriverState:
    """The driver's state now, for workers started from ``context`` (see :class:`DriverState`)."""
    return DriverState(os.getcwd(), dict(os.environ), list(sys.path), os.getpid(),
                       context.get_start_method() == "forkserver")


def enter_worker(state: DriverState) -> None:
    """A worker's start: adopt the driver's state, then end with the driver, however it ends.

    A spawned worker is the driver's child (:func:`~gossamer.core.die_with_parent`); a fork of the server
    watches the driver itself (:func:`~gossamer.core.die_with`): the server lives as long as its children
    hold its pipe, so following the server would keep both alive after the driver's death.
    """
    os.chdir(state.cwd)
    if dict(os.environ) != state.environ:
        os.environ.clear()
        os.environ.update(state.environ)
    sys.path[:] = state.path
    if state.forked:
        die_with(state.driver)
    else:
        die_with_parent(state.driver)


__all__ = ["PRELOAD", "STARTUP_PREFIXES", "START_METHOD_ENV", "DriverState", "driver_state", "enter_worker",
           "start_method", "start_server_early", "startup_environment", "worker_context"]
