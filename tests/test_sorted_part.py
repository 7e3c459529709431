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
