"""Snippets of long pages: the best fragment of the text's start, the whole text only when the start lacks the terms."""

from __future__ import annotations

from pathlib import Path

from gossamer.search.searcher import open_searcher
from tests.index_fixtures import Page, make_crawl

FILLER = " ".join(f"word{i}" for i in range(300))
TEXT = f"early kettle mention {FILLER} kettle teapot teapot teapot late {FILLER}"
SCAN = {"searcher.summary.scan.chars": 200}


def _snippet(crawl: Path, conf, query: str) -> tuple[str, list[str]]:
    broker = open_searcher(crawl, conf)
    try:
        hit = broker.search(query, per_site=0).hits[0]
    finally:
        broker.close()
    return hit.details.snippet.text, [hit.details.snippet.text[a:b] for a, b in hit.details.snippet.highlights]


def test_a_long_text_s_snippet_comes_from_its_start_or_else_from_the_whole_text(tmp_path: Path) -> None:
    crawl, conf = make_crawl(tmp_path / "c", [Page("http://a.test/long", "Long", TEXT)], **SCAN)
    text, marked = _snippet(crawl, conf, "kettle")
    assert text.startswith("early kettle") and marked == ["kettle"]  # found in the first 200 characters
    text, marked = _snippet(crawl, conf, "teapot")
    assert "teapot" in text and marked and set(marked) == {"teapot"}  # only later: the whole text is read
    whole = conf.with_values([("searcher.summary.scan.chars", 0)], "test")
    text, marked = _snippet(crawl, whole, "kettle teapot")
    assert "teapot" in text  # 0: always the whole text (its best fragment holds both words)


def test_the_start_is_cut_at_a_space_so_no_word_is_cut_into_a_match(tmp_path: Path) -> None:
    text = "a" * 150 + " " + "x" * 46 + " kettles " + "pad " * 100 + "kettle at last"
    crawl, conf = make_crawl(tmp_path / "c", [Page("http://a.test/cut", "Cut", text)],
                             **{"searcher.summary.scan.chars": 204})
    snippet, marked = _snippet(crawl, conf, "kettle")
    assert marked == ["kettle"] and "at last" in snippet  # the first 204 characters end in "kettle" of "kettles"


def test_highlights_mark_the_terms_after_characters_of_several_bytes(tmp_path: Path) -> None:
    """tantivy reports byte offsets: after ``☰``, ``ü`` or ``日本`` they must still mark the very words."""
    text = "☰ Menü — Größe 日本語 hash map: a hash map über alles, hashing ☕ map"
    crawl, conf = make_crawl(tmp_path / "c", [Page("http://a.test/u", "Unicode", text)])
    _, marked = _snippet(crawl, conf, "hash map")
    assert marked and set(marked) == {"hash", "map"}
    _, marked = _snippet(crawl, conf, "über")
    assert marked == ["über"]


def test_character_ranges_convert_byte_offsets_and_widen_a_cut_character() -> None:
    from types import SimpleNamespace

    from gossamer.search.details import character_ranges

    def ranges(*pairs: tuple[int, int]) -> list[SimpleNamespace]:
        return [SimpleNamespace(start=a, end=b) for a, b in pairs]

    assert character_ranges("plain text", ranges((6, 10))) == [(6, 10)]
    text = "ü☃ab€c"
    data = text.encode()
    for start, end in [(0, 2), (2, 5), (5, 7), (7, 10), (10, 11), (0, 11)]:
        (a, b), = character_ranges(text, ranges((start, end)))
        assert text[a:b].encode() == data[start:end]
    assert character_ranges(text, ranges((1, 3))) == [(0, 2)]  # inside ü and ☃: both characters
