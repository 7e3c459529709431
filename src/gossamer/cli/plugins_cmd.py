"""``gossamer plugins``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from gossamer.cli.common import err_console, out_console, settings_for
from gossamer.plugins import PluginRepository


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
    repo = PluginRepository(settings_for(crawl_dir))
    table = Table("plugin", "extension point", "active", "why", "package", "description")
    for state in repo.states():
        table.add_row(state.info.id, state.info.point, "yes" if state.active else "no", state.reason,
                      state.source, state.info.description)
    out_console.print(table)
    for error in repo.load_errors:
        err_console.print(f"warning: {error}", markup=False)
