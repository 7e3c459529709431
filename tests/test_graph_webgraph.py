"""webgraph: the outlinks / nodes / inlinks tables, their rules, node ids, generations, repair, bad input."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gossamer.core import CrawlStatus
from gossamer.graph import build_webgraph, check_generation, generation, node_id
from gossamer.graph import webgraph as webgraph_module
from gossamer.store import TableError

from .graph_fixtures import T0, Page, conf, description, links_of, read_table, write_segment

HOUR = 3_600_000
A, B, C, D = "http://a.com/", "http://b.org/", "http://www.c.net/", "http://d.io/"


def assert_consistent(webgraph: Path) -> None:
    """Ids point at the right nodes, counts match the links, every table has one generation."""
    nodes = read_table(webgraph / "nodes")
    by_id = {node_id(n["_part"], n["_row"]): n["url"] for n in nodes}
    outlinks, inlinks = read_table(webgraph / "outlinks"), read_table(webgraph / "inlinks")
    assert sorted((r["url"], r["to_url"]) for r in outlinks) == sorted((r["from_url"], r["url"]) for r in inlinks)
    for row in inlinks:
        assert by_id[row["from_id"]] == row["from_url"] and by_id[row["to_id"]] == row["url"]
    outs, ins = Counter(r["url"] for r in outlinks), Counter(r["to_url"] for r in outlinks)
    assert {n["url"] for n in nodes} == set(outs) | set(ins)
    for n in nodes:
        assert (n["num_inlinks"], n["num_outlinks"]) == (ins[n["url"]], outs[n["url"]])
    for table in ("outlinks", "nodes", "inlinks"):
        keys = [(r["_part"], r["url"]) for r in read_table(webgraph / table)]
        assert keys == sorted(keys)  # each part sorted by URL
    gens = {generation(description(webgraph / t).absorbed) for t in ("outlinks", "nodes", "inlinks")}
    assert len(gens) == 1 and check_generation(webgraph) in gens


@pytest.fixture
def crawl(tmp_path: Path) -> Path:
    return tmp_path / "crawl"


def test_first_build_writes_three_consistent_tables(crawl: Path) -> None:
    seg = write_segment(crawl / "segments", "20260101000000", [
        Page(A, [(B, "to b"), (C, "to c"), (D, "to d")]),
        Page(B, [(C, "b to c"), (A, "back")]),
        Page(C, []),
    ])
    graph = crawl / "webgraph"
    report = build_webgraph(graph, [seg], conf(store_parts=3))
    assert report.done and (report.outlinks, report.nodes, report.inlinks) == (5, 4, 5)
    assert links_of(graph) == {(A, B), (A, C), (A, D), (B, C), (B, A)}
    assert_consistent(graph)
    nodes = {n["url"]: n for n in read_table(graph / "nodes")}
    assert nodes[A]["score"] == 1.0 and nodes[C]["num_inlinks"] == 2
    desc = description(graph / "nodes")
    assert desc.parts == 3 and desc.absorbed == ("20260101000000", report.generation)
    assert [r["anchor"] for r in read_table(graph / "outlinks") if r["to_url"] == B] == ["to b"]
    assert {r["timestamp"] for r in read_table(graph / "inlinks")} == {T0}
    assert not list((graph / "nodes").glob("tmp-*"))


def test_initial_score_setting_and_one_link_per_target(crawl: Path) -> None:
    seg = write_segment(crawl / "segments", "20260101000000", [Page(A, [(B, "first"), (B, "second"), (C, "")])])
    graph = crawl / "webgraph"
    report = build_webgraph(graph, [seg], conf(link_analyze_initial_score=0.25))
    assert [(r["to_url"], r["anchor"]) for r in read_table(graph / "outlinks")] == [(B, "first"), (C, "")]
    assert {n["score"] for n in read_table(graph / "nodes")} == {0.25}
    assert report.counters["links_duplicate"] == 1


def test_links_of_the_most_recent_fetch_win(crawl: Path) -> None:
    old = write_segment(crawl / "segments", "20260101000000", [Page(A, [(B, ""), (C, "")]), Page(B, [(C, "")])])
    new = write_segment(crawl / "segments", "20260102000000", [
        Page(A, [(D, "")], fetch_time=T0 + HOUR), Page(B, [], fetch_time=T0 + HOUR)])
    for order in ([old, new], [new, old]):
        graph = crawl / f"graph-{order[0].name}"
        report = build_webgraph(graph, order, conf())
        assert links_of(graph) == {(A, D)}, order
        assert report.counters["links_stale"] == 3
        assert_consistent(graph)
    # an older segment merged later loses to stored newer links; a page whose newest fetch had
    # no links has no row to remember it by, so its older links come back (as in Nutch)
    graph = crawl / "graph-later"
    build_webgraph(graph, [new], conf())
    build_webgraph(graph, [old], conf())
    assert links_of(graph) == {(A, D), (B, C)}
    assert_consistent(graph)


def test_gone_and_redirected_pages_lose_their_outlinks_with_link_delete_gone(crawl: Path) -> None:
    first = write_segment(crawl / "segments", "20260101000000", [
        Page(A, [(B, "")]), Page(C, [(B, ""), (D, "")]), Page(D, [(A, "")])])
    later = T0 + HOUR
    second = write_segment(crawl / "segments", "20260102000000", [
        Page(A, fetch_time=later, status=CrawlStatus.FETCH_GONE),
        Page(C, fetch_time=later, status=CrawlStatus.FETCH_REDIR_PERM),
        Page(D, fetch_time=later, status=CrawlStatus.FETCH_REDIR_TEMP)])
    kept = crawl / "kept"
    build_webgraph(kept, [first, second], conf())  # link.delete.gone is false by default (as in Nutch)
    assert links_of(kept) == {(A, B), (C, B), (C, D), (D, A)}
    gone = crawl / "gone"
    report = build_webgraph(gone, [first, second], conf(link_delete_gone=True))
    assert links_of(gone) == set() and report.nodes == 0 and report.counters["sources_gone"] == 3
    # a fetch after the redirect brings links back; the same run over the stored graph merges it
    build_webgraph(gone, [first], conf(link_delete_gone=True))
    assert links_of(gone) == {(A, B), (C, B), (C, D), (D, A)}
    third = write_segment(crawl / "segments", "20260103000000", [Page(C, [(A, "")], fetch_time=later + HOUR)])
    build_webgraph(gone, [second, third], conf(link_delete_gone=True))
    assert links_of(gone) == {(C, A)}
    assert_consistent(gone)


@pytest.mark.parametrize(("host", "domain", "expected"), [
    (True, True, {"http://b.org/"}),
    (True, False, {"http://b.org/", "http://a.com/x"}),
    (False, True, {"http://b.org/"}),
    (False, False, {"http://b.org/", "http://a.com/x", "http://www.a.com/y"}),
])
def test_internal_host_and_domain_links(crawl: Path, host: bool, domain: bool, expected: set[str]) -> None:
    seg = write_segment(crawl / "segments", "20260101000000", [
        Page("http://www.a.com/", [("http://b.org/", ""), ("http://a.com/x", ""), ("http://www.a.com/y", "")])])
    graph = crawl / "webgraph"
    report = build_webgraph(graph, [seg], conf(link_ignore_internal_host=host, link_ignore_internal_domain=domain))
    assert {to for _, to in links_of(graph)} == expected
    c = report.counters
    assert c.get("links_internal_host", 0) + c.get("links_internal_domain", 0) == 3 - len(expected)


@pytest.mark.parametrize(("page", "domain", "counted"), [
    (True, True, {"http://x.com/p?1", "http://y.org/"}),
    (True, False, {"http://x.com/p?1", "http://x.com/q", "http://y.org/"}),
    (False, True, {"http://x.com/p?1", "http://y.org/"}),
    (False, False, {"http://x.com/p?1", "http://x.com/p?2", "http://x.com/q", "http://y.org/"}),
])
def test_counted_flags_follow_the_limit_settings(crawl: Path, page: bool, domain: bool, counted: set[str]) -> None:
    target = "http://t.net/"
    sources = ["http://x.com/p?1", "http://x.com/p?2", "http://x.com/q", "http://y.org/"]
    seg = write_segment(crawl / "segments", "20260101000000", [Page(s, [(target, "")]) for s in sources], parts=1)
    graph = crawl / "webgraph"
    build_webgraph(graph, [seg], conf(store_parts=1, link_ignore_limit_page=page, link_ignore_limit_domain=domain))
    rows = read_table(graph / "inlinks")
    assert [r["from_url"] for r in rows] == sources  # from_id order: one part, URL order
    assert [r["from_id"] for r in rows] == sorted(r["from_id"] for r in rows)
    assert {r["from_url"] for r in rows if r["counted"]} == counted
    assert_consistent(graph)


def test_a_second_run_merges_a_new_segment(crawl: Path) -> None:
    first = write_segment(crawl / "segments", "20260101000000", [Page(A, [(B, "")])])
    graph = crawl / "webgraph"
    one = build_webgraph(graph, [first], conf(store_parts=2))
    second = write_segment(crawl / "segments", "20260102000000", [Page(C, [(A, ""), (D, "")], fetch_time=T0 + HOUR)])
    two = build_webgraph(graph, [second], conf(store_parts=5))  # the stored part count wins
    assert links_of(graph) == {(A, B), (C, A), (C, D)}
    assert one.generation != two.generation and two.counters["links_stored"] == 1
    for table in ("outlinks", "nodes", "inlinks"):
        desc = description(graph / table)
        assert desc.parts == 2
        assert desc.absorbed == ("20260101000000", "20260102000000", two.generation)
    assert_consistent(graph)
    again = build_webgraph(graph, [second], conf())  # a segment applied twice changes nothing
    assert links_of(graph) == {(A, B), (C, A), (C, D)} and again.counters["links_duplicate"] == 2
    assert_consistent(graph)


def test_a_crash_between_installs_is_refused_then_repaired(crawl: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = write_segment(crawl / "segments", "20260101000000", [Page(A, [(B, "")])])
    second = write_segment(crawl / "segments", "20260102000000", [Page(C, [(A, "")], fetch_time=T0 + HOUR)])
    graph = crawl / "webgraph"
    build_webgraph(graph, [first], conf())
    real = webgraph_module.run_table_job

    def crash_at_inlinks(table_dir, kind, *args, **kwargs):  # noqa: ANN001, ANN202
        if kind == "inlinks":
            raise OSError("killed")
        return real(table_dir, kind, *args, **kwargs)

    monkeypatch.setattr(webgraph_module, "run_table_job", crash_at_inlinks)
    with pytest.raises(OSError, match="killed"):
        build_webgraph(graph, [second], conf())
    monkeypatch.undo()
    with pytest.raises(TableError, match="inconsistent.*run webgraph again"):
        check_generation(graph)
    assert not list((graph / "nodes").glob("tmp-*"))  # the intermediate table went with the failed run
    (graph / "nodes" / "tmp-leftover").mkdir()  # as a killed process would leave it
    report = build_webgraph(graph, [], conf())  # no segment: rebuilt from the stored outlinks
    assert report.done and any("tmp-leftover" in action for action in report.recovered)
    assert links_of(graph) == {(A, B), (C, A)}
    assert_consistent(graph)


def test_nothing_to_do_without_segments_or_graph(crawl: Path) -> None:
    report = build_webgraph(crawl / "webgraph", [], conf())
    assert not report.done and not (crawl / "webgraph" / "outlinks" / "current").exists()
    with pytest.raises(TableError):
        check_generation(crawl / "webgraph")
    with pytest.raises(FileNotFoundError):
        build_webgraph(crawl / "webgraph", [crawl / "segments" / "nope"], conf())


def test_bad_input_is_counted_and_skipped(crawl: Path) -> None:
    segments = crawl / "segments"
    good = write_segment(segments, "20260101000000", [
        Page(A, [(B, ""), ("mailto:x@b.org", ""), ("", "empty")]),
        Page(B, [(C, "")], meta={}),  # no fetch time: the segment's
        Page(D, [(A, "")], parsed=False),
    ])
    odd = write_segment(segments, "imported", [Page(C, [(D, "")], meta={"_ftk_": "yesterday"})])
    (segments / "20260105000000").mkdir()  # not fetched nor parsed
    graph = crawl / "webgraph"
    report = build_webgraph(graph, [good, odd, segments / "20260105000000"], conf())
    c = report.counters
    assert (c["links_bad"], c["pages_bad"], c["pages_no_fetch_time"], c["pages_not_parsed"]) == (2, 1, 2, 1)
    assert c["errors"] == 3 and len(report.errors) == 3
    assert report.skipped == [f"{segments / '20260105000000'}: no parse_data (not parsed yet)"]
    assert links_of(graph) == {(A, B), (B, C)}
    assert {r["timestamp"] for r in read_table(graph / "outlinks") if r["url"] == B} == {
        1_767_225_600_000}  # 2026-01-01T00:00:00Z
    assert description(graph / "outlinks").absorbed[:2] == ("20260101000000", "imported")


def test_normalize_and_filter_use_the_url_chain(crawl: Path) -> None:
    seg = write_segment(crawl / "segments", "20260101000000", [
        Page(A, [("HTTP://B.org:80/x/../y", ""), ("http://b.org/logo.gif", ""), (C + "#top", "")])])
    plain, chained = crawl / "plain", crawl / "chained"
    build_webgraph(plain, [seg], conf())
    assert len(links_of(plain)) == 3
    report = build_webgraph(chained, [seg], conf(), normalize=True, filter=True)
    assert links_of(chained) == {(A, "http://b.org/y"), (A, C)}
    assert report.counters["links_filtered"] == 1
