"""Crawldb rows ↔ CrawlDatum: the round trip, and what the fetcher's queues rely on in batch_to_datums."""

from gossamer.core import CrawlDatum
from gossamer.store import batch_to_datums, datums_to_batch


def _fetch_list(rows: int) -> list[tuple[str, CrawlDatum]]:
    return [(f"http://h{i % 7}.example.test/p{i}",
             CrawlDatum(status=1, fetch_time=1_795_765_526_440, retries=i % 2, fetch_interval=2_592_000,
                        score=0.25 + i, signature=b"\x01" * 16 if i % 3 else None, modified_time=0,
                        metadata={"_ngt_": "1795765526440", "row": str(i)} if i % 4 else {}))
            for i in range(rows)]


def test_round_trip_keeps_every_value() -> None:
    rows = _fetch_list(50)
    assert batch_to_datums(datums_to_batch(rows)) == rows


def test_each_datum_owns_its_metadata_dict() -> None:
    datums = [datum for _, datum in batch_to_datums(datums_to_batch(_fetch_list(12)))]
    with_metadata = [d for d in datums if d.metadata]
    with_metadata[0].metadata["_pst_"] = "success(1)"
    with_metadata[0].metadata["_ngt_"] = "0"
    assert all(d.metadata.get("_ngt_") == "1795765526440" and "_pst_" not in d.metadata for d in with_metadata[1:])
    empty = [d for d in datums if not d.metadata]
    empty[0].metadata["x"] = "y"
    assert all(d.metadata == {} for d in empty[1:])


def test_repeated_values_are_one_object() -> None:
    """A fetch list repeats its generate time and interval in every row: the queued datums share them."""
    datums = [datum for _, datum in batch_to_datums(datums_to_batch(_fetch_list(20)))]
    assert len({id(d.fetch_time) for d in datums}) == 1
    assert len({id(d.fetch_interval) for d in datums}) == 1
    values = [d.metadata["_ngt_"] for d in datums if d.metadata]
    assert len({id(v) for v in values}) == 1
    keys = [k for d in datums for k in d.metadata if k == "_ngt_"]
    assert len({id(k) for k in keys}) == 1
