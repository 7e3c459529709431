"""Tables on a non-local filesystem (issue 7): S3 through a real S3 server on loopback, and the
rename protocol of HDFS through pyarrow's local filesystem.  A crash at any step leaves the last
good version live; orphans are cleaned by recover; the S3 lock refuses a second writer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pyarrow.fs as pafs
import pytest

from gossamer.core.settings import load_settings
from gossamer.store import LockedError, TableError, TableLock, TableVersion, install, open_live, recover
from gossamer.store.install import discard, live_version_dir, new_staging_dir
from gossamer.store.install_remote import POINTER
from gossamer.store.location import Location

from .s3_server import S3Server, s3_server
from .test_store import write_version


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture
def table(s3: S3Server) -> Location:
    return Location.parse(f"s3://{s3.bucket()}/crawl/crawldb", load_settings(overrides=s3.defines))


def names(table: Location) -> list[str]:
    return [info.base_name for info in table.list()]


def test_versions_are_installed_by_pointer_and_read_back(table: Location) -> None:
    urls = [f"http://h{i % 5}.example/p/{i:04d}" for i in range(300)]
    first = write_version(table, urls[:100])  # type: ignore[arg-type]
    assert live_version_dir(table) is None and names(table) == [first.name]
    install(table, first)
    second = write_version(table, urls)  # type: ignore[arg-type]
    assert install(table, second) == second
    pointer = json.loads((table / POINTER).read_bytes())
    assert (pointer["current"], pointer["previous"]) == (second.name, first.name)
    with open_live(table) as version:
        assert version.num_rows() == 300
        assert version.lookup(urls[77]).column("url").to_pylist() == [urls[77]]
        assert sorted(u for b in version.iter_batches() for u in b.column("url").to_pylist()) == sorted(urls)
    third = write_version(table, urls[:10])  # type: ignore[arg-type]
    install(table, third, keep_backup=False)
    assert sorted(names(table)) == sorted([POINTER, third.name])  # both older versions deleted


def test_crash_before_the_pointer_leaves_the_old_version_live_and_recover_cleans(
        table: Location, monkeypatch: pytest.MonkeyPatch) -> None:
    install(table, write_version(table, ["http://a.example/1"]))  # type: ignore[arg-type]
    install(table, write_version(table, ["http://a.example/1", "http://a.example/2"]))  # type: ignore[arg-type]
    live = live_version_dir(table)
    real_write = Location.write_bytes

    def crash_on_pointer(self: Location, data: bytes) -> None:
        if self.name == POINTER:
            raise OSError("simulated crash before the pointer was written")
        real_write(self, data)

    monkeypatch.setattr(Location, "write_bytes", crash_on_pointer)
    orphan = write_version(table, [f"http://b{i}.example/" for i in range(50)])  # type: ignore[arg-type]
    with pytest.raises(OSError, match="simulated crash"):
        install(table, orphan)
    monkeypatch.undo()
    assert live_version_dir(table) == live  # the complete new version is not live: no pointer names it
    with open_live(table) as version:
        assert version.num_rows() == 2
    half = new_staging_dir(table)  # a writer that died before _SUCCESS
    (half / "part-00000.parquet").write_bytes(b"PAR1 torn")
    with pytest.raises(TableError, match="not a complete table"):
        TableVersion(half)
    with TableLock(table):
        actions = recover(table)
    assert sorted(actions) == sorted(f"removed unfinished version {v.name}" for v in (orphan, half))
    assert len([n for n in names(table) if n.startswith("v-")]) == 2  # current and its backup remain
    with TableLock(table):
        assert recover(table) == []


def test_readers_never_guess_a_version_without_the_pointer(table: Location) -> None:
    write_version(table, ["http://a.example/"])  # type: ignore[arg-type]
    with pytest.raises(TableError, match="no CURRENT pointer"):
        open_live(table)
    (table / POINTER).write_bytes(b"garbage")
    with pytest.raises(TableError, match="is not a table pointer"):
        open_live(table)


def test_failed_job_discards_its_version(table: Location) -> None:
    staging = write_version(table, ["http://a.example/"])  # type: ignore[arg-type]
    discard(staging)
    assert names(table) == []


HOLDER = """
import os, sys, time
from gossamer.store import TableLock
lock = TableLock(sys.argv[1], command="holder", conditional=sys.argv[2] == "1")
lock.acquire()
print("locked", flush=True)
time.sleep(60)
"""


def start_holder(table: Location, conditional: bool) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(table), "1" if conditional else "0"],
                            stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


@pytest.mark.parametrize("conditional", [True, False], ids=["conditional-put", "check-then-write"])
def test_lock_on_s3_refuses_a_second_writer_and_a_dead_local_holder_is_taken_over(
        table: Location, conditional: bool) -> None:
    holder = start_holder(table, conditional)
    try:
        with pytest.raises(LockedError, match=rf"pid {holder.pid} .*holder.*delete s3://.*/\.locked"):
            TableLock(table, conditional=conditional).acquire()
    finally:
        holder.kill()
        holder.wait()
    with TableLock(table, conditional=conditional) as lock:  # the holder died on this host: stale
        assert lock.stale is not None and lock.stale.pid == holder.pid
        assert lock._object is not None and lock._object.atomic is conditional
        with pytest.raises(LockedError, match=rf"pid {os.getpid()} "):
            TableLock(table, conditional=conditional).acquire()  # the live holder (us) is never taken over
    assert not (table / ".locked").exists()  # released: the lock object is gone
    with TableLock(table) as lock:
        assert lock.stale is None


def test_conditional_create_is_atomic_on_the_server(table: Location) -> None:
    from gossamer.store.s3_conditional import put_if_absent

    target = table / "only-once"
    assert put_if_absent(target, b"first") is True
    assert put_if_absent(target, b"second") is False
    assert target.read_bytes() == b"first"


def test_rename_protocol_as_on_hdfs(tmp_path: Path) -> None:
    """HDFS renames directories atomically: the local layout, through a pyarrow filesystem."""
    table = Location.on(pafs.LocalFileSystem(), str(tmp_path / "crawldb"), rename_atomic=True)
    install(table, write_version(table, ["http://a.example/1"]))  # type: ignore[arg-type]
    install(table, write_version(table, ["http://a.example/1", "http://a.example/2"]))  # type: ignore[arg-type]
    assert sorted(names(table)) == ["current", "old"]
    # a crash between "current -> old" and "staging -> current": old alone is live, recover restores it
    os.rename(tmp_path / "crawldb" / "current", tmp_path / "crawldb" / "tmp-crashed")
    assert live_version_dir(table) == table / "old"
    with TableLock(tmp_path / "crawldb"):
        actions = recover(table)
    assert any("restored" in a for a in actions) and any("tmp-crashed" in a for a in actions)
    with open_live(table) as version:
        assert version.num_rows() == 1


def test_the_lock_is_atomic_with_credentials_from_a_profile_file(table: Location, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys only in a shared credentials file (no AWS_* keys in the environment): still a conditional PUT."""
    from gossamer.store import s3_conditional
    from gossamer.store.s3_conditional import put_if_absent

    profile = tmp_path / "credentials"
    profile.write_text("[default]\naws_access_key_id = testing\naws_secret_access_key = testing\n")
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(profile))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    s3_conditional._client.cache_clear()
    try:
        target = table / "profile-lock"
        assert put_if_absent(target, b"first") is True
        assert put_if_absent(target, b"second") is False
    finally:
        s3_conditional._client.cache_clear()
