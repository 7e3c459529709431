"""The parse tables' batch conversion: :func:`text_array` is ``pa.array(texts, pa.large_string())``."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gossamer.crawl.parse.page_buffer import text_array


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=50), max_size=30))
def test_text_array_is_arrows_conversion(texts: list[str]) -> None:
    built = text_array(texts)
    assert built.type == pa.large_string()
    assert built.equals(pa.array(texts, pa.large_string()))
    built.validate(full=True)


def test_text_array_shapes_and_errors() -> None:
    assert text_array([]).to_pylist() == []
    assert text_array(["", "x" * 3_000_000, "", "\u00e9\U0001f600"]).to_pylist() == ["", "x" * 3_000_000, "",
                                                                                   "\u00e9\U0001f600"]
    with pytest.raises(UnicodeEncodeError):
        text_array(["ok", "lone \udcff surrogate"])
