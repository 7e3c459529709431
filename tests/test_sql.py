"""``gossamer sql`` (issue 21, point 4): views over the live version of every table of a crawl,
local and on S3 (moto on loopback), status names, formats, the shell, the documented queries and
the error cases."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from gossamer.core import CrawlStatus
from gossamer.core.settings import load_settings
from gossamer.store import LocalPlace, Location
from gossamer.store.sql import open_crawl_views

from .conftest import write_lines
from .s3_server import S3Server, s3_server
from .sql_crawl import DB_ROWS, PST_404, SEGMENTS, A, B, build_crawl, write_crawldb

DOCS = Path(__file__).resolve().parent.parent / "docs"
SECTION = "## Querying a crawl with SQL"
EXPECTED = [  # the documented queries' results on tests/sql_crawl.py's crawl, as CSV
    "status_name,urls\ndb_unfetched,4\ndb_fetched,3\ndb_gone,1\n",
    "host,unfetched\nb.example,3\na.example,1\n",
    f"segment,fetched,tried\n{SEGMENTS[0]},2,2\n{SEGMENTS[1]},1,2\n",
    f"url,inlinks\n{A}/one,2\n{B}/x,1\n",
    f"segment,url,status_name,protocol_status\n{SEGMENTS[1]},{A}/missing,fetch_gone,\"{PST_404}\"\n",
]
VIEWS = ("crawldb", "linkdb", "crawl_generate", "crawl_fetch", "crawl_parse", "parse_data", "parse_text")


def documented_queries() -> list[str]:
    text = (DOCS / "data-formats.md").read_text()
    section = text[text.index(SECTION):]
    return [q.strip() for q in re.findall(r"```sql\n(.*?)```", section, re.S)]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_crawl(LocalPlace(tmp_path_factory.mktemp("sql") / "crawl"))


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def csv_out(cli, *args: object) -> str:
    result = cli("sql", *args, "--format", "csv")
    assert result.code == 0, result.err
    return result.out


def test_the_documented_queries_run_and_answer(cli, crawl: Path) -> None:
    queries = documented_queries()
    assert len(queries) == 5
    for query, expected in zip(queries, EXPECTED, strict=True):
        assert csv_out(cli, "-d", crawl, query) == expected, query


def test_views_columns_and_status_names(crawl: Path) -> None:
    with open_crawl_views(crawl) as views:
        con = views.con
        assert [(v.name, v.sources) for v in views.views] == [
            ("crawldb", 1), ("linkdb", 1), *((name, 2) for name in VIEWS[2:])]
        columns = {name: [c[0] for c in con.execute(f"DESCRIBE {name}").fetchall()] for name in VIEWS}
        assert columns["crawldb"] == ["url", "host", "status", "status_name", "fetch_time", "retries",
                                      "fetch_interval", "score", "signature", "modified_time", "metadata",
                                      "protocol_status"]
        for name in ("crawl_generate", "crawl_fetch", "crawl_parse"):
            assert columns[name] == ["segment", *columns["crawldb"]]
        assert columns["parse_data"] == ["segment", "url", "status", "status_name", "status_message", "title",
                                         "outlinks", "content_metadata", "parse_metadata"]
        assert columns["parse_text"] == ["segment", "url", "text"]
        assert columns["linkdb"] == ["url", "inlinks"]
        rows = con.execute("SELECT url, status, status_name, protocol_status FROM crawldb ORDER BY url").fetchall()
        assert rows == sorted((url, int(s), CrawlStatus(s).status_name, pst) for url, s, pst in DB_ROWS)
        assert con.execute("SELECT DISTINCT status_name FROM parse_data").fetchall() == [("success",)]
        assert con.execute("SELECT DISTINCT segment, status_name FROM crawl_parse ORDER BY 1").fetchall() == [
            (SEGMENTS[0], "linked"), (SEGMENTS[1], "linked")]
        assert con.execute("SELECT name FROM crawl_status WHERE code = 37").fetchall() == [("fetch_gone",)]
        joined = con.execute("SELECT d.title, len(l.inlinks) FROM parse_data d JOIN linkdb l USING (url)").fetchall()
        assert joined == [(f"title of {A}/one", 2)]


def test_a_session_keeps_the_version_it_opened_and_a_new_one_sees_the_install(crawl: Path, tmp_path: Path) -> None:
    root = LocalPlace(tmp_path / "crawl")
    shutil.copytree(crawl, root)
    with open_crawl_views(root) as views:
        write_crawldb(root, [(f"{A}/new", CrawlStatus.DB_UNFETCHED, None)])  # current -> old, new current
        write_crawldb(root, [(f"{A}/newer", CrawlStatus.DB_UNFETCHED, None)])  # the pinned version is deleted
        assert views.con.execute("SELECT count(*) FROM crawldb").fetchone() == (len(DB_ROWS),)
    with open_crawl_views(root) as views:
        assert views.con.execute("SELECT url FROM crawldb").fetchall() == [(f"{A}/newer",)]
    (root / "crawldb" / "current").rename(root / "crawldb" / "gone")  # a writer died between its renames
    with open_crawl_views(root) as views:
        assert views.con.execute("SELECT url FROM crawldb").fetchall() == [(f"{A}/new",)]  # old/


def test_absent_tables_are_empty_views_and_bad_segment_tables_are_left_out(cli, crawl: Path,
                                                                              tmp_path: Path) -> None:
    root = tmp_path / "crawl"
    shutil.copytree(crawl, root)
    shutil.rmtree(root / "linkdb")
    (root / "segments" / SEGMENTS[1] / "parse_text" / "_SUCCESS").unlink()
    result = cli("sql", "-d", root, "SELECT segment, count(*) AS n FROM parse_text GROUP BY 1", "-f", "csv")
    assert result.code == 0, result.err
    assert result.out == f"segment,n\n{SEGMENTS[0]},2\n"
    assert f"warning: left out {root / 'segments' / SEGMENTS[1] / 'parse_text'}" in result.err
    empty = cli("sql", "-d", root, "SELECT url, len(inlinks) FROM linkdb")
    assert empty.code == 1 and empty.out.startswith("url")  # the header, no rows: exit 1
    only_db = tmp_path / "fresh"
    write_crawldb(LocalPlace(only_db))
    assert csv_out(cli, "-d", only_db, "SELECT count(*) AS n FROM crawl_fetch UNION ALL "
                                       "SELECT count(*) FROM crawldb") == f"n\n0\n{len(DB_ROWS)}\n"


def test_a_crawl_written_by_inject_and_generate(cli, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "seeds.txt", [f"{A}/", f"{B}/", f"{B}/2"])
    assert cli("inject", tmp_path / "c" / "crawldb", seeds).code == 0
    assert cli("generate", tmp_path / "c" / "crawldb", tmp_path / "c" / "segments").code == 0
    out = csv_out(cli, "-d", tmp_path / "c", "SELECT host, status_name, count(*) AS n FROM crawl_generate "
                  "GROUP BY ALL ORDER BY host")
    assert out == "host,status_name,n\na.example,db_unfetched,1\nb.example,db_unfetched,2\n"


def test_formats(cli, crawl: Path) -> None:
    query = f"SELECT url, status, fetch_time, signature, metadata FROM crawldb WHERE url = '{A}/missing'"
    json_out = cli("sql", "-d", crawl, query, "--format", "json")
    assert json_out.code == 0
    rows = [json.loads(line) for line in json_out.out.splitlines()]
    assert rows == [{"url": f"{A}/missing", "status": 3, "fetch_time": "2026-01-01T00:00:00+00:00",
                     "signature": None, "metadata": {"_pst_": PST_404}}]
    parsed = list(csv.DictReader(io.StringIO(csv_out(cli, "-d", crawl, query))))
    assert parsed == [{"url": f"{A}/missing", "status": "3", "fetch_time": "2026-01-01T00:00:00+00:00",
                       "signature": "", "metadata": json.dumps({"_pst_": PST_404})}]
    table = cli("sql", "-d", crawl, "SELECT url, status, protocol_status FROM crawldb ORDER BY url LIMIT 3",
                "--max-width", "20")
    assert table.code == 0
    lines = table.out.splitlines()
    assert lines[0].split() == ["url", "status", "protocol_status"] and set(lines[1]) == {"-", " "}
    assert lines[2].split() == [f"{A}/", "2", "success(1),", "lastMod…"]
    assert lines[4].split()[:2] == ["http://a.example/mi…", "3"]
    bad = cli("sql", "-d", crawl, "SELECT 1", "--format", "xml")
    assert bad.code == 2 and "--format must be one of table, csv, json" in bad.err


def test_errors_are_one_line_with_exit_2(cli, crawl: Path, tmp_path: Path) -> None:
    syntax = cli("sql", "-d", crawl, "SELEC url FROM crawldb")
    assert syntax.code == 2 and syntax.out == ""
    assert syntax.err.strip().splitlines() == ['error: Parser Error: syntax error at or near "SELEC"']
    unknown = cli("sql", "-d", crawl, "SELECT nope FROM crawldb")
    assert unknown.code == 2 and len(unknown.err.strip().splitlines()) == 1 and "nope" in unknown.err
    missing_table = cli("sql", "-d", crawl, "SELECT * FROM webgraph")
    assert missing_table.code == 2 and "webgraph" in missing_table.err
    nothing = cli("sql", "-d", crawl, "SELECT url FROM crawldb WHERE false")
    assert nothing.code == 1 and nothing.err == ""
    no_crawl = cli("sql", "-d", tmp_path / "none", "SELECT 1")
    assert no_crawl.code == 2 and "no crawl at" in no_crawl.err
    table = cli("sql", "-d", crawl / "crawldb", "SELECT 1")
    assert table.code == 2 and f"give its crawl directory ({crawl})" in table.err.replace("\n", "")
    segment = cli("sql", "-d", crawl / "segments" / SEGMENTS[0], "SELECT 1")
    assert segment.code == 2 and f"give its crawl directory ({crawl})" in segment.err.replace("\n", "")
    neither = cli("sql", "-d", crawl)
    assert neither.code == 2 and "give a query" in neither.err
    both = cli("sql", "-d", crawl, "SELECT 1", "--shell")
    assert both.code == 2 and "not both" in both.err
    no_extension = cli("sql", "-d", crawl, "SELECT * FROM 'https://example.org/x.parquet'")
    assert no_extension.code == 2  # no download attempted: the extension is not autoloaded
    statement = cli("sql", "-d", crawl, "CREATE TABLE t AS SELECT 1; DROP TABLE t")
    assert statement.code == 0 and statement.out == ""


def test_shell_from_a_pipe(cli, crawl: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = ".tables\nSELECT count(*) AS n\n  FROM crawldb;\n.format csv\nSELECT url FROM linkdb ORDER BY url;\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    result = cli("sql", "-d", crawl, "--shell")
    assert result.code == 0, result.err
    assert "crawl_fetch     2 source(s)" in result.out
    assert re.search(r"^n\n-\n8\n", result.out, re.M)
    assert result.out.endswith(f"url\n{A}/one\n{B}/x\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("SELEC 1;\n.schema parse_text\n.nope\n"))
    failed = cli("sql", "-d", crawl, "--shell")
    assert failed.code == 2  # from a pipe, a failed statement is the exit code
    assert failed.err.count("error:") == 2 and "unknown command '.nope'" in failed.err
    assert "segment" in failed.out and "VARCHAR" in failed.out  # .schema ran after the error


def test_a_crawl_on_s3_answers_as_the_same_crawl_on_a_local_path(cli, s3: S3Server, crawl: Path) -> None:
    d = [f"-D{x}" for x in s3.defines]
    uri = f"s3://{s3.bucket()}/crawl"
    root = Location.parse(uri, load_settings(overrides=s3.defines))
    build_crawl(root)
    for query, expected in zip(documented_queries(), EXPECTED, strict=True):
        assert csv_out(cli, "-d", uri, query, *d) == expected == csv_out(cli, "-d", crawl, query), query
    with open_crawl_views(root) as remote, open_crawl_views(crawl) as local:
        assert remote.views == local.views and not remote.skipped
        for view in VIEWS:
            query = f"SELECT * FROM {view} ORDER BY url{', segment' if view not in VIEWS[:2] else ''}"
            assert remote.con.execute(query).fetchall() == local.con.execute(query).fetchall(), view
    write_crawldb(root, [(f"{A}/new", CrawlStatus.DB_UNFETCHED, None)])  # CURRENT now names another version
    assert csv_out(cli, "-d", uri, "SELECT url FROM crawldb", *d) == f"url\n{A}/new\n"
    assert cli("sql", "-d", f"s3://{s3.bucket()}/none", "SELECT 1", *d).code == 2
