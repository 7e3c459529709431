"""scripts/build_selectolax.py: the training corpus, the once-only marker, the opt-out and the fallback.

The build itself (an sdist compiled twice) runs in ``scripts/_venv.sh`` on every fresh install, CI's included;
every parse-html test then runs on what it installed.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "build_selectolax.py"


@pytest.fixture(scope="module")
def script():  # noqa: ANN201 - the script's module
    spec = importlib.util.spec_from_file_location("build_selectolax", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_training_pages_are_deterministic_documentation_like_html(script) -> None:  # noqa: ANN001
    pages = script.training_pages(40)
    assert pages == script.training_pages(40) and len(pages) == 40
    assert pages != script.training_pages(40, seed=1)
    for page in pages:
        tree = LexborHTMLParser(page)
        links = tree.css("a")
        assert len(links) >= 20 and all(a.attributes.get("href") for a in links)
        assert tree.css_first("title") is not None and tree.body is not None
        assert "&amp;" not in tree.body.text()  # entities are character references, decoded by the parser
    joined = b"".join(pages)
    for markup in (b"<pre>", b"<table", b"<!--", b"&amp;", b"<script>", b"class=headerlink"):
        assert markup in joined


def _no_subprocess(*args: object, **kwargs: object) -> None:
    raise AssertionError(f"ran {args!r}")


def test_opt_out_and_marker_mean_nothing_runs(script, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                              tmp_path: Path) -> None:
    monkeypatch.setattr(script.subprocess, "run", _no_subprocess)
    monkeypatch.setattr(script.sys, "prefix", str(tmp_path))
    monkeypatch.setenv("GOSSAMER_SELECTOLAX_WHEEL", "1")
    assert script.main([]) == 0
    monkeypatch.delenv("GOSSAMER_SELECTOLAX_WHEEL")
    (tmp_path / f".selectolax-optimized-{script.version('selectolax')}").write_text("done\n")
    assert script.main([]) == 0


def test_a_failed_build_keeps_the_wheel_and_says_so(script, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                                     tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def failing_build(release: str, work: Path) -> Path:
        raise subprocess.CalledProcessError(1, ["pip", "download", f"selectolax=={release}"])

    monkeypatch.setattr(script, "build", failing_build)
    monkeypatch.setattr(script.subprocess, "run", _no_subprocess)  # nothing was installed: nothing to undo
    monkeypatch.setattr(script.sys, "prefix", str(tmp_path))
    monkeypatch.delenv("GOSSAMER_SELECTOLAX_WHEEL", raising=False)
    assert script.main([]) == 0
    marker = tmp_path / f".selectolax-optimized-{script.version('selectolax')}"
    assert "kept PyPI's wheel (CalledProcessError" in marker.read_text()
    assert "kept PyPI's wheel" in capsys.readouterr().err


def test_the_installed_selectolax_passes_the_scripts_own_check(script) -> None:  # noqa: ANN001
    subprocess.run([sys.executable, "-c", script._CHECK], check=True)
