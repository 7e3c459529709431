"""updatedb applies a segment once: the crawldb records the segments it has absorbed.

Applying a segment twice (a re-run after a kill just after updatedb's commit, or by mistake)
would turn ``db_fetched`` into ``db_notmodified`` and add its scores again; it is refused,
clearly, unless ``-force`` says so.  Every job that rewrites the crawldb keeps the record.
"""

from __future__ import annotations

from pathlib import Path

from gossamer.store import open_live
from tests.conftest import write_lines
from tests.fetch_server import ThreadedSite

AGENT = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0")


def _dump(cli, crawldb: Path, out: Path) -> list[str]:  # noqa: ANN001
    assert cli("readdb", crawldb, "-dump", out).code == 0
    return sorted(line for f in out.iterdir() if not f.name.startswith(".") for line in f.read_text().splitlines())


def _absorbed(crawldb: Path) -> tuple[str, ...]:
    with open_live(crawldb) as version:
        return version.description.absorbed


def test_a_segment_is_applied_once_unless_forced_and_the_record_survives_every_rewrite(cli, tmp_path: Path) -> None:
    crawldb, segments = tmp_path / "crawl" / "crawldb", tmp_path / "crawl" / "segments"
    with ThreadedSite() as site:
        site.route("/", body=b"<html><a href='/a'>a</a></html>")
        site.route("/a", body=b"<html>a</html>")
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/")])
        assert cli("inject", crawldb, seeds).code == 0
        assert cli("generate", crawldb, segments).code == 0
        segment = next(p for p in segments.iterdir() if p.name.isdigit())
        assert cli("fetch", segment, *AGENT).code == 0
    first = cli("updatedb", crawldb, segment)
    assert first.code == 0, first.err
    assert _absorbed(crawldb) == (segment.name,)
    before = _dump(cli, crawldb, tmp_path / "d1")

    again = cli("updatedb", crawldb, segment)
    assert again.code == 2 and f"already absorbed segment(s) {segment.name}" in again.err and "-force" in again.err
    assert _dump(cli, crawldb, tmp_path / "d2") == before  # nothing changed

    # generate (markers), inject (a new seed) and dedup rewrite the crawldb: the record stays
    assert cli("inject", crawldb, write_lines(tmp_path / "more.txt", ["http://other.test/"])).code == 0
    assert cli("generate", crawldb, segments, "-topN", "1").code == 0
    assert cli("dedup", crawldb).code == 0
    assert _absorbed(crawldb) == (segment.name,)
    assert cli("updatedb", crawldb, "-dir", segments).code == 2  # -dir includes it too

    merged = tmp_path / "merged"
    assert cli("mergedb", merged, crawldb).code == 0
    assert _absorbed(merged) == (segment.name,)
    assert cli("updatedb", merged, segment).code == 2

    forced = cli("updatedb", crawldb, segment, "-force")
    assert forced.code == 0, forced.err
    assert _absorbed(crawldb) == (segment.name,)
