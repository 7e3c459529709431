"""The ``gossamer`` console script: one Typer app, one module per command."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Annotated

import typer

try:  # Typer >= 0.2x vendors Click
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - older Typer with Click installed separately
    from click.exceptions import ClickException  # type: ignore[assignment]

from gossamer import __version__
from gossamer.cli.checkers_cmd import filterchecker_command, normalizerchecker_command
from gossamer.cli.common import STATE, err_console, extract_defines, extract_verbosity, warn
from gossamer.cli.crawl_cmd import crawl_command
from gossamer.cli.dedup_cmd import dedup_command
from gossamer.cli.fetch_cmd import fetch_command
from gossamer.cli.generate_cmd import generate_command
from gossamer.cli.index_cmd import clean_command, index_command
from gossamer.cli.indexchecker_cmd import indexchecker_command
from gossamer.cli.inject_cmd import inject_command
from gossamer.cli.launch import main as launch_main
from gossamer.cli.linkdb_cmd import invertlinks_command, mergelinkdb_command, readlinkdb_command
from gossamer.cli.linkrank_cmd import linkrank_command, scoreupdater_command
from gossamer.cli.mergedb_cmd import mergedb_command
from gossamer.cli.nutchio_cmd import export_nutch_command, import_nutch_command
from gossamer.cli.parse_cmd import parse_command
from gossamer.cli.parsechecker_cmd import parsechecker_command
from gossamer.cli.plugins_cmd import plugins_command
from gossamer.cli.readdb_cmd import readdb_command
from gossamer.cli.readseg_cmd import readseg_command
from gossamer.cli.readseq_cmd import readseq_command
from gossamer.cli.robots_cmd import robotschecker_command
from gossamer.cli.search_cmd import search_command
from gossamer.cli.searchnode_cmd import searchnode_command
from gossamer.cli.serve_cmd import serve_command
from gossamer.cli.settings_cmd import showproperties_command
from gossamer.cli.sitemap_cmd import sitemap_command
from gossamer.cli.sql_cmd import sql_command
from gossamer.cli.sweep_cmd import clean_tmp_command
from gossamer.cli.updatedb_cmd import updatedb_command
from gossamer.cli.webdb_cmd import webdb_command
from gossamer.cli.webgraph_cmd import nodedumper_command, webgraph_command
from gossamer.engine import keep_main_script_out_of_children

app = typer.Typer(
    name="gossamer",
    help="Gossamer: a polite, scalable web crawler and search engine (after Apache Nutch).\n\n"
         "Every command takes -D name=value to override any setting (see showproperties), and "
         "--engine local|spark to choose where its jobs run (= -D engine=…).",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"gossamer {__version__}")
        raise typer.Exit(0)


@app.callback()
def _global(
    conf: Annotated[Path | None, typer.Option("--conf", help="config file or directory "
                                              "(gossamer.toml / nutch-site.xml); default: the crawl directory")]
    = None,
    version: Annotated[bool, typer.Option("--version", help="print the version and exit", is_eager=True,
                                          callback=_print_version)] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="log gossamer's INFO messages on stderr "
                                          "(-vv: DEBUG); any command takes it, anywhere")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="log errors only, no warnings; any command "
                                        "takes it, anywhere")] = False,
) -> None:
    STATE.conf = conf


app.command("crawl")(crawl_command)
app.command("inject")(inject_command)
app.command("sitemap")(sitemap_command)
app.command("readdb")(readdb_command)
app.command("mergedb")(mergedb_command)
app.command("readseg")(readseg_command)
app.command("readseq")(readseq_command)
app.command("import-nutch")(import_nutch_command)
app.command("export-nutch")(export_nutch_command)
app.command("generate")(generate_command)
app.command("fetch")(fetch_command)
app.command("parse")(parse_command)
app.command("updatedb")(updatedb_command)
app.command("dedup")(dedup_command)
app.command("index")(index_command)
app.command("clean")(clean_command)
app.command("clean-tmp")(clean_tmp_command)
app.command("search")(search_command)
app.command("sql")(sql_command)
app.command("serve")(serve_command)
app.command("searchnode")(searchnode_command)
app.command("invertlinks")(invertlinks_command)
app.command("readlinkdb")(readlinkdb_command)
app.command("mergelinkdb")(mergelinkdb_command)
app.command("linkrank")(linkrank_command)
app.command("scoreupdater")(scoreupdater_command)
app.command("showproperties")(showproperties_command)
app.command("plugins")(plugins_command)
app.command("normalizerchecker")(normalizerchecker_command)
app.command("filterchecker")(filterchecker_command)
app.command("robotschecker")(robotschecker_command)
app.command("parsechecker")(parsechecker_command)
app.command("indexchecker")(indexchecker_command)
app.command("webdb")(webdb_command)
app.command("webgraph")(webgraph_command)
app.command("nodedumper")(nodedumper_command)


def _show_warning(message: Warning | str, category: type[Warning], *args: object, **kwargs: object) -> None:
    warn(str(message))


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    if getattr(sys.modules.get("__main__"), "main", None) in (main, launch_main):  # the console script
        keep_main_script_out_of_children()
    warnings.showwarning = _show_warning  # type: ignore[assignment]
    STATE.warned_includes.clear()
    try:
        args = extract_verbosity(extract_defines(list(sys.argv[1:] if argv is None else argv)))
        result = app(args=args, prog_name="gossamer", standalone_mode=False)
        if isinstance(result, int):
            return result
    except typer.Exit as exc:
        return exc.exit_code
    except SystemExit as exc:
        return int(exc.code or 0)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        return 130
    except ClickException as exc:  # usage errors come here in non-standalone mode
        exc.show()
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
