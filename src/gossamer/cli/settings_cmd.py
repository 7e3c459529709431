"""``gossamer showproperties``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from gossamer.cli.common import settings_for
from gossamer.core import format_value


def showproperties_command(
    crawl_dir: Annotated[Path | None, typer.Option("-d", "--dir", help="crawl directory (for its config)")]
    = None,
    changed: Annotated[bool, typer.Option("--changed", help="only properties not at their default")] = False,
    describe: Annotated[bool, typer.Option("-v", "--describe", help="add each property's description")]
    = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="print the reference table of every "
                                           "property's default (docs/settings.md)")] = False,
) -> None:
    """Print every property's effective value and where it came from.

    Layers, lowest first: default, the crawl's gossamer.toml or nutch-site.xml,
    environment (GOSSAMER_<NAME>), -D name=value.

    Example:
      gossamer showproperties -d crawl -D fetcher.server.delay=1.0 --changed
    """
    if markdown:
        typer.echo(settings_reference(), nl=False)
        return
    settings = settings_for(crawl_dir)
    rows = [(p, v, o) for p, v, o in settings.effective() if not changed or o != "default"]
    if as_json:
        typer.echo(json.dumps([
            {"name": p.name, "value": v, "type": p.type, "origin": o, "description": p.description}
            for p, v, o in rows
        ]))
        return
    for prop, value, origin in rows:
        line = f"{prop.name}\t{format_value(value)}\t[{origin}]"
        if describe:
            line += f"\t{prop.description}"
        typer.echo(line)


def settings_reference() -> str:
    """Markdown reference of every property: name, default, type, description, origin."""
    from gossamer.core import PROPERTY_PATTERNS, all_properties

    lines = [
        "| property | default | type | description |",
        "|---|---|---|---|",
    ]
    for prop in sorted([*all_properties(), *PROPERTY_PATTERNS], key=lambda p: p.name):
        default = format_value(prop.default).replace("|", "\\|") or "(empty)"
        marker = "" if prop.nutch else " *(Gossamer)*"
        describe = getattr(prop.check, "describe", None)
        allowed = f" Allowed: {describe()}." if describe is not None else ""
        lines.append(f"| `{prop.name}` | `{default}` | {prop.type} | {prop.description}{marker}{allowed} |")
    return "\n".join(lines) + "\n"
