import csv
import json
from pathlib import Path

import pytest

from .conftest import write_lines


@pytest.fixture
def crawldb(cli, tmp_path: Path) -> Path:
    lines = [f"http://h{i % 5}.example/p{i}\tnutch.score={i / 10}" for i in range(50)]
    lines.append("https://docs.example/x\tnutch.score=9\tlang=en\tnote=a,b")
    db = tmp_path / "crawl" / "crawldb"
    assert cli("inject", db, write_lines(tmp_path / "s.txt", lines), "-D", "store.parts=3").code == 0
    return db


def read_parts(out: Path) -> list[str]:
    return [line for part in sorted(out.glob("part-*")) for line in part.read_text().splitlines()]


def test_dump_normal_layout(cli, crawldb: Path, tmp_path: Path) -> None:
    result = cli("readdb", crawldb, "-dump", tmp_path / "n")
    assert result.code == 0 and "51 records" in result.out
    text = "\n".join(read_parts(tmp_path / "n"))
    assert "https://docs.example/x\tVersion: 7\nStatus: 1 (db_unfetched)\n" in text
    assert " \tlang=en\n \tnote=a,b" in text
    assert text.count("Version: 7") == 51


def test_dump_csv_has_nutch_header_and_quotes(cli, crawldb: Path, tmp_path: Path) -> None:
    cli("readdb", crawldb, "-dump", tmp_path / "c", "-format", "csv")
    rows = []
    for part in sorted((tmp_path / "c").glob("part-*")):
        with part.open() as handle:
            reader = csv.reader(handle)
            assert next(reader)[:3] == ["Url", "Status code", "Status name"]
            rows.extend(reader)
    assert len(rows) == 51
    docs = next(r for r in rows if r[0] == "https://docs.example/x")
    assert docs[1:3] == ["1", "db_unfetched"] and docs[8] == "9.0" and docs[10] == "lang:en|note:a,b"


def test_dump_json_with_filters(cli, crawldb: Path, tmp_path: Path) -> None:
    cli("readdb", crawldb, "-dump", tmp_path / "j", "-format", "json", "-regex", r"http://h1\.example/.*")
    records = [json.loads(line) for line in read_parts(tmp_path / "j")]
    assert len(records) == 10 and all(r["url"].startswith("http://h1.example/") for r in records)
    assert {r["statusName"] for r in records} == {"db_unfetched"}
    cli("readdb", crawldb, "-dump", tmp_path / "s", "-status", "db_fetched")
    assert read_parts(tmp_path / "s") == []
    cli("readdb", crawldb, "-dump", tmp_path / "r", "--retry", "0", "--sample", "0.5", "--format", "json")
    assert 10 < len(read_parts(tmp_path / "r")) < 45


@pytest.mark.parametrize(
    ("args", "message"),
    [(["-dump", "x", "-format", "xml"], "unknown dump format"), (["-dump", "x", "-status", "db_nope"],
                                                                  "unknown status"),
     (["-dump", "x", "-regex", "("], "bad -regex"), (["-stats", "-url", "http://a/"], "exactly one"),
     (["-topN", "3"], "-topN needs")],
)
def test_bad_readdb_arguments(cli, crawldb: Path, tmp_path: Path, args: list[str], message: str) -> None:
    result = cli("readdb", crawldb, *[a if a != "x" else str(tmp_path / "x") for a in args])
    assert result.code == 2 and message in result.err


def test_top_n(cli, crawldb: Path, tmp_path: Path) -> None:
    assert cli("readdb", crawldb, "-topN", "3", tmp_path / "t").code == 0
    assert (tmp_path / "t" / "part-00000").read_text().splitlines() == [
        "9.0\thttps://docs.example/x", "4.9\thttp://h4.example/p49", "4.8\thttp://h3.example/p48"]
    cli("readdb", crawldb, "-topN", "100", tmp_path / "m", "4.5")
    assert len((tmp_path / "m" / "part-00000").read_text().splitlines()) == 6


def test_readdb_of_missing_crawldb(cli, tmp_path: Path) -> None:
    result = cli("readdb", tmp_path / "none", "-stats")
    assert result.code == 2 and "no table" in result.err


def test_help_has_examples(cli) -> None:
    result = cli("readdb", "--help")
    assert result.code == 0 and "gossamer readdb crawl/crawldb -stats" in result.out
    assert cli("--version").out.startswith("gossamer ")


def test_dump_refuses_a_non_empty_output_directory(cli, crawldb: Path, tmp_path: Path) -> None:
    assert cli("readdb", crawldb, "-dump", tmp_path / "d").code == 0
    again = cli("readdb", crawldb, "-dump", tmp_path / "d", "-regex", "nothing")
    assert again.code == 2 and "already exists" in again.err
    assert len(read_parts(tmp_path / "d")) > 50  # the first dump is untouched
