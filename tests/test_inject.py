import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from .conftest import install_fake_distribution, stats_value, write_lines

GOOD = [
    "http://example.com/",
    "https://www.example.org/docs/index.html\tnutch.score=2.5\tcategory=news",
    "http://example.com/about\tnutch.fetchInterval=86400",
    "ftp://ftp.example.net/pub/\tnutch.fetchInterval.fixed=3600",
    "http://[::1]:8080/local",
]
BAD = [
    "not a url",
    "htp://bad.example/",
    "mailto:someone@example.com",
    "http://",
    "http://bad-score.example/\tnutch.score=abc",
    "http://bad-interval.example/\tnutch.fetchInterval=soon",
    "http://no-equals.example/\tjustakey",
]


@pytest.fixture
def seeds(tmp_path: Path) -> Path:
    lines = ["# a comment", ""] + GOOD[:3] + BAD + GOOD[3:] + ["   # indented comment", "http://example.com/"]
    return write_lines(tmp_path / "seeds.txt", lines)


def test_inject_good_and_bad_lines_then_stats(cli, tmp_path: Path, seeds: Path) -> None:
    crawldb = tmp_path / "crawl" / "crawldb"
    result = cli("inject", crawldb, seeds)
    assert result.code == 0, result.err
    # Nutch's default regex-urlfilter.txt rejects ftp: URLs
    assert "Injector: Total urls rejected by filters: 1" in result.out
    assert "Injector: Total new urls injected: 4" in result.out
    assert "Injector: Total bad seed lines (skipped): 7" in result.out
    for line_no, text in [(6, "not a URL"), (7, "unknown scheme 'htp'"), (8, "unknown scheme 'mailto'"),
                          (9, "not a URL"), (10, "nutch.score='abc'"), (11, "nutch.fetchInterval='soon'"),
                          (12, "bad metadata 'justakey'")]:
        assert f"seeds.txt:{line_no}: " in result.err and text in result.err
    stats = cli("readdb", crawldb, "-stats")
    assert stats.code == 0
    assert stats_value(stats.out, "TOTAL urls") == "4"
    assert stats_value(stats.out, "status 1 (db_unfetched)") == "4"
    assert stats_value(stats.out, "max score") == "2.5"
    assert stats_value(stats.out, "shortest fetch interval") == "1 days, 00:00:00"
    urls = duckdb.sql(f"SELECT url FROM '{crawldb}/current/*.parquet' ORDER BY url").fetchall()
    assert sorted(u for (u,) in urls) == sorted(line.split("\t")[0] for line in GOOD if "ftp:" not in line)
    unfiltered = cli("inject", tmp_path / "db2", seeds, "-noFilter")
    assert "Injector: Total new urls injected: 5" in unfiltered.out


def test_parts_open_as_sorted_parquet_in_duckdb(cli, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "s.txt", [f"http://h{i % 37}.example/p{i}" for i in range(3000)])
    crawldb = tmp_path / "crawldb"
    assert cli("inject", crawldb, seeds, "-D", "store.parts=5").code == 0
    parts = sorted((crawldb / "current").glob("part-*.parquet"))
    assert len(parts) == 5
    for part in parts:
        urls = pq.read_table(part, columns=["url"]).column("url").to_pylist()
        assert urls == sorted(urls)
        assert pq.ParquetFile(part).metadata.row_group(0).sorting_columns[0].column_index == 0
    assert duckdb.sql(f"SELECT count(DISTINCT url) FROM '{crawldb}/current/*.parquet'").fetchall() == [(3000,)]


def test_seed_values_and_metadata(cli, tmp_path: Path, seeds: Path) -> None:
    crawldb = tmp_path / "crawldb"
    cli("inject", crawldb, seeds, "-noFilter")
    out = cli("readdb", crawldb, "-url", "https://www.example.org/docs/index.html").out
    assert "Score: 2.5" in out and "\tcategory=news" in out and "Status: 1 (db_unfetched)" in out
    out = cli("readdb", crawldb, "-url", "http://example.com/about").out
    assert "Retry interval: 86400 seconds (1 days)" in out
    out = cli("readdb", crawldb, "-url", "ftp://ftp.example.net/pub/").out
    assert "Retry interval: 3600 seconds" in out and "fixedInterval=3600.0" in out
    missing = cli("readdb", crawldb, "-url", "http://absent.example/")
    assert missing.code == 1 and "not found" in missing.out


def lookup_score(cli, crawldb: Path, url: str) -> str:
    out = cli("readdb", crawldb, "-url", url).out
    return next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("Score: "))


def test_merge_rules_for_urls_already_present(cli, tmp_path: Path) -> None:
    crawldb = tmp_path / "crawldb"
    write_lines(tmp_path / "a.txt", ["http://a.example/\tnutch.score=3\tk=old", "http://b.example/"])
    write_lines(tmp_path / "b.txt", ["http://a.example/\tnutch.score=7\tk=new\tx=1", "http://c.example/"])
    cli("inject", crawldb, tmp_path / "a.txt")
    plain = cli("inject", crawldb, tmp_path / "b.txt")
    assert "already in CrawlDb: 1" in plain.out and "Total new urls injected: 1" in plain.out
    assert lookup_score(cli, crawldb, "http://a.example/") == "3.0"  # existing entry kept as it was
    cli("inject", crawldb, tmp_path / "b.txt", "-update")
    out = cli("readdb", crawldb, "-url", "http://a.example/").out
    assert "Score: 7.0" in out and "\tk=new" in out and "\tx=1" in out
    write_lines(tmp_path / "c.txt", ["http://a.example/\tz=2"])
    cli("inject", crawldb, tmp_path / "c.txt", "--overwrite")
    out = cli("readdb", crawldb, "-url", "http://a.example/").out
    assert "Score: 1.0" in out and "\tz=2" in out and "k=new" not in out
    assert stats_value(cli("readdb", crawldb, "-stats").out, "TOTAL urls") == "3"
    both = cli("inject", crawldb, tmp_path / "c.txt", "-update", "-overwrite")
    assert both.code == 2


def test_update_keeps_old_score_when_seed_has_default(cli, tmp_path: Path) -> None:
    crawldb = tmp_path / "crawldb"
    cli("inject", crawldb, write_lines(tmp_path / "a.txt", ["http://a.example/\tnutch.score=3"]))
    cli("inject", crawldb, write_lines(tmp_path / "b.txt", ["http://a.example/\tm=1"]), "-update")
    assert lookup_score(cli, crawldb, "http://a.example/") == "3.0"


def test_last_duplicate_seed_line_wins_and_directory_of_seeds(cli, tmp_path: Path) -> None:
    seeds_dir = tmp_path / "seeds"
    seeds_dir.mkdir()
    write_lines(seeds_dir / "1.txt", ["http://d.example/\tnutch.score=1.5", "http://e.example/"])
    write_lines(seeds_dir / "2.txt", ["http://d.example/\tnutch.score=4"])
    write_lines(seeds_dir / ".hidden", ["http://hidden.example/"])
    crawldb = tmp_path / "crawldb"
    result = cli("inject", crawldb, seeds_dir)
    assert "Total new urls injected: 2" in result.out
    assert lookup_score(cli, crawldb, "http://d.example/") == "4.0"


def test_purge_404_and_settings_from_the_crawl_directory(cli, tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    (crawl / "gossamer.toml").write_text('"db.score.injected" = 0.25\n')
    crawldb = crawl / "crawldb"
    cli("inject", crawldb, write_lines(tmp_path / "a.txt", ["http://a.example/"]))
    assert lookup_score(cli, crawldb, "http://a.example/") == "0.25"


def test_missing_seeds_and_unknown_option(cli, tmp_path: Path) -> None:
    missing = cli("inject", tmp_path / "crawldb", tmp_path / "nope.txt")
    assert missing.code == 2 and "not found" in missing.err
    assert not (tmp_path / "crawldb" / "current").exists()
    assert cli("inject", tmp_path / "crawldb", tmp_path / "nope.txt", "-bogus").code == 2


def test_no_filter_gnu_spelling_and_define_anywhere(cli, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "s.txt", ["http://a.example/"])
    result = cli("inject", "--no-filter", tmp_path / "crawldb", seeds, "-Ddb.score.injected=5",
                 "--no-normalize")
    assert result.code == 0
    assert lookup_score(cli, tmp_path / "crawldb", "http://a.example/") == "5.0"


def test_stats_json_and_sort(cli, tmp_path: Path, seeds: Path) -> None:
    crawldb = tmp_path / "crawldb"
    cli("inject", crawldb, seeds)
    data = json.loads(cli("readdb", crawldb, "-stats", "--json").out)
    assert data["total"] == 4 and data["status"] == {"db_unfetched": 4}
    out = cli("readdb", crawldb, "-stats", "-sort").out
    assert "   example.com :\t2" in out.splitlines()


def test_undecodable_and_overlong_lines_are_reported_not_fatal(cli, tmp_path: Path) -> None:
    seeds = tmp_path / "mixed.txt"
    seeds.write_bytes(b"http://a.example/\nhttp://b.example/\xff\xfe\n" + b"http://c.example/" + b"x" * 2_000_000
                      + b"\nhttp://d.example/\n")
    result = cli("inject", tmp_path / "crawldb", seeds)
    assert result.code == 0
    assert "mixed.txt:2: not UTF-8 text" in result.err
    assert "mixed.txt:3: line longer than" in result.err
    assert "Total new urls injected: 2" in result.out
    assert cli("readdb", tmp_path / "crawldb", "-url", "http://d.example/").code == 0


def test_locked_crawldb_is_a_clear_error(cli, tmp_path: Path) -> None:
    from gossamer.store import TableLock

    crawldb = tmp_path / "crawldb"
    seeds = write_lines(tmp_path / "s.txt", ["http://a.example/"])
    with TableLock(crawldb, command="other job"):
        result = cli("inject", crawldb, seeds)
    assert result.code == 2
    assert "is locked by pid" in result.err and "other job" in result.err


LOWER_HOST = """
from gossamer.plugins import PluginInfo, URLNormalizer


class LowerHost(URLNormalizer):
    def normalize(self, url, scope):
        scheme, sep, rest = url.partition("://")
        host, slash, path = rest.partition("/")
        return scheme + sep + host.lower() + slash + path


PLUGIN = PluginInfo(id="urlnormalizer-lowerhost", point="URLNormalizer", factory=lambda s: LowerHost(),
                    description="lower-cases hosts")
"""


def test_filter_normalize_all_collapses_old_urls(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = install_fake_distribution(tmp_path / "site", "lowerhost", "lowerhost_plugin", LOWER_HOST,
                                     {"urlnormalizer-lowerhost": "lowerhost_plugin:PLUGIN"})
    monkeypatch.syspath_prepend(str(site))
    crawldb = tmp_path / "crawldb"
    old = write_lines(tmp_path / "old.txt", ["http://A.example/\tnutch.score=2", "http://a.example/\tk=v"])
    assert cli("inject", crawldb, old, "-noNormalize").code == 0  # both URLs kept as given
    assert stats_value(cli("readdb", crawldb, "-stats").out, "TOTAL urls") == "2"
    new = write_lines(tmp_path / "new.txt", ["http://B.example/"])
    include = "plugin.includes=urlnormalizer-lowerhost"
    result = cli("inject", crawldb, new, "-filterNormalizeAll", "-D", include)
    assert "already in CrawlDb: 0" in result.out, result.out
    assert stats_value(cli("readdb", crawldb, "-stats").out, "TOTAL urls") == "2"  # a.example and b.example
    again = write_lines(tmp_path / "again.txt", ["http://A.EXAMPLE/\tnutch.score=7\tz=1"])
    result = cli("inject", crawldb, again, "-update", "-filterNormalizeAll", "-D", include)
    assert result.code == 0 and "already in CrawlDb: 1" in result.out
    out = cli("readdb", crawldb, "-url", "http://a.example/").out
    assert "Score: 7.0" in out and "\tz=1" in out


def test_injector_settings_act_like_the_switches(cli, tmp_path: Path) -> None:
    crawldb = tmp_path / "crawldb"
    cli("inject", crawldb, write_lines(tmp_path / "a.txt", ["http://a.example/"]))
    seeds = write_lines(tmp_path / "b.txt", ["http://a.example/\tnutch.score=5\tk=v"])
    cli("inject", crawldb, seeds, "-D", "db.injector.update=true")
    assert lookup_score(cli, crawldb, "http://a.example/") == "5.0"
    cli("inject", crawldb, write_lines(tmp_path / "c.txt", ["http://a.example/"]),
        "-D", "db.injector.overwrite=true", "-D", "db.injector.update=true")
    out = cli("readdb", crawldb, "-url", "http://a.example/").out
    assert "Score: 1.0" in out and "k=v" not in out  # overwrite wins over update, as in Nutch


def test_compressed_seed_files(cli, tmp_path: Path) -> None:
    import bz2
    import gzip

    seeds = tmp_path / "seeds"
    seeds.mkdir()
    with gzip.open(seeds / "a.txt.gz", "wt") as handle:
        handle.write("http://gz.example/\nnot a url\n")
    (seeds / "b.txt.bz2").write_bytes(bz2.compress(b"http://bz.example/\n"))
    result = cli("inject", tmp_path / "crawldb", seeds)
    assert "Total new urls injected: 2" in result.out
    assert "a.txt.gz:2: not a URL" in result.err
