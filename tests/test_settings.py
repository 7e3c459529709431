import warnings
from pathlib import Path

import pytest

from gossamer.core.defaults import NUTCH_ONLY, PROPERTIES
from gossamer.core.settings import SettingsError, UnknownPropertyError, load_settings


def test_every_default_has_its_type_and_description() -> None:
    names = [p.name for p in PROPERTIES]
    assert len(names) == len(set(names))
    assert not set(names) & NUTCH_ONLY
    settings = load_settings()
    for prop in PROPERTIES:
        assert prop.description
        settings.get(prop.name)  # parses, and ${…} references resolve


REFERENCE_DEFAULTS = {
    "http.agent.name": "", "http.robots.403.allow": True, "http.timeout": 10000,
    "http.content.limit": 1048576, "http.redirect.max": 0, "fetcher.server.delay": 5.0,
    "fetcher.server.min.delay": 0.0, "fetcher.max.crawl.delay": 30, "fetcher.threads.fetch": 10,
    "fetcher.threads.per.queue": 1, "fetcher.queue.mode": "byHost", "generate.max.count": -1,
    "generate.count.mode": "host", "crawl.gen.delay": 604800000, "db.fetch.interval.default": 2592000,
    "db.fetch.interval.max": 7776000, "db.fetch.retry.max": 3, "db.score.injected": 1.0,
    "db.max.outlinks.per.page": 100, "db.preserve.backup": True, "linkdb.max.anchor.length": 100,
    "parser.character.encoding.default": "windows-1252", "indexer.score.power": 0.5,
    "link.analyze.damping.factor": 0.85, "db.update.purge.404": False,
    "db.fetch.schedule.adaptive.inc_rate": 0.4, "db.fetch.schedule.adaptive.sync_delta_rate": 0.3,
    "linkdb.ignore.internal.links": True,
}
"""Nutch 1.x's defaults: Gossamer's own, except where ``settings.profile=nutch`` restores Nutch's."""


@pytest.mark.parametrize(("name", "value"), sorted(REFERENCE_DEFAULTS.items()))
def test_reference_defaults(name: str, value: object) -> None:
    assert load_settings(overrides=["settings.profile=nutch"]).get(name) == value


def test_variable_expansion_follows_the_referenced_property() -> None:
    settings = load_settings(overrides=["fetcher.server.delay=2.5"])
    assert settings.get("fetcher.min.crawl.delay") == 2.5


def test_layers_and_origins(tmp_path: Path) -> None:
    (tmp_path / "nutch-site.xml").write_text(
        "<?xml version='1.0'?><configuration>"
        "<property><name>http.agent.name</name><value>xml-agent</value></property>"
        "<property><name>fetcher.threads.fetch</name><value>20</value></property>"
        "<property><name>http.timeout</name><value>1000</value></property>"
        "<property><name>fetcher.server.delay</name><value>9</value></property>"
        "</configuration>")
    (tmp_path / "gossamer.toml").write_text(
        'fetcher.threads.fetch = 30\n"http.timeout" = 2000\n[db.fetch]\nretry.max = 7\n')
    env = {"GOSSAMER_HTTP_TIMEOUT": "3000", "GOSSAMER_FETCHER_SERVER_DELAY": "1.5"}
    settings = load_settings(tmp_path, env=env, overrides=["fetcher.server.delay=0.5"])
    assert settings.get("http.agent.name") == "xml-agent"
    assert settings.origin("http.agent.name") == str(tmp_path / "nutch-site.xml")
    assert settings.get("fetcher.threads.fetch") == 30
    assert settings.origin("fetcher.threads.fetch") == str(tmp_path / "gossamer.toml")
    assert settings.get("db.fetch.retry.max") == 7
    assert settings.get("http.timeout") == 3000
    assert settings.origin("http.timeout") == "environment"
    assert settings.get("fetcher.server.delay") == 0.5
    assert settings.origin("fetcher.server.delay") == "-D"
    assert settings.origin("db.score.injected") == "default"
    assert settings.conf_dir == tmp_path


def test_conf_in_crawl_conf_dir_and_explicit_conf(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "gossamer.toml").write_text('"http.agent.name" = "a"\n')
    assert load_settings(tmp_path).get("http.agent.name") == "a"
    other = tmp_path / "other.toml"
    other.write_text('"http.agent.name" = "b"\n')
    assert load_settings(tmp_path, conf=other).get("http.agent.name") == "b"
    assert load_settings(tmp_path, env={"GOSSAMER_CONF": str(other)}).get("http.agent.name") == "b"
    with pytest.raises(SettingsError, match="does not exist"):
        load_settings(tmp_path, conf=tmp_path / "missing")


@pytest.mark.parametrize(
    ("override", "suggestion"),
    [("http.agnt.name=x", "http.agent.name"), ("fetcher.server.dealy=1", "fetcher.server.delay"),
     ("db.fetch.intervall.default=1", "db.fetch.interval.default")],
)
def test_typo_names_the_closest_property(override: str, suggestion: str) -> None:
    with pytest.raises(UnknownPropertyError, match=f"did you mean '{suggestion}'"):
        load_settings(overrides=[override])


def test_typo_in_file_and_environment(tmp_path: Path) -> None:
    (tmp_path / "gossamer.toml").write_text('"http.timout" = 5\n')
    with pytest.raises(UnknownPropertyError, match="http.timeout"):
        load_settings(tmp_path)
    with pytest.raises(UnknownPropertyError, match="GOSSAMER_HTTP_TIMEOUT"):
        load_settings(env={"GOSSAMER_HTTP_TIMOUT": "5"})


def test_bad_values_name_property_and_source(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"-D: property 'http.timeout' expects int"):
        load_settings(overrides=["http.timeout=soon"])
    with pytest.raises(SettingsError, match="expects bool"):
        load_settings(overrides=["db.preserve.backup=maybe"])
    with pytest.raises(SettingsError, match="name=value"):
        load_settings(overrides=["novalue"])
    (tmp_path / "nutch-site.xml").write_text("<configuration><property>")
    with pytest.raises(SettingsError, match="cannot read"):
        load_settings(tmp_path)


def test_nutch_only_property_is_accepted_with_a_warning() -> None:
    name = sorted(NUTCH_ONLY)[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_settings(overrides=[f"{name}=x"])
    assert any(name in str(w.message) for w in caught)


def test_showproperties_command(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOSSAMER_HTTP_FILTER_IPADDRESS_INCLUDE")  # the tests' loopback permission
    (tmp_path / "gossamer.toml").write_text('"http.agent.name" = "tester"\n')
    result = cli("showproperties", "-d", tmp_path, "-D", "http.timeout=42", "--changed")
    assert result.code == 0
    lines = result.out.splitlines()
    assert f"http.agent.name\ttester\t[{tmp_path / 'gossamer.toml'}]" in lines
    assert "http.timeout\t42\t[-D]" in lines
    assert len(lines) == 2
    full = cli("showproperties")
    assert "fetcher.server.delay\t5.0\t[default]" in full.out.splitlines()
    bad = cli("showproperties", "-Dhttp.agnt.name=x")
    assert bad.code == 2 and "did you mean 'http.agent.name'" in bad.err


def test_settings_reference_in_docs_is_current(cli) -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "settings.md").read_text()
    table = cli("showproperties", "--markdown").out
    assert table in doc, "docs/settings.md is stale: regenerate with gossamer showproperties --markdown"


def test_unrelated_environment_variable_is_only_a_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_settings(env={"GOSSAMER_HOME": "/opt/gossamer"})
    assert any("GOSSAMER_HOME" in str(w.message) for w in caught)


def test_the_programs_own_switches_are_no_settings_and_no_warnings() -> None:
    from gossamer.core.process_start import START_METHOD_ENV
    from gossamer.core.settings import ENV_SWITCHES
    from gossamer.crawl.parse import outlink_keep
    from gossamer.plugins.builtin import langid_native, linkwalk_native

    assert {START_METHOD_ENV, outlink_keep.ENV_VAR, langid_native.ENV_VAR, linkwalk_native.ENV_VAR} <= ENV_SWITCHES
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        settings = load_settings(env=dict.fromkeys(ENV_SWITCHES - {"GOSSAMER_CONF"}, "python"))
    assert not caught
    assert settings.get_str("http.agent.name") == load_settings().get_str("http.agent.name")


def test_bad_references_fail_at_load_time() -> None:
    with pytest.raises(SettingsError, match="nope.prop"):
        load_settings(overrides=["fetcher.min.crawl.delay=${nope.prop}"])
    with pytest.raises(SettingsError, match="fetcher.server.delay.*expects float"):
        load_settings(overrides=["fetcher.server.delay=${http.agent.name}", "http.agent.name=abc"])


def test_property_families_accept_any_scope() -> None:
    settings = load_settings(overrides=["urlnormalizer.scope.fetcher=urlnormalizer-pass",
                                        "urlnormalizer.regex.file.outlink=my-rules.xml"])
    assert settings.get("urlnormalizer.scope.fetcher") == "urlnormalizer-pass"
    assert settings.get("urlnormalizer.scope.inject") == ""
    assert settings.origin("urlnormalizer.regex.file.outlink") == "-D"
    names = [p.name for p, _, _ in settings.effective()]
    assert "urlnormalizer.scope.fetcher" in names
    with pytest.raises(UnknownPropertyError):
        load_settings(overrides=["urlnormalizer.scope=x"])
