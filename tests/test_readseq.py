"""``gossamer readseq`` on files Hadoop's own code wrote (tests/vectors/hadoop): lookups, parts, errors.

That it prints every vector's records as Hadoop reads them is in ``test_hadoop_interop.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import VECTORS

HADOOP = VECTORS / "hadoop"


def _records(out: str) -> list[list[object]]:
    return [[r["key"], r["value"]] for r in map(json.loads, out.splitlines())]


def test_readseq_reads_mapfiles_arrayfiles_and_directories_of_parts(cli, tmp_path: Path) -> None:
    facts = json.loads((HADOOP / "mapfile-text-text.json").read_text())
    whole = cli("readseq", HADOOP / "mapfile-text-text")
    assert _records(whole.out) == facts["data"]["records"]
    assert _records(cli("readseq", HADOOP / "mapfile-text-text", "-n", "3").out) == facts["data"]["records"][:3]
    for key, found, value in facts["lookups"]:
        got = cli("readseq", HADOOP / "mapfile-text-text", "-key", key)
        assert (got.code, _records(got.out)) == ((0, [[key, value]]) if found else (1, [])), key
    array = cli("readseq", HADOOP / "arrayfile-text", "-key", "7")
    assert _records(array.out)[0][0] == 7
    assert cli("readseq", HADOOP / "arrayfile-text", "-key", "seven").code == 2
    job = tmp_path / "job"  # a job's output: part directories, _SUCCESS beside them
    (job / "part-r-00000").mkdir(parents=True)
    for name in ("data", "index"):
        (job / "part-r-00000" / name).write_bytes((HADOOP / "mapfile-text-text" / name).read_bytes())
    (job / "part-r-00001").write_bytes((HADOOP / "text-long.seq").read_bytes())
    (job / "_SUCCESS").write_bytes(b"")
    both = _records(cli("readseq", job).out)
    assert both == facts["data"]["records"] + json.loads((HADOOP / "text-long.json").read_text())["records"]
    assert cli("readseq", job, "-key", "key-000500").out.count("café") == 1  # only MapFile parts are searched


def test_readseq_says_which_file_and_byte_it_cannot_read(cli, tmp_path: Path) -> None:
    data = (HADOOP / "text-long.seq").read_bytes()
    (tmp_path / "cut.seq").write_bytes(data[: len(data) - 7])
    cut = cli("readseq", tmp_path / "cut.seq")
    assert cut.code == 2 and "cut.seq: byte " in cut.err and "Traceback" not in cut.err
    assert len(cut.out.splitlines()) > 0  # the records before the damage were printed
    (tmp_path / "magic.seq").write_bytes(b"XYZ" + data[3:])
    magic = cli("readseq", tmp_path / "magic.seq")
    assert magic.code == 2 and "magic.seq: byte 0" in magic.err
    empty_dir = tmp_path / "nothing"
    empty_dir.mkdir()
    assert cli("readseq", empty_dir).code == 2
    assert cli("readseq", HADOOP / "text-long.seq", "-key", "n1").code == 2  # no index to look up in
