"""keep_main_script_out_of_children: spawned children stop re-running the console script."""

from __future__ import annotations

import multiprocessing.spawn
import sys
import types
from pathlib import Path

import pytest

from gossamer.cli.main import main
from gossamer.engine import keep_main_script_out_of_children


def fake_main(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, spec: object = None) -> types.ModuleType:
    module = types.ModuleType("__main__")
    module.__file__ = str(tmp_path / "gossamer")
    module.__spec__ = spec  # type: ignore[assignment]
    module.main = main  # type: ignore[attr-defined]  # as the console script: from gossamer.cli.main import main
    monkeypatch.setitem(sys.modules, "__main__", module)
    return module


def test_a_script_main_is_not_imported_by_spawned_children(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_main(monkeypatch, tmp_path)
    assert "init_main_from_path" in multiprocessing.spawn.get_preparation_data("task")
    assert keep_main_script_out_of_children() is True
    data = multiprocessing.spawn.get_preparation_data("task")
    assert "init_main_from_path" not in data and "init_main_from_name" not in data
    assert keep_main_script_out_of_children() is False


def test_a_module_run_with_dash_m_is_left_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    module = fake_main(monkeypatch, tmp_path, types.SimpleNamespace(name="my_tool.run"))
    assert keep_main_script_out_of_children() is False and hasattr(module, "__file__")


def test_the_console_script_entry_detaches_its_script(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    module = fake_main(monkeypatch, tmp_path)
    assert main(["--version"]) == 0
    assert not hasattr(module, "__file__")
