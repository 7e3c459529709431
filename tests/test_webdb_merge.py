"""How a WebDB writer applies a batch: the seed's ordering hazards, any edit order, crashes, memory.

A reference model (plain dicts, the seed's rules stated directly) checks random batches; the
named tests pin each hazard of seed 003 on its own.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
from pathlib import Path

import pytest

import gossamer.engine.sorted_part as sorted_part
import gossamer.webdb.db as webdb_db
from gossamer.webdb import Link, Page, WebDB


def md5(text: str) -> bytes:
    return hashlib.md5(text.encode()).digest()


A, B, C = md5("a"), md5("b"), md5("c")


@pytest.fixture
def db(tmp_path: Path) -> WebDB:
    return WebDB.open(tmp_path / "webdb", memory_mb=4)


def state(db: WebDB) -> tuple[list[Page], list[Page], list[Link], list[Link]]:
    with db.reader() as r:
        by_md5 = list(r.pages_by_md5())
        links_by_md5 = [link for p in sorted({p.md5 for p in by_md5}) for link in r.get_links(p)]
        return list(r.pages()), by_md5, list(r.links()), links_by_md5


# --- the hazards the seed names, one batch each -------------------------------------------------

def test_add_if_not_present_decides_the_md5_edit(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
    with db.writer() as w:
        w.add_page_if_not_present(Page(url="http://a/", md5=B))  # refused: no (B, a) in pages-by-MD5
        w.add_page_if_not_present(Page(url="http://n/", md5=B))  # first of two for a new URL wins
        w.add_page_if_not_present(Page(url="http://n/", md5=C), Link(from_md5=C, to_url="http://x/"))
    pages, by_md5, links, _ = state(db)
    assert [(p.url, p.md5) for p in pages] == [("http://a/", A), ("http://n/", B)]
    assert sorted((p.md5, p.url) for p in by_md5) == [(A, "http://a/"), (B, "http://n/")]
    assert links == []


def test_deletes_cascade_to_links_in_the_same_batch(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
        w.add_page(Page(url="http://b/", md5=B))
    with db.writer() as w:
        w.add_link(Link(from_md5=A, to_url="http://old/"))
        w.add_link(Link(from_md5=B, to_url="http://old/"))
    with db.writer() as w:
        w.add_link(Link(from_md5=A, to_url="http://new/"))  # recorded before the delete: still refused
        w.delete_page("http://a/")
    assert w.report.counters == {"links_refused": 1, "links_removed": 1, "pages_deleted": 1}
    _, _, links, links_by_md5 = state(db)
    assert links == links_by_md5 == [Link(from_md5=B, to_url="http://old/")]


def test_links_wait_for_their_source_page_in_the_same_batch(db: WebDB) -> None:
    with db.writer() as w:
        w.add_link(Link(from_md5=C, to_url="http://t/", anchor="early"))  # before its page exists
        w.add_page_with_score(Page(url="http://c/", md5=C))
    assert w.report.counters.get("links_refused", 0) == 0
    _, _, links, links_by_md5 = state(db)
    assert links == links_by_md5 == [Link(from_md5=C, to_url="http://t/", anchor="early")]


def test_last_edit_of_a_url_wins_in_call_order(db: WebDB) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
        w.delete_page("http://a/")
        w.add_page(Page(url="http://b/", md5=B))
        w.delete_page("http://b/")
        w.add_page(Page(url="http://b/", md5=C, retries=3))
    pages, by_md5, _, _ = state(db)
    assert pages == by_md5 == [Page(url="http://b/", md5=C, retries=3)]


# --- random batches against a reference model ---------------------------------------------------

class Model:
    """The seed's rules, directly: page edits in call order, then links checked against the pages."""

    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.links: dict[tuple[str, bytes], Link] = {}

    def apply(self, batch: list[tuple[str, object, object]]) -> None:
        pending: list[Link] = []
        for op, arg, link in batch:
            if op == "delete":
                self.pages.pop(arg, None)  # type: ignore[call-overload]
            elif op == "link":
                pending.append(arg)  # type: ignore[arg-type]
            else:
                page: Page = arg  # type: ignore[assignment]
                old = self.pages.get(page.url)
                if op == "if_absent":
                    if old is None:
                        self.pages[page.url] = page
                        if link is not None:
                            pending.append(link)  # type: ignore[arg-type]
                    continue
                if op == "add" and old is not None:
                    page = Page(**{**page.row(), "score": old.score, "next_score": old.next_score})  # type: ignore[arg-type]
                self.pages[page.url] = page
        held = {p.md5 for p in self.pages.values()}
        for link in pending:
            if link.from_md5 in held:
                self.links[(link.to_url, link.from_md5)] = link
        self.links = {k: v for k, v in self.links.items() if k[1] in held}


def random_batch(rng: random.Random, size: int) -> list[tuple[str, object, object]]:
    urls = [f"http://h{i % 3}.example/{i}" for i in range(12)]
    contents = [md5(str(i)) for i in range(5)]
    batch: list[tuple[str, object, object]] = []
    for _ in range(size):
        kind = rng.choice(["add", "add_score", "if_absent", "delete", "link", "link"])
        page = Page(url=rng.choice(urls), md5=rng.choice(contents), fetch_time=rng.randrange(100),
                    score=float(rng.randrange(8)), next_score=float(rng.randrange(8)))
        link = Link(from_md5=rng.choice(contents), to_url=rng.choice(urls), anchor=f"a{rng.randrange(99)}")
        if kind == "delete":
            batch.append(("delete", page.url, None))
        elif kind == "link":
            batch.append(("link", link, None))
        elif kind == "if_absent":
            with_link = Link(from_md5=page.md5, to_url=link.to_url, anchor=link.anchor)
            batch.append(("if_absent", page, with_link if rng.random() < 0.5 else None))
        else:
            batch.append((kind, page, None))
    return batch


@pytest.mark.parametrize("seed", range(6))
def test_random_batches_match_the_model(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    db, model = WebDB.open(tmp_path / "webdb", memory_mb=2), Model()
    for _ in range(4):
        batch = random_batch(rng, 40)
        with db.writer() as w:
            for op, arg, link in batch:
                if op == "delete":
                    w.delete_page(arg)  # type: ignore[arg-type]
                elif op == "link":
                    w.add_link(arg)  # type: ignore[arg-type]
                elif op == "if_absent":
                    w.add_page_if_not_present(arg, link)  # type: ignore[arg-type]
                elif op == "add":
                    w.add_page(arg)  # type: ignore[arg-type]
                else:
                    w.add_page_with_score(arg)  # type: ignore[arg-type]
        model.apply(batch)
        pages, by_md5, links, links_by_md5 = state(db)
        assert pages == sorted(model.pages.values(), key=lambda p: p.url)
        assert by_md5 == sorted(model.pages.values(), key=lambda p: (p.md5, p.url))
        assert links == [model.links[k] for k in sorted(model.links)]
        assert links_by_md5 == sorted(model.links.values(), key=lambda k: (k.from_md5, k.to_url))


# --- crashes and the lock ------------------------------------------------------------------------

def test_crash_before_install_leaves_the_previous_version(db: WebDB, monkeypatch: pytest.MonkeyPatch) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
    before = state(db)

    def die(*args: object, **kwargs: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(webdb_db, "install", die)
    with pytest.raises(OSError), db.writer() as w:
        w.delete_page("http://a/")
        w.add_page(Page(url="http://b/", md5=B))
    assert state(db) == before and not list(db.path.glob("tmp-*"))


def test_killed_writer_leftovers_are_recovered(db: WebDB, monkeypatch: pytest.MonkeyPatch) -> None:
    with db.writer() as w:
        w.add_page(Page(url="http://a/", md5=A))
    before = state(db)
    monkeypatch.setattr(webdb_db, "install", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt()))
    monkeypatch.setattr(webdb_db, "discard", lambda staging: None)  # as if the process died: no cleanup
    with pytest.raises(KeyboardInterrupt), db.writer() as w:
        w.add_page(Page(url="http://b/", md5=B))
    assert list(db.path.glob("tmp-*")) and state(db) == before
    monkeypatch.undo()
    shutil.rmtree(db.path / "old")  # a crash between install's two renames: only old/ is left
    os.rename(db.path / "current", db.path / "old")
    assert state(WebDB.open(db.path)) == before
    with db.writer() as w:
        w.add_page(Page(url="http://c/", md5=C))
    assert not list(db.path.glob("tmp-*"))
    assert [p.url for p in state(db)[0]] == ["http://a/", "http://c/"]


def test_one_writer_at_a_time(db: WebDB) -> None:
    from gossamer.store import LockedError

    with db.writer(), pytest.raises(LockedError):
        db.writer()


# --- a batch larger than the memory budget -------------------------------------------------------

def test_batch_larger_than_the_memory_budget_spills_and_merges(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    spills: list[Path] = []
    real_write_run = sorted_part.write_sorted_run

    def counting(path: Path, *args: object) -> None:
        spills.append(path)
        real_write_run(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(sorted_part, "write_sorted_run", counting)
    db = WebDB.open(tmp_path / "webdb", memory_mb=1)
    n = 12_000
    order = list(range(n))
    random.Random(7).shuffle(order)
    with db.writer() as w:
        for i in order:
            content = md5(f"c{i % 1000}")
            w.add_link(Link(from_md5=content, to_url=f"http://t.example/{i:06d}/" + "x" * 40, anchor=f"{i}"))
            w.add_page(Page(url=f"http://site{i % 97}.example/page/{i:06d}/" + "y" * 40, md5=content))
    assert len(spills) >= 4  # page and link edit logs both spilled more than once
    with db.reader() as r:
        assert (r.num_pages(), r.num_links()) == (n, n)
        urls = [p.url for p in r.pages()]
        assert urls == sorted(urls) and len(set(urls)) == n
        md5s = [p.md5 for p in r.pages_by_md5()]
        assert md5s == sorted(md5s)
        assert [link.to_url for link in r.links()] == sorted(link.to_url for link in r.links())
        assert len(r.get_pages(md5("c5"))) == 12 and len(list(r.get_links(md5("c5")))) == 12
