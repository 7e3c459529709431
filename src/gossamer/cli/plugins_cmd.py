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
    if sys.stdout.isatty():
        table = Table(*header)
        for row in rows:
            table.add_row(*row)
        out_console.print(table)
    else:  # tab-separated for pipes and scripts
        for row in [header, *rows]:
            typer.echo("\t".join(row))
    for error in repo.load_errors:
        err_console.print(f"warning: {error}", markup=False)
