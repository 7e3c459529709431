"""index-name and name matching: a page whose name is the whole query ranks first, the same on 1 and N shards."""

from __future__ import annotations

from pathlib import Path

import pytest

from gossamer.core.settings import Settings
from gossamer.index.name_field import name_candidates, page_name_keys
from gossamer.search.name_match import name_match, plain_query_text
from gossamer.search.query_parse import parse_query
from gossamer.search.searcher import open_searcher
from tests.index_fixtures import Page, make_crawl

MOVE_TEXT = "move move move the move semantics move constructors move assignment move"


def pages() -> list[Page]:
    return [
        Page("http://pg.test/sql-move.html", "MOVE", "MOVE repositions a cursor without retrieving any data"),
        Page("http://boost.test/move/iterators.html", "Move iterators", MOVE_TEXT),
        Page("http://boost.test/move/algorithms.html", "Move algorithms", MOVE_TEXT + " algorithms"),
        Page("http://cm.test/prop_tgt/LINK_DIRECTORIES.html", "LINK_DIRECTORIES — CMake 3.25 Documentation",
             "List of directories to use for the link step of link_directories targets"),
        Page("http://cm.test/command/link_directories.html", "link_directories — CMake 3.25 Documentation",
             "Add directories in which the linker will look for libraries."),
        Page("http://rs.test/std/process/struct.Command.html", "Command in std::process - Rust",
             "A process builder, providing fine-grained control over how a new process should be spawned."),
        Page("http://cm.test/command/add_custom_command.html", "add_custom_command — CMake 3.25 Documentation",
             "Add a custom build rule: command command command custom command"),
    ]


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Settings]]:
    root = tmp_path_factory.mktemp("names")
    return {n: make_crawl(root / f"shards{n}", pages(), shards=n) for n in (1, 3)}


def test_names_are_title_segments_and_the_file_name() -> None:
    assert name_candidates("HashMap (Java SE 17 & JDK 17)", "http://j.test/java/util/HashMap.html") == [
        "HashMap", "Java SE 17 & JDK 17", "HashMap (Java SE 17 & JDK 17)"]
    assert name_candidates("Command in std::process - Rust", "http://r.test/std/process/struct.Command.html") == [
        "Command in std::process", "Rust", "Command in std::process - Rust", "struct.Command", "Command"]
    assert name_candidates("Erlang -- gen_server", "http://e.test/doc/index.html") == [
        "Erlang", "gen_server", "Erlang -- gen_server"]
    keys = page_name_keys("xml.dom — The Document Object Model API", "http://p.test/library/xml.dom.html")
    assert "~xml dom" in keys and "=xml.dom" in keys and "~dom" in keys
    assert page_name_keys("", "http://p.test/") == []


def test_only_plain_queries_have_names() -> None:
    settings = Settings()
    fields = frozenset({"name"})
    match = name_match(parse_query("DROP  TYPE"), "DROP  TYPE", settings, fields)
    assert match is not None and (match.folded_key, match.exact_key) == ("~drop type", "=DROP TYPE")
    assert match.exact > match.folded > 1.0
    for text in ("site:a.test move", "+move", "move -cursor", "title:move"):
        assert plain_query_text(parse_query(text), text) is None, text
    assert name_match(parse_query("move"), "move", settings, frozenset()) is None  # no name field
    off = settings.with_values([("query.name.boost", 1.0)], "test")
    assert name_match(parse_query("move"), "move", off, fields) is None


def test_the_named_page_ranks_first_and_exact_case_breaks_ties(crawls) -> None:
    broker = open_searcher(*crawls[3])
    try:
        assert broker.search("MOVE", per_site=0).hits[0].url == "http://pg.test/sql-move.html"
        assert broker.search("link_directories", per_site=0).hits[0].url == \
            "http://cm.test/command/link_directories.html"
        assert broker.search("LINK_DIRECTORIES", per_site=0).hits[0].url == \
            "http://cm.test/prop_tgt/LINK_DIRECTORIES.html"
        assert broker.search("command", per_site=0).hits[0].url == "http://rs.test/std/process/struct.Command.html"
        explained = broker.explain("http://pg.test/sql-move.html", "MOVE")
        assert explained is not None and explained["name_factor"] == pytest.approx(3.0)
        assert broker.explain("http://pg.test/sql-move.html", "move")["name_factor"] == pytest.approx(2.0)
        # not a plain query: no name factor, the pages that say "move" most come first
        assert broker.search("+move", per_site=0).hits[0].url != "http://pg.test/sql-move.html"
    finally:
        broker.close()


def test_name_scores_equal_on_1_and_n_shards(crawls) -> None:
    one, three = (open_searcher(*crawls[n]) for n in (1, 3))
    try:
        for query in ("MOVE", "move", "link_directories", "command", "Command", "move algorithms", "directories"):
            for n, per_site in ((20, 0), (1, 0), (2, 1)):
                a, b = one.search(query, n=n, per_site=per_site), three.search(query, n=n, per_site=per_site)
                assert a.total == b.total > 0, query
                assert [(h.url, round(h.score, 9)) for h in a.hits] == [(h.url, round(h.score, 9)) for h in b.hits]
    finally:
        one.close()
        three.close()
