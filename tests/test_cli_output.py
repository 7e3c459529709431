"""What commands print and their exit codes: pages counted, --json reports, -v/-q, completion, tables (issue 21)."""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path

import pytest

from gossamer.plugins.registry import unmatched_includes
from gossamer.plugins.support.regexrules import regex_alternatives
from tests.conftest import write_lines
from tests.index_fixtures import Page, make_crawl

AGENT = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("indexed")
    crawl, _ = make_crawl(root / "crawl", [Page("http://h0.test/a", "Tea", "oolong tea leaves",
                                                [("http://h0.test/b", "bee")])])
    return crawl


def test_a_refused_connection_is_an_error_not_a_page(cli, tmp_path: Path) -> None:
    crawl_dir = tmp_path / "crawl"
    seeds = write_lines(tmp_path / "seeds.txt", [f"http://127.0.0.1:{free_port()}/"])
    result = cli("crawl", seeds, "-d", crawl_dir, *AGENT, "-D", "http.robots.403.allow=true")
    assert result.code == 0, result.err
    assert "Fetcher: segment" in result.out and ": 0 pages, 0 B, 1 errors in" in result.out
    assert "without a response (not pages): 1" in result.out
    assert "0 pages fetched" in result.out


def test_fetch_json_counts_results_pages_and_errors(cli, tmp_path: Path) -> None:
    crawl_dir = tmp_path / "crawl"
    seeds = write_lines(tmp_path / "seeds.txt", [f"http://127.0.0.1:{free_port()}/"])
    assert cli("inject", crawl_dir / "crawldb", seeds).code == 0
    assert cli("generate", crawl_dir / "crawldb", crawl_dir / "segments").code == 0
    (segment,) = (crawl_dir / "segments").iterdir()
    result = cli("fetch", segment, *AGENT, "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert (report["results"], report["pages"], report["errors"]) == (1, 0, 1)
    assert report["segment"] == segment.name and sum(report["by_status"].values()) == 1


def test_search_with_no_hits_exits_1(cli, indexed: Path) -> None:
    found = cli("search", "-d", indexed, "oolong")
    assert found.code == 0 and "http://h0.test/a" in found.out
    none = cli("search", "-d", indexed, "nothingmatcheshere")
    assert none.code == 1 and "Hits 0 (of 0 matching)" in none.out
    as_json = cli("search", "-d", indexed, "nothingmatcheshere", "--json")
    assert as_json.code == 1 and json.loads(as_json.out)["hits"] == []
    words = cli("search", "-d", indexed, "oolong", "leaves")  # several words are one query
    assert words.code == 0 and "http://h0.test/a" in words.out


def test_readseg_get_prints_nutch_text_not_python_reprs(cli, indexed: Path) -> None:
    (segment,) = (indexed / "segments").iterdir()
    result = cli("readseg", "-get", segment, "http://h0.test/a")
    assert result.code == 0
    assert "ParseData::\nVersion: 5\nStatus: success(1)\nTitle: Tea\nOutlinks: 1\n" in result.out
    assert "  outlink: toUrl: http://h0.test/b anchor: bee\n" in result.out
    assert "Content Metadata: Content-Type=text/html; charset=utf-8 \n" in result.out
    assert "ParseText::\noolong tea leaves\n" in result.out
    assert "{'" not in result.out and "None" not in result.out


def test_plugins_columns_are_aligned(cli) -> None:
    result = cli("plugins")
    lines = result.out.splitlines()
    assert result.code == 0 and lines[0].startswith("plugin ") and "\t" not in result.out
    column = lines[0].index("extension point")
    assert all(line[column - 2:column] == "  " and line[column] != " " for line in lines[1:])
    tsv = cli("plugins", "--tsv")
    assert tsv.out.splitlines()[0] == "plugin\textension point\tactive\twhy\tpackage\tdescription"


def test_plugin_includes_naming_unknown_ids_warns(cli, indexed: Path) -> None:
    includes = "plugin.includes=protocol-http|urlfilter-regex|parse-(html|tika)|parse-tika|indexer-solr"
    result = cli("readdb", indexed / "crawldb", "-stats", "-D", includes)
    assert result.code == 0
    assert "warning: plugin.includes names plugins Gossamer does not have (ignored): parse-tika, indexer-solr" \
        in result.err
    assert result.err.count("warning: plugin.includes") == 1
    quiet = cli("readdb", indexed / "crawldb", "-stats", "-D", includes, "-q")
    assert quiet.code == 0 and "warning" not in quiet.err
    assert "warning" not in cli("readdb", indexed / "crawldb", "-stats").err


def test_includes_alternatives_split_at_the_top_level_only() -> None:
    assert regex_alternatives(r"a|b-(c|d)|[x|y]z|e\|f") == ["a", "b-(c|d)", "[x|y]z", r"e\|f"]
    assert unmatched_includes("urlfilter-(regex|nope)|nope-.*|(", ["urlfilter-regex"]) == ["nope-.*"]


@pytest.mark.parametrize("command", [
    ["inject", "{c}/db2", "{seeds}"],
    ["generate", "{c}/db2", "{c}/segs2"],
    ["updatedb", "{c}/crawldb", "-dir", "{c}/segments", "-force"],
    ["invertlinks", "{c}/linkdb2", "-dir", "{c}/segments"],
    ["dedup", "{c}/crawldb"],
    ["index", "{c}/crawldb", "-dir", "{c}/segments", "--index", "{c}/index2"],
    ["clean-tmp", "-d", "{c}"],
])
def test_json_prints_the_report_object(cli, tmp_path: Path, command: list[str]) -> None:
    crawl, _ = make_crawl(tmp_path / "crawl", [Page("http://h0.test/a", "Tea", "oolong tea")])
    seeds = write_lines(tmp_path / "seeds.txt", ["http://h0.test/a", "http://h0.test/z"])
    args = [a.format(c=crawl, seeds=seeds) for a in command]
    if command[0] == "generate":
        assert cli("inject", crawl / "db2", seeds).code == 0
    result = cli(*args, "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)  # exactly one JSON object, no text summary around it
    assert isinstance(report, dict) and report


def test_crawl_json_is_the_crawl_report(cli, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "seeds.txt", [f"http://127.0.0.1:{free_port()}/"])
    result = cli("crawl", seeds, "-d", tmp_path / "crawl", *AGENT, "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["rounds_done"] == 1 and report["pages_fetched"] == 0 and len(report["segments"]) == 1


def test_verbose_logs_info_and_quiet_only_errors(cli, indexed: Path) -> None:
    loud = cli("readdb", indexed / "crawldb", "-stats", "-v")
    assert loud.code == 0 and "INFO gossamer.cli: settings for" in loud.err
    failing = cli("readdb", indexed / "nope", "-stats", "-vv")
    assert failing.code == 2 and "Traceback" in failing.err and failing.err.rstrip().endswith(
        "error: no table at " + str(indexed / "nope") + " (no current/ directory)")
    assert "Traceback" not in cli("readdb", indexed / "nope", "-stats").err
    plain = cli("readdb", indexed / "crawldb", "-stats")
    assert "INFO" not in plain.err and logging.getLogger("gossamer").level == logging.NOTSET
    described = cli("showproperties", "-v")  # showproperties keeps its own -v (--describe)
    assert described.code == 0 and "Bad input lines printed in full" in described.out


def test_shell_completion_is_offered(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    # Typer detects the calling shell (none under a test runner started by a non-shell): name it instead
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    shown = cli("--show-completion", "bash")
    assert shown.code == 0 and "_gossamer_completion" in shown.out
    assert "--install-completion" in cli("--help").out
