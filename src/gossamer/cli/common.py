"""What every command shares: ``-D`` overrides, settings loading, errors and exit codes, progress.

Exit codes: 0 done, 1 nothing to do, 2 usage or input error (bad option, bad
file, bad setting, a locked table …).  Errors are one clear line on stderr,
never a stack trace.
"""

from __future__ import annotations

import errno
import logging
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
from gossamer.store import Place, as_place, is_uri

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
    warned_includes: set[str] = field(default_factory=set)
    """``plugin.includes`` values already warned about in this command."""
    verbosity: int = 0
    """``-v`` count minus ``-q`` count: 0 default, 1 INFO, 2 DEBUG, -1 errors only."""


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


VERBOSE = {"-v": 1, "--verbose": 1, "-vv": 2, "-q": -1, "--quiet": -1}
"""Log-level options taken out of argv anywhere (``showproperties -v`` keeps its own ``-v``)."""
_LOG_HANDLER: logging.Handler | None = None
log = logging.getLogger("gossamer.cli")


def extract_verbosity(argv: list[str]) -> list[str]:
    """Remove ``-v``/``--verbose``/``-vv``/``-q``/``--quiet`` from argv into :data:`STATE` and set up logging.

    Taken from anywhere before a ``--``; ``-v`` after the ``showproperties`` command
    stays its own option (``--describe``).  See :func:`configure_logging`.
    """
    rest: list[str] = []
    command: str | None = None
    verbosity = 0
    for index, arg in enumerate(argv):
        if arg == "--":
            rest.extend(argv[index:])
            break
        if command is None and not arg.startswith("-"):
            command = arg
        if arg in VERBOSE and not (arg == "-v" and command == "showproperties"):
            verbosity += VERBOSE[arg]
        else:
            rest.append(arg)
    STATE.verbosity = verbosity
    configure_logging(verbosity)
    return rest


def configure_logging(verbosity: int) -> None:
    """Log gossamer's loggers to stderr: ``1`` INFO, ``2`` or more DEBUG, ``-1`` or less ERROR only.

    ``0`` leaves logging as Python has it (warnings and errors on stderr).
    """
    global _LOG_HANDLER
    root = logging.getLogger("gossamer")
    if _LOG_HANDLER is not None:
        root.removeHandler(_LOG_HANDLER)
        _LOG_HANDLER = None
    if verbosity == 0:
        root.setLevel(logging.NOTSET)
        root.propagate = True
        return
    level = logging.DEBUG if verbosity >= 2 else logging.INFO if verbosity == 1 else logging.ERROR
    _LOG_HANDLER = logging.StreamHandler(sys.stderr)
    _LOG_HANDLER.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S"))
    root.addHandler(_LOG_HANDLER)
    root.setLevel(level)
    root.propagate = False


def warn(message: str) -> None:
    """Print ``warning: message`` on stderr unless ``-q`` was given."""
    if STATE.verbosity >= 0:
        err_console.print(f"warning: {message}", markup=False, highlight=False, soft_wrap=True)


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``error: message`` to stderr and exit with ``code``."""
    err_console.print(f"[bold red]error:[/] {message}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def settings_for(crawl_dir: Path | None) -> Settings:
    """Effective settings for a command working in ``crawl_dir``; exits 2 on a bad setting.

    Warns (once per command) when ``plugin.includes`` names plugins that match nothing.
    """
    try:
        settings = load_settings(crawl_dir, conf=STATE.conf, env=os.environ, overrides=STATE.defines)
    except SettingsError as exc:
        fail(str(exc))
    log.info("settings for %s: --conf %s, %d -D override(s), engine %s", crawl_dir or "(no local crawl directory)",
             STATE.conf or "-", len(STATE.defines), settings.get_str("engine"))
    warn_unmatched_plugins(settings)
    return settings


def warn_unmatched_plugins(settings: Settings) -> None:
    """Print one warning naming the ``plugin.includes`` ids that match no plugin.

    Not an error: Nutch configurations carry ids Gossamer does not have.  Only a changed
    ``plugin.includes`` is looked at, once per value per command.
    """
    includes = settings.get_str("plugin.includes")
    if includes == Settings().get_str("plugin.includes") or includes in STATE.warned_includes:
        return
    STATE.warned_includes.add(includes)
    from gossamer.plugins import PluginRepository

    unmatched = PluginRepository(settings).unmatched_includes()
    if unmatched:
        warn(f"plugin.includes names plugins Gossamer does not have (ignored): {', '.join(unmatched)} "
             "(see gossamer plugins)")


def _place_and_settings(text: str, crawl_dir: Callable[[Path], Path],
                        hint: Callable[[Path], str | None] | None = None) -> tuple[Place, Settings]:
    """A path or URI from the command line and its settings (a local one's from ``crawl_dir(path)``).

    ``hint`` looks at a local path first: a message from it exits 2 (the wrong kind of directory).
    """
    from gossamer.store import is_uri

    try:
        if is_uri(text):
            settings = settings_for(None)
            return as_place(text, settings), settings
        path = as_place(text)
        message = hint(path.local_path()) if hint is not None else None
        if message:
            fail(message)
        return path, settings_for(crawl_dir(path.local_path()))
    except ValueError as exc:
        fail(str(exc))


def table_argument(text: str, kind: str | None = None) -> tuple[Place, Settings]:
    """A table given on the command line (a path, ``file://…``, ``s3://…``, ``hdfs://…``) and its settings.

    A local table's crawl directory supplies its configuration (``gossamer.toml`` …);
    a table on another filesystem has none there (use ``--conf`` or ``-D``), and the
    settings (``fs.s3.*``) decide how its filesystem is reached.  Exits 2 on a bad URI,
    and, when ``kind`` (``crawldb``, ``linkdb``) is given, on a local path that is
    another kind of directory or a file, saying what to give instead ("did you mean
    crawl/crawldb?").
    """
    from gossamer.cli.hints import table_hint
    from gossamer.store import CrawlLayout

    hint = (lambda path: table_hint(text, path, kind)) if kind else None
    return _place_and_settings(text, lambda path: CrawlLayout.of_table(path).root, hint)


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
    A local segments directory or crawl directory given instead exits 2 naming a segment.
    """
    from gossamer.cli.hints import segment_hint
    from gossamer.store import CrawlLayout

    return _place_and_settings(text, lambda path: CrawlLayout.of_table(path.parent).root,
                               lambda path: segment_hint(text, path, has_dir_option=False))


def place_argument(text: str, settings: Settings) -> Place:
    """A directory given on the command line, local or a URI reached with ``settings``; exits 2 on a bad URI.

    An empty argument (``""``, a shell variable that was never set) is refused rather than read
    as the current directory.
    """
    if not text.strip():
        fail("an empty path was given: name a file, a directory or a URI")
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
    exists.  Exits 2 for a bad URI, when no segment is given at all, for a local
    segments or crawl directory named as a segment (use ``-dir``), and for a local
    ``-dir`` that does not exist or is no segments directory.
    """
    from gossamer.cli.hints import segment_hint, segments_dir_hint
    from gossamer.store import list_segments

    settings = settings if settings is not None else settings_for(None)
    chosen = [place_argument(segment, settings) for segment in segments or []]
    for text, place in zip(segments or [], chosen, strict=True):
        message = segment_hint(text, place.local_path(), has_dir_option=True) if not is_uri(text) else None
        if message:
            fail(message)
    if segments_dir is not None:
        place = place_argument(segments_dir, settings)
        if not is_uri(segments_dir):
            local = place.local_path()
            if not local.exists():
                fail(f"-dir {segments_dir}: no such directory")
            message = segments_dir_hint(segments_dir, local)
            if message:
                fail(message)
        try:
            chosen += list_segments(place)
        except OSError as exc:
            fail(str(exc))
    if not chosen:
        fail(f"no segments in {segments_dir}" if segments_dir is not None
             else "give segment directories or -dir <segments_dir>")
    return chosen


def has_no_seed_urls(text: str, seeds: Place) -> bool:
    """Whether ``seeds`` (typed as ``text``) is a local file holding no URL (only blank and ``#`` lines).

    ``False`` for a directory, a URI or an unreadable file: the job finds those out.
    Reads only up to the first URL line.
    """
    if is_uri(text):
        return False
    path = seeds.local_path()
    if not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            return not any(line.strip() and not line.lstrip().startswith("#") for line in lines)
    except OSError:
        return False


JSON_HELP = "print the job's report as one JSON object instead of the text summary"


def print_json(report: object) -> None:
    """Print a job's report as JSON on stdout: :meth:`~gossamer.core.reports.Report.to_json`'s object.

    A report that is no :class:`~gossamer.core.reports.Report` (a plain dataclass) prints its fields.
    """
    import dataclasses
    import json

    from gossamer.core import Report

    if isinstance(report, Report):
        data = report.to_json()
    elif dataclasses.is_dataclass(report) and not isinstance(report, type):
        data = dataclasses.asdict(report)
    else:
        raise TypeError(f"not a report: {type(report).__name__}")
    typer.echo(json.dumps(data, indent=1, ensure_ascii=False, default=str))


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn expected failures into one line on stderr and an exit code.

    Exit 2 for bad input, a locked table, a missing file or unreachable storage; exit 3 when
    the job itself failed (a task failed, the disk is full or read-only), having installed nothing.
    """
    from gossamer.engine import TaskFailed
    from gossamer.store import LockedError, TableError

    try:
        try:
            yield
        except typer.Exit:
            raise
        except Exception:
            log.debug("the command failed:", exc_info=True)  # -vv: the whole story behind the one-line error
            raise
    except TaskFailed as exc:
        fail(f"{_one_line(exc)} (nothing of this run was installed)", EXIT_FAILED)
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTDIR) and exc.filename:
            fail(f"{exc.filename} is in the way: a file where a directory is expected")
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
