import json

import pytest

from gossamer.core import CrawlDatum, CrawlStatus, status_by_name, status_name
from gossamer.core.datum import java_date, java_float
from gossamer.core.status import all_status_names, has_db_status, has_fetch_status

from .conftest import VECTORS


def test_status_codes_match_nutch_vectors() -> None:
    codes = json.loads((VECTORS / "crawldb_states.json").read_text())["status_codes"]
    assert len(codes) == len(CrawlStatus)
    for name, code in codes.items():
        assert status_name(code) == name
        assert status_by_name(name) == code
        assert status_by_name(name.upper()) == code


def test_unknown_status() -> None:
    assert status_name(0x30) == "unknown"
    assert status_by_name("db_nonsense") == -1
    assert all_status_names()[0] == "db_unfetched"


@pytest.mark.parametrize(
    ("code", "db", "fetch"),
    [(0x01, True, False), (0x09, True, False), (0x21, False, True), (0x26, False, True),
     (0x45, False, True), (0x43, False, False), (0x41, False, False)],
)
def test_status_ranges(code: int, db: bool, fetch: bool) -> None:
    assert has_db_status(code) is db
    assert has_fetch_status(code) is fetch


def test_datum_text_layout() -> None:
    datum = CrawlDatum(status=CrawlStatus.DB_FETCHED, fetch_time=1_700_000_000_000, retries=1,
                       fetch_interval=2_592_000, score=0.1, signature=bytes.fromhex("00ff"),
                       modified_time=0, metadata={"k": "v"})
    text = datum.to_text()
    assert text.splitlines() == [
        "Version: 7", "Status: 2 (db_fetched)", "Fetch time: Tue Nov 14 22:13:20 UTC 2023",
        "Modified time: Thu Jan 01 00:00:00 UTC 1970", "Retries since fetch: 1",
        "Retry interval: 2592000 seconds (30 days)", "Score: 0.1", "Signature: 00ff", "Metadata: ", " \tk=v",
    ]


def testjava_float_rendering_of_float32_values() -> None:
    import struct

    def f32(x: float) -> float:
        return struct.unpack("<f", struct.pack("<f", x))[0]

    assert java_float(f32(0.1)) == "0.1"
    assert java_float(1.0) == "1.0"
    assert java_float(f32(1e7)) == "1.0E7"
    assert java_float(f32(0.0001)) == "1.0E-4"
    assert java_date(0) == "Thu Jan 01 00:00:00 UTC 1970"


def test_copy_is_independent() -> None:
    datum = CrawlDatum(metadata={"a": "1"})
    twin = datum.copy()
    twin.metadata["a"] = "2"
    assert datum.metadata == {"a": "1"}
    with pytest.raises(ValueError):
        CrawlDatum(signature=b"x" * 257)
