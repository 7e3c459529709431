"""The outlink filter's per-link loop in C (``_outlinks``) against the Python walk: the same kept links, on any input.

:func:`keep_links` is run both ways over hand-written cases and generated ones (self links,
repeated targets, dropped targets, targets first seen, every ``db.ignore.*`` mode, exemption
callbacks, limits); :class:`OutlinkFilter` with the C walk and without gives the same
outlinks for real settings, a small memo that is emptied while a page is walked included.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gossamer.core import Outlink, OutlinkList
from gossamer.core.settings import load_settings
from gossamer.crawl.parse import outlink_keep
from gossamer.crawl.parse.outlink_keep import IGNORE_EXTERNAL, IGNORE_INTERNAL, Entry, Scope, keep_links
from gossamer.crawl.parse.outlinks import OutlinkFilter
from gossamer.plugins import PluginRepository

pytestmark = pytest.mark.skipif(not outlink_keep.native_available(), reason="the _outlinks extension is not built")

PAGE = "http://a.test/p"
RAWS = [PAGE, "http://a.test/x", "http://a.test/y", "http://b.test/z", "http://b.test/img.png", "mailto:q",
        "http://a.test/X", "http://c.test/"]


def _entry(raw: str) -> Entry:
    """A stand-in for the filter's processing: drop mailto, lower-case, origin = host."""
    if raw.startswith("mailto:"):
        return None, None
    url = raw.lower()
    return url, url.split("/")[2]


def _both(to_urls: list[str], preset: dict[str, Entry], scope: Scope, limit: int,
          source: str | None = "a.test") -> tuple[list[str], list[int]]:
    results = []
    for native in (True, False):
        memo = dict(preset)
        entered: list[str] = []

        def enter(raw: str, memo: dict[str, Entry] = memo, entered: list[str] = entered) -> Entry:
            entered.append(raw)
            memo[raw] = _entry(raw)
            return memo[raw]

        results.append((keep_links(list(to_urls), memo, enter, PAGE, source, scope, limit, native), entered, memo))
    assert results[0] == results[1]
    return results[0][0]


def _exempt_images(from_url: str, to_url: str) -> bool:
    return to_url.endswith(".png")


def test_the_rules_keep_what_they_say() -> None:
    links = [PAGE, "http://a.test/x", "http://a.test/X", "mailto:q", "http://b.test/z", "http://b.test/img.png"]
    assert _both(links, {}, Scope(), 100) == (["http://a.test/x", "http://b.test/z", "http://b.test/img.png"],
                                               [1, 4, 5])
    assert _both(links, {}, Scope(IGNORE_EXTERNAL), 100) == (["http://a.test/x"], [1])
    assert _both(links, {}, Scope(IGNORE_EXTERNAL, _exempt_images), 100) == (
        ["http://a.test/x", "http://b.test/img.png"], [1, 5])
    assert _both(links, {}, Scope(IGNORE_INTERNAL), 100) == (["http://b.test/z", "http://b.test/img.png"], [4, 5])
    assert _both(links, {}, Scope(IGNORE_INTERNAL | IGNORE_EXTERNAL), 100) == ([], [])
    assert _both(links, {}, Scope(), 2) == (["http://a.test/x", "http://b.test/z"], [1, 4])
    assert _both(links, {}, Scope(IGNORE_EXTERNAL), 100, source=None) == ([], [])
    unknown_origin = {"http://a.test/x": ("http://a.test/x", None)}
    assert _both(links, unknown_origin, Scope(IGNORE_INTERNAL), 100)[0] == ["http://b.test/z", "http://b.test/img.png"]


def test_an_exemption_error_propagates_from_both_walks() -> None:
    def broken(from_url: str, to_url: str) -> bool:
        raise RuntimeError("filter broke")

    for native in (True, False):
        with pytest.raises(RuntimeError, match="filter broke"):
            keep_links(["http://b.test/z"], {}, _entry, PAGE, "a.test", Scope(IGNORE_EXTERNAL, broken), 10, native)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(RAWS), max_size=40), st.dictionaries(st.sampled_from(RAWS), st.tuples(
    st.sampled_from([None, "http://a.test/x", "http://b.test/z", "http://c.test/"]),
    st.sampled_from([None, "a.test", "b.test"])), max_size=5),
    st.integers(min_value=0, max_value=3), st.booleans(), st.integers(min_value=1, max_value=50),
    st.sampled_from(["a.test", None, "b.test"]))
def test_fuzzed_links_give_the_same_result(to_urls: list[str], preset: dict[str, Entry], mode: int, exempts: bool,
                                           limit: int, source: str | None) -> None:
    _both(to_urls, preset, Scope(mode, _exempt_images if exempts else None), limit, source)


@pytest.mark.parametrize("overrides", [
    [], ["db.ignore.external.links=true"], ["db.ignore.internal.links=true"],
    ["db.ignore.external.links=true", "db.ignore.external.links.mode=byDomain"],
    ["parser.outlink.cache.size=3", "db.max.outlinks.per.page=5"],
])
def test_the_filter_gives_the_same_outlinks_with_either_walk(overrides: list[str]) -> None:
    current = load_settings(overrides=overrides)
    repository = PluginRepository(current)
    walks = [OutlinkFilter(current, repository, native=native) for native in (True, False)]
    pages = [(f"http://h{p % 3}.test/dir/p{p}.html",
              [Outlink(f"http://h{(p + i) % 4}.test/dir/p{(p * 7 + i) % 11}.html?a=1#f", f"a{i}") for i in range(12)]
              + [Outlink(f"http://h{p % 3}.test/dir/p{p}.html", "self"), Outlink("http://h1.test/../x", "dots"),
                 Outlink("ftp://h2.test/file", "ftp"), Outlink("http://h1.test/" + "y" * 5000, "long")])
             for p in range(40)]
    for from_url, links in pages:
        first, second = (walk.outlinks(from_url, links) for walk in walks)
        assert (first.to_urls, first.anchors, first.metadata) == (second.to_urls, second.anchors, second.metadata)
        assert isinstance(first, OutlinkList)
