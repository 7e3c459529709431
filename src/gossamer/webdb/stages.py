"""The four merge stages that apply a writer's edits, in the seed's order.

1. **pages by URL**: the writer's page edits (sorted by URL) against the old table.  Pages
   are unique by URL, so only here is it known whether a page exists: this stage decides
   add-if-not-present (and its link), keeps the old scores on ``add_page``, and emits the
   edits of stage 2 (``DELETE`` of the old ``(md5, url)``, ``PUT`` of the new one) and the
   links of successful add-if-not-present calls for stage 3.
2. **pages by MD5**: those derived edits, sorted by ``(md5, url)``, against the old table.
3. **links by MD5**: the link edits, sorted by ``(from_md5, to_url)``, against the old table
   *and* the new pages-by-MD5 file (all three sorted by MD5): a link whose source MD5 no
   page holds any more is dropped (the cascade of a delete), a new one whose source MD5 no
   page holds is refused and counted.  Emits the edits of stage 4.
4. **links by URL**: those derived edits, sorted by ``(to_url, from_md5)``, against the old
   table.

Every stage reads its inputs front to back and appends to its output.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from gossamer.webdb.edits import LINK_EDIT_SCHEMA, PAGE_EDIT_SCHEMA, EditLog, Op, Row, merge
from gossamer.webdb.files import (
    LINKS_BY_MD5,
    LINKS_BY_URL,
    PAGES_BY_MD5,
    PAGES_BY_URL,
    SCHEMAS,
    RowSink,
    SortedFile,
    table_file,
)
from gossamer.webdb.records import LINK_COLUMNS, PAGE_COLUMNS, md5_key, url_key

_KEEP_ON_ADD = ("score", "next_score")
"""What ``add_page`` keeps of a page it replaces: the link-analysis scores."""


def _page(row: Row) -> Row:
    return {name: row[name] for name in PAGE_COLUMNS}


def _link(row: Row) -> Row:
    return {name: row[name] for name in LINK_COLUMNS}


def _keyed(rows: Iterator[Row], key: str) -> Iterator[tuple[str, Row]]:
    for row in rows:
        if key == "url":
            yield row["url"], row  # type: ignore[misc]
        elif key == "md5":
            yield md5_key(row["md5"], row["url"]), row  # type: ignore[arg-type]
        elif key == "from_md5":
            yield md5_key(row["from_md5"], row["to_url"]), row  # type: ignore[arg-type]
        else:
            yield url_key(row["to_url"], row["from_md5"]), row  # type: ignore[arg-type]


class _Md5Presence:
    """Answers "does any page hold this MD5?" for MD5s asked in ascending order, reading forward only."""

    def __init__(self, pages_by_md5: SortedFile) -> None:
        self._md5s = (row["md5"] for row in pages_by_md5.rows(["md5"]))
        self._current: bytes | None = next(self._md5s, None)  # type: ignore[arg-type]

    def holds(self, md5: bytes) -> bool:
        while self._current is not None and self._current < md5:
            self._current = next(self._md5s, None)  # type: ignore[arg-type]
        return self._current == md5


def _stage(old: Path, new: Path, table: str, key: str, edits: Iterator[tuple[str, list[Row]]]
           ) -> tuple[SortedFile, RowSink, Iterator[tuple[str, Row | None, list[Row]]]]:
    source = SortedFile(table_file(old, table))
    sink = RowSink(table_file(new, table), SCHEMAS[table])
    return source, sink, merge(_keyed(source.rows(), key), edits)


def _pages_by_url(old: Path, new: Path, edits: EditLog, to_md5: EditLog, links: EditLog,
                  counts: Counter[str]) -> int:
    source, sink, walk = _stage(old, new, PAGES_BY_URL, "url", edits.groups())
    for url, before, group in walk:
        state = _page(before) if before is not None else None
        for edit in group:
            op = Op(edit["op"])
            if op is Op.DELETE_PAGE:
                counts["pages_deleted"] += state is not None
                state = None
            elif op is Op.ADD_PAGE_IF_ABSENT:
                if state is not None:
                    counts["pages_present"] += 1
                    continue
                state = _page(edit)
                counts["pages_added"] += 1
                if edit["link_to_url"] is not None:
                    links.add(md5_key(state["md5"], edit["link_to_url"]), Op.ADD_LINK,  # type: ignore[arg-type]
                              edit["seq"], from_md5=state["md5"], to_url=edit["link_to_url"],  # type: ignore[arg-type]
                              anchor=edit["link_anchor"] or "")
            else:
                page = _page(edit)
                if op is Op.ADD_PAGE and state is not None:
                    page.update({name: state[name] for name in _KEEP_ON_ADD})
                counts["pages_replaced" if state is not None else "pages_added"] += 1
                state = page
        if state is not None:
            sink.add(state)
        if before is not None and (state is None or state["md5"] != before["md5"]):
            to_md5.add(md5_key(before["md5"], url), Op.DELETE, 0)  # type: ignore[arg-type]
        if state is not None and state != _page(before or {k: None for k in PAGE_COLUMNS}):
            to_md5.add(md5_key(state["md5"], url), Op.PUT, 0, **state)  # type: ignore[arg-type]
    sink.close()
    source.close()
    return sink.rows


def _replace(old: Path, new: Path, table: str, key: str, edits: EditLog) -> int:
    """Stages 2 and 4: each key's last edit wins (``PUT`` sets the row, ``DELETE`` drops it)."""
    columns = PAGE_COLUMNS if table == PAGES_BY_MD5 else LINK_COLUMNS
    source, sink, walk = _stage(old, new, table, key, edits.groups())
    for _key, before, group in walk:
        after = before if not group else (None if group[-1]["op"] == Op.DELETE else group[-1])
        if after is not None:
            sink.add({name: after[name] for name in columns})
    sink.close()
    source.close()
    return sink.rows


def _links_by_md5(old: Path, new: Path, edits: EditLog, to_url: EditLog, counts: Counter[str]) -> int:
    pages = SortedFile(table_file(new, PAGES_BY_MD5))
    presence = _Md5Presence(pages)
    source, sink, walk = _stage(old, new, LINKS_BY_MD5, "from_md5", edits.groups())
    for _key, before, group in walk:
        md5 = before["from_md5"] if before is not None else group[0]["from_md5"]
        if not presence.holds(md5):  # type: ignore[arg-type]
            counts["links_refused"] += len(group)
            if before is not None:
                counts["links_removed"] += 1
                to_url.add(url_key(before["to_url"], md5), Op.DELETE, 0)  # type: ignore[arg-type]
            continue
        after = _link(max(group, key=lambda e: e["seq"])) if group else _link(before)  # type: ignore[arg-type]
        if group:
            counts["links_replaced" if before is not None else "links_added"] += 1
        sink.add(after)
        if before is None or after != _link(before):
            to_url.add(url_key(after["to_url"], md5), Op.PUT, 0, **after)  # type: ignore[arg-type]
    sink.close()
    source.close()
    pages.close()
    return sink.rows


def apply_edits(old: Path, new: Path, page_edits: EditLog, link_edits: EditLog, memory_bytes: int
                ) -> tuple[dict[str, int], Counter[str]]:
    """Write the version ``new`` = ``old`` with the edits applied; returns row counts and counters."""
    counts: Counter[str] = Counter()
    rows: dict[str, int] = {}
    to_md5 = EditLog(new, "stage2", PAGE_EDIT_SCHEMA, memory_bytes)
    rows[PAGES_BY_URL] = _pages_by_url(old, new, page_edits, to_md5, link_edits, counts)
    rows[PAGES_BY_MD5] = _replace(old, new, PAGES_BY_MD5, "md5", to_md5)
    to_url = EditLog(new, "stage4", LINK_EDIT_SCHEMA, memory_bytes)
    rows[LINKS_BY_MD5] = _links_by_md5(old, new, link_edits, to_url, counts)
    rows[LINKS_BY_URL] = _replace(old, new, LINKS_BY_URL, "to_url", to_url)
    return rows, counts
