"""Every setting is checked by type and range at start-up: a wrong value is one line and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from gossamer.core import all_properties
from gossamer.core.property import Property
from gossamer.core.property_checks import CHECKS

WRONG_TYPE = {"int": "twelve", "float": "fast", "bool": "maybe"}


def wrong_values(prop: Property) -> list[str]:
    """Values ``prop`` must refuse: one of the wrong type, and one outside its range or choices."""
    values = [WRONG_TYPE[prop.type]] if prop.type in WRONG_TYPE else []
    bad = getattr(prop.check, "bad_value", None)
    if bad is not None:
        values.append(str(int(bad)) if isinstance(bad, float) and bad.is_integer() else str(bad))
    elif prop.check is not None:  # the SSRF guard's address lists
        values.append("not-an-address")
    return values


CASES = [(p.name, value) for p in all_properties() for value in wrong_values(p)]


def test_every_checkable_property_has_a_wrong_value_and_every_check_names_a_property() -> None:
    names = {p.name for p in all_properties()}
    assert not set(CHECKS) - names
    assert len(CASES) > 250
    unchecked = [p.name for p in all_properties() if not wrong_values(p)]
    assert all(p.type in ("str", "list") for p in all_properties() if p.name in unchecked)


@pytest.mark.parametrize(("name", "value"), CASES)
def test_a_wrong_value_stops_the_command_with_one_line(cli, name: str, value: str) -> None:
    result = cli("showproperties", "-D", f"{name}={value}")
    assert result.code == 2, (name, value, result.out[-300:])
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and f"'{name}'" in lines[0] and "Traceback" not in result.err, result.err


def test_each_layer_is_checked_and_named(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "gossamer.toml").write_text('"fetcher.threads.fetch" = -5\n')
    from_file = cli("showproperties", "-d", tmp_path)
    assert from_file.code == 2 and "gossamer.toml" in from_file.err and "must be at least 1, got -5" in from_file.err
    monkeypatch.setenv("GOSSAMER_GENERATE_COUNT_MODE", "bogus")
    from_env = cli("showproperties")
    assert from_env.code == 2 and "environment" in from_env.err and "one of host, domain" in from_env.err


@pytest.mark.parametrize("define", ["store.parts=0", "store.parts=-3", "store.parts=100000", "http.timeout=-1",
                                    "fetcher.threads.fetch=-5", "generate.count.mode=bogus"])
def test_the_values_that_used_to_crash_or_be_coerced_stop_a_crawl_at_once(cli, tmp_path: Path, define: str) -> None:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n")
    result = cli("crawl", seeds, "-d", tmp_path / "crawl", "-r", "1", "-D", "http.agent.name=t", "-D", define)
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1, result.err
    assert not (tmp_path / "crawl").exists()  # nothing was started
