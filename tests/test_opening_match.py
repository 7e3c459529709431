"""Description matching: a page whose opening holds every query word ranks higher; opening words count once."""

from __future__ import annotations

from pathlib import Path

import pytest

from gossamer.core.settings import Settings
from gossamer.search.opening_match import OpeningRule
from gossamer.search.scoring import Leaf
from gossamer.search.searcher import open_searcher
from tests.index_fixtures import Page, make_crawl

DESCRIBED = "http://jdi.test/InvalidFrameException.html"
NAMED = "http://jdi.test/requested-completed-valid-tasks.html"
LISTING = "http://jdi.test/package-summary.html"
FILLER = " ".join(f"word{i}" for i in range(60))


def pages() -> list[Page]:
    opening = "Thrown to indicate that the requested operation cannot be completed because the frame is not valid"
    listing = " ".join(f"{noun.title()}Exception: the requested {noun} operation cannot be completed, it is not valid."
                       for noun in ("frame", "thread", "index", "location", "value", "class"))
    return [
        Page(DESCRIBED, "InvalidFrameException", f"{opening}. {FILLER}", meta={"opening": opening}),
        # every word in the URL, the title and the text, none in the opening
        Page(NAMED, "Requested, completed and valid states",
             f"requested completed valid requested completed valid. {FILLER}",
             meta={"opening": "How tasks change their state"}),
        # a list that repeats the words in its opening
        Page(LISTING, "Package summary", f"{listing} {FILLER}", meta={"opening": listing}),
        Page("http://jdi.test/a.html", "Something else", f"valid requests are completed elsewhere {FILLER}",
             meta={"opening": "nothing to see"}),
    ]


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Settings]]:
    root = tmp_path_factory.mktemp("opening")
    crawls = {n: make_crawl(root / f"shards{n}", pages(), shards=n) for n in (1, 3)}
    crawls[0] = make_crawl(root / "repeats", pages(), **{"opening.distinct.words": False})
    return crawls


def _with(crawl: tuple[Path, Settings], **values: object) -> tuple[Path, Settings]:
    path, settings = crawl
    return path, settings.with_values(list(values.items()), "test")


def test_the_page_whose_opening_has_every_word_ranks_first(crawls) -> None:
    broker = open_searcher(*crawls[3])
    try:
        hits = broker.search("requested completed valid", per_site=0).hits
        assert hits[0].url == DESCRIBED
        explained = broker.explain(DESCRIBED, "requested completed valid")
        assert explained is not None and explained["opening_factor"] == pytest.approx(2.0)
        assert broker.explain(NAMED, "requested completed valid")["opening_factor"] == 1.0
        # a page whose opening lists the words many times has each once in the field
        listing = broker.explain(LISTING, "requested completed valid")
        assert [leaf["freq"] for leaf in listing["leaves"] if leaf["field"] == "opening"] == [1.0, 1.0, 1.0]
        # one word, a required word or a phrase: nothing to describe
        assert broker.explain(DESCRIBED, "requested")["opening_factor"] == 1.0
        assert broker.explain(DESCRIBED, "+requested +completed")["opening_factor"] == 1.0
        assert broker.explain(DESCRIBED, '"requested operation"')["opening_factor"] == 1.0
    finally:
        broker.close()


def test_both_rules_off_give_the_plain_scores(crawls) -> None:
    broker = open_searcher(*_with(crawls[0], **{"query.opening.all.boost": 1.0}))
    try:
        assert broker.search("requested completed valid", per_site=0).hits[0].url != DESCRIBED
        listing = broker.explain(LISTING, "requested completed valid")
        assert all(leaf["freq"] == 6.0 for leaf in listing["leaves"] if leaf["field"] == "opening")
        assert broker.explain(DESCRIBED, "requested completed valid")["opening_factor"] == 1.0
    finally:
        broker.close()


def test_description_scores_equal_on_1_and_n_shards(crawls) -> None:
    one, three = (open_searcher(*crawls[n]) for n in (1, 3))
    try:
        for query in ("requested completed valid", "requested completed", "operation valid", "completed",
                      "valid frame", "requested completed valid states"):
            for n, per_site in ((20, 0), (1, 0), (2, 1)):
                a, b = one.search(query, n=n, per_site=per_site), three.search(query, n=n, per_site=per_site)
                assert a.total == b.total > 0, query
                assert [(h.url, round(h.score, 9)) for h in a.hits] == [(h.url, round(h.score, 9)) for h in b.hits]
                for hit in a.hits:
                    assert one.explain(hit.url, query)["score"] == pytest.approx(hit.score, rel=1e-9)
    finally:
        one.close()
        three.close()


def test_the_rule_reads_the_leaves() -> None:
    rule = OpeningRule(2.0)
    words = ((("content", "a"), ("opening", "a")), (("content", "b"), ("opening", "b"), ("opening_stem_en", "b")))
    leaves = [Leaf(6.0, "opening", "a", 3.0, 10.0), Leaf(1.0, "content", "b", 2.0, 50.0)]
    assert rule.opening_factor(leaves, words) == 1.0
    assert rule.opening_factor([*leaves, Leaf(3.0, "opening_stem_en", "b", 1.0, 10.0)], words) == 2.0
    assert rule.opening_factor(leaves[:1], words[:1]) == 1.0  # one word is not a description
    assert OpeningRule.from_settings(Settings()).factor == 2.0
    assert OpeningRule.from_settings(Settings().with_values([("query.opening.all.boost", 0.5)], "t")).factor == 1.0
    assert OpeningRule.from_settings(Settings().with_values([("query.opening.boost", 0.0)], "t")).factor == 1.0
