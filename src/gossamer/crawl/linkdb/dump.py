"""``readlinkdb``: text dumps and one-URL listings of the linkdb (Nutch's LinkDbReader).

Formats (Nutch's text output of ``Inlinks.toString()``)::

    http://target.example/<TAB>Inlinks:
     fromUrl: http://source.example/ anchor: the anchor text
    <empty line>

and ``json``: one object per line, ``{"url": …, "inlinks": [{"fromUrl": …, "anchor": …}, …]}``.
A dump writes one file per non-empty linkdb part, ``<out>/part-NNNNN``, URLs in
order; ``regex`` must match the whole target URL (Java's ``matches()``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from gossamer.core import Inlink
from gossamer.crawl.readdb import prepare_output_dir
from gossamer.store import TableVersion, batch_to_rows

FORMATS = ("normal", "json")
NOT_FOUND = " - no link information."
"""What Nutch's LinkDbReader prints for a URL without inlinks."""


def format_inlink(inlink: Inlink) -> str:
    """Nutch's ``Inlink.toString()``: ``fromUrl: <url> anchor: <text>``."""
    return f"fromUrl: {inlink.from_url} anchor: {inlink.anchor}"


def format_inlinks(url: str, inlinks: Sequence[Inlink], fmt: str = "normal") -> str:
    """One dumped record with its line end(s): Nutch's ``url<TAB>Inlinks:`` block, or a JSON line."""
    if fmt == "json":
        return json.dumps({"url": url, "inlinks": [{"fromUrl": i.from_url, "anchor": i.anchor} for i in inlinks]},
                          ensure_ascii=False) + "\n"
    return f"{url}\tInlinks:\n" + "".join(f" {format_inlink(i)}\n" for i in inlinks) + "\n"


def dump_linkdb(version: TableVersion, out: Path, fmt: str = "normal", regex: str | None = None) -> int:
    """Write ``out/part-NNNNN`` files (one per non-empty part); returns the URLs written.

    Raises :class:`ValueError` for an unknown format, a bad regex, or an ``out``
    that exists and is not empty (so the results of two dumps never mix).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown dump format {fmt!r} (choose from {', '.join(FORMATS)})")
    try:
        pattern = re.compile(regex) if regex is not None else None
    except re.error as exc:
        raise ValueError(f"bad -regex {regex!r}: {exc}") from None
    prepare_output_dir(out)
    written = 0
    for part in range(version.parts):
        handle = None
        try:
            for batch in version.iter_part(part, 8192):
                for url, inlinks in batch_to_rows(batch):
                    if pattern is not None and not pattern.fullmatch(url):
                        continue
                    if handle is None:
                        handle = open(out / f"part-{part:05d}", "w", encoding="utf-8", newline="")  # noqa: SIM115
                    handle.write(format_inlinks(url, inlinks, fmt))
                    written += 1
        finally:
            if handle is not None:
                handle.close()
    return written
