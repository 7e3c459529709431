"""Wrong paths and missing options are answered with what to type instead (issue 21, "Common mistakes")."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.conftest import write_lines

AGENT = ("-D", "http.agent.name=gossamer-test")


@pytest.fixture
def crawl(cli, tmp_path: Path) -> Path:
    """A crawl directory with a crawldb and one generated segment."""
    crawl_dir = tmp_path / "demo-crawl"
    seeds = write_lines(tmp_path / "seeds.txt", ["http://127.0.0.1:9/"])
    assert cli("inject", crawl_dir / "crawldb", seeds).code == 0
    assert cli("generate", crawl_dir / "crawldb", crawl_dir / "segments").code == 0
    return crawl_dir


def only_segment(crawl_dir: Path) -> Path:
    (segment,) = (crawl_dir / "segments").iterdir()
    return segment


@pytest.mark.parametrize("args", [["readdb", "{c}", "-stats"], ["generate", "{c}", "{c}/segments"],
                                  ["updatedb", "{c}", "seg"], ["dedup", "{c}"]])
def test_crawl_dir_given_for_the_crawldb(cli, crawl: Path, args: list[str]) -> None:
    result = cli(*[a.format(c=crawl) for a in args])
    assert result.code == 2
    assert f"did you mean {crawl}/crawldb?" in result.err and "Traceback" not in result.err


def test_crawl_dir_given_for_the_linkdb_and_the_segments_dir(cli, crawl: Path) -> None:
    result = cli("invertlinks", crawl, "-dir", crawl / "segments")
    assert result.code == 2 and f"did you mean {crawl}/linkdb?" in result.err
    result = cli("generate", crawl / "crawldb", crawl)
    assert result.code == 2 and f"did you mean {crawl}/segments?" in result.err


def test_segments_dir_given_as_a_segment(cli, crawl: Path) -> None:
    listed = cli("readseg", "-list", crawl / "segments")
    assert listed.code == 2 and listed.out == ""
    assert f"is a segments directory, not a segment: use -dir {crawl}/segments" in listed.err
    updated = cli("updatedb", crawl / "crawldb", crawl / "segments")
    assert updated.code == 2 and "use -dir" in updated.err
    fetched = cli("fetch", crawl / "segments", *AGENT)
    assert fetched.code == 2 and f"e.g. {only_segment(crawl)}" in fetched.err
    fetched = cli("fetch", crawl, *AGENT)
    assert fetched.code == 2 and f"did you mean {only_segment(crawl)}?" in fetched.err
    assert cli("readseg", "-list", "-dir", crawl / "segments").code == 0


def test_dir_option_of_a_missing_folder(cli, crawl: Path, tmp_path: Path) -> None:
    result = cli("readseg", "-list", "-dir", tmp_path / "nope")
    assert result.code == 2 and f"-dir {tmp_path / 'nope'}: no such directory" in result.err
    result = cli("updatedb", crawl / "crawldb", "-dir", tmp_path / "nope")
    assert result.code == 2 and "no such directory" in result.err
    result = cli("readseg", "-list", "-dir", crawl)
    assert result.code == 2 and f"did you mean {crawl}/segments?" in result.err


def test_search_words_naming_a_crawl_directory_hint_d(cli, crawl: Path) -> None:
    result = cli("search", crawl, "crawl")
    assert result.code == 2
    assert f"{crawl} is a crawl directory: give it with -d, e.g. gossamer search -d {crawl} 'crawl'" in result.err


def test_inject_into_a_file(cli, tmp_path: Path) -> None:
    afile = write_lines(tmp_path / "passwd", ["root:x:0:0"])
    seeds = write_lines(tmp_path / "seeds.txt", ["http://127.0.0.1:9/"])
    result = cli("inject", afile, seeds)
    assert result.code == 2 and "Errno" not in result.err
    assert f"{afile} is a file, not a crawldb directory" in result.err
    result = cli("inject", afile / "crawldb", seeds)  # a file in the way of a directory
    assert result.code == 2 and "Errno" not in result.err and "a file where a directory is expected" in result.err


@pytest.mark.parametrize("lines", [[], ["", "# only a comment", "   "]])
def test_empty_seeds_file_is_nothing_to_do(cli, tmp_path: Path, lines: list[str]) -> None:
    seeds = write_lines(tmp_path / "seeds.txt", lines)
    result = cli("inject", tmp_path / "crawl" / "crawldb", seeds)
    assert result.code == 1 and "no seed URLs in" in result.err
    assert not (tmp_path / "crawl").exists()
    result = cli("crawl", seeds, "-d", tmp_path / "crawl", *AGENT)
    assert result.code == 1 and "no seed URLs in" in result.err and not (tmp_path / "crawl").exists()


def test_crawl_checks_the_agent_name_before_any_step(cli, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "seeds.txt", ["http://127.0.0.1:9/"])
    result = cli("crawl", seeds, "-d", tmp_path / "crawl")
    assert result.code == 2 and "http.agent.name is empty" in result.err and "-D http.agent.name=" in result.err
    assert result.out == "" and not (tmp_path / "crawl").exists()  # no crawldb, no orphan segment


def test_serve_on_a_busy_port_says_so_before_printing_the_url(cli, crawl: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = cli("serve", "-d", crawl, "--port", str(port))
    assert result.code == 2 and result.out == ""
    assert f"port {port} is in use: try --port {port + 1}" in result.err


def test_an_empty_path_is_refused_not_read_as_the_current_directory(cli, tmp_path: Path) -> None:
    result = cli("crawl", "", "-d", tmp_path / "crawl", "-D", "http.agent.name=t")
    assert result.code == 2 and "empty path" in result.err
    assert not (tmp_path / "crawl" / "crawldb").exists()
