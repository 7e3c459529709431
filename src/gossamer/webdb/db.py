"""The WebDB: open, read, and write by logging edits that are applied on close.

``WebDB.open(path)`` opens (creating an empty one where none exists) a WebDB directory
laid out like every other table: ``current/`` (the live version), ``old/`` (the previous
one), ``tmp-*/`` (a version being written) and ``.locked``.  :meth:`WebDB.reader` pins
the live version; :meth:`WebDB.writer` takes the writer lock, records edits, and on a
clean exit applies them (:mod:`gossamer.webdb.stages`) into a new version that
:func:`gossamer.store.install` makes current.  An exception inside the ``with`` block, or
a crash at any point before the install, leaves the previous version live.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from gossamer.core import Report, Settings
from gossamer.store import (
    TableLock,
    discard,
    install,
    live_version_dir,
    new_staging_dir,
    recover,
)
from gossamer.webdb.edits import LINK_EDIT_SCHEMA, PAGE_EDIT_SCHEMA, EditLog, Op
from gossamer.webdb.files import (
    LINKS_BY_MD5,
    LINKS_BY_URL,
    PAGES_BY_MD5,
    PAGES_BY_URL,
    SortedFile,
    finish,
    summary,
    table_file,
    verify,
    write_empty,
)
from gossamer.webdb.records import MD5_BYTES, Link, Page, md5_key
from gossamer.webdb.stages import apply_edits


@dataclass
class WriteReport(Report):
    """What a writer's close did: edits recorded, and per-rule counters (``links_refused`` …)."""

    page_edits: int = 0
    link_edits: int = 0
    counters: dict[str, int] = field(default_factory=dict)
    pages: int = 0
    links: int = 0


class WebDBReader:
    """Reads one pinned version; stays consistent while a writer installs a newer one. Close it."""

    def __init__(self, version: Path) -> None:
        self.version = version
        self._files = {t: SortedFile(table_file(version, t))
                       for t in (PAGES_BY_URL, PAGES_BY_MD5, LINKS_BY_MD5, LINKS_BY_URL)}

    def close(self) -> None:
        """Release the version's files."""
        for handle in self._files.values():
            handle.close()

    def __enter__(self) -> WebDBReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get_page(self, url: str) -> Page | None:
        """The page of ``url`` (pages are unique by URL), or ``None``."""
        for row in self._files[PAGES_BY_URL].find(url):
            return Page.from_row(row)
        return None

    def get_pages(self, md5: bytes) -> list[Page]:
        """Every page whose content has this MD5 (by URL)."""
        return [Page.from_row(row) for row in self._files[PAGES_BY_MD5].find(md5)]

    def page_exists(self, md5: bytes) -> bool:
        """Whether at least one page has this MD5."""
        return next(self._files[PAGES_BY_MD5].find(md5), None) is not None

    def pages(self) -> Iterator[Page]:
        """Every page, sorted by URL."""
        return (Page.from_row(row) for row in self._files[PAGES_BY_URL].rows())

    def pages_by_md5(self) -> Iterator[Page]:
        """Every page, sorted by MD5 (then URL): pages with the same content are adjacent."""
        return (Page.from_row(row) for row in self._files[PAGES_BY_MD5].rows())

    def get_links(self, key: str | bytes) -> Iterator[Link]:
        """Links by URL or by content.

        A ``str`` URL: the links pointing to it (by source MD5).  16 ``bytes``: the links that
        originate from that content (by target URL).
        """
        if isinstance(key, str):
            return (Link.from_row(row) for row in self._files[LINKS_BY_URL].find(key))
        if isinstance(key, bytes | bytearray) and len(key) == MD5_BYTES:
            return iter([Link.from_row(row) for row in self._files[LINKS_BY_MD5].find(bytes(key))])
        raise TypeError(f"get_links takes a URL (str) or an MD5 ({MD5_BYTES} bytes), not {key!r}")

    def links(self) -> Iterator[Link]:
        """Every link, sorted by target URL (then source MD5)."""
        return (Link.from_row(row) for row in self._files[LINKS_BY_URL].rows())

    def num_pages(self) -> int:
        """How many pages."""
        return self._files[PAGES_BY_URL].num_rows

    def num_links(self) -> int:
        """How many links."""
        return self._files[LINKS_BY_URL].num_rows


class WebDBWriter:
    """Logs edits (in any order) and applies them all on :meth:`close`; use through :meth:`WebDB.writer`.

    Holds the WebDB's writer lock from creation to close.  Nothing is visible to readers
    before ``close`` installs the new version; :meth:`abort` drops every edit.
    """

    def __init__(self, path: Path, memory_bytes: int, lock_wait_seconds: float = 0.0) -> None:
        self.path = path
        self.report = WriteReport()
        self._memory = memory_bytes
        self._lock = TableLock(path, lock_wait_seconds)
        self._lock.acquire()
        try:
            recover(path)
            self._staging = Path(new_staging_dir(path))
            work = self._staging / "_edits"
            work.mkdir()
            self._pages = EditLog(work, "pages", PAGE_EDIT_SCHEMA, memory_bytes // 2)
            self._links = EditLog(work, "links", LINK_EDIT_SCHEMA, memory_bytes // 2)
        except BaseException:
            self._lock.release()
            raise
        self._seq = 0
        self._open = True

    def _next(self) -> int:
        if not self._open:
            raise RuntimeError("this WebDB writer is closed")
        self._seq += 1
        return self._seq

    def _page_edit(self, op: Op, page: Page, link: Link | None = None) -> None:
        seq = self._next()
        extra = {"link_to_url": link.to_url, "link_anchor": link.anchor} if link is not None else {}
        self._pages.add(page.url, op, seq, **page.row(), **extra)

    def add_page(self, page: Page) -> None:
        """Add ``page``, replacing the page of the same URL but keeping its ``score`` and ``next_score``."""
        self._page_edit(Op.ADD_PAGE, page)

    def add_page_with_score(self, page: Page) -> None:
        """Add ``page``, replacing the page of the same URL entirely (scores included)."""
        self._page_edit(Op.ADD_PAGE_WITH_SCORE, page)

    def add_page_if_not_present(self, page: Page, link: Link | None = None) -> None:
        """Add ``page`` (and ``link``, from the page's MD5) only if no page has its URL when applied."""
        if link is not None and link.from_md5 != page.md5:
            link = Link(from_md5=page.md5, to_url=link.to_url, anchor=link.anchor)
        self._page_edit(Op.ADD_PAGE_IF_ABSENT, page, link)

    def delete_page(self, url: str) -> None:
        """Remove the page of ``url`` if any; links from its MD5 go too when no other page holds it."""
        self._pages.add(url, Op.DELETE_PAGE, self._next(), url=url)

    def add_link(self, link: Link) -> None:
        """Add ``link``, replacing the one of the same URL–MD5 pair.

        Refused (counted in ``links_refused``) if, once the batch's page edits are applied, no
        page holds its source MD5.
        """
        self._links.add(md5_key(link.from_md5, link.to_url), Op.ADD_LINK, self._next(), **link.row())

    def close(self) -> WriteReport:
        """Apply every edit in the seed's order and install the result as the live version."""
        if not self._open:
            return self.report
        self._open = False
        try:
            live = live_version_dir(self.path)
            assert live is not None, f"{self.path} has no live WebDB version"
            self.report.page_edits, self.report.link_edits = self._pages.count, self._links.count
            # the link log still buffers up to half the budget while the derived logs fill
            rows, counts = apply_edits(Path(live), self._staging, self._pages, self._links, self._memory // 2)
            os.rmdir(self._staging / "_edits")
            finish(self._staging, rows)
            install(self.path, self._staging, keep_backup=True, verify=verify)  # type: ignore[arg-type]
            self.report.counters = {k: v for k, v in sorted(counts.items()) if v}
            self.report.pages, self.report.links = rows[PAGES_BY_URL], rows[LINKS_BY_URL]
        except BaseException:
            discard(self._staging)
            raise
        finally:
            self._lock.release()
        return self.report

    def abort(self) -> None:
        """Drop every edit and release the lock; the WebDB is unchanged."""
        if self._open:
            self._open = False
            self._pages.abort()
            self._links.abort()
            discard(self._staging)
            self._lock.release()

    def __enter__(self) -> WebDBWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


class WebDB:
    """A WebDB directory.

    ``memory_mb`` bounds the edit logs' sort buffers (default: the ``engine.memory.budget.mb``
    setting).
    """

    def __init__(self, path: Path, memory_mb: int, lock_wait_seconds: float = 0.0) -> None:
        self.path = path
        self.memory_bytes = memory_mb << 20
        self.lock_wait_seconds = lock_wait_seconds

    @classmethod
    def open(cls, path: str | os.PathLike[str], settings: Settings | None = None,
             memory_mb: int | None = None) -> WebDB:
        """Open the WebDB at ``path`` (a local directory), creating an empty one where none exists."""
        settings = settings or Settings()
        db = cls(Path(os.path.abspath(path)), memory_mb or settings.get_int("engine.memory.budget.mb"),
                 settings.get_float("store.lock.wait.seconds"))
        if live_version_dir(db.path) is None:
            with TableLock(db.path, db.lock_wait_seconds):
                recover(db.path)
                if live_version_dir(db.path) is None:
                    staging = Path(new_staging_dir(db.path))
                    try:
                        write_empty(staging)
                        install(db.path, staging, verify=verify)  # type: ignore[arg-type]
                    except BaseException:
                        discard(staging)
                        raise
        return db

    def reader(self) -> WebDBReader:
        """A reader of the live version (close it, or use ``with``)."""
        live = live_version_dir(self.path)
        if live is None:
            raise FileNotFoundError(f"{self.path} holds no WebDB version")
        return WebDBReader(Path(live))

    def writer(self) -> WebDBWriter:
        """A writer (a context manager: a clean exit applies the edits; an exception drops them)."""
        return WebDBWriter(self.path, self.memory_bytes, self.lock_wait_seconds)

    def counts(self) -> dict[str, int]:
        """Rows of each of the four tables in the live version."""
        live = live_version_dir(self.path)
        return summary(Path(live)) if live is not None else {}
