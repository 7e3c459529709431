"""What to type instead: hints for a local path given where another kind of directory is expected.

Each function looks at a *local* path only (URIs are left to the jobs) and returns
``None`` when the path may well be what the command expects, else one line saying
what it is and what to give instead.  They never raise: an unreadable directory
gives no hint.

The kinds of directory told apart:

* a *table* (crawldb, linkdb …): holds ``current/``;
* a *crawl directory*: holds ``crawldb/``, ``linkdb/`` or ``segments/``;
* a *segment*: holds ``crawl_generate/`` (or other segment sub-tables);
* a *segments directory*: holds numbered segment directories.
"""

from __future__ import annotations

from pathlib import Path

from gossamer.store import CURRENT

CRAWL_PARTS = ("crawldb", "linkdb", "segments")
SEGMENT_PARTS = ("crawl_generate", "crawl_fetch", "content", "crawl_parse", "parse_data", "parse_text")


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def is_table(path: Path) -> bool:
    """A table directory: it holds ``current/``."""
    return _is_dir(path / CURRENT)


def is_crawl_dir(path: Path) -> bool:
    """A crawl directory: not a table itself, and holds a crawldb, linkdb or segments directory."""
    return not is_table(path) and any(_is_dir(path / part) for part in CRAWL_PARTS)


def is_segment(path: Path) -> bool:
    """A segment: holds one of a segment's sub-tables (``crawl_generate`` …)."""
    return any(_is_dir(path / part) for part in SEGMENT_PARTS)


def segments_in(path: Path) -> list[Path]:
    """The numbered segment directories directly inside ``path``, oldest first ([] if none or unreadable)."""
    try:
        return sorted(p for p in path.iterdir() if p.name.isdigit() and is_segment(p))
    except OSError:
        return []


def _join(text: str, name: str) -> str:
    return f"{text.rstrip('/')}/{name}"


def table_hint(text: str, path: Path, kind: str) -> str | None:
    """A hint when ``path`` (typed as ``text``) is not the ``kind`` table (``crawldb``, ``linkdb``) it should be.

    A file, a crawl directory (→ ``<crawl>/<kind>``), a segment or a segments directory.
    """
    if path.exists() and not _is_dir(path):
        return f"{text} is a file, not a {kind} directory (give a directory such as crawl/{kind})"
    if not _is_dir(path) or is_table(path):
        return None
    if is_crawl_dir(path):
        return f"{text} is a crawl directory, not a {kind}: did you mean {_join(text, kind)}?"
    if is_segment(path):
        return f"{text} is a segment, not a {kind}"
    if segments_in(path):
        return f"{text} is a segments directory, not a {kind}"
    return None


def segments_dir_hint(text: str, path: Path) -> str | None:
    """A hint when ``path`` should be a segments directory but is a crawl directory, a segment or a file."""
    if path.exists() and not _is_dir(path):
        return f"{text} is a file, not a segments directory"
    if not _is_dir(path) or segments_in(path):
        return None
    if is_crawl_dir(path) and _is_dir(path / "segments"):
        return f"{text} is a crawl directory: did you mean {_join(text, 'segments')}?"
    if is_table(path):
        return f"{text} is a table, not a segments directory"
    if is_segment(path):
        return f"{text} is a segment, not a directory of segments"
    return None


def segment_hint(text: str, path: Path, has_dir_option: bool) -> str | None:
    """A hint when ``path`` should be one segment but is a segments directory, a crawl directory or a table.

    ``has_dir_option``: the command takes ``-dir <segments_dir>`` (suggested for a segments directory).
    """
    if not _is_dir(path) or is_segment(path):
        return None
    segments = segments_in(path)
    if segments:
        if has_dir_option:
            return f"{text} is a segments directory, not a segment: use -dir {text}"
        return f"{text} is a segments directory, not a segment: give one of its segments, e.g. " \
               f"{_join(text, segments[-1].name)}"
    if is_crawl_dir(path):
        inner = segments_in(path / "segments")
        if has_dir_option:
            return f"{text} is a crawl directory, not a segment: use -dir {_join(text, 'segments')}"
        example = _join(_join(text, "segments"), inner[-1].name if inner else "<segment>")
        return f"{text} is a crawl directory, not a segment: did you mean {example}?"
    if is_table(path):
        return f"{text} is a table, not a segment"
    return None
