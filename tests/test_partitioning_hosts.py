"""``hosts_of`` in C (``store/_hosts.c``) against :func:`host_of` (the regex) and the Arrow path: the same hosts.

Generated URLs mix schemes, user info, ports, IPv6 brackets (closed and not), delimiters and
non-ASCII text; arrays come as string and large string, sliced (a non-zero offset), with nulls,
empty and chunked.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gossamer.store import partitioning
from gossamer.store.partitioning import host_of, hosts_of, hosts_of_arrow

pytestmark = pytest.mark.skipif(partitioning._native_hosts() is None, reason="the _hosts extension is not built")

PARTS = ["http://", "HTTPS://", "ftp://", "x+y.z-1://", "1http://", "://", "http:/", "mailto:", "user:pw@", "@", "[",
         "]", "[::1]", "[fe80::1%25eth0]", "Ex.AMPLE.com", "host", ":8080", ":", "/", "?q=1", "#frag", "é", "ÄÖ",
         "\u3002", ".", "-", " ", "\t", "a", "Z", "%40"]


def _expected(values: list[str | None]) -> list[str]:
    return ["" if value is None else host_of(value) for value in values]


def _check(array: pa.Array | pa.ChunkedArray, values: list[str | None]) -> None:
    native = hosts_of(array)
    assert native.to_pylist() == _expected(values)
    assert native.equals(hosts_of_arrow(array))
    assert native.type == (array.type if not isinstance(array, pa.ChunkedArray) else array.chunk(0).type)


def test_the_rule_on_hand_written_urls() -> None:
    values = ["http://Ex.COM/a", "http://u:p@h@Host.test:80/x?y", "https://[::1]:8080/", "http://[::1/x", "http://[::1",
              "HTTP://h?q", "http://h#f", "h://", "1a://h/", "mailto:x@y", "http:/h/", "", None, "ftp://é.TEST/",
              "x://a@b/c@d", "x://a/b@c"]
    _check(pa.array(values, pa.string()), values)
    assert hosts_of(pa.array(values)).to_pylist()[:6] == ["ex.com", "host.test", "[::1]", "[", "[", "h"]


def test_array_shapes() -> None:
    values = [f"http://H{i % 7}.test:{i}/p?{i}" if i % 5 else None for i in range(300)]
    array = pa.array(values, pa.string())
    _check(array, values)
    _check(array.slice(17, 150), values[17:167])
    _check(pa.array(values, pa.large_string()).slice(3, 10), values[3:13])
    _check(pa.chunked_array([array.slice(0, 100), array.slice(100)]), values)
    assert hosts_of(pa.array([], pa.string())).to_pylist() == []
    assert hosts_of(pa.array([None, None], pa.string())).to_pylist() == ["", ""]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.lists(st.one_of(st.none(), st.lists(st.one_of(st.sampled_from(PARTS), st.text(max_size=3)), max_size=12)
                          .map("".join)), max_size=30),
       st.booleans(), st.integers(min_value=0, max_value=5))
def test_fuzzed_urls_give_the_regex_hosts(values: list[str | None], large: bool, start: int) -> None:
    array = pa.array(values, pa.large_string() if large else pa.string())
    _check(array.slice(min(start, len(values))), values[start:])
