"""The plugin manifest: a child process takes the plugins its parent discovered, importing a module only when built."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from gossamer.plugins.manifest import ENV_MANIFEST, EntryPointFactory
from gossamer.plugins.registry import discover
from tests.conftest import install_fake_distribution

CHILD = """
import json, sys
from gossamer.core import load_settings
from gossamer.plugins.api import Parser, Signature, URLFilter
from gossamer.plugins.registry import PluginRepository
repo = PluginRepository(load_settings())
states = [[s.info.id, s.info.point, s.info.description, list(s.info.aliases), s.source, s.active]
          for s in repo.states()]
heavy_before = sorted(m for m in sys.modules if m.startswith(("gossamer.index", "gossamer.search")))
built = [type(repo.single(Signature)).__name__, type(repo.named(Parser, "parse-pdf")).__name__,
         len(repo.chain(URLFilter))]
print(json.dumps({"states": states, "errors": repo.load_errors, "heavy": heavy_before, "built": built,
                  "manifest": type(repo.states()[0].info.factory).__name__ == "EntryPointFactory"}))
"""

THIRD_PARTY = '''
from gossamer.plugins import PluginInfo, URLFilter


class Nothing(URLFilter):
    def filter(self, url):
        return url


PLUGIN = PluginInfo(id="urlfilter-nothing", point="URLFilter", factory=lambda settings: Nothing(), description="t")
'''


def child(env: dict[str, str]) -> dict:
    run = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def own_states() -> list[list]:
    plugins, _ = discover()
    return [[info.id, info.point, info.description, list(info.aliases), source] for info, source in plugins]


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != ENV_MANIFEST}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return {**env, **extra}


def test_a_child_takes_the_parents_plugins_and_imports_only_what_it_builds() -> None:
    discover()
    manifest = os.environ[ENV_MANIFEST]
    with_manifest, without = child(environment(**{ENV_MANIFEST: manifest})), child(environment())
    assert with_manifest["manifest"] and not without["manifest"]
    assert with_manifest["states"] == without["states"]
    assert sorted(s[:5] for s in with_manifest["states"]) == sorted(own_states())
    assert with_manifest["errors"] == without["errors"]
    assert with_manifest["built"] == without["built"] == ["MD5Signature", "PdfParser", 1]
    assert with_manifest["heavy"] == [] and without["heavy"] != []


def test_the_discovering_process_keeps_the_loaded_plugins() -> None:
    plugins, _ = discover()
    plugins_again, _ = discover()
    assert [type(info.factory) for info, _ in plugins_again] == [type(info.factory) for info, _ in plugins]
    assert not any(isinstance(info.factory, EntryPointFactory) for info, _ in plugins_again)


def test_a_manifest_of_other_entry_points_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    discover()
    manifest = os.environ[ENV_MANIFEST]
    site = install_fake_distribution(tmp_path / "site", "nothing-filter", "nothing_filter", THIRD_PARTY,
                                     {"urlfilter-nothing": "nothing_filter:PLUGIN"})
    env = environment(**{ENV_MANIFEST: manifest})
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    found = child(env)
    assert not found["manifest"] and "urlfilter-nothing" in [s[0] for s in found["states"]]
    for broken in ("not json", json.dumps({"pid": 1}), json.dumps([1, 2])):
        assert not child(environment(**{ENV_MANIFEST: broken}))["manifest"]


def test_an_entry_point_factory_pickles_without_importing_and_builds_the_plugin() -> None:
    factory = EntryPointFactory("gossamer.plugins", "gossamer.plugins.builtin.urlfilter_prefix:PLUGIN",
                                "urlfilter-prefix")
    assert pickle.loads(pickle.dumps(factory)) == factory
    assert factory.info().id == "urlfilter-prefix"
    with pytest.raises(LookupError, match="no plugin 'urlfilter-nope'"):
        EntryPointFactory("gossamer.plugins", factory.value, "urlfilter-nope").info()


def _loaded_after(statements: str, modules: tuple[str, ...]) -> str:
    """Which of ``modules`` a fresh interpreter has loaded after ``statements`` (printed as a sorted list)."""
    code = f"import sys; {statements}; print(sorted(m for m in {modules!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={k: v for k, v in os.environ.items() if k != ENV_MANIFEST})
    return out.stdout.strip()


def test_discovery_imports_neither_aiohttp_nor_the_search_broker() -> None:
    """Processes that never fetch or search (inject, generate, updatedb maps) do not pay for them."""
    assert _loaded_after("from gossamer.plugins.registry import discover; discover()",
                         ("aiohttp", "gossamer.search.broker", "gossamer.search.node_server")) == "[]"


def test_the_parse_worker_loads_neither_pyarrow_nor_the_engine() -> None:
    """The PDF worker's start-up: what it imports to build the parent's Parser plugins (~0.15 s, not 0.33)."""
    imports = ("from gossamer.core import die_with_parent, load_settings; "
               "from gossamer.plugins.api import Parser; from gossamer.plugins.registry import PluginRepository; "
               "import gossamer.plugins.support.parse_worker")
    assert _loaded_after(imports, ("pyarrow", "numpy", "gossamer.engine", "gossamer.store")) == "[]"


def test_a_second_discovery_of_the_same_entry_points_returns_the_same_plugins() -> None:
    first, errors = discover()
    again, errors_again = discover()
    assert again == first and errors_again == errors and again is not first
    assert all(a[0] is b[0] for a, b in zip(again, first, strict=True))
