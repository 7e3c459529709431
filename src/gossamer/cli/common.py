"""What every command shares: ``-D`` overrides, settings loading, errors and exit codes, progress.

Exit codes: 0 done, 1 nothing to do, 2 usage or input error (bad option, bad
file, bad setting, a locked table …).  Errors are one clear line on stderr,
never a stack trace.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from gossamer.core import Settings, SettingsError, load_settings
from gossamer.store import Place, as_place

if TYPE_CHECKING:
    pass

EXIT_OK, EXIT_NOTHING, EXIT_USAGE, EXIT_FAILED = 0, 1, 2, 3
WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EIO})
"""OSError numbers that mean the job could not write its output: exit code 3, not a usage error."""

err_console = Console(stderr=True, highlight=False)
out_console = Console(highlight=False, soft_wrap=True)


@dataclass
class CliState:
    """Options taken out of argv before Typer parses it."""

    defines: list[str] = field(default_factory=list)
    conf: Path | None = None


STATE = CliState()


def extract_defines(argv: list[str]) -> list[str]:
    """Remove ``-D name=value`` / ``-Dname=value`` / ``--define name=value`` from argv into :data:`STATE`.

    ``--engine NAME`` (anywhere, any command) is short for ``-D engine=NAME``.
    """
    rest: list[str] = []
    items = iter(argv)
    for arg in items:
        if arg in ("-D", "--define"):
            value = next(items, None)
            if value is None:
                fail(f"{arg} needs a name=value argument")
            STATE.defines.append(value)
        elif arg == "--engine":
            value = next(items, None)
            if not value:
                fail("--engine needs a name (local or spark)")
            STATE.defines.append(f"engine={value}")
        elif arg.startswith("--engine="):
            STATE.defines.append(f"engine={arg.split('=', 1)[1]}")
        elif arg.startswith("-D") and len(arg) > 2:
            STATE.defines.append(arg[2:])
        elif arg.startswith("--define="):
            STATE.defines.append(arg.split("=", 1)[1])
        else:
            rest.append(arg)
    return rest


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``error: message`` to stderr and exit with ``code``."""
    err_console.print(f"[bold red]error:[/] {message}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def settings_for(crawl_dir: Path | None) -> Settings:
    """Effective settings for a command working in ``crawl_dir``; exits 2 on a bad setting."""
    try:
        return load_settings(crawl_dir, conf=STATE.conf, env=os.environ, overrides=STATE.defines)
    except SettingsError as exc:
        fail(str(exc))


def _place_and_settings(text: str, crawl_dir: Callable[[Path], Path]) -> tuple[Place, Settings]:
    """A path or URI from the command line and its settings (a local one's from ``crawl_dir(path)``)."""
    from gossamer.store import is_uri

    try:
        if is_uri(text):
            settings = settings_for(None)
            return as_place(text, settings), settings
        path = as_place(text)
        return path, settings_for(crawl_dir(path.local_path()))
    except ValueError as exc:
        fail(str(exc))


def table_argument(text: str) -> tuple[Place, Settings]:
    """A table given on the command line (a path, ``file://…``, ``s3://…``, ``hdfs://…``) and its settings.

    A local table's crawl directory supplies its configuration (``gossamer.toml`` …);
    a table on another filesystem has none there (use ``--conf`` or ``-D``), and the
    settings (``fs.s3.*``) decide how its filesystem is reached.  Exits 2 on a bad URI.
    """
    from gossamer.store import CrawlLayout

    return _place_and_settings(text, lambda path: CrawlLayout.of_table(path).root)


def crawl_dir_argument(text: str) -> tuple[Place, Settings]:
    """A crawl directory (a path or a URI) and its settings; exits 2 on a bad URI.

    A local crawl directory supplies its own configuration (``gossamer.toml`` …); one
    on another filesystem has none there (``--conf`` and ``-D`` apply).
    """
    return _place_and_settings(text, lambda path: path)


def segment_argument(text: str) -> tuple[Place, Settings]:
    """A segment given on the command line (a path or URI) and its settings.

    A local segment's crawl directory (``<crawl>/segments/<name>``) supplies the
    configuration; one on another filesystem has none there (``--conf``, ``-D``).
    """
    from gossamer.store import CrawlLayout

    return _place_and_settings(text, lambda path: CrawlLayout.of_table(path.parent).root)


def place_argument(text: str, settings: Settings) -> Place:
    """A directory given on the command line, local or a URI reached with ``settings``; exits 2 on a bad URI."""
    try:
        return as_place(text, settings)
    except ValueError as exc:
        fail(str(exc))


def local_path_argument(text: str, what: str) -> Path:
    """A command-line path that must be local (dump directories …); a URI (``s3://…``) exits 2 saying so.

    ``file://`` URIs are accepted as the local paths they name.
    """
    from gossamer.store import is_uri

    if is_uri(text):
        fail(f"{text}: {what} must be a local path")
    try:
        return as_place(text).local_path()
    except ValueError as exc:
        fail(str(exc))


def segment_arguments(segments: list[str] | None, segments_dir: str | None,
                      settings: Settings | None = None) -> list[Place]:
    """The segments named on the command line plus every segment in ``-dir`` (oldest first).

    Each may be a local path or a URI (``s3://…``, reached with ``settings``); a
    segment on another filesystem counts in ``-dir`` once its ``crawl_generate/_SUCCESS``
    exists.  Exits 2 for a bad URI or when no segment is given at all.
    """
    from gossamer.store import list_segments

    settings = settings if settings is not None else settings_for(None)
    chosen = [place_argument(segment, settings) for segment in segments or []]
    if segments_dir is not None:
        try:
            chosen += list_segments(place_argument(segments_dir, settings))
        except OSError as exc:
            fail(str(exc))
    if not chosen:
        fail("give segment directories or -dir <segments_dir>")
    return chosen


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn expected failures into one line on stderr and an exit code.

    Exit 2 for bad input, a locked table, a missing file or unreachable storage; exit 3 when
    the job itself failed (a task failed, the disk is full or read-only), having installed nothing.
    """
    from gossamer.engine import TaskFailed
    from gossamer.store import LockedError, TableError

    try:
        yield
    except TaskFailed as exc:
        fail(f"{_one_line(exc)} (nothing of this run was installed)", EXIT_FAILED)
    except OSError as exc:
        fail(_one_line(exc), EXIT_FAILED if exc.errno in WRITE_FAILURES else EXIT_USAGE)
    except (SettingsError, LockedError, TableError, ValueError) as exc:
        fail(_one_line(exc))
    except Exception as exc:
        if type(exc).__module__.lstrip("_").startswith("duckdb"):  # a query over damaged or unreadable files
            fail(f"cannot read the table: {_one_line(exc)}")
        raise


def _one_line(exc: BaseException) -> str:
    """The first line of an error message (DuckDB and Arrow add context lines)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


@contextmanager
def job_progress(title: str) -> Iterator[Callable[[str, int, int], None] | None]:
    """A progress callback drawing a bar on stderr when it is a terminal (else ``None``)."""
    if not sys.stderr.isatty():
        yield None
        return
    with Progress(TextColumn(f"{title} {{task.description}}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err_console, transient=True) as progress:
        tasks: dict[str, object] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = progress.add_task(phase, total=total)
            progress.update(tasks[phase], completed=done)  # type: ignore[arg-type]

        yield update


def print_errors(errors: list[str], total: int) -> None:
    """Print sample error messages and how many more were counted."""
    for message in errors:
        err_console.print(f"[yellow]skipped:[/] {message}", markup=True, highlight=False, soft_wrap=True)
    if total > len(errors):
        err_console.print(f"… and {total - len(errors)} more (raise cli.max.reported.errors to see them)",
                          highlight=False)
