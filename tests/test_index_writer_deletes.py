"""The tantivy writer's deletes: skipped where they can remove nothing, sent wherever a document may exist."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tantivy

from gossamer.core import Settings
from gossamer.index.store import live_index, shard_name
from gossamer.index.tantivy_writer import FirstWrites, TantivyIndexWriter
from gossamer.plugins import IndexField
from gossamer.store import as_place

FIELDS = (IndexField("id", "raw"), IndexField("content", "text"))


class _Spy:
    """A tantivy IndexWriter that records the ids it is asked to delete."""

    def __init__(self, writer: Any, deleted: list[str]) -> None:
        self._writer, self._deleted = writer, deleted

    def delete_documents_by_term(self, field: str, value: str) -> int:
        self._deleted.append(value)
        return self._writer.delete_documents_by_term(field, value)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)


def _run(location: Path, writes: list[str], deletes: list[str]) -> list[str]:
    """One writer run: ``writes`` then ``deletes``, committed; returns the ids sent to tantivy's deletes."""
    writer = TantivyIndexWriter(Settings())
    writer.open(str(location), FIELDS)
    sent: list[str] = []
    writer._writers = [_Spy(w, sent) for w in writer._writers]
    for url in writes:
        writer.write({"id": url, "content": f"text of {url}"})
    for url in deletes:
        writer.delete(url)
    writer.commit()
    return sent


def _ids(location: Path) -> set[str]:
    live = live_index(as_place(location))
    assert live is not None
    index = tantivy.Index.open(str(Path(str(live)) / shard_name(0)))
    index.reload()
    searcher = index.searcher()
    hits = searcher.search(tantivy.Query.all_query(), 100).hits
    return {searcher.doc(address)["id"][0] for _, address in hits}


def test_first_writes_may_hold_only_what_a_new_index_was_given() -> None:
    first = FirstWrites(True, limit=2)
    assert not first.may_hold("a")
    first.needs_delete("a")
    assert first.may_hold("a") and not first.may_hold("b")
    assert not first.needs_delete("b")  # asking never remembered "b"
    first.needs_delete("c")  # past the limit: tracking stops, anything may be there
    assert first.may_hold("z")
    assert FirstWrites(False).may_hold("a")


def test_a_new_index_skips_deletes_of_urls_it_never_held_and_keeps_the_rest(tmp_path: Path) -> None:
    location = tmp_path / "index"
    sent = _run(location, ["http://a/1", "http://a/2"], ["http://a/2", "http://gone/1"])
    assert sent == ["http://a/2"]  # "gone/1" was never written: its delete could remove nothing
    assert _ids(location) == {"http://a/1"}


def test_a_live_index_sends_every_delete(tmp_path: Path) -> None:
    location = tmp_path / "index"
    _run(location, ["http://a/1", "http://a/2"], [])
    sent = _run(location, ["http://a/3"], ["http://a/1", "http://gone/1"])
    assert sent == ["http://a/3", "http://a/1", "http://gone/1"]  # a live index: the write deletes first too
    assert _ids(location) == {"http://a/2", "http://a/3"}
