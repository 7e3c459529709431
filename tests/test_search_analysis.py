"""Stemmed shadow fields (by page language) and soft matching: what they find, and scores equal on 1 and N shards."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from gossamer.core.settings import Settings
from gossamer.index import Analysis, query_stems
from gossamer.index.analysis import shadow_terms, stem_language, stem_tokens, stemmer_of
from gossamer.plugins import IndexField
from gossamer.search.scoring import (
    Leaf,
    Stats,
    coordination,
    explained_factors,
    max_partial_coordination,
    soft_parts,
)
from gossamer.search.searcher import open_searcher
from tests.index_fixtures import Page, make_crawl


def pages() -> list[Page]:
    en, de = {"lang": "en"}, {"lang": "de"}
    return [
        Page("http://a.test/crawling", "Crawling the web", "a crawler is crawling pages and links", meta=en),
        Page("http://a.test/crawl", "Crawl", "the crawl command starts one crawl", meta=en),
        Page("http://b.test/haus", "Häuser", "die Häuser der Stadt", meta=de),
        Page("http://b.test/cafe", "Café", "un café au lait", meta={"lang": "fr"}),
        Page("http://c.test/copy", "Shallow and deep copy", "copy a list without shared items: deepcopy", meta=en),
        Page("http://c.test/list", "Lists", "a list holds items in order; a shallow copy shares them", meta=en),
        Page("http://c.test/join", "os.path.join", "join path components: os.path.join(a, b)", meta=en),
        Page("http://e.test/vector", "std::vector", "std::vector<T> is a sequence container that holds T", meta=en),
        Page("http://e.test/create-index", "CREATE INDEX", "CREATE INDEX constructs an index on a column", meta=en),
        Page("http://e.test/hashmap", "HashMap", "java.util.HashMap: a hash table based map", meta=en),
        Page("http://d.test/other", "Unrelated", "tea kettle recipes and other things", meta=en),
    ]


ON = {"index.analysis.fields": ["title", "anchor", "content"], "index.analysis.languages": ["en", "de"],
      "query.stem.languages": ["en", "de"], "query.stem.boost": 0.5, "query.soft": True}
"""More than the defaults (stemmed ``title``, English only): every text field, two languages."""


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Settings]]:
    root = tmp_path_factory.mktemp("analysis")
    return {n: make_crawl(root / f"shards{n}", pages(), shards=n, **ON) for n in (1, 3)}


def test_analyzers_stem_by_language_and_fold() -> None:
    assert stem_tokens("Crawling Cafés", "en") == ["crawl", "cafe"]
    assert stem_tokens("Häuser", "de") == ["haus"]
    assert stem_tokens("Häuser", None) == ["hauser"]  # no language, no default: folding only
    assert stemmer_of("unknown", "en") == "english" and stemmer_of("xx") is None
    assert query_stems("crawling", ["en", "de"]) == ["crawl", "crawling"]


def test_query_words_are_looked_up_in_each_language_field_or_in_an_old_index_s_one_field() -> None:
    new = {"content", "content_stem_en", "content_stem_de"}
    assert shadow_terms("content", "crawling", ["en", "de", "fr"], new) == (
        ("content_stem_en", "crawl"), ("content_stem_de", "crawling"))
    assert shadow_terms("content", "crawling", ["en", "de"], {"content", "content_stem"}) == (
        ("content_stem", "crawl"), ("content_stem", "crawling"))  # an index written before per-language fields
    assert shadow_terms("content", "crawling", ["en"], {"content"}) == ()
    assert stem_language("content_stem_xx") is None and stem_language("opening_stem_no") == "no"
    assert stem_language("content_stem") is None and stem_language("stem_en") is None


def test_shadow_fields_follow_the_setting(tmp_path: Path) -> None:
    from tests.index_fixtures import settings_for_test

    analysis = Analysis(settings_for_test(tmp_path, **ON))
    doc = analysis.apply({"lang": "de", "title": "Die Häuser", "anchor": ["Häuser", 3], "content": "x"})
    assert doc["title_stem_de"] == "Die Häuser" and doc["anchor_stem_de"] == ["Häuser"]  # tantivy stems them
    assert set(analysis.apply({"lang": "fr", "title": "Café"})) == {"lang", "title", "title_stem_en"}  # the default
    assert [f.name for f in analysis.shadow_fields([IndexField("title", "text")])] == [
        "title_stem_en", "title_stem_de", "title_cjk"]  # and the CJK one (index.cjk.fields, tests/test_search_cjk.py)
    off = Analysis(settings_for_test(tmp_path, **{"index.analysis.fields": []}))
    assert off.apply({"title": "Häuser"}) == {"title": "Häuser"}


def test_stemmed_matches_score_below_exact_ones(crawls) -> None:
    broker = open_searcher(*crawls[3])
    try:
        found = broker.search("crawl", n=10, per_site=0)
        hits = [h.url for h in found.hits]
        assert hits[0] == "http://a.test/crawl" and "http://a.test/crawling" in hits
        # the German page is stemmed as German: "Häuser" → "haus"
        assert [h.url for h in broker.search("haus", per_site=0).hits] == ["http://b.test/haus"]
        assert [h.url for h in broker.search("cafe", per_site=0).hits] == ["http://b.test/cafe"]
        detail = broker.explain("http://a.test/crawling", "crawl")
        assert detail is not None and {leaf["field"] for leaf in detail["leaves"]} <= {
            "title_stem_en", "content_stem_en", "anchor_stem_en", "title_stem_de", "content_stem_de", "anchor_stem_de"}
    finally:
        broker.close()


def test_stemming_is_on_by_default_and_an_index_without_shadow_fields_still_searches(tmp_path: Path) -> None:
    from tests.index_fixtures import settings_for_test

    defaults = settings_for_test(tmp_path)
    assert defaults.get_list("index.analysis.fields") == ["title"]
    assert defaults.get_float("query.stem.boost") == 0.5
    nutch = defaults.with_values([("settings.profile", "nutch")], "test")
    assert nutch.get_list("index.analysis.fields") == [] and nutch.get_float("query.stem.boost") == 0.0
    stemmed, conf = make_crawl(tmp_path / "stemmed", pages()[:2])
    plain, _ = make_crawl(tmp_path / "plain", pages()[:2], **{"index.analysis.fields": []})
    for crawl, found in ((stemmed, ["http://a.test/crawling", "http://a.test/crawl"]),  # exact form first
                         (plain, ["http://a.test/crawling"])):  # today's settings, an index without shadow fields
        broker = open_searcher(crawl, conf)
        try:
            assert [h.url for h in broker.search("crawling", per_site=0).hits] == found
        finally:
            broker.close()


IDENTIFIERS = {"http://c.test/join": ("os.path.join", "join", "path"),
               "http://e.test/vector": ("std::vector", "vector", "std"),
               "http://e.test/create-index": ("CREATE INDEX", "create", "index", '"create index"'),
               "http://e.test/hashmap": ("java.util.HashMap", "hashmap", "util", "java")}


def test_an_index_with_shadow_fields_is_extended_and_searched(tmp_path: Path) -> None:
    """A second index run adds to the live index (its analyzers registered again on the opened shards)."""
    from gossamer.index.documents import IndexOptions
    from gossamer.index.indexer import index as run_index

    crawl, conf = make_crawl(tmp_path / "again", pages()[:2], **ON)
    segments = sorted((crawl / "segments").iterdir())
    run_index(crawl / "index", crawl / "crawldb", crawl / "linkdb", segments, conf, IndexOptions())
    broker = open_searcher(crawl, conf)
    try:
        assert {h.url for h in broker.search("crawls", per_site=0).hits} == {
            "http://a.test/crawling", "http://a.test/crawl"}
    finally:
        broker.close()


@pytest.mark.parametrize("url", list(IDENTIFIERS))
def test_identifiers_are_found_whole_and_by_parts(crawls, url: str) -> None:
    broker = open_searcher(*crawls[1])
    try:
        whole, *parts = IDENTIFIERS[url]
        assert [h.url for h in broker.search(whole, per_site=0).hits][0] == url, whole
        for query in parts:
            assert url in [h.url for h in broker.search(query, per_site=0).hits], query
    finally:
        broker.close()


def test_the_exact_form_scores_above_a_stemmed_one(tmp_path: Path) -> None:
    """Two pages alike but for the form of one word: each form finds both, its own page first."""
    same = "the tool {} pages of a site and stores them"
    twins = [Page("http://t.test/a", "Tool", same.format("crawls"), meta={"lang": "en"}),
             Page("http://t.test/b", "Tool", same.format("crawling"), meta={"lang": "en"})]
    broker = open_searcher(*make_crawl(tmp_path / "twins", twins, **ON))
    try:
        for query, first in (("crawls", "http://t.test/a"), ("crawling", "http://t.test/b")):
            hits = broker.search(query, per_site=0).hits
            assert [h.url for h in hits][0] == first and len(hits) == 2, query
            assert hits[0].score > hits[1].score, query
    finally:
        broker.close()


def test_coordination_ranks_more_and_rarer_matched_words_higher() -> None:
    stats = Stats(docs=1000, df={("content", "rare"): 2, ("content", "mid"): 50, ("content", "common"): 500})
    groups = [[("content", word)] for word in ("rare", "mid", "common")]

    def factor(*words: str) -> float:
        return coordination([Leaf(1.0, "content", w, 1.0, 10.0) for w in words], groups, stats, 2.0)[0]

    assert factor("rare", "mid", "common") == 1.0
    assert factor("rare", "mid") > factor("rare") > factor("mid") > factor("common")  # more words, rarer words
    assert factor("rare") > factor("mid", "common")  # one rare word outweighs two common ones
    assert max_partial_coordination(groups, stats, 2.0) == pytest.approx(factor("rare", "mid"))
    # the second tier's parts, best bound first: each subset of the words a page can match exactly …
    parts = soft_parts(list(reversed(groups)), stats, 2.0)
    assert [(req, exc) for req, exc, _ in parts] == [((1, 2), (0,)), ((0, 2), (1,)), ((2,), (0, 1)),
                                                     ((0, 1), (2,)), ((1,), (0, 2)), ((0,), (1, 2))]
    assert [bound for *_, bound in parts] == pytest.approx([factor("rare", "mid"), factor("rare", "common"),
                                                            factor("rare"), factor("mid", "common"),
                                                            factor("mid"), factor("common")])
    # … or, with more words, the rarest matched word's part, bounded by it and the words after it
    many = [[("content", w)] for w in ("common", "mid", "rare", "x1", "x2")]
    stats.df.update({("content", "x1"): 100, ("content", "x2"): 200})
    parts = soft_parts(many, stats, 2.0)
    assert [(req, exc) for req, exc, _ in parts] == [((2,), ()), ((1,), (2,)), ((3,), (2, 1)), ((4,), (2, 1, 3)),
                                                     ((0,), (2, 1, 3, 4))]


def test_soft_matching_ranks_pages_missing_a_word(crawls) -> None:
    broker = open_searcher(*crawls[3])
    try:
        found = broker.search("copy list without shared duplicates", n=10, per_site=0)
        assert found.hits and found.hits[0].url == "http://c.test/copy"
        detail = broker.explain("http://c.test/copy", "copy list without shared duplicates")
        assert detail is not None and detail["matches"] and 0 < detail["coordination"] < 1
        assert detail["soft_matched"] == [True, True, True, True, False]
        assert detail["score"] == pytest.approx(found.hits[0].score, rel=1e-9)
        # a page with every word comes first (coordination 1), then the partial ones
        both = broker.search("shallow copy", n=10, per_site=0)
        assert {h.url for h in both.hits[:2]} == {"http://c.test/copy", "http://c.test/list"}
        assert broker.explain(both.hits[0].url, "shallow copy")["coordination"] == 1.0
        # required words, phrases and field clauses stay required
        assert broker.search("+kettle copy", per_site=0).total == 0
        assert broker.search('"deep copy" unicorn', per_site=0).total == 0
    finally:
        broker.close()


def test_soft_and_stem_settings_turn_each_off(crawls) -> None:
    crawl, conf = crawls[1]
    strict = open_searcher(crawl, conf.with_values([("query.soft", False), ("query.stem.boost", 0.0)], "test"))
    try:
        assert strict.search("copy list without shared duplicates", per_site=0).total == 0
        assert [h.url for h in strict.search("crawl", per_site=0).hits] == ["http://a.test/crawl"]
    finally:
        strict.close()


def test_soft_and_stemmed_scores_equal_on_1_and_n_shards(crawls) -> None:
    one, three = (open_searcher(*crawls[n]) for n in (1, 3))
    try:
        for query in ("crawl pages", "copy list without shared duplicates", "haus cafe", "shallow copy items",
                      "os.path.join components kettle"):
            a, b = one.search(query, n=20, per_site=0), three.search(query, n=20, per_site=0)
            assert a.total == b.total > 0, query
            assert {h.url: round(h.score, 9) for h in a.hits} == {h.url: round(h.score, 9) for h in b.hits}, query
            grouped_a, grouped_b = one.search(query, n=3, per_site=1), three.search(query, n=3, per_site=1)
            assert [round(h.score, 9) for h in grouped_a.hits] == [round(h.score, 9) for h in grouped_b.hits]
    finally:
        one.close()
        three.close()


def test_a_word_the_index_splits_stays_required_in_the_soft_tier(crawls) -> None:
    """``os.path.join`` is searched as a phrase: a page with only ``path`` or ``join`` must not enter the
    soft tier through it (its exact score could then exceed the tier's bound, and 1 and N shards differ)."""
    broker = open_searcher(*crawls[3])
    try:
        found = broker.search("os.path.join components unicorn", n=20, per_site=0)
        assert [h.url for h in found.hits] == ["http://c.test/join"]  # the soft tier, through "components"
        assert broker.explain(found.hits[0].url, "os.path.join components unicorn")["coordination"] < 1.0
        assert broker.search("os.path.join copy kettle", n=20, per_site=0).total == 0
    finally:
        broker.close()


def test_explain_prints_every_factor_so_the_parts_multiply_to_the_score(crawls, cli) -> None:
    root, _ = crawls[1]
    on = ["-D", "query.soft=true", "-D", "query.stem.boost=0.5"]
    for query, label in (("os.path.join", "name"), ("copy list without shared duplicates", "coordination (4 of 5")):
        out = cli("search", "-d", root, query, "-n", "1", "--per-site", "0", "--explain", *on)
        assert out.code == 0, out.err
        score = float(re.search(r"\(score ([\d.]+)\)", out.out).group(1))
        line = re.search(r"^   = (.*)$", out.out, re.MULTILINE).group(1)
        assert label in line, line
        assert math.prod(float(part.split()[0]) for part in line.split(" × ")) == pytest.approx(score, rel=5e-3)
    assert explained_factors({"name_factor": 1.0, "opening_factor": 2.0, "coordination": 1.0}) == [
        ("description", 2.0)]
