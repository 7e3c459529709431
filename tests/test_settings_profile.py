"""``settings.profile``: Gossamer's site-search defaults, or Nutch 1.x's values where they differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from gossamer.core.defaults import PROFILES, PROPERTIES
from gossamer.core.settings import SettingsError, load_settings

CHANGED = PROFILES["nutch"]


def test_gossamer_defaults_differ_from_nutch_only_where_the_profile_says() -> None:
    defaults = {p.name: p.default for p in PROPERTIES}
    assert CHANGED and all(defaults[name] != value for name, value in CHANGED.items())
    plain, nutch = load_settings(), load_settings(overrides=["settings.profile=nutch"])
    for name, value in CHANGED.items():
        assert plain.get(name) == defaults[name] and plain.origin(name) == "default"
        assert nutch.get(name) == value and nutch.origin(name) == "profile nutch"
    assert nutch.get("fetcher.server.delay") == plain.get("fetcher.server.delay")


def test_site_search_defaults() -> None:
    settings = load_settings()
    assert settings.get_bool("linkdb.ignore.internal.links") is False
    assert settings.get_int("db.max.outlinks.per.page") < 0 or settings.get_int("db.max.outlinks.per.page") > 100


def test_profile_from_the_crawl_config_and_explicit_values_win(tmp_path: Path) -> None:
    (tmp_path / "gossamer.toml").write_text('"settings.profile" = "nutch"\n"db.max.outlinks.per.page" = 7\n')
    settings = load_settings(tmp_path)
    assert settings.get_int("db.max.outlinks.per.page") == 7
    assert settings.get_bool("linkdb.ignore.internal.links") is True
    back = load_settings(tmp_path, overrides=["settings.profile=gossamer"])
    assert back.get_bool("linkdb.ignore.internal.links") is False


def test_unknown_profile_is_an_error() -> None:
    with pytest.raises(SettingsError, match="settings.profile"):
        load_settings(overrides=["settings.profile=solr"])
