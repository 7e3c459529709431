"""A damaged table part (cut short by a crash or a full disk) is one line naming the file and the way back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import stats_value, write_lines


@pytest.fixture
def damaged(cli, tmp_path: Path) -> Path:
    """A crawldb whose current version has a part cut short, and an intact ``old`` version."""
    crawldb = tmp_path / "crawl" / "crawldb"
    seeds = write_lines(tmp_path / "a.txt", [f"http://h{i}.example/" for i in range(20)])
    assert cli("inject", crawldb, seeds).code == 0
    assert cli("inject", crawldb, write_lines(tmp_path / "b.txt", ["http://new.example/"])).code == 0
    part = crawldb / "current" / "part-00003.parquet"
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    return crawldb


@pytest.mark.parametrize("command", [("readdb", "{db}", "-stats"), ("readdb", "{db}", "-url", "http://h1.example/"),
                                     ("readdb", "{db}", "-dump", "{out}"), ("inject", "{db}", "{seeds}"),
                                     ("generate", "{db}", "{segments}"), ("dedup", "{db}"),
                                     ("mergedb", "{out}", "{db}")])
def test_every_command_names_the_damaged_part_and_the_intact_old_version(cli, damaged: Path, tmp_path: Path,
                                                                         command: tuple[str, ...]) -> None:
    seeds = write_lines(tmp_path / "c.txt", ["http://other.example/"])
    args = [a.format(db=damaged, out=tmp_path / "out", seeds=seeds, segments=tmp_path / "crawl" / "segments")
            for a in command]
    result = cli(*args)
    assert result.code == 2, (command, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "part-00003.parquet is damaged" in lines[0], result.err
    assert f"the previous version is intact in {damaged / 'old'}" in lines[0]


def test_following_the_hint_brings_the_previous_version_back(cli, damaged: Path) -> None:
    (damaged / "current").rename(damaged / "current.damaged")
    (damaged / "old").rename(damaged / "current")
    stats = cli("readdb", damaged, "-stats")
    assert stats.code == 0 and stats_value(stats.out, "TOTAL urls") == "20"
