"""Where Gossamer keeps what it derives between runs, and that the tests keep it out of ``~/.cache``."""

from pathlib import Path

import pytest

from gossamer.core import cache_root
from tests.conftest import TEST_CACHE


def test_cache_root_follows_xdg_cache_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_root() == tmp_path / "gossamer"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_root() == Path.home() / ".cache" / "gossamer"


def test_the_suite_keeps_derived_files_out_of_the_home_cache() -> None:
    assert cache_root() == TEST_CACHE / "gossamer"
    assert not cache_root().is_relative_to(Path.home() / ".cache")
