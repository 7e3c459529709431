"""Token ids of cut words kept on disk: same vectors, parts merged, damage and limits handled."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gossamer.index import word_store
from gossamer.index.word_store import WordStore, decode_words, encode_words

WORDS = {"hash": (12, 7), "map": (3,), "naïve": (1, 2, 3), "x" * 40: tuple(range(20))}


def test_a_part_reads_back_as_written() -> None:
    assert decode_words(encode_words(WORDS)) == WORDS
    assert decode_words(encode_words({})) == {}


@pytest.mark.parametrize("damage", [lambda raw: raw[:-1], lambda raw: b"x" + raw[1:], lambda raw: raw[:5]])
def test_a_damaged_part_is_refused(damage) -> None:
    with pytest.raises(ValueError):
        decode_words(damage(encode_words(WORDS)))


def test_saved_words_load_in_the_next_process(tmp_path: Path) -> None:
    store = WordStore(tmp_path / "store", 100)
    assert store.load() == {}
    assert store.save({"hash": (12, 7)})
    assert store.save({"map": (3,)})
    assert WordStore(tmp_path / "store", 100).load() == {"hash": (12, 7), "map": (3,)}


def test_a_damaged_part_is_deleted_and_the_rest_kept(tmp_path: Path) -> None:
    store = WordStore(tmp_path, 100)
    store.save({"hash": (12, 7)})
    (tmp_path / f"0{word_store.SUFFIX}").write_bytes(b"garbage")
    assert WordStore(tmp_path, 100).load() == {"hash": (12, 7)}
    assert len(list(tmp_path.iterdir())) == 1


def test_the_scratch_file_of_a_writer_that_died_is_deleted(tmp_path: Path) -> None:
    """A part's scratch file older than STALE_SCRATCH_SECONDS is a dead writer's; a fresh one may be live."""
    store = WordStore(tmp_path, 100)
    store.save({"hash": (12, 7)})
    dead, live = tmp_path / f".1-1{word_store.SUFFIX}.tmp", tmp_path / f".2-2{word_store.SUFFIX}.tmp"
    dead.write_bytes(encode_words({"half": (1,)})[:9])
    live.write_bytes(b"")
    old = time.time() - word_store.STALE_SCRATCH_SECONDS - 5
    os.utime(dead, (old, old))
    assert WordStore(tmp_path, 100).load() == {"hash": (12, 7)}
    assert not dead.exists() and live.exists()


def test_many_parts_are_merged_into_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(word_store, "MAX_PARTS", 3)
    store = WordStore(tmp_path, 100)
    for i in range(5):
        store.save({f"w{i}": (i,)})
    assert len(list(tmp_path.iterdir())) == 5
    words = WordStore(tmp_path, 100).load()
    assert words == {f"w{i}": (i,) for i in range(5)}
    assert len(list(tmp_path.iterdir())) == 1
    assert WordStore(tmp_path, 100).load() == words


def test_a_full_store_starts_again_and_stops_saving(tmp_path: Path) -> None:
    store = WordStore(tmp_path, 2)
    store.save({"a": (1,), "b": (2,)})
    assert not store.save({"c": (3,)})
    assert WordStore(tmp_path, 2).load() == {"a": (1,), "b": (2,)}
    WordStore(tmp_path, 3).save({"c": (3,)})
    assert WordStore(tmp_path, 2).load() == {}
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_store_is_ignored(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    store = WordStore(blocker / "store", 100)
    assert store.load() == {}
    assert not store.save({"a": (1,)})
    assert not store.writable


def test_the_store_is_named_after_the_tokenizer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("{}")
    second.write_text("{ }")
    one = WordStore.for_tokenizer(first, 10).directory
    assert one.parent == tmp_path / "cache" / "gossamer"
    assert one == WordStore.for_tokenizer(first, 10).directory
    assert one != WordStore.for_tokenizer(second, 10).directory
