"""scoring-depth and scoring-link, hook by hook, built through the plugin registry like a crawl builds them."""

from __future__ import annotations

import pytest

from gossamer.core import CRAWL_SCORE_KEY, Content, CrawlDatum, CrawlStatus, ParseData, ParseStatusCode, ParseText
from gossamer.core.settings import load_settings
from gossamer.crawl.fetch.loop_helpers import redirect_metadata
from gossamer.plugins import ParseResult, PluginRepository, ScoringFilter

URL = "http://a.example/"
DEPTH, MAX = "_depth_", "_maxdepth_"


def scoring(plugin_id: str, *defines: str) -> ScoringFilter:
    return PluginRepository(load_settings(overrides=list(defines))).named(ScoringFilter, plugin_id)


def parse_with(parse_meta: dict[str, str] | None = None, content_meta: dict[str, str] | None = None) -> ParseResult:
    data = ParseData(ParseStatusCode.SUCCESS, parse_metadata=dict(parse_meta or {}),
                     content_metadata=dict(content_meta or {}))
    return ParseResult(data, ParseText(""))


def targets(count: int = 2) -> list[tuple[str, CrawlDatum]]:
    return [(f"http://b.example/{i}", CrawlDatum(CrawlStatus.LINKED)) for i in range(count)]


def with_depth(depth: int | None, limit: int | None = None, status: int = CrawlStatus.LINKED) -> CrawlDatum:
    meta = {} if depth is None else {DEPTH: str(depth)}
    if limit is not None:
        meta[MAX] = str(limit)
    return CrawlDatum(status, metadata=meta)


# --- scoring-depth ---

def test_depth_injected_seeds_are_depth_one_with_their_limit() -> None:
    depth = scoring("scoring-depth", "scoring.depth.max=7")
    plain, custom = CrawlDatum(CrawlStatus.INJECTED), CrawlDatum(CrawlStatus.INJECTED, metadata={MAX: " 3 "})
    depth.injected_score(URL, plain)
    depth.injected_score(URL, custom)
    assert plain.metadata == {DEPTH: "1", MAX: "7"}
    assert custom.metadata == {DEPTH: "1", MAX: "3"}
    with pytest.raises(ValueError, match="_maxdepth_='three'"):
        depth.injected_score(URL, CrawlDatum(CrawlStatus.INJECTED, metadata={MAX: "three"}))


def test_depth_travels_crawldb_content_parse() -> None:
    depth = scoring("scoring-depth")
    content = Content(URL, URL, b"")
    depth.pass_score_before_parsing(URL, with_depth(4, 9), content)
    assert content.metadata == {DEPTH: "4", MAX: "9"}
    parse = parse_with()
    depth.pass_score_after_parsing(URL, content, parse)
    assert parse.data.parse_metadata == {DEPTH: "4", MAX: "9"}
    bare = Content(URL, URL, b"")
    depth.pass_score_before_parsing(URL, CrawlDatum(), bare)
    assert bare.metadata == {}


def test_depth_outlinks_get_one_more_and_the_source_limit() -> None:
    depth = scoring("scoring-depth")
    links = targets()
    depth.distribute_score_to_outlinks(URL, parse_with({DEPTH: "2", MAX: "3"}), links, None, 2)
    assert [d.metadata for _, d in links] == [{DEPTH: "3", MAX: "3"}] * 2
    default_limit = targets(1)
    depth.distribute_score_to_outlinks(URL, parse_with({DEPTH: "5"}), default_limit, None, 1)
    assert default_limit[0][1].metadata == {DEPTH: "6", MAX: "1000"}


@pytest.mark.parametrize(("meta", "why"), [
    ({DEPTH: "3", MAX: "3"}, "limit reached"),
    ({DEPTH: "4", MAX: "3"}, "beyond the limit"),
    ({MAX: "3"}, "no depth"),
    ({DEPTH: "x", MAX: "3"}, "unreadable depth"),
])
def test_depth_drops_every_outlink_at_the_limit(meta: dict[str, str], why: str) -> None:
    links = targets()
    assert scoring("scoring-depth").distribute_score_to_outlinks(URL, parse_with(meta), links, None, 2) is None
    assert links == [], why


def test_depth_override_pattern_sets_the_limit_of_matching_pages() -> None:
    depth = scoring("scoring-depth", r"scoring.depth.override.pattern=^http://deep\.", "scoring.depth.max.override=9")
    deep, other = targets(1), targets(1)
    depth.distribute_score_to_outlinks("http://deep.example/", parse_with({DEPTH: "5", MAX: "2"}), deep, None, 1)
    depth.distribute_score_to_outlinks(URL, parse_with({DEPTH: "1", MAX: "2"}), other, None, 1)
    assert deep[0][1].metadata == {DEPTH: "6", MAX: "9"}
    assert other[0][1].metadata == {DEPTH: "2", MAX: "2"}  # not matching: the seed's own limit stays


def test_depth_updatedb_keeps_the_smallest_depth_with_its_limit() -> None:
    depth = scoring("scoring-depth")
    old = with_depth(4, 5, CrawlStatus.DB_FETCHED)
    datum = old.copy()
    depth.update_db_score(URL, old, datum, [with_depth(3, 100), with_depth(6, 2), with_depth(None)])
    assert datum.metadata == {DEPTH: "3", MAX: "100"}
    datum = old.copy()
    depth.update_db_score(URL, old, datum, [with_depth(5, 100)])
    assert datum.metadata == {DEPTH: "4", MAX: "5"}  # the old record is closer to a seed
    new = with_depth(2, 2)
    depth.update_db_score(URL, None, new, [with_depth(2, 2), with_depth(2, 8), with_depth(3, 50)])
    assert new.metadata == {DEPTH: "2", MAX: "8"}  # a tie: the larger limit


def test_depth_updatedb_without_any_depth_puts_the_url_at_the_limit() -> None:
    depth = scoring("scoring-depth", "scoring.depth.max=6")
    datum = CrawlDatum(CrawlStatus.DB_UNFETCHED)
    depth.update_db_score(URL, CrawlDatum(CrawlStatus.DB_FETCHED), datum, [CrawlDatum(CrawlStatus.LINKED)])
    assert datum.metadata == {DEPTH: "6", MAX: "6"}
    links = targets()
    depth.distribute_score_to_outlinks(URL, parse_with(datum.metadata), links, None, 2)
    assert links == []


def test_depth_leaves_scores_sort_values_and_boosts_alone() -> None:
    depth = scoring("scoring-depth")
    datum = CrawlDatum(CrawlStatus.LINKED, score=0.5)
    depth.initial_score(URL, datum)
    assert datum.score == 0.5 and datum.metadata == {}
    assert depth.generator_sort_value(URL, with_depth(3, 5), 2.0) == 2.0
    assert depth.indexer_score(URL, {}, with_depth(3, 5), None, None, [], 1.5) == 1.5


# --- scoring-link ---

def test_link_scores_come_only_from_the_crawldb() -> None:
    link = scoring("scoring-link")
    injected = CrawlDatum(CrawlStatus.INJECTED, score=2.5)
    link.injected_score(URL, injected)
    assert injected.score == 2.5
    target = CrawlDatum(CrawlStatus.LINKED, score=0.7)
    link.initial_score(URL, target)
    assert target.score == 0.0
    assert link.generator_sort_value(URL, CrawlDatum(score=3.0), 0.5) == 1.5
    links = [(u, d.copy()) for u, d in targets()]
    assert link.distribute_score_to_outlinks(URL, parse_with(content_meta={CRAWL_SCORE_KEY: "4.0"}),
                                             links, None, 2) is None
    assert [d.score for _, d in links] == [0.0, 0.0]
    old, datum = CrawlDatum(CrawlStatus.DB_FETCHED, score=0.8), CrawlDatum(CrawlStatus.DB_FETCHED, score=0.8)
    link.update_db_score(URL, old, datum, [CrawlDatum(CrawlStatus.LINKED, score=5.0)])
    assert datum.score == 0.8  # what scoreupdater wrote stays


def test_link_carries_the_score_to_the_parse() -> None:
    link = scoring("scoring-link")
    content = Content(URL, URL, b"")
    link.pass_score_before_parsing(URL, CrawlDatum(score=0.25), content)
    parse = parse_with()
    link.pass_score_after_parsing(URL, content, parse)
    assert parse.data.content_metadata[CRAWL_SCORE_KEY] == "0.25"


def test_link_boost_is_the_normalized_crawldb_score() -> None:
    assert scoring("scoring-link").indexer_score(URL, {}, CrawlDatum(score=0.6), None, None, [], 9.0) == 0.6
    doubled = scoring("scoring-link", "link.analyze.normalize.score=2.0")
    assert doubled.indexer_score(URL, {}, CrawlDatum(score=0.6), None, None, [], 9.0) == 1.2
    assert doubled.indexer_score(URL, {}, None, None, None, [], 9.0) == 9.0  # type: ignore[arg-type]


# --- selection and chains ---

def test_selected_by_plugin_includes_and_ordered_with_opic() -> None:
    names = {"OPICScoringFilter": "opic", "DepthScoringFilter": "depth", "LinkAnalysisScoringFilter": "link"}

    def chain(*defines: str) -> list[str]:
        repo = PluginRepository(load_settings(overrides=list(defines)))
        return [names[type(f).__name__] for f in repo.chain(ScoringFilter)]

    assert chain() == ["opic"]
    assert chain("plugin.includes=scoring-(opic|depth)") == ["depth", "opic"]
    assert chain("plugin.includes=scoring-link") == ["link"]
    assert chain("plugin.includes=scoring-(opic|depth|link)",
                 "scoring.filter.order=scoring-opic org.apache.nutch.scoring.depth.DepthScoringFilter") \
        == ["opic", "depth", "link"]


def test_depth_and_opic_together_on_outlinks() -> None:
    repo = PluginRepository(load_settings(overrides=["plugin.includes=scoring-(opic|depth)",
                                                     "scoring.filter.order=scoring-opic scoring-depth"]))
    parse = parse_with({DEPTH: "1", MAX: "2"}, {CRAWL_SCORE_KEY: "1.0"})
    links = targets()
    for scorer in repo.chain(ScoringFilter):
        scorer.distribute_score_to_outlinks(URL, parse, links, None, 2)
    assert [(d.score, d.metadata) for _, d in links] == [(0.5, {DEPTH: "2", MAX: "2"})] * 2


def test_redirect_targets_inherit_metadata_but_not_the_response() -> None:
    source = {DEPTH: "2", MAX: "4", "category": "news", "_pst_": "moved(12), lastModified=0: x",
              "nutch.protocol.code": "301", "ETag": '"abc"', "_rs_": "12", "Content-Type": "text/html",
              "Cookie": "session=1"}
    assert redirect_metadata(source, "http://b.example/", same_host=True) == {
        DEPTH: "2", MAX: "4", "category": "news", "Cookie": "session=1", "_repr_": "http://b.example/"}
    assert redirect_metadata(source, "http://b.example/", same_host=False) == {
        DEPTH: "2", MAX: "4", "category": "news", "_repr_": "http://b.example/"}  # no cookie for another host


# --- scoring-opic ---

@pytest.mark.parametrize(("internal", "external"), [(1.0, 1.0), (2.0, 0.5), (0.25, 0.25)])
def test_opic_weights_each_share_by_the_link_being_internal_or_external(internal: float, external: float) -> None:
    opic = scoring("scoring-opic", f"db.score.link.internal={internal}", f"db.score.link.external={external}")
    links = [("http://a.example/x", CrawlDatum(CrawlStatus.LINKED)), ("http://A.EXAMPLE:80/y", CrawlDatum()),
             ("http://b.example/", CrawlDatum(CrawlStatus.LINKED)), ("http://a.example.org/", CrawlDatum())]
    parse = parse_with(content_meta={CRAWL_SCORE_KEY: "3.0"})
    assert opic.distribute_score_to_outlinks(URL, parse, links, None, 4) is None
    # the host compared case-blind and without the port; another host or a longer name is external
    assert [datum.score for _, datum in links] == [0.75 * internal, 0.75 * internal, 0.75 * external,
                                                   0.75 * external]
