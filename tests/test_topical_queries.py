"""The relevance benchmark (bench/): the topical-query rule, metrics per kind, host and half, and its variants."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from bench.relevance_bench import evaluate
from bench.topical_queries import candidate_words, description, equivalent_pages, make_queries, topical_query

PAGE = b"""<html><body><nav><p>Home Library Modules Index Search Next Previous Topic</p></nav>
<h1>os.path - Common pathname manipulations</h1><p>Source code: Lib/posixpath.py for POSIX systems here</p>
<p>This module implements some useful functions on pathnames, for reading or writing files.</p>
<pre>print(os.path.join(a, b)) and more code words here</pre>
<p>Short one.</p><p>The parameters can be passed as strings or bytes or any object.</p></body></html>"""


def test_description_skips_navigation_code_and_short_paragraphs() -> None:
    text = description(PAGE)
    assert text.startswith("This module implements") and "Home" not in text and "print" not in text
    assert "Short one" not in text and text.endswith("any object.")


def test_candidate_words_avoid_the_title_url_stop_words_and_relatives() -> None:
    words = candidate_words("This module implements useful pathnames; it implemented HashMap and modules",
                            "os.path - Common pathname manipulations", "http://h.test/library/os.path.html")
    assert words == ["module", "implements", "useful"]  # pathnames ~ pathname; implemented ~ implements
    assert "library" not in candidate_words("a library call", "", "http://h.test/library/x.html")


def test_topical_query_takes_rare_words_in_text_order_and_is_seeded() -> None:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    df = Counter({"alpha": 9, "beta": 1, "gamma": 8, "delta": 2, "epsilon": 7, "zeta": 3})
    query = topical_query(words, df, random.Random(1))
    assert query == "beta delta zeta" == topical_query(words, df, random.Random(2))
    assert topical_query(["lonely"], df, random.Random(1)) is None
    assert topical_query(["two", "words"], df, random.Random(1)) == "two words"


def test_evaluate_reports_per_kind_and_host() -> None:
    queries = [{"qid": "N001", "kind": "navigational", "source": "python", "accept": ["u1"]},
               {"qid": "T001", "kind": "topical", "source": "python", "accept": ["u2"]},
               {"qid": "T002", "kind": "topical", "source": "java", "accept": ["u3"]}]
    result = evaluate(queries, {"N001": ["u1"], "T001": ["x", "u2"], "T002": ["x"]})
    assert result["mrr@10"] == 0.5 and result["by_kind"]["navigational"]["success@1"] == 1.0
    topical = result["by_kind"]["topical"]
    assert topical["mrr@10"] == 0.25 and topical["success@10"] == 0.5
    assert topical["by_host"]["java"]["mrr@10"] == 0.0 and result["by_host"]["python"]["mrr@10"] == 0.75


def test_equivalent_pages_are_those_that_could_have_given_the_same_query() -> None:
    described = {"java": [
        {"url": "in", "accept": ["in"], "words": ["input", "maintains", "checksum", "verify", "integrity"]},
        {"url": "out", "accept": ["out"], "words": ["output", "maintains", "checksum", "verify", "integrity"]},
        {"url": "other", "accept": ["other"], "words": ["maintains", "verify", "unrelated", "common"]},
    ], "rust": [{"url": "r", "accept": ["r", "r-core"], "words": ["maintains", "verify", "integrity", "zz"]}]}
    made = {item["url"]: item for items in make_queries(described, 3).values() for item in items}
    query = made["in"]["name"].split()
    for url in made["in"]["equivalents"]:  # every equivalent page could have drawn each query word
        words = next(i["words"] for items in described.values() for i in items if i["url"] == url)
        assert set(query) <= set(words)
    assert "in" not in made["in"]["equivalents"] and made["in"]["target_accept"] == ["in"]
    assert made["in"]["accept"][0] == "in" and len(made["in"]["accept"]) == len(set(made["in"]["accept"]))
    assert equivalent_pages("maintains verify", "in", {"maintains": {"in", "out", "r"}, "verify": {"in", "r"}}) == ["r"]
    assert equivalent_pages("maintains gone", "in", {"maintains": {"in", "out"}}) == []


def test_evaluate_can_judge_the_target_alone() -> None:
    queries = [{"qid": "T001", "kind": "topical", "source": "java", "accept": ["t", "e"], "target_accept": ["t"]},
               {"qid": "N001", "kind": "navigational", "source": "java", "accept": ["n"]}]
    run = {"T001": ["e", "t"], "N001": ["n"]}
    assert evaluate(queries, run)["by_kind"]["topical"]["mrr@10"] == 1.0
    assert evaluate(queries, run, field="target_accept")["by_kind"]["topical"]["mrr@10"] == 0.5
    assert evaluate(queries, run, field="target_accept")["by_kind"]["navigational"]["mrr@10"] == 1.0


def test_evaluate_reports_the_tuning_and_the_held_out_half() -> None:
    queries = [{"qid": f"{kind[0].upper()}{i:03d}", "kind": kind, "source": "python", "accept": [f"u{i}"]}
               for kind in ("navigational", "topical") for i in (1, 2, 3)]
    run = {"N001": ["u1"], "N002": ["x", "u2"], "N003": ["x"], "T001": ["x"], "T002": ["u2"], "T003": ["u3"]}
    halves = evaluate(queries, run)["by_half"]
    assert halves["tuning"]["queries"] == 4 and halves["held_out"]["queries"] == 2  # odd numbers tune
    assert halves["held_out"]["by_kind"]["navigational"]["mrr@10"] == 0.5
    assert halves["held_out"]["by_kind"]["topical"]["mrr@10"] == 1.0
    assert halves["tuning"]["by_kind"]["topical"]["success@1"] == 0.5


def test_work_crawl_settings_are_read_back_as_written(tmp_path: Path) -> None:
    """A list setting must reach the work crawl as a list (it once became the string ``"['title', …]"``)."""
    from bench.doc_index import CrawlCache, work_crawl

    from gossamer.core.settings import load_settings

    cache = tmp_path / "cache"
    (cache / "crawldb").mkdir(parents=True)
    (cache / "segments").mkdir()
    values = {"index.analysis.fields": ["title", "anchor", "content"], "query.soft": True,
              "query.stem.boost": 0.5, "plugin.excludes": "index-anchor"}
    conf = load_settings(work_crawl(CrawlCache(cache, {}, True), tmp_path / "work", values))
    assert conf.get_list("index.analysis.fields") == ["title", "anchor", "content"]
    assert conf.get_bool("query.soft") and conf.get_float("query.stem.boost") == 0.5
    assert conf.get_str("plugin.excludes") == "index-anchor"


def test_a_variant_index_is_checked_for_what_its_settings_ask(tmp_path: Path) -> None:
    from bench.relevance_bench import _index_applies

    live = tmp_path / "index" / "current"
    live.mkdir(parents=True)
    (live / "_index.json").write_text(json.dumps({"fields": ["title", "content", "title_stem_en"]}))
    stemmed = {"index.analysis.fields": ["title", "content"]}
    assert not _index_applies(tmp_path / "index", stemmed)  # no content_stem
    assert _index_applies(tmp_path / "index", {"index.analysis.fields": ["title"]})
    assert not _index_applies(tmp_path / "index", {"search.semantic": True})
    (live / "shard-0").mkdir()
    (live / "shard-0" / "vectors.npy").write_bytes(b"")
    assert _index_applies(tmp_path / "index", {"search.semantic": True, "query.soft": True})
    assert not _index_applies(tmp_path / "missing", {})
