from pathlib import Path

import duckdb
import pyarrow.parquet as pq

from gossamer.store.partitioning import host_of

from .conftest import write_lines


def inject(cli, tmp_path: Path, lines: list[str], *args: str) -> Path:
    crawldb = tmp_path / "crawl" / "crawldb"
    assert cli("inject", crawldb, write_lines(tmp_path / f"seeds{len(lines)}.txt", lines), *args).code == 0
    return crawldb


def fetch_lists(segments: Path) -> list[list[str]]:
    return [sorted(duckdb.sql(f"SELECT url FROM '{seg}/crawl_generate/*.parquet'").fetchall())
            for seg in sorted(p for p in segments.iterdir() if p.name.isdigit())]


SEEDS = [f"http://a.example/{i}\tnutch.score={i}" for i in range(1, 6)] + [
    "http://b.example/x\tnutch.score=10", "http://c.example/y\tnutch.score=0.5", "http://d.example/logo.gif"]


def test_best_scores_first_top_n_and_nothing_due(cli, tmp_path: Path) -> None:
    crawldb = inject(cli, tmp_path, SEEDS, "-noFilter")
    segments = tmp_path / "crawl" / "segments"
    result = cli("generate", crawldb, segments, "-topN", "3")
    assert result.code == 0, result.err
    assert fetch_lists(segments) == [[("http://a.example/4",), ("http://a.example/5",), ("http://b.example/x",)]]
    assert "candidates due: 8" in result.out
    empty = cli("generate", crawldb, tmp_path / "other", "-adddays", "-1")
    assert empty.code == 1 and "0 records selected" in empty.out


def test_max_count_per_host_spreads_over_segments_and_filters_apply(cli, tmp_path: Path) -> None:
    crawldb = inject(cli, tmp_path, SEEDS, "-noFilter")
    segments = tmp_path / "segs"
    result = cli("generate", crawldb, segments, "-maxNumSegments", "3", "-D", "generate.max.count=2")
    assert result.code == 0, result.err
    lists = fetch_lists(segments)
    assert len(lists) == 3
    for urls in lists:
        hosts = [host_of(u) for (u,) in urls]
        assert hosts.count("a.example") <= 2
    everything = sorted(u for urls in lists for (u,) in urls)
    assert "http://d.example/logo.gif" not in everything  # Nutch's default regex-urlfilter.txt
    assert "rejected by filters: 1" in result.out
    assert len(everything) == 7  # five a.example URLs over three segments: 2 + 2 + 1


def test_generate_marker_and_crawl_gen_delay(cli, tmp_path: Path) -> None:
    crawldb = inject(cli, tmp_path, SEEDS[:3])
    segments = tmp_path / "segs"
    mark = ["-D", "generate.update.crawldb=true"]
    assert cli("generate", crawldb, segments, *mark).code == 0
    assert "\t_ngt_=" in cli("readdb", crawldb, "-url", "http://a.example/1").out
    assert cli("generate", crawldb, segments, *mark).code == 1  # already generated, within crawl.gen.delay
    assert cli("generate", crawldb, segments, *mark, "-adddays", "8").code == 0  # the 7-day marker expired


def test_fetch_lists_are_partitioned_by_host(cli, tmp_path: Path) -> None:
    lines = [f"http://h{i % 7}.example/p{i}" for i in range(200)]
    crawldb = inject(cli, tmp_path, lines)
    segments = tmp_path / "segs"
    assert cli("generate", crawldb, segments, "-numFetchers", "3").code == 0
    segment = next(p for p in segments.iterdir() if p.name.isdigit())
    seen: dict[str, int] = {}
    total = 0
    for part in sorted((segment / "crawl_generate").glob("part-*.parquet")):
        urls = pq.read_table(part, columns=["url"]).column("url").to_pylist()
        hosts = [host_of(u) for u in urls]
        for host in set(hosts):  # URL order within a host …
            mine = [u for u in urls if host_of(u) == host]
            assert mine == sorted(mine)
        distinct = len(set(hosts))  # … and hosts round-robin: every host once before any host twice
        assert len(set(hosts[:distinct])) == distinct
        total += len(urls)
        for url in urls:
            assert seen.setdefault(host_of(url), int(part.stem[-5:])) == int(part.stem[-5:])
    assert total == 200
    assert not list(segments.glob(".tmp-*"))


def test_min_score_and_restrict_status(cli, tmp_path: Path) -> None:
    crawldb = inject(cli, tmp_path, SEEDS, "-noFilter")
    result = cli("generate", crawldb, tmp_path / "s1", "-D", "generate.min.score=4.5")
    assert [u for urls in fetch_lists(tmp_path / "s1") for (u,) in urls] == [
        "http://a.example/5", "http://b.example/x"]
    assert cli("generate", crawldb, tmp_path / "s2", "-D", "generate.restrict.status=db_fetched").code == 1
    bad = cli("generate", crawldb, tmp_path / "s3", "-D", "generate.restrict.status=nonsense")
    assert bad.code == 2 and "unknown status" in bad.err
    assert result.code == 0


def test_order_keys_sort_like_score_descending_then_url() -> None:
    import random

    import pyarrow as pa

    from gossamer.crawl.generate.candidates import order_keys

    rng = random.Random(7)
    scores = [rng.choice([0.0, -0.0, 1.0, -1.5, 2.5, 1e-30, -1e30, float("inf"), float("-inf"), 3.25])
              for _ in range(300)]
    urls = [f"http://h{rng.randrange(5)}.example/{rng.randrange(40)}" for _ in scores]
    groups = [rng.choice(["a.example", "ab.example", "b.example"]) for _ in scores]
    keys = order_keys(pa.array(groups), pa.array(scores, pa.float32()), pa.array(urls)).to_pylist()
    by_key = [i for _, i in sorted(zip(keys, range(len(keys)), strict=True))]
    expected = sorted(range(len(keys)), key=lambda i: (groups[i], -scores[i], urls[i], i))
    assert [(groups[i], scores[i] + 0.0, urls[i]) for i in by_key] == [
        (groups[i], scores[i] + 0.0, urls[i]) for i in expected]


TIED = [f"http://h{i % 7}.example/p{i}\tnutch.score={1 + i % 2}" for i in range(210)]


def test_selection_does_not_depend_on_the_number_of_parts(cli, tmp_path: Path) -> None:
    """Scores tie in large groups: the URL breaks ties, so 1 part and 5 parts select the same."""
    lists = {}
    for parts in (1, 5):
        for max_count in (-1, 4):
            (tmp_path / f"p{parts}-{max_count}").mkdir()
            crawldb = inject(cli, tmp_path / f"p{parts}-{max_count}", TIED, "-D", f"store.parts={parts}")
            segments = tmp_path / f"p{parts}-{max_count}" / "segments"
            result = cli("generate", crawldb, segments, "-topN", "20", "-maxNumSegments", "2",
                         "-D", f"generate.max.count={max_count}", "-D", f"store.parts={parts}")
            assert result.code == 0, result.err
            lists[parts, max_count] = fetch_lists(segments)
    for max_count in (-1, 4):
        assert lists[1, max_count] == lists[5, max_count]
    best = [url for (url,) in lists[1, -1][0]]
    assert len(best) == 20 and all(int(url.rsplit("p", 1)[1]) % 2 == 1 for url in best)  # score 2 first
    assert best == sorted(f"http://h{i % 7}.example/p{i}" for i in range(1, 210, 2))[:20]
    for segment in lists[1, 4]:
        hosts = [host_of(url) for (url,) in segment]
        assert len(segment) == 20 and max(hosts.count(h) for h in set(hosts)) <= 4
