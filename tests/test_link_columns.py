"""A page's links as columns: OutlinkList, LinkTargets, DatumColumns, and the scoring filters' batch forms.

The batch forms must give exactly what the per-link forms give (the crawl_parse rows the
parse tables store), whichever mix of batch and per-link filters runs; a filter that only
implements the per-link form (a third party's) goes on working through the defaults.
"""

from __future__ import annotations

import pytest

from gossamer.core import (
    CRAWL_SCORE_KEY,
    CrawlDatum,
    CrawlStatus,
    DatumColumns,
    LinkTargets,
    Outlink,
    OutlinkList,
    ParseData,
    ParseStatusCode,
    ParseText,
)
from gossamer.core.settings import load_settings
from gossamer.plugins import ParseResult, PluginRepository, ScoringFilter
from gossamer.store import columns_to_batch, datums_to_batch

PAGE = "http://a.example/page"
URLS = ["http://a.example/1", "http://b.example/2", "http://a.example/3"]
NOW, INTERVAL = 1_700_000_000_000, 2_592_000


def parse(score: str = "0.9", depth: str | None = "2") -> ParseResult:
    meta = {} if depth is None else {"_depth_": depth, "_maxdepth_": "5"}
    data = ParseData(ParseStatusCode.SUCCESS, content_metadata={CRAWL_SCORE_KEY: score}, parse_metadata=meta)
    return ParseResult(data, ParseText(""))


def builtin(plugin_id: str, *defines: str) -> ScoringFilter:
    return PluginRepository(load_settings(overrides=list(defines))).named(ScoringFilter, plugin_id)


def fresh(metadata: list[tuple[tuple[str, str], ...]] | None = None) -> LinkTargets:
    return LinkTargets(list(URLS), NOW, INTERVAL, metadata)


def per_link_rows(metadata: list[tuple[tuple[str, str], ...]] | None = None) -> list[tuple[str, CrawlDatum]]:
    """What the parser built before the columns: a datum per target with its outlink's metadata."""
    metas = metadata or [()] * len(URLS)
    return [(url, CrawlDatum(CrawlStatus.LINKED, NOW, 0, INTERVAL, metadata=dict(meta)))
            for url, meta in zip(URLS, metas, strict=True)]


def stored(targets: LinkTargets) -> list[dict[str, object]]:
    columns = DatumColumns()
    targets.append_to(columns)
    return columns_to_batch(columns).to_pylist()


class PerLinkOnly(ScoringFilter):
    """A third party's filter: only the per-link forms (Nutch's API)."""

    def initial_score(self, url: str, datum: CrawlDatum) -> None:
        datum.score = 0.25

    def distribute_score_to_outlinks(self, from_url: str, parse: ParseResult, targets: list[tuple[str, CrawlDatum]],
                                     adjust: CrawlDatum | None, all_count: int) -> CrawlDatum | None:
        for url, datum in targets:
            datum.score += len(url) / 100
            datum.metadata["seen"] = str(all_count)
        del targets[1]
        return CrawlDatum(CrawlStatus.LINKED, NOW, score=1.5)


# --- OutlinkList ---

def test_outlink_list_reads_as_a_sequence_of_outlinks() -> None:
    links = [Outlink("http://x/1", "one"), Outlink("http://x/2", "", (("k", "v"),)), Outlink("http://x/3")]
    columns = OutlinkList.of(links)
    assert columns == links and list(columns) == links and len(columns) == 3
    assert columns[1] == links[1] and columns[-1] == Outlink("http://x/3")
    assert columns[1:] == links[1:] and isinstance(columns[1:], OutlinkList)
    assert columns.to_urls == ["http://x/1", "http://x/2", "http://x/3"] and columns.anchors == ["one", "", ""]
    assert columns.metadata == [(), (("k", "v"),), ()]
    assert OutlinkList.of(columns) is columns
    plain = OutlinkList(["http://y/"])
    assert plain.metadata is None and plain == [Outlink("http://y/")]
    plain.append(Outlink("http://y/2", "two", (("a", "b"),)))
    plain.extend([Outlink("http://y/3")])
    assert plain == [Outlink("http://y/"), Outlink("http://y/2", "two", (("a", "b"),)), Outlink("http://y/3")]
    assert OutlinkList() == [] and not OutlinkList()
    with pytest.raises(ValueError):
        OutlinkList(["http://y/"], ["a", "b"])


# --- LinkTargets and DatumColumns ---

def test_link_targets_store_what_a_datum_per_link_stores() -> None:
    meta = [(), (("tag", "a"),), (("tag", "img"), ("_depth_", "9"))]
    for targets in (fresh(meta), fresh(meta)):
        targets.set_scores([0.5, 0.25, 0.125])
        targets.update_metadata({"_depth_": "3", "_maxdepth_": "5"})
    rows = per_link_rows(meta)
    for (_, datum), score in zip(rows, [0.5, 0.25, 0.125], strict=True):
        datum.score = score
        datum.metadata.update({"_depth_": "3", "_maxdepth_": "5"})
    columnar = fresh(meta)
    columnar.set_scores([0.5, 0.25, 0.125])
    columnar.update_metadata({"_depth_": "3", "_maxdepth_": "5"})
    assert stored(columnar) == datums_to_batch(rows).to_pylist()
    assert columnar.datums() == rows
    assert columnar.rows() == rows  # the same datums, now the live list
    assert stored(columnar) == datums_to_batch(rows).to_pylist()


def test_link_targets_without_metadata_store_nulls_and_share_one_score() -> None:
    targets = fresh()
    targets.set_scores(0.3)
    assert targets.scores == [0.3] * 3 and targets.target_urls() == URLS
    rows = stored(targets)
    assert [row["metadata"] for row in rows] == [None] * 3
    assert [row["status"] for row in rows] == [CrawlStatus.LINKED] * 3
    assert rows == datums_to_batch(targets.datums()).to_pylist()


def test_link_targets_rows_are_live_and_clear_works_in_both_forms() -> None:
    targets = fresh()
    targets.rows()[0][1].score = 7.0
    targets.rows().pop()
    assert len(targets) == 2 and targets.scores == [7.0, 0.0]
    targets.set_scores([1.0, 2.0])
    targets.update_metadata({"k": "v"})
    assert [d.score for _, d in targets.rows()] == [1.0, 2.0] and targets.rows()[1][1].metadata == {"k": "v"}
    targets.clear()
    assert len(targets) == 0 and stored(targets) == []
    columnar = fresh()
    columnar.clear()
    assert len(columnar) == 0 and columnar.rows() == [] and stored(columnar) == []
    with pytest.raises(ValueError):
        fresh().set_scores([1.0])


def test_datums_to_batch_and_columns_agree() -> None:
    rows = [("http://a/", CrawlDatum(CrawlStatus.SIGNATURE, NOW, signature=b"\x01" * 16)),
            ("http://b/", CrawlDatum(CrawlStatus.PARSE_META, NOW, metadata={"k": "v"}))]
    columns = DatumColumns.of(rows[:1])
    columns.add_rows(rows[1:])
    assert len(columns) == 2
    assert columns_to_batch(columns).to_pylist() == datums_to_batch(rows).to_pylist()


# --- the scoring filters' batch forms ---

@pytest.mark.parametrize("defines", [(), ("db.score.link.internal=2.0", "db.score.link.external=0.5"),
                                     ("db.score.count.filtered=true",)])
def test_opic_batch_form_scores_as_the_per_link_form(defines: tuple[str, ...]) -> None:
    opic = builtin("scoring-opic", *defines)
    rows = per_link_rows()
    for url, datum in rows:
        opic.initial_score(url, datum)
    opic.distribute_score_to_outlinks(PAGE, parse(), rows, None, 7)
    targets = fresh()
    opic.initial_scores(targets)
    assert opic.distribute_score_to_targets(PAGE, parse(), targets, None, 7) is None
    assert stored(targets) == datums_to_batch(rows).to_pylist()
    assert targets.scores == [d.score for _, d in rows]


@pytest.mark.parametrize("depth", ["2", "5", None])
def test_depth_batch_form_is_the_per_link_form(depth: str | None) -> None:
    filt = builtin("scoring-depth")
    rows = per_link_rows()
    filt.distribute_score_to_outlinks(PAGE, parse(depth=depth), rows, None, 3)
    targets = fresh()
    filt.distribute_score_to_targets(PAGE, parse(depth=depth), targets, None, 3)
    assert stored(targets) == datums_to_batch(rows).to_pylist()
    assert len(targets) == (3 if depth == "2" else 0)


def test_link_analysis_targets_start_at_zero() -> None:
    targets = fresh()
    targets.set_scores(0.5)
    builtin("scoring-link").initial_scores(targets)
    assert targets.scores == [0.0] * 3


def test_a_filter_with_only_per_link_forms_works_through_the_defaults() -> None:
    """OPIC (batch), a per-link filter, then depth (batch): the same rows as all per-link."""
    opic, depth, third = builtin("scoring-opic"), builtin("scoring-depth"), PerLinkOnly()
    chain = [opic, third, depth]
    rows = per_link_rows()
    adjust = None
    for scorer in chain:
        for url, datum in rows:
            scorer.initial_score(url, datum)
    for scorer in chain:
        adjust = scorer.distribute_score_to_outlinks(PAGE, parse(), rows, adjust, 4)
    targets = fresh()
    batch_adjust = None
    for scorer in chain:
        scorer.initial_scores(targets)
    for scorer in chain:
        batch_adjust = scorer.distribute_score_to_targets(PAGE, parse(), targets, batch_adjust, 4)
    assert len(rows) == 2 and rows[0][1].metadata == {"seen": "4", "_depth_": "3", "_maxdepth_": "5"}
    assert stored(targets) == datums_to_batch(rows).to_pylist()
    assert batch_adjust == adjust


def test_the_defaults_do_nothing_for_a_filter_without_outlink_hooks() -> None:
    class Quiet(ScoringFilter):
        pass

    class Watched(LinkTargets):
        def rows(self) -> list[tuple[str, CrawlDatum]]:
            raise AssertionError("a filter without per-link hooks needs no datums")

    targets = Watched(list(URLS), NOW, INTERVAL)
    adjust = CrawlDatum(CrawlStatus.LINKED)
    Quiet().initial_scores(targets)
    assert Quiet().distribute_score_to_targets(PAGE, parse(), targets, adjust, 3) is adjust
    assert targets.scores == [0.0] * 3


def test_datum_columns_hold_the_same_rows_whether_few_or_many_are_added_at_once() -> None:
    """``add_rows`` has a loop for a few rows and list comprehensions for more: the columns agree."""
    rows = [(f"http://h{i}.example/", CrawlDatum(CrawlStatus.SIGNATURE if i % 2 else CrawlStatus.LINKED, 1000 + i,
                                                  i % 3, 86400 + i, i / 7, b"sig" if i % 2 else None, 5 * i,
                                                  {"k": str(i)} if i % 3 else {}))
            for i in range(9)]
    many = DatumColumns.of(rows)
    for size in (1, 2, 4, 5):
        few = DatumColumns()
        for start in range(0, len(rows), size):
            few.add_rows(rows[start:start + size])
        for name in DatumColumns.__slots__:
            assert getattr(few, name) == getattr(many, name), name
    assert many.metadata[1] == [("k", "1")] and many.metadata[0] is None
    assert many.status[1] == int(CrawlStatus.SIGNATURE)
