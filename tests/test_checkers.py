from pathlib import Path

import pytest

from .conftest import gossamer_subprocess, install_fake_distribution

SUFFIXERS = """
from gossamer.plugins import PluginInfo, URLFilter, URLNormalizer


class Suffix(URLNormalizer):
    def __init__(self, tag):
        self.tag = tag

    def normalize(self, url, scope):
        if "bad" in url:
            raise ValueError("bad URL")
        return url + self.tag


class NoGif(URLFilter):
    def filter(self, url):
        return None if url.endswith(".gif") else url


A = PluginInfo(id="urlnormalizer-a", point="URLNormalizer", factory=lambda s: Suffix("a"), description="a",
               aliases=("org.example.A",))
B = PluginInfo(id="urlnormalizer-b", point="URLNormalizer", factory=lambda s: Suffix("b"), description="b",
               aliases=("org.example.B",))
NOGIF = PluginInfo(id="urlfilter-nogif", point="URLFilter", factory=lambda s: NoGif(), description="no gif")
"""


@pytest.fixture
def suffixers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = install_fake_distribution(tmp_path / "site", "suffixers", "suffixers_plugin", SUFFIXERS, {
        "urlnormalizer-a": "suffixers_plugin:A", "urlnormalizer-b": "suffixers_plugin:B",
        "urlfilter-nogif": "suffixers_plugin:NOGIF"})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))
    return site


def run_checker(args: list[str], text: str) -> list[str]:
    result = gossamer_subprocess(*args, input=text)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_scope_chains_follow_nutch_rules(suffixers: Path) -> None:
    from gossamer.core.settings import load_settings
    from gossamer.plugins import PluginRepository, URLChain

    base = ["plugin.includes=urlnormalizer-(a|b)", "urlnormalizer.order=urlnormalizer-b urlnormalizer-a"]
    chain = URLChain(PluginRepository(load_settings(overrides=base)), "inject")
    assert chain.normalize("u") == "uba"
    scoped = base + ["urlnormalizer.scope.fetcher=org.example.A"]
    assert URLChain(PluginRepository(load_settings(overrides=scoped)), "fetcher").normalize("u") == "ua"
    assert URLChain(PluginRepository(load_settings(overrides=scoped)), "inject").normalize("u") == "uba"
    ordered = base + ["urlnormalizer.order.outlink=org.example.A org.example.B"]
    assert URLChain(PluginRepository(load_settings(overrides=ordered)), "outlink").normalize("u") == "uab"
    looped = base + ["urlnormalizer.loop.count=3"]
    assert URLChain(PluginRepository(load_settings(overrides=looped)), "inject").normalize("u") == "ubababa"


def test_normalizerchecker_in_a_pipe(suffixers: Path) -> None:
    lines = run_checker(["normalizerchecker", "-D", "plugin.includes=urlnormalizer-(a|b)",
                         "-D", "urlnormalizer.order=urlnormalizer-a urlnormalizer-b"],
                        "http://x/\nhttp://bad/\n\nhttp://y/\n")
    assert lines == ["http://x/ab", "error: bad URL", "", "http://y/ab"]
    only = run_checker(["normalizerchecker", "-normalizer", "org.example.B", "-scope", "fetcher"], "u\n")
    assert only == ["ub"]
    unknown = gossamer_subprocess("normalizerchecker", "-normalizer", "nope", input="u\n")
    assert unknown.returncode == 2 and "no URLNormalizer plugin named 'nope'" in unknown.stderr


def test_filterchecker_in_a_pipe_and_from_files(suffixers: Path, tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("http://x/a.gif\nhttp://x/a.html\n")
    lines = run_checker(["filterchecker", str(urls), "-D", "plugin.includes=urlfilter-nogif"], "")
    assert lines == ["-http://x/a.gif", "+http://x/a.html"]
    named = run_checker(["filterchecker", "-filterName", "urlfilter-nogif"], "http://x/a.gif\n")
    assert named == ["-http://x/a.gif"]
