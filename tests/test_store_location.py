"""Locations: plain paths, file:// and filesystem URIs parse, join, print back and operate (issue 7)."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from gossamer.core.settings import load_settings
from gossamer.store.location import Location, as_place

from .s3_server import S3Server, s3_server


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def test_plain_paths_and_file_uris_are_local(tmp_path: Path) -> None:
    assert as_place(str(tmp_path / "db")) == tmp_path / "db"
    assert as_place(f"file://{tmp_path}/db") == tmp_path / "db"
    assert as_place(tmp_path.as_uri() + "/db") == tmp_path / "db"
    assert Location.parse("crawl/crawldb").atomic_rename
    with pytest.raises(ValueError, match="names no host"):
        Location.parse("file://elsewhere/x")
    with pytest.raises(ValueError, match="unsupported filesystem"):
        Location.parse("ftp://host/x")


def test_s3_uri_options_come_from_query_then_settings_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "https://env.example:9000")
    assert Location.parse("s3://b/k").options == (("endpoint_override", "env.example:9000"), ("scheme", "https"))
    settings = load_settings(overrides=["fs.s3.endpoint=http://127.0.0.1:9", "fs.s3.region=eu-west-1"])
    loc = Location.parse("s3://bucket/crawl/crawldb/", settings)
    assert (loc.scheme, loc.path, loc.atomic_rename) == ("s3", "bucket/crawl/crawldb", False)
    assert dict(loc.options) == {"endpoint_override": "127.0.0.1:9", "region": "eu-west-1", "scheme": "http"}
    again = Location.parse(str(loc))  # the string carries the options: no settings needed to rebuild it
    assert again == loc and pickle.loads(pickle.dumps(loc)) == loc
    assert (loc / "current").display() == "s3://bucket/crawl/crawldb/current"
    assert loc.parent.name == "crawl"
    hdfs = Location.parse("hdfs://namenode:8020/user/crawl/crawldb")
    assert (hdfs.authority, hdfs.path, hdfs.atomic_rename) == ("namenode:8020", "/user/crawl/crawldb", True)
    assert str(hdfs) == "hdfs://namenode:8020/user/crawl/crawldb"


def test_operations_on_a_real_s3_server(s3: S3Server) -> None:
    bucket = s3.bucket()
    root = Location.parse(f"s3://{bucket}/t", load_settings(overrides=s3.defines))
    assert not root.exists()
    (root / "a" / "x.bin").write_bytes(b"12345")
    (root / "b.txt").write_bytes(b"hi")
    assert root.is_dir() and (root / "a").is_dir() and (root / "b.txt").is_file()
    assert [i.base_name for i in root.list()] == ["a", "b.txt"]
    with (root / "a" / "x.bin").open_input() as handle:
        handle.seek(2)
        assert handle.read() == b"345"
    assert (root / "b.txt").read_bytes() == b"hi"
    with pytest.raises(ValueError, match="not atomic"):
        (root / "a").rename(root / "c")
    (root / "a").delete_dir()
    (root / "gone").delete_dir()
    (root / "gone.txt").delete_file()
    assert [i.base_name for i in root.list()] == ["b.txt"]
