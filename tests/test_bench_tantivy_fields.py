"""bench/tantivy_fields: schema variants and one measured feed of staged actions (small, hermetic)."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import tantivy
from bench.fields_variant import parse_variant
from bench.tantivy_fields import feed, schema_of, summary

from gossamer.index.schema import fields_to_json
from gossamer.plugins import IndexField

FIELDS = (IndexField("id", "raw"), IndexField("url", "text"), IndexField("content", "text"),
          IndexField("boost", "float", fast=True), IndexField("tstamp", "date", fast=True),
          IndexField("name", "raw", stored=False), IndexField("meta", "json"))


def _work(tmp_path: Path) -> Path:
    docs = [orjson.dumps({"id": f"http://a.test/{i}", "url": f"http://a.test/{i}", "content": f"page {i} text",
                          "boost": 1.0, "tstamp": "2026-01-01T00:00:00+00:00", "name": [f"=p{i}"],
                          "meta": {"k": "v"}}).decode() for i in range(20)]
    urls = [f"http://a.test/{i}" for i in range(20)] + ["http://a.test/gone"]
    (tmp_path / "actions").mkdir()
    pq.write_table(pa.table({"url": urls, "action": pa.array([1] * 20 + [2], pa.uint8()), "doc": [*docs, None]}),
                   tmp_path / "actions" / "part-00000.parquet")
    (tmp_path / "fields.json").write_text(fields_to_json(FIELDS))
    return tmp_path


def test_parse_variant_items() -> None:
    v = parse_variant("keep:id+url,opt:url=freq,nostore:url,noindex:boost,threads:1,heap:64,nodel")
    assert v.keeps("id") and not v.keeps("content")
    assert (v.options, v.nostore, v.noindex, v.threads, v.heap_mb, v.no_deletes) == (
        {"url": "freq"}, {"url"}, {"boost"}, 1, 64, True)
    assert not parse_variant("drop:name").keeps("name") and parse_variant("full").keeps("name")
    with pytest.raises(ValueError):
        parse_variant("bogus:x")


def test_schema_of_follows_the_variant(tmp_path: Path) -> None:
    fields = json.loads(fields_to_json(FIELDS))
    tantivy.Index(schema_of(fields, parse_variant("opt:content=freq,nostore:url,noindex:boost")), path=str(tmp_path))
    written = {f["name"]: f["options"] for f in json.loads((tmp_path / "meta.json").read_text())["schema"]}
    assert set(written) == {f.name for f in FIELDS}
    assert written["content"]["indexing"]["record"] == "freq" and written["url"]["indexing"]["record"] == "position"
    assert not written["url"]["stored"] and written["content"]["stored"] and not written["name"]["stored"]
    assert not written["boost"]["indexed"] and written["tstamp"]["indexed"]


@pytest.mark.parametrize("spec", ["full", "keep:id+url+content", "drop:meta,threads:1"])
def test_feed_indexes_every_added_document(tmp_path: Path, spec: str) -> None:
    result = feed(_work(tmp_path), spec)
    assert result["variant"] == spec and result["bytes"] > 0 and result["cpu"] >= 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("index-")]  # the run's index is removed
    assert summary([result])[0].startswith(spec)
