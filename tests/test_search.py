"""search: every query operator, snippets, per-site grouping, paging, score equality across shard counts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gossamer.search.broker import Broker
from gossamer.search.query_parse import QuerySyntaxError
from gossamer.search.searcher import open_searcher
from tests.index_fixtures import Page, make_crawl

WORDS = ("alpha beta gamma delta epsilon zeta theta iota kappa lambda omicron sigma tau upsilon phi chi psi "
         "omega").split()


def corpus() -> list[Page]:
    rng = random.Random(7)
    pages = []
    for i in range(60):
        host = f"h{i % 5}.test"
        words = rng.choices(WORDS, k=rng.randint(5, 80))
        title = " ".join(rng.choices(WORDS, k=3))
        headers = {"Content-Type": "application/pdf" if i % 10 == 3 else "text/html",
                   "Last-Modified": f"Mon, {1 + i % 28:02d} Jan 2024 00:00:00 GMT"}
        meta = {"lang": "de" if i % 6 == 0 else "en"}
        links = [(f"http://h{(i + 1) % 5}.test/p{(i + 1) % 60}", f"anchor {WORDS[i % len(WORDS)]}")]
        pages.append(Page(f"http://{host}/p{i}", title, " ".join(words), links, meta=meta, headers=headers))
    pages.append(Page("http://h0.test/ppp", "The quick brown fox", "the quick brown fox jumps over the lazy dog"))
    pages.append(Page("http://h1.test/qqq", "Brown and quick", "a brown dog is quick to jump"))
    return pages


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, object]]:
    root = tmp_path_factory.mktemp("search")
    pages = corpus()
    return {n: make_crawl(root / f"shards{n}", pages, shards=n) for n in (1, 4)}


@pytest.fixture(scope="module")
def searcher(crawls) -> Broker:
    crawl, conf = crawls[4]
    broker = open_searcher(crawl, conf)
    yield broker
    broker.close()


def urls(results) -> list[str]:
    return [h.url for h in results.hits]


def test_same_scores_whatever_the_shard_count(crawls) -> None:
    one, four = (open_searcher(*crawls[n]) for n in (1, 4))
    try:
        for query in ("alpha", "gamma delta", '"quick brown"', "theta -iota", "site:h2.test kappa", "anchor:sigma",
                      "brown dog", "lang:de omega"):
            a = one.search(query, n=100, per_site=0)
            b = four.search(query, n=100, per_site=0)
            assert a.total == b.total > 0, query
            scores_a = {h.url: h.score for h in a.hits}
            scores_b = {h.url: h.score for h in b.hits}
            assert scores_a.keys() == scores_b.keys(), query
            for url, score in scores_a.items():
                assert scores_b[url] == pytest.approx(score, rel=1e-9), (query, url)
            # the ranking is the same up to ties
            assert [round(h.score, 9) for h in a.hits] == [round(h.score, 9) for h in b.hits]
            # and so is the grouped first page (2 per site: shards' lists are refilled after the merge)
            for per_site in (1, 2):
                grouped_a, grouped_b = one.search(query, n=6, per_site=per_site), four.search(query, n=6,
                                                                                             per_site=per_site)
                assert [round(h.score, 9) for h in grouped_a.hits] == [round(h.score, 9) for h in grouped_b.hits]
                assert [h.more_from_site for h in grouped_a.hits] == [h.more_from_site for h in grouped_b.hits]
    finally:
        one.close()
        four.close()


def test_phrase_exclude_require(searcher: Broker) -> None:
    assert set(urls(searcher.search('"quick brown fox"', per_site=0))) == {"http://h0.test/ppp"}
    both = set(urls(searcher.search("quick brown", per_site=0)))
    assert both == {"http://h0.test/ppp", "http://h1.test/qqq"}
    assert set(urls(searcher.search("quick brown -fox", per_site=0))) == {"http://h1.test/qqq"}
    assert set(urls(searcher.search("+quick +dog -lazy", per_site=0))) == {"http://h1.test/qqq"}
    assert set(urls(searcher.search('quick -"lazy dog"', per_site=0))) == {"http://h1.test/qqq"}


def test_field_operators(searcher: Broker) -> None:
    site = searcher.search("alpha site:h3.test", n=50, per_site=0)
    assert site.hits and all(h.details.site == "h3.test" for h in site.hits)
    assert urls(searcher.search("url:h1.test/qqq")) == ["http://h1.test/qqq"]
    assert urls(searcher.search("url:http://h0.test/ppp")) == ["http://h0.test/ppp"]
    pdf = searcher.search("type:pdf", n=50, per_site=0)
    assert pdf.total == 6 and all(h.url.endswith(("3", "13", "23", "33", "43", "53")) for h in pdf.hits)
    assert searcher.search("type:application/pdf", n=50).total == 6
    german = searcher.search("lang:de", n=50, per_site=0)
    assert german.total == 10 and all(h.details.fields["lang"] == "de" for h in german.hits)
    january = searcher.search("date:20240101-20240103", n=100, per_site=0)
    days = {h.details.fields["date"][:10] for h in january.hits}
    assert days == {"2024-01-01", "2024-01-02", "2024-01-03"}
    assert searcher.search("date:20240102", n=100, per_site=0).total == len(
        [h for h in january.hits if h.details.fields["date"].startswith("2024-01-02")])
    hosts = searcher.search("host:h3 alpha", n=50, per_site=0)
    assert hosts.total == site.total and {h.details.site for h in hosts.hits} == {"h3.test"}
    title = searcher.search("title:fox", per_site=0)
    assert urls(title) == ["http://h0.test/ppp"]


def test_snippets_highlight_query_terms(searcher: Broker) -> None:
    hit = searcher.search('"lazy dog"').hits[0]
    snippet = hit.details.snippet
    marked = [snippet.text[a:b].lower() for a, b in snippet.highlights]
    assert "lazy" in marked and "dog" in marked
    assert "".join(t for t, _ in snippet.parts()) == snippet.text


def test_hits_per_site_and_paging(searcher: Broker) -> None:
    grouped = searcher.search("alpha", n=10)
    sites = [h.details.site for h in grouped.hits]
    assert all(sites.count(s) <= 2 for s in sites)
    assert any(h.more_from_site for h in grouped.hits)
    flat = searcher.search("alpha", n=60, per_site=0)
    assert len(flat.hits) == flat.total > 10
    page2 = searcher.search("alpha", n=5, start=5, per_site=0)
    assert urls(page2) == urls(flat)[5:10]
    assert [h.score for h in flat.hits] == sorted((h.score for h in flat.hits), reverse=True)


def test_explanation_adds_up_to_the_score(searcher: Broker) -> None:
    hit = searcher.search("gamma delta").hits[0]
    detail = searcher.explain(hit.url, "gamma delta")
    assert detail is not None and detail["score"] == pytest.approx(hit.score, rel=1e-9)
    assert detail["text_score"] == pytest.approx(sum(leaf["value"] for leaf in detail["leaves"]))
    assert {leaf["term"] for leaf in detail["leaves"]} <= {"gamma", "delta"}
    assert searcher.explain("http://nowhere.test/", "gamma") is None


@pytest.mark.parametrize("query, message", [
    ('"unterminated', "unterminated quote"),
    ("date:20241399", "date"),
    ("-alpha", "not excluded"),
    ("", "empty"),
    ("x" * 2000, "long"),
])
def test_malformed_queries_get_a_clear_message(searcher: Broker, query: str, message: str) -> None:
    with pytest.raises(QuerySyntaxError, match=message):
        searcher.search(query)


def test_search_cli_and_trec_batch(cli, crawls, tmp_path: Path) -> None:
    crawl, _ = crawls[1]
    out = cli("search", "-d", crawl, '"quick brown fox"', "-D", "http.agent.name=t")
    assert out.code == 0 and "http://h0.test/ppp" in out.out and "[quick]" in out.out
    bad = cli("search", "-d", crawl, '"oops', "-D", "http.agent.name=t")
    assert bad.code == 2 and "bad query" in bad.err and "Traceback" not in bad.err
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tquick brown\nbroken line\nq2\talpha\nq3\t\"bad\n", encoding="utf-8")
    run = tmp_path / "run.txt"
    result = cli("search", "-d", crawl, "--topics", topics, "--run", run, "-n", "3", "-D", "http.agent.name=t")
    assert result.code == 0 and "2 topics searched, 2 skipped" in result.out
    lines = [line.split() for line in run.read_text().splitlines()]
    assert [line[0] for line in lines] == ["q1", "q1", "q2", "q2", "q2"]
    assert all(line[1] == "Q0" and line[5] == "gossamer" for line in lines)
    assert [int(line[3]) for line in lines if line[0] == "q2"] == [1, 2, 3]
    one_topic = tmp_path / "one.tsv"
    one_topic.write_text("q9\talpha\n", encoding="utf-8")
    hosts: dict[str, list[str]] = {}
    for name, extra in (("plain", []), ("grouped", ["--per-site", "1"])):
        out = tmp_path / f"{name}.txt"
        assert cli("search", "-d", crawl, "--topics", one_topic, "--run", out, "-n", "10", *extra,
                   "-D", "http.agent.name=t").code == 0
        hosts[name] = [line.split()[2].split("/")[2] for line in out.read_text().splitlines()]
    assert len(hosts["grouped"]) == len(set(hosts["grouped"]))  # --per-site 1: one hit per site
    assert len(hosts["plain"]) == 10 > len(set(hosts["plain"]))  # batch default: no site grouping
