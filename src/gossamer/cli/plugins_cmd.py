"""``gossamer plugins``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from gossamer.cli.common import err_console, out_console, settings_for


def plugins_command(
    crawl_dir: Annotated[Path | None, typer.Option("-d", "--dir", help="crawl directory (for its config)")]
    = None,
    tsv: Annotated[bool, typer.Option("--tsv", help="tab-separated columns (for scripts)")] = False,
) -> None:
    """List every plugin: id, extension point, whether it is active and why.

    Activation: plugin.includes / plugin.excludes (regex over plugin ids), or the
    property that selects a single-choice plugin (db.fetch.schedule.class,
    db.signature.class).  Third-party plugins register in the entry-point group
    "gossamer.plugins".
    """
    from gossamer.plugins import PluginRepository

    repo = PluginRepository(settings_for(crawl_dir))
    header = ("plugin", "extension point", "active", "why", "package", "description")
    rows = [(s.info.id, s.info.point, "yes" if s.active else "no", s.reason, s.source, s.info.description)
            for s in repo.states()]
    if tsv:
        for row in [header, *rows]:
            typer.echo("\t".join(row))
    elif sys.stdout.isatty():
        table = Table(*header)
        for row in rows:
            table.add_row(*row)
        out_console.print(table)
    else:
        for line in aligned([header, *rows]):
            typer.echo(line)
    for error in repo.load_errors:
        err_console.print(f"warning: {error}", markup=False)


def aligned(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as lines of columns padded to their widest cell, two spaces apart (the last column unpadded)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join([cell.ljust(width) for cell, width in zip(row, widths, strict=False)] + [row[-1]]).rstrip()
            for row in rows]
