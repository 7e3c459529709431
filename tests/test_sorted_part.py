import random

import pyarrow as pa
import pyarrow.parquet as pq

from gossamer.engine.sorted_part import SortedPartWriter

SCHEMA = pa.schema([pa.field("url", pa.string(), nullable=False), pa.field("n", pa.int64())])


def _batch(urls, start):
    return pa.RecordBatch.from_arrays([pa.array(urls), pa.array(range(start, start + len(urls)))], schema=SCHEMA)


def test_sorted_in_memory_and_spilled(tmp_path):
    rng = random.Random(7)
    urls = [f"http://h{rng.randrange(50)}.test/{rng.randrange(10**6)}" for _ in range(30_000)]
    for budget in (64 << 20, 1):  # one run in memory; many spilled runs
        path = tmp_path / f"part-{budget}.parquet"
        writer = SortedPartWriter(path, SCHEMA, memory_bytes=budget, row_group_rows=1000)
        for i in range(0, len(urls), 700):
            writer.add(_batch(urls[i:i + 700], i))
        assert writer.close() == len(urls)
        table = pq.read_table(path)
        assert table.column("url").to_pylist() == sorted(urls)
        assert not path.with_name(path.name + ".runs").exists()
        # equal keys keep arrival order
        pairs = list(zip(table.column("url").to_pylist(), table.column("n").to_pylist(), strict=True))
        assert all(a[1] < b[1] for a, b in zip(pairs, pairs[1:], strict=False) if a[0] == b[0])


def test_empty_part(tmp_path):
    path = tmp_path / "part-00000.parquet"
    assert SortedPartWriter(path, SCHEMA).close() == 0
    assert pq.read_table(path).num_rows == 0


def test_wide_rows_get_small_row_groups_and_the_merge_stays_correct(tmp_path) -> None:  # noqa: ANN001
    """100 KB rows: row groups near 32 MB (not 10,000 rows), spilled runs merged in key order."""
    import pyarrow.parquet as pq

    schema = pa.schema([pa.field("url", pa.string()), pa.field("text", pa.string())])
    writer = SortedPartWriter(tmp_path / "part-00000.parquet", schema, memory_bytes=4 << 20, row_group_rows=10_000)
    keys = [f"http://h/{(i * 7919) % 1000:04d}" for i in range(1000)]
    for start in range(0, 1000, 50):
        chunk = keys[start:start + 50]
        writer.add(pa.table({"url": chunk, "text": ["x" * 100_000] * len(chunk)}, schema=schema))
    assert writer.close() == 1000
    meta = pq.ParquetFile(tmp_path / "part-00000.parquet").metadata
    assert meta.num_row_groups > 1 and max(meta.row_group(g).num_rows for g in range(meta.num_row_groups)) <= 400
    urls = pq.read_table(tmp_path / "part-00000.parquet", columns=["url"]).column("url").to_pylist()
    assert urls == sorted(keys)
