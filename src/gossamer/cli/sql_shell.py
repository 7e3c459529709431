"""``gossamer sql --shell``: an interactive SQL prompt over a crawl's views.

Statements end with ``;`` and may span lines. Dot commands (one line, no ``;``):
``.tables`` (the views and what they read), ``.schema VIEW`` (its columns), ``.format
table|csv|json``, ``.help``, ``.quit`` / ``.exit``. An error prints one line and the prompt
comes back. The prompt is shown (with line editing) only when stdin is a terminal; from a pipe
or file the statements run in order, and the exit code is 2 if any of them failed, else 0.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TextIO

import duckdb

from gossamer.cli.sql_output import FORMATS, execute
from gossamer.store.sql import STATUS_VIEW, CrawlViews

PROMPT, CONTINUE = "sql> ", "...> "
HELP = """Statements end with ';' (several lines allowed). Views: crawldb, linkdb, crawl_generate,
crawl_fetch, crawl_parse, parse_data, parse_text (segment views have a 'segment' column),
crawl_status (code, name).
  .tables            the views and how many table versions or segments each reads
  .schema VIEW       the columns of a view
  .format FORMAT     table, csv or json
  .help              this text
  .quit / .exit      leave (so does end of input, Ctrl-D)"""


def _lines(stdin: TextIO, interactive: bool, pending: list[str]) -> Iterator[str]:
    if not interactive:
        yield from (line.rstrip("\n") for line in stdin)
        return
    try:
        import readline  # noqa: F401  (line editing and history for input())
    except ImportError:  # pragma: no cover - platforms without readline
        pass
    while True:
        try:
            yield input(CONTINUE if pending else PROMPT)
        except EOFError:
            print()
            return
        except KeyboardInterrupt:
            print()
            pending.clear()


class Shell:
    """The prompt's state: the views, the output format and whether a statement failed."""

    def __init__(self, views: CrawlViews, fmt: str, max_width: int, out: TextIO, err: TextIO) -> None:
        self.views, self.fmt, self.max_width, self.out, self.err = views, fmt, max_width, out, err
        self.failed = False

    def error(self, message: str) -> None:
        """One line on the error stream; remembered for the exit code."""
        self.failed = True
        self.err.write(f"error: {message}\n")

    def run(self, statement: str) -> None:
        """Execute one statement and print its result (or its error, on one line)."""
        try:
            count = execute(self.views.con, statement, self.fmt, self.out, self.max_width)
        except duckdb.Error as exc:
            self.error(first_line(exc))
            return
        if count is not None and self.fmt == "table":
            self.err.write(f"({count} row{'s' if count != 1 else ''})\n")

    def command(self, line: str) -> bool:
        """Run a dot command; False when it ends the shell."""
        word, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        if word in (".quit", ".exit"):
            return False
        if word == ".help":
            self.out.write(HELP + "\n")
        elif word == ".tables":
            for view in self.views.views:
                self.out.write(f"{view.name:<16}{view.sources} source(s)\n")
            self.out.write(f"{STATUS_VIEW:<16}status codes and names\n")
        elif word == ".schema" and rest:
            self.run(f'DESCRIBE "{rest}"')
        elif word == ".format" and rest in FORMATS:
            self.fmt = rest
        else:
            self.error(f"unknown command {line.strip()!r} (.help lists them)")
        return True


def first_line(exc: BaseException) -> str:
    """The first line of an error message (DuckDB adds the query and a caret on later lines)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def run_shell(views: CrawlViews, fmt: str, max_width: int, stdin: TextIO | None = None,
              out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Read statements until ``.quit`` or end of input; the exit code (2 if a statement failed off a terminal)."""
    stdin = stdin if stdin is not None else sys.stdin
    shell = Shell(views, fmt, max_width, out if out is not None else sys.stdout, err if err is not None else sys.stderr)
    interactive = stdin.isatty()
    if interactive:
        shell.out.write("Gossamer SQL over the crawl's tables (DuckDB). .help for help, .quit to leave.\n")
    pending: list[str] = []
    for line in _lines(stdin, interactive, pending):
        if not pending and line.strip().startswith("."):
            if not shell.command(line):
                break
            continue
        if not line.strip() and not pending:
            continue
        pending.append(line)
        if line.rstrip().endswith(";"):
            shell.run("\n".join(pending))
            pending.clear()
    if pending and "".join(pending).strip():
        shell.run("\n".join(pending))
    return 2 if shell.failed and not interactive else 0
