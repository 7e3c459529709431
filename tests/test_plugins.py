import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from gossamer.core import CrawlDatum, CrawlStatus
from gossamer.core.records import Content
from gossamer.core.settings import load_settings
from gossamer.plugins import (
    EXTENSION_POINTS,
    FetchSchedule,
    PluginRepository,
    ScoringFilter,
    Signature,
    URLChain,
    URLFilter,
    URLNormalizer,
)

from .conftest import install_fake_distribution, write_lines

THIRD_PARTY = '''
from gossamer.plugins import PluginInfo, PluginNotConfigured, URLFilter


class BlockWord(URLFilter):
    def __init__(self, word):
        self.word = word

    def filter(self, url):
        return None if self.word in url else url


def build(settings):
    return BlockWord("blocked")


def build_unconfigured(settings):
    raise PluginNotConfigured("no rules file")


PLUGIN = PluginInfo(id="urlfilter-blockword", point="URLFilter", factory=build,
                    description="rejects URLs containing 'blocked'")
BROKEN = PluginInfo(id="urlfilter-unconfigured", point="URLFilter", factory=build_unconfigured,
                    description="needs a file")
'''


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real installed distribution (dist-info on sys.path) publishing plugins by entry point."""
    site = install_fake_distribution(tmp_path / "site", "blockword-plugin", "blockword_plugin", THIRD_PARTY, {
        "urlfilter-blockword": "blockword_plugin:PLUGIN",
        "urlfilter-unconfigured": "blockword_plugin:BROKEN",
        "urlfilter-missing": "blockword_plugin_missing:PLUGIN",
    })
    monkeypatch.syspath_prepend(str(site))
    return site


def test_builtins_are_registered_through_entry_points() -> None:
    repo = PluginRepository(load_settings())
    states = {s.info.id: s for s in repo.states()}
    for plugin_id in ("urlnormalizer-pass", "scoring-opic", "fetchschedule-default", "signature-md5"):
        assert states[plugin_id].source == "gossamer"
        assert states[plugin_id].active, states[plugin_id].reason
    assert {s.info.point for s in states.values()} <= set(EXTENSION_POINTS)


def test_every_builtin_of_pyproject_is_installed() -> None:
    """The installed metadata lists every entry point of pyproject.toml (else: ``pip install -e .`` again)."""
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    declared = set(project["project"]["entry-points"]["gossamer.plugins"])
    installed = {ep.name for ep in entry_points(group="gossamer.plugins") if ep.dist and ep.dist.name == "gossamer"}
    assert declared <= installed, f"not installed: {sorted(declared - installed)}; reinstall with pip install -e ."


def test_plugin_includes_is_a_full_match_regex() -> None:
    repo = PluginRepository(load_settings(overrides=["plugin.includes=urlnormalizer-pas"]))
    assert repo.chain(URLNormalizer) == []
    repo = PluginRepository(load_settings(overrides=["plugin.includes=urlnormalizer-(pass|basic)"]))
    assert len(repo.chain(URLNormalizer)) == 2
    repo = PluginRepository(load_settings(overrides=["plugin.includes=.*", "plugin.excludes=scoring-.*"]))
    assert repo.chain(ScoringFilter) == []
    assert "plugin.excludes" in {s.info.id: s for s in repo.states()}["scoring-opic"].reason


def test_single_choice_points_follow_their_property() -> None:
    repo = PluginRepository(load_settings())
    assert type(repo.single(FetchSchedule)).__name__ == "DefaultFetchSchedule"
    assert type(repo.single(Signature)).__name__ == "MD5Signature"
    repo = PluginRepository(load_settings(overrides=["db.signature.class=signature-md5"]))
    assert type(repo.single(Signature)).__name__ == "MD5Signature"
    repo = PluginRepository(load_settings(overrides=["db.signature.class=org.example.Nope"]))
    with pytest.raises(LookupError, match="names no Signature plugin"):
        repo.single(Signature)


def test_third_party_plugin_discovery_order_and_not_configured(third_party: Path) -> None:
    settings = load_settings(overrides=["plugin.includes=urlfilter-(blockword|unconfigured|missing)|urlnormalizer-pass",
                                        "urlfilter.order=urlfilter-unconfigured urlfilter-blockword"])
    repo = PluginRepository(settings)
    assert any("urlfilter-missing" in e for e in repo.load_errors)
    chain = URLChain(repo, "inject")
    assert [type(f).__name__ for f in chain.filters] == ["BlockWord"]
    states = {s.info.id: s for s in repo.states()}
    assert states["urlfilter-blockword"].source == "blockword-plugin"
    assert not states["urlfilter-unconfigured"].active
    assert "no rules file" in states["urlfilter-unconfigured"].reason
    assert chain.filter("http://a.example/blocked") is None
    assert chain.filter("http://a.example/fine") == "http://a.example/fine"


def test_third_party_filter_runs_in_inject(cli, third_party: Path, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "s.txt", ["http://a.example/ok", "http://a.example/blocked"])
    result = cli("inject", tmp_path / "crawldb", seeds, "-D", "plugin.includes=urlfilter-blockword")
    assert "rejected by filters: 1" in result.out and "Total new urls injected: 1" in result.out
    skipped = cli("inject", tmp_path / "db2", seeds, "-D", "plugin.includes=urlfilter-blockword", "-noFilter")
    assert "Total new urls injected: 2" in skipped.out


def test_plugins_command_lists_every_plugin(cli, third_party: Path) -> None:
    result = cli("plugins", "-D", "plugin.includes=urlfilter-blockword")
    assert result.code == 0
    assert "urlfilter-blockword" in result.out and "scoring-opic" in result.out
    assert "not in plugin.includes" in result.out
    assert "urlfilter-missing" in result.err


class _Mine(URLFilter):
    def filter(self, url: str) -> str | None:
        return url


def test_interfaces_are_abstract() -> None:
    with pytest.raises(TypeError):
        URLFilter()  # type: ignore[abstract]
    assert _Mine().filter("x") == "x"


def test_default_schedule_and_opic_and_md5() -> None:
    repo = PluginRepository(load_settings())
    schedule = repo.single(FetchSchedule)
    datum = CrawlDatum()
    schedule.initialize_schedule("http://a/", datum, 1000)
    assert (datum.fetch_time, datum.fetch_interval, datum.retries) == (1000, 2592000, 0)
    schedule.set_fetch_schedule("http://a/", datum, 0, 0, 5000, 0, 1)
    assert datum.fetch_time == 5000 + 2592000 * 1000 and datum.modified_time == 5000
    schedule.set_page_retry_schedule("http://a/", datum, 0, 0, 5000)
    assert datum.fetch_time == 5000 + 86_400_000 and datum.retries == 1
    schedule.set_page_gone_schedule("http://a/", datum, 0, 0, 5000)
    assert datum.fetch_interval == 3888000
    datum.fetch_time = 10**15
    assert schedule.should_fetch("http://a/", datum, 10**6) and datum.fetch_time == 10**6
    datum.status = CrawlStatus.DB_FETCHED
    schedule.force_refetch("http://a/", datum, asap=False)
    assert datum.status == CrawlStatus.DB_UNFETCHED and datum.signature is None
    opic = repo.chain(ScoringFilter)[0]
    new = CrawlDatum(score=1.0)
    opic.update_db_score("http://a/", None, new, [CrawlDatum(score=0.5), CrawlDatum(score=0.25)])
    assert new.score == 1.75
    sig = repo.single(Signature)
    assert sig.calculate(Content("http://a/", "http://a/", b""), None) == __import__("hashlib").md5(
        b"http://a/").digest()
