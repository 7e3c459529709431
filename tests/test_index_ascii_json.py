"""The index job's staged documents in ASCII (gossamer.index.ascii_json): the same JSON values, the same index."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gossamer.index.ascii_json import ascii_json, escapes_natively
from gossamer.search.searcher import open_searcher
from tests.index_fixtures import Page, make_crawl

pytestmark = pytest.mark.skipif(not escapes_natively(), reason="the optional C extension is not built")

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_any_value_comes_back_the_same_from_ascii_text(value: object) -> None:
    text = orjson.dumps(value)
    escaped = ascii_json(text)
    assert escaped.isascii()
    assert orjson.loads(escaped) == value == json.loads(escaped)


def test_escapes_are_pythons_and_astral_characters_surrogate_pairs() -> None:
    value = {"t": "café — naïve 日本語 𝄞 \u2028 end", "n": [1, "ß"]}
    escaped = ascii_json(orjson.dumps(value))
    assert escaped == json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode()
    assert b"\\ud834\\udd1e" in escaped  # U+1D11E as a surrogate pair


def test_ascii_text_is_returned_itself() -> None:
    text = orjson.dumps({"id": "http://a.test/", "content": "plain words"})
    assert ascii_json(text) is text
    assert ascii_json(b"") == b""


@pytest.mark.parametrize("bad", [b'"\xc3"', b'"\xc3\x28"', b'"\xe2\x82"', b'"\xc0\xaf"', b'"\xe0\x80\xaf"',
                                 b'"\xed\xa0\x80"', b'"\xf4\x90\x80\x80"', b'"\x80"', b'"\xff"'])
def test_bytes_that_are_not_utf8_are_refused(bad: bytes) -> None:
    with pytest.raises(ValueError, match="not UTF-8"):
        ascii_json(bad)


def test_a_str_is_refused() -> None:
    with pytest.raises(TypeError):
        ascii_json("{}")  # type: ignore[arg-type]


def test_pages_beyond_ascii_are_indexed_searched_and_shown_as_written(tmp_path: Path) -> None:
    title = "Café — 日本語の文書"
    text = "un café crème, naïve façade; 東京 の 𝄞 clef"
    crawl, conf = make_crawl(tmp_path / "crawl", [Page("http://b.test/cafe", title, text),
                                                  Page("http://a.test/plain", "Plain", "plain ascii words")])
    broker = open_searcher(crawl, conf)
    try:
        for query in ("café", "crème", "façade", "clef"):
            found = broker.search(query, per_site=0)
            assert [h.details.url for h in found.hits] == ["http://b.test/cafe"], query
        (hit,) = broker.search("naïve", per_site=0).hits
        assert hit.details.title == title
        assert [h.details.url for h in broker.search("ascii", per_site=0).hits] == ["http://a.test/plain"]
    finally:
        broker.close()
