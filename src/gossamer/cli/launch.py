"""The ``gossamer`` console script's entry point: the engine's fork server first, for a command that runs jobs.

A command such as ``index`` or ``updatedb`` runs its jobs in worker processes forked from a server that
has the task modules loaded (:mod:`gossamer.core.process_start`).  Started here, before the CLI's own
imports (Typer, every command's module: ~0.3–0.4 s on one core), the server loads those modules on the
other core meanwhile, so the job's first task starts without waiting for them.  Nothing else changes:
:func:`main` then runs :func:`gossamer.cli.main.main`.

Which commands: :data:`JOB_COMMANDS`, unless the arguments choose the Spark engine or ask for help, or there
is one core.
Other commands (``search``, ``crawl`` with its own kept processes, ``--help``) start no server.

The console script is :func:`run`: :func:`main`, then :func:`exit_at_once` — the exit handlers run and the
standard streams are flushed, but the interpreter is not torn down object by object (~80 ms after an
``index`` of the doc web, on one core while the other idles; bench/README.md, session 40).

Before anything imports NumPy, :func:`main` sets :data:`ONE_THREAD_BLAS` unless the environment sets them:
NumPy's OpenBLAS otherwise starts a thread per core at import, and after each call those threads spin for
a while waiting for the next.  Gossamer's matrix products are small (language identification's scores, a
4,000-by-97 slice at most) and its processes already use every core, so the spinning was pure loss: 0.75 %
of the index job's CPU and 0.65 % of a crawl's, taken from the cores the other processes needed
(``perf``, bench/README.md, session 39).  Every process started from here inherits the setting.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

from gossamer.cli.args import command_of

JOB_COMMANDS = frozenset({"inject", "generate", "updatedb", "invertlinks", "mergelinkdb", "dedup", "index", "mergedb",
                          "webgraph", "linkrank", "scoreupdater", "sitemap", "import-nutch"})
"""Commands whose work is local-engine jobs with worker processes."""


def runs_local_jobs(args: list[str]) -> bool:
    """Whether ``args`` name a command of :data:`JOB_COMMANDS` on the local engine, on a machine of 2+ cores."""
    if command_of(args) not in JOB_COMMANDS or (os.cpu_count() or 1) < 2 or "--help" in args or "-h" in args:
        return False
    return not any(arg == "spark" or arg.endswith("engine=spark") for arg in args)


ONE_THREAD_BLAS = {"OPENBLAS_NUM_THREADS": "1"}
"""Environment that keeps NumPy's OpenBLAS (pthreads, not OpenMP) on the calling thread (see the module docstring)."""


def main() -> int:
    """Start the fork server when :func:`runs_local_jobs`, then run the CLI; returns its exit code."""
    for name, value in ONE_THREAD_BLAS.items():
        os.environ.setdefault(name, value)
    if runs_local_jobs(sys.argv[1:]):
        from gossamer.core import start_server_early

        try:
            start_server_early()
        except OSError:  # no server: the first job starts it, or spawns
            pass
    from gossamer.cli.main import main as cli_main

    return cli_main()


def exit_at_once(code: int) -> NoReturn:
    """End the process with ``code`` as ``sys.exit`` would, without the interpreter's teardown.

    The exit handlers (``atexit``: the fork server stopped and waited for, logging flushed, temporary
    directories removed) run and stdout/stderr are flushed; what is skipped is freeing every object and
    module.  While a thread that is not a daemon still runs, this is ``sys.exit(code)`` (which waits for it).
    """
    main_thread = threading.main_thread()
    if any(t is not main_thread and t.is_alive() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can reach it
            pass
    os._exit(code)


def run() -> NoReturn:
    """The console script ``gossamer``: :func:`main`, then :func:`exit_at_once` with its exit code."""
    exit_at_once(main())


__all__ = ["JOB_COMMANDS", "ONE_THREAD_BLAS", "exit_at_once", "main", "run", "runs_local_jobs"]
