"""The WebDB API (issue 18 point 1): records, reading, and each writer rule of seed 003."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from gossamer.webdb import Link, Page, WebDB


def md5(text: str) -> bytes:
    return hashlib.md5(text.encode()).digest()


A, B, C = md5("a"), md5("b"), md5("c")


@pytest.fixture
def db(tmp_path: Path) -> WebDB:
    return WebDB.open(tmp_path / "webdb", memory_mb=4)


def snapshot(db: WebDB) -> tuple[list[Page], list[Link]]:
    with db.reader() as r:
        return list(r.pages()), list(r.links())


def test_records_keyword_construction_and_defaults() -> None:
    page = Page(url="http://x/", md5=A)
    assert (page.fetch_time, page.retries, page.interval, page.score, page.next_score) == (0, 0, 30, 1.0, 1.0)
    assert Link(from_md5=A, to_url="http://y/").anchor == ""
    with pytest.raises(ValueError):
        Page(url="http://x/", md5=b"short")
    with pytest.raises(TypeError):
        Page("http://x/", A)  # type: ignore[misc]


def test_open_creates_an_empty_webdb(tmp_path: Path) -> None:
    db = WebDB.open(tmp_path / "new")
    assert (tmp_path / "new" / "current" / "pages_by_url.parquet").is_file()
    with db.reader() as r:
        assert (r.num_pages(), r.num_links(), list(r.pages()), list(r.links())) == (0, 0, [], [])
        assert r.get_page("http://x/") is None and r.get_pages(A) == [] and not r.page_exists(A)
    assert WebDB.open(tmp_path / "new").counts()["pages_by_url"] == 0


def test_reader_orders_and_lookups(db: WebDB) -> None:
    with db.writer() as w:
        for url, content in [("http://c/", A), ("http://a/", B), ("http://b/", A)]:
            w.add_page(Page(url=url, md5=content, fetch_time=7))
        w.add_link(Link(from_md5=A, to_url="http://z/", anchor="za"))
        w.add_link(Link(from_md5=B, to_url="http://z/", anchor="zb"))
        w.add_link(Link(from_md5=A, to_url="http://m/", anchor="ma"))
    with db.reader() as r:
        assert [p.url for p in r.pages()] == ["http://a/", "http://b/", "http://c/"]
        assert [p.md5 for p in r.pages_by_md5()] == sorted([A, A, B])
        assert [p.url for p in r.get_pages(A)] == ["http://b/", "http://c/"]
        assert r.get_page("http://b/") == Page(url="http://b/", md5=A, fetch_time=7)
        assert r.get_page("http://nope/") is None
        assert r.page_exists(B) and not r.page_exists(C)
        assert sorted(link.anchor for link in r.get_links("http://z/")) == ["za", "zb"]
        assert [link.to_url for link in r.get_links(A)] == ["http://m/", "http://z/"]
        assert [link.to_url for link in r.links()] == ["http://m/", "http://z/", "http://z/"]
        assert (r.num_pages(), r.num_links()) == (3, 3)
        with pytest.raises(TypeError):
            r.get_links(b"short")


def test_add_page_keeps_scores_add_page_with_score_replaces_them(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A, score=5.0, next_score=6.0))
        w.add_page(Page(url="http://b/", md5=A, score=5.0, next_score=6.0))
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=B, fetch_time=99, retries=2, score=1.0, next_score=1.0))
        w.add_page_with_score(Page(url="http://b/", md5=B, fetch_time=99, score=2.0, next_score=3.0))
    with db.reader() as r:
        assert r.get_page("http://a/") == Page(url="http://a/", md5=B, fetch_time=99, retries=2,
                                               score=5.0, next_score=6.0)
        assert r.get_page("http://b/") == Page(url="http://b/", md5=B, fetch_time=99, score=2.0, next_score=3.0)
        assert [p.url for p in r.get_pages(B)] == ["http://a/", "http://b/"] and not r.page_exists(A)


def test_add_page_if_not_present_has_no_effect_and_no_link_when_url_exists(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A, fetch_time=1))
    with db.writer() as w:
        w.add_page_if_not_present(Page(url="http://a/", md5=B, fetch_time=2), Link(from_md5=B, to_url="http://x/"))
        w.add_page_if_not_present(Page(url="http://n/", md5=C), Link(from_md5=C, to_url="http://y/", anchor="y"))
    assert w.report.counters["pages_present"] == 1
    with db.reader() as r:
        assert r.get_page("http://a/") == Page(url="http://a/", md5=A, fetch_time=1)
        assert not r.page_exists(B) and r.get_pages(C) == [Page(url="http://n/", md5=C)]
        assert list(r.links()) == [Link(from_md5=C, to_url="http://y/", anchor="y")]


def test_delete_page_absent_is_silent_and_links_go_with_the_last_holder(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
        w.add_page(Page(url="http://a2/", md5=A))
        w.add_page(Page(url="http://b/", md5=B))
    with db.writer() as w:
        w.add_link(Link(from_md5=A, to_url="http://t/"))
        w.add_link(Link(from_md5=B, to_url="http://t/"))
    with db.writer() as w:
        w.delete_page("http://absent/")
        w.delete_page("http://a/")
    with db.reader() as r:  # A is still held by http://a2/: its links stay
        assert r.num_pages() == 2 and r.num_links() == 2
    with db.writer() as w:
        w.delete_page("http://a2/")
    assert w.report.counters["links_removed"] == 1
    with db.reader() as r:
        assert list(r.get_links(A)) == [] and [link.from_md5 for link in r.get_links("http://t/")] == [B]
        assert [p.url for p in r.pages()] == ["http://b/"] and [p.url for p in r.pages_by_md5()] == ["http://b/"]


def test_add_link_replaces_same_pair_and_is_refused_without_source(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
    with db.writer() as w:
        w.add_link(Link(from_md5=A, to_url="http://t/", anchor="first"))
        w.add_link(Link(from_md5=C, to_url="http://t/", anchor="orphan"))
    assert w.report.counters["links_refused"] == 1
    with db.writer() as w:
        w.add_link(Link(from_md5=A, to_url="http://t/", anchor="second"))
    with db.reader() as r:
        assert list(r.links()) == [Link(from_md5=A, to_url="http://t/", anchor="second")]
        assert list(r.get_links(A)) == [Link(from_md5=A, to_url="http://t/", anchor="second")]


def test_page_content_change_drops_links_of_content_nobody_holds(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
    with db.writer() as w:
        w.add_link(Link(from_md5=A, to_url="http://t/"))
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=B))
    with db.reader() as r:
        assert r.num_links() == 0 and r.get_pages(A) == [] and [p.url for p in r.get_pages(B)] == ["http://a/"]


def test_aborted_writer_changes_nothing(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
    before = snapshot(db)
    with pytest.raises(RuntimeError), db.writer() as w:
        w.delete_page("http://a/")
        raise RuntimeError("caller failed")
    assert snapshot(db) == before
    assert not list((db.path).glob("tmp-*"))
    with pytest.raises(RuntimeError):
        w.add_page(Page(url="http://b/", md5=B))


def test_reader_keeps_its_version_while_a_writer_installs(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
    with db.reader() as r:
        for _ in range(2):  # twice: the reader's version is renamed to old/, then removed
            with db.writer() as w:
                w.delete_page("http://a/")
                w.add_page(Page(url="http://b/", md5=B))
        assert [p.url for p in r.pages()] == ["http://a/"] and r.get_page("http://a/") is not None
    assert [p.url for p in snapshot(db)[0]] == ["http://b/"]
