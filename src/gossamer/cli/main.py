"""The ``gossamer`` console script: one Typer app, one module per command."""

from __future__ import annotations

import importlib
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
from gossamer.cli.args import command_of
from gossamer.cli.common import STATE, err_console, extract_defines, extract_verbosity, warn
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




COMMANDS: dict[str, tuple[str, str]] = {
    "crawl": ("gossamer.cli.crawl_cmd", "crawl_command"),
    "inject": ("gossamer.cli.inject_cmd", "inject_command"),
    "sitemap": ("gossamer.cli.sitemap_cmd", "sitemap_command"),
    "readdb": ("gossamer.cli.readdb_cmd", "readdb_command"),
    "mergedb": ("gossamer.cli.mergedb_cmd", "mergedb_command"),
    "readseg": ("gossamer.cli.readseg_cmd", "readseg_command"),
    "readseq": ("gossamer.cli.readseq_cmd", "readseq_command"),
    "import-nutch": ("gossamer.cli.nutchio_cmd", "import_nutch_command"),
    "export-nutch": ("gossamer.cli.nutchio_cmd", "export_nutch_command"),
    "generate": ("gossamer.cli.generate_cmd", "generate_command"),
    "fetch": ("gossamer.cli.fetch_cmd", "fetch_command"),
    "parse": ("gossamer.cli.parse_cmd", "parse_command"),
    "updatedb": ("gossamer.cli.updatedb_cmd", "updatedb_command"),
    "dedup": ("gossamer.cli.dedup_cmd", "dedup_command"),
    "index": ("gossamer.cli.index_cmd", "index_command"),
    "clean": ("gossamer.cli.index_cmd", "clean_command"),
    "clean-tmp": ("gossamer.cli.sweep_cmd", "clean_tmp_command"),
    "search": ("gossamer.cli.search_cmd", "search_command"),
    "sql": ("gossamer.cli.sql_cmd", "sql_command"),
    "serve": ("gossamer.cli.serve_cmd", "serve_command"),
    "searchnode": ("gossamer.cli.searchnode_cmd", "searchnode_command"),
    "invertlinks": ("gossamer.cli.linkdb_cmd", "invertlinks_command"),
    "readlinkdb": ("gossamer.cli.linkdb_cmd", "readlinkdb_command"),
    "mergelinkdb": ("gossamer.cli.linkdb_cmd", "mergelinkdb_command"),
    "linkrank": ("gossamer.cli.linkrank_cmd", "linkrank_command"),
    "scoreupdater": ("gossamer.cli.linkrank_cmd", "scoreupdater_command"),
    "showproperties": ("gossamer.cli.settings_cmd", "showproperties_command"),
    "plugins": ("gossamer.cli.plugins_cmd", "plugins_command"),
    "normalizerchecker": ("gossamer.cli.checkers_cmd", "normalizerchecker_command"),
    "filterchecker": ("gossamer.cli.checkers_cmd", "filterchecker_command"),
    "robotschecker": ("gossamer.cli.robots_cmd", "robotschecker_command"),
    "parsechecker": ("gossamer.cli.parsechecker_cmd", "parsechecker_command"),
    "indexchecker": ("gossamer.cli.indexchecker_cmd", "indexchecker_command"),
    "webdb": ("gossamer.cli.webdb_cmd", "webdb_command"),
    "webgraph": ("gossamer.cli.webgraph_cmd", "webgraph_command"),
    "nodedumper": ("gossamer.cli.webgraph_cmd", "nodedumper_command"),
}
"""Every command: its module and function.  A run imports only the module of the command it runs
(:func:`register_commands`); ``gossamer --help`` and an unknown name import them all."""


def register_commands(names: list[str] | None = None) -> None:
    """Register ``names`` (every command when None) on :data:`app`, importing their modules; listed in order."""
    have = {command.name for command in app.registered_commands}
    for name in COMMANDS if names is None else names:
        if name not in have:
            module, function = COMMANDS[name]
            app.command(name)(getattr(importlib.import_module(module), function))
    order = {name: i for i, name in enumerate(COMMANDS)}
    app.registered_commands.sort(key=lambda command: order.get(command.name or "", len(order)))


def _show_warning(message: Warning | str, category: type[Warning], *args: object, **kwargs: object) -> None:
    warn(str(message))


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    entry = getattr(sys.modules.get("__main__"), "main", None)
    if getattr(entry, "__module__", None) in ("gossamer.cli.main", "gossamer.cli.launch"):  # the console script
        keep_main_script_out_of_children()
    warnings.showwarning = _show_warning  # type: ignore[assignment]
    STATE.warned_includes.clear()
    try:
        args = extract_verbosity(extract_defines(list(sys.argv[1:] if argv is None else argv)))
        name = command_of(args)
        register_commands([name] if name in COMMANDS and "--help" not in args[:args.index(name)] else None)
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
