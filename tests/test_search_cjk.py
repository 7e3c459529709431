"""Chinese and Japanese pages are found by Chinese and Japanese queries (one token per ideograph or kana)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gossamer.core import has_cjk
from gossamer.index import Analysis, analyze
from gossamer.index.cjk import cjk_tokens, is_cjk_field, is_cjk_language
from gossamer.search.query_parse import tokenize
from gossamer.search.searcher import open_searcher
from tests.index_fixtures import Page, make_crawl, settings_for_test

ZH = "http://zh.test/crawler"
JA = "http://ja.test/tokyo"
MIXED = "http://zh.test/python"
EN = "http://en.test/crawler"


def pages() -> list[Page]:
    return [
        Page(ZH, "网络爬虫", "网络爬虫是一种按照一定的规则，自动地抓取万维网信息的程序或者脚本。"
                             "它们被广泛用于搜索引擎。", meta={"lang": "zh"}),
        # no declared language: the language identifier says Japanese
        Page(JA, "東京について", "東京は日本の首都です。多くの人が東京の検索エンジンを使っています。"
                                 "東京タワーは有名な建物です。"),
        Page(MIXED, "Python编程入门", "Python编程入门：学习如何使用Python编写网络程序和脚本。", meta={"lang": "zh"}),
        Page(EN, "Web crawler", "A web crawler is a program that browses the web for a search engine.",
             meta={"lang": "en"}),
    ]


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("cjk")
    return {n: make_crawl(root / f"shards{n}", pages(), shards=n) for n in (1, 3)}


def _urls(broker, query: str) -> list[str]:
    return [h.url for h in broker.search(query, n=10, per_site=0).hits]


def test_the_shadow_fields_split_like_the_query_parser() -> None:
    text = "Python编程 日本語のテキスト Häuser 123"
    assert cjk_tokens(text) == tokenize(text) == ["python", "编", "程", "日", "本", "語", "の", "テ", "キ", "ス", "ト",
                                                  "häuser", "123"]
    assert analyze("日本語のテキスト") == ["日本語のテキスト"]  # the text fields keep a run whole
    assert analyze("网络爬虫是一种按照一定的规则") == []  # and drop it past 40 bytes: why the shadow fields exist
    assert has_cjk("東京") and not has_cjk("Tokyo") and not has_cjk("Häuser — ok") and not has_cjk("")
    assert is_cjk_language("zh-TW") and is_cjk_language("ja") and not is_cjk_language("ko")
    assert not is_cjk_language(None) and not is_cjk_language("en")
    assert is_cjk_field("content_cjk") and not is_cjk_field("content") and not is_cjk_field("_cjk")


def test_chinese_and_japanese_pages_go_to_the_shadow_fields_others_do_not(tmp_path: Path) -> None:
    analysis = Analysis(settings_for_test(tmp_path))
    doc = analysis.apply({"lang": "zh", "title": "网络爬虫", "anchor": ["爬虫", 3], "content": "程序"})
    assert (doc["title_cjk"], doc["anchor_cjk"], doc["content_cjk"]) == ("网络爬虫", ["爬虫"], "程序")
    assert not any(map(is_cjk_field, analysis.apply({"lang": "en", "title": "网络", "content": "x"})))
    names = {f.name for f in analysis.shadow_fields(_text_fields("title", "anchor", "content", "opening", "url"))}
    assert {"title_cjk", "anchor_cjk", "content_cjk", "opening_cjk"} <= names and "url_cjk" not in names
    off = Analysis(settings_for_test(tmp_path, **{"index.cjk.fields": []}))
    assert "content_cjk" not in off.apply({"lang": "ja", "content": "東京"})


def _text_fields(*names: str):
    from gossamer.plugins import IndexField

    return [IndexField(name, "text") for name in names]


@pytest.mark.parametrize("query, found", [
    ("爬虫", [ZH]),                # two characters: a phrase
    ("网络爬虫", [ZH]),
    ("抓取万维网", [ZH]),           # inside a clause of the text, no spaces around
    ("爬虫 程序", [ZH]),            # two words, both required
    ("首都", [JA]),                # the page the language identifier took for Japanese
    ("東京タワー", [JA]),           # kanji and katakana
    ("Python编程", [MIXED]),       # Latin letters glued to ideographs
    ("python 脚本", [MIXED]),
    ("虫爬", []),                  # the characters, not in this order: no page
    ("東京 crawler", []),
])
def test_a_cjk_query_finds_its_page(crawls, query: str, found: list[str]) -> None:
    broker = open_searcher(*crawls[1])
    try:
        assert _urls(broker, query) == found, query
    finally:
        broker.close()


def test_a_character_found_on_several_pages_ranks_them_all(crawls) -> None:
    broker = open_searcher(*crawls[1])
    try:
        assert set(_urls(broker, "程序")) == {ZH, MIXED}
        assert _urls(broker, "web crawler")[0] == EN  # other queries unchanged (zh.test/crawler: its URL)
    finally:
        broker.close()


def test_cjk_scores_equal_on_1_and_n_shards(crawls) -> None:
    one, three = (open_searcher(*crawls[n]) for n in (1, 3))
    try:
        for query in ("程序", "网络 程序", "東京", "python 脚本"):
            a, b = one.search(query, n=10, per_site=0), three.search(query, n=10, per_site=0)
            assert a.total == b.total > 0, query
            assert {h.url: round(h.score, 9) for h in a.hits} == {h.url: round(h.score, 9) for h in b.hits}, query
    finally:
        one.close()
        three.close()


def test_an_index_without_cjk_fields_still_searches(tmp_path: Path) -> None:
    crawl, conf = make_crawl(tmp_path / "plain", pages(), **{"index.cjk.fields": []})
    broker = open_searcher(crawl, conf)
    try:
        assert _urls(broker, "web crawler")[0] == EN
        assert _urls(broker, "爬虫") == []  # as before the shadow fields: a run is one token of the text fields
    finally:
        broker.close()


def test_an_index_built_before_the_cjk_fields_is_extended_without_them(tmp_path: Path) -> None:
    """Upgrading must not make ``gossamer index`` refuse yesterday's index: it keeps its fields, with a note."""
    from gossamer.index import IndexDescription, live_index
    from gossamer.index.documents import IndexOptions
    from gossamer.index.indexer import index as run_index
    from gossamer.store import as_place

    crawl, _ = make_crawl(tmp_path / "old", pages(), **{"index.cjk.fields": []})
    conf = settings_for_test(crawl)  # today's defaults: CJK shadow fields on
    segments = sorted((crawl / "segments").iterdir())
    report = run_index(crawl / "index", crawl / "crawldb", crawl / "linkdb", segments, conf, IndexOptions())
    assert report.added == len(pages()) and any("no CJK shadow fields" in note for note in report.notes)
    live = live_index(as_place(crawl / "index", conf))
    assert live is not None and not any(map(is_cjk_field, (f.name for f in IndexDescription.read(live).fields)))
    broker = open_searcher(crawl, conf)
    try:
        assert _urls(broker, "web crawler")[0] == EN
    finally:
        broker.close()


def test_a_cjk_query_on_an_index_without_cjk_pages_finds_nothing_quietly(tmp_path: Path) -> None:
    crawl, conf = make_crawl(tmp_path / "english", [p for p in pages() if p.url == EN], shards=2)
    broker = open_searcher(crawl, conf)
    try:
        assert _urls(broker, "東京") == [] and _urls(broker, "crawler 東京") == []
        assert _urls(broker, "crawler") == [EN]
    finally:
        broker.close()
