"""Layered settings: defaults < crawl config file < environment < ``-D name=value``.

* Defaults come from :mod:`gossamer.core.defaults` (Nutch names and defaults).
* The crawl's configuration is ``gossamer.toml`` and/or Nutch's ``nutch-site.xml``,
  looked up in an explicit configuration path (``--conf``/``GOSSAMER_CONF``: a file
  or a directory) or else in the crawl directory and its ``conf/`` folder.  When
  both files exist, ``nutch-site.xml`` is read first and ``gossamer.toml`` wins.
* Environment variables ``GOSSAMER_<NAME>``, where NAME is the property name
  upper-cased with ``.`` and ``-`` turned into ``_`` (``GOSSAMER_HTTP_AGENT_NAME``).
  A ``GOSSAMER_*`` variable close to a property name is a typo (an error); one
  that resembles no property is ignored with a warning.
* ``-D name=value`` on the command line, last one wins.

``settings.profile`` picks the bottom layer: ``gossamer`` (the default) is the defaults module as
it is; ``nutch`` replaces the few defaults where Gossamer departs from Nutch 1.x
(:data:`gossamer.core.defaults.PROFILES`) by Nutch's values.  Any layer above still wins, and
:meth:`Settings.origin` names the profile for a value it supplied.

A name that is no property raises :class:`UnknownPropertyError` naming the
closest real one.  Names that Nutch has but Gossamer does not use (Solr, Hadoop,
…) are accepted with a warning, so an existing ``nutch-site.xml`` loads as is.
Values are checked against the property's type when loaded, so a bad value is
reported with its source before any job starts.
"""

from __future__ import annotations

import difflib
import re
import tomllib
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gossamer.core.defaults import NUTCH_ONLY, PROFILE_PROPERTY, PROFILES, PROPERTIES, PROPERTY_PATTERNS
from gossamer.core.property import Property, Value, format_value

ENV_PREFIX = "GOSSAMER_"
ENV_CONF = "GOSSAMER_CONF"
"""Environment variable naming a configuration file or directory (not a property)."""
ENV_SWITCHES = frozenset({ENV_CONF, "GOSSAMER_START_METHOD", "GOSSAMER_LINKWALK", "GOSSAMER_OUTLINKS",
                          "GOSSAMER_LANGID"})
"""``GOSSAMER_*`` variables that are not properties: how the program runs (the configuration path, how engine
workers start, the pure-Python paths instead of the C extensions); read where they act, never as settings."""
CONFIG_FILE_NAMES = ("nutch-site.xml", "gossamer.toml")

_REGISTRY: dict[str, Property] = {p.name: p for p in PROPERTIES}
_ENV_NAMES: dict[str, str] = {
    ENV_PREFIX + re.sub(r"[.\-]", "_", name).upper(): name for name in _REGISTRY
}
_VAR = re.compile(r"\$\{([^}]+)\}")


class SettingsError(ValueError):
    """A configuration problem: unreadable file, bad value or unknown name."""


class UnknownPropertyError(SettingsError):
    """A property name that Gossamer does not know; the message suggests the closest one."""


class NutchOnlyPropertyWarning(UserWarning):
    """A Nutch property that Gossamer accepts but does not use."""


_PATTERNS: list[tuple[re.Pattern[str], Property]] = [
    (re.compile(re.escape(p.name).replace(re.escape("<scope>"), r"[A-Za-z0-9_\-]+")
                .replace(re.escape("<key>"), r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]*") + r"\Z"), p)
    for p in PROPERTY_PATTERNS
]


def property_definition(name: str) -> Property:
    """The definition of ``name``; raises :class:`UnknownPropertyError` with a suggestion.

    Names of a property family (``urlnormalizer.scope.<scope>``) get the family's definition.
    """
    found = _REGISTRY.get(name) or _family_member(name)
    if found is None:
        raise UnknownPropertyError(_unknown_message(name))
    return found


def _family_member(name: str) -> Property | None:
    for pattern, template in _PATTERNS:
        if pattern.match(name):
            return Property(name, template.default, template.type, template.description, template.nutch)
    return None


def all_properties() -> list[Property]:
    """Every property Gossamer knows, sorted by name."""
    return sorted(_REGISTRY.values(), key=lambda p: p.name)


def _unknown_message(name: str, where: str = "") -> str:
    close = difflib.get_close_matches(name, list(_REGISTRY) + sorted(NUTCH_ONLY), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown property {name!r}{where}{hint}"


@dataclass(frozen=True)
class Settings:
    """An immutable, picklable view of the effective settings.

    ``values`` holds only explicitly set properties (typed); ``origins`` says where
    each came from.  Unset properties fall back to their defaults on read.
    ``conf_dir`` is where plugin files (``regex-urlfilter.txt`` …) are looked up.
    """

    values: Mapping[str, Value] = field(default_factory=dict)
    origins: Mapping[str, str] = field(default_factory=dict)
    conf_dir: Path | None = None

    def get(self, name: str) -> Value:
        """Typed value of ``name`` with ``${other}`` references expanded."""
        prop = property_definition(name)
        return self._resolve(prop, 0)

    def _profile(self) -> Mapping[str, Value]:
        """The defaults that the chosen ``settings.profile`` replaces (empty for Gossamer's own)."""
        return PROFILES.get(str(self.values.get(PROFILE_PROPERTY, "")), {})

    def _resolve(self, prop: Property, depth: int) -> Value:
        raw = self.values.get(prop.name, self._profile().get(prop.name, prop.default))
        if isinstance(raw, str) and "${" in raw:
            if depth > 10:
                raise SettingsError(f"property {prop.name!r}: ${{…}} references nest too deeply")
            expanded = _VAR.sub(
                lambda m: format_value(self._resolve(property_definition(m.group(1)), depth + 1)), raw
            )
            return prop.parse(expanded)
        return raw

    def get_str(self, name: str) -> str:
        """``get`` for string properties."""
        return str(self.get(name))

    def get_int(self, name: str) -> int:
        """``get`` for integer properties."""
        value = self.get(name)
        assert isinstance(value, int) and not isinstance(value, bool), name
        return value

    def get_float(self, name: str) -> float:
        """``get`` for float properties."""
        value = self.get(name)
        assert isinstance(value, (int, float)) and not isinstance(value, bool), name
        return float(value)

    def get_bool(self, name: str) -> bool:
        """``get`` for boolean properties."""
        value = self.get(name)
        assert isinstance(value, bool), name
        return value

    def get_list(self, name: str) -> list[str]:
        """``get`` for list properties (a string property is split on commas)."""
        value = self.get(name)
        if isinstance(value, list):
            return list(value)
        return [item.strip() for item in str(value).split(",") if item.strip()]

    def origin(self, name: str) -> str:
        """Where the effective value of ``name`` came from (``default`` when unset)."""
        property_definition(name)
        if name not in self.origins and name in self._profile():
            return f"profile {self.values[PROFILE_PROPERTY]}"
        return self.origins.get(name, "default")

    def with_values(self, pairs: Iterable[tuple[str, object]], origin: str) -> Settings:
        """A copy with ``pairs`` applied on top, each checked and recorded as from ``origin``."""
        values = dict(self.values)
        origins = dict(self.origins)
        for name, raw in pairs:
            if name not in _REGISTRY and _family_member(name) is None:
                if name in NUTCH_ONLY:
                    warnings.warn(
                        f"{origin}: Nutch property {name!r} is not used by Gossamer; ignored",
                        NutchOnlyPropertyWarning,
                        stacklevel=2,
                    )
                    continue
                raise UnknownPropertyError(_unknown_message(name, f" in {origin}"))
            prop = property_definition(name)
            try:
                values[name] = str(raw) if _is_reference(raw) else prop.parse(raw)
            except ValueError as exc:
                raise SettingsError(f"{origin}: {exc}") from None
            origins[name] = origin
        return Settings(values, origins, self.conf_dir)

    def check_references(self) -> None:
        """Resolve every ``${name}`` value now, so a bad reference fails before any job starts."""
        for name in {*_REGISTRY, *self.values}:
            raw = self.values.get(name, self._profile().get(name, property_definition(name).default))
            if _is_reference(raw):
                try:
                    self.get(name)
                except ValueError as exc:
                    raise SettingsError(f"{self.origin(name)}: property {name!r} = {raw!r}: {exc}") from None

    def effective(self) -> Iterator[tuple[Property, Value, str]]:
        """Every property (and every set family member) with its effective value and origin, by name."""
        props = {p.name: p for p in all_properties()}
        props.update({name: property_definition(name) for name in self.values if name not in props})
        for name in sorted(props):
            yield props[name], self.get(name), self.origin(name)


def _is_reference(raw: object) -> bool:
    return isinstance(raw, str) and "${" in raw


def load_settings(
    crawl_dir: Path | None = None,
    *,
    conf: Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Iterable[str] = (),
) -> Settings:
    """Build the effective settings from every layer.

    ``conf`` (or ``$GOSSAMER_CONF``) names a config file or directory; otherwise
    ``crawl_dir`` and ``crawl_dir/conf`` are searched.  ``overrides`` are
    ``name=value`` strings from ``-D``.  Raises :class:`SettingsError` on any
    bad file, name or value.
    """
    environ = dict(env) if env is not None else {}
    if conf is None and environ.get(ENV_CONF):
        conf = Path(environ[ENV_CONF])
    files, conf_dir = _config_files(crawl_dir, conf)
    settings = Settings(conf_dir=conf_dir)
    for path in files:
        reader = _read_nutch_xml if path.suffix == ".xml" else _read_toml
        settings = settings.with_values(reader(path), str(path))
    settings = settings.with_values(_read_env(environ), "environment")
    settings = settings.with_values((parse_define(item) for item in overrides), "-D")
    settings.check_references()
    return settings


def parse_define(item: str) -> tuple[str, str]:
    """Split a ``-D name=value`` argument; raises :class:`SettingsError` without ``=``."""
    name, sep, value = item.partition("=")
    if not sep or not name.strip():
        raise SettingsError(f"-D expects name=value, got {item!r}")
    return name.strip(), value


def _config_files(crawl_dir: Path | None, conf: Path | None) -> tuple[list[Path], Path | None]:
    if conf is not None:
        if conf.is_file():
            return [conf], conf.parent
        if not conf.is_dir():
            raise SettingsError(f"configuration path {str(conf)!r} does not exist")
        places = [conf]
    elif crawl_dir is not None:
        places = [crawl_dir, crawl_dir / "conf"]
    else:
        return [], None
    found = [place / name for place in places for name in CONFIG_FILE_NAMES if (place / name).is_file()]
    conf_dir = found[-1].parent if found else places[0]
    return found, conf_dir


def _read_env(environ: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    for key in sorted(environ):
        if not key.startswith(ENV_PREFIX) or key in ENV_SWITCHES or key.startswith(ENV_PREFIX + "_"):
            continue
        if key not in _ENV_NAMES:
            close = difflib.get_close_matches(key, list(_ENV_NAMES), n=1, cutoff=0.8)
            if close:
                raise UnknownPropertyError(
                    f"environment variable {key!r} names no property; did you mean {close[0]!r} "
                    f"({_ENV_NAMES[close[0]]})?")
            warnings.warn(f"environment variable {key!r} names no property; ignored", UserWarning, stacklevel=2)
            continue
        yield _ENV_NAMES[key], environ[key]


def _read_toml(path: Path) -> list[tuple[str, object]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from None
    return list(_flatten(data, ""))


def _flatten(table: Mapping[str, object], prefix: str) -> Iterator[tuple[str, object]]:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _flatten(value, name + ".")
        else:
            yield name, value


def _read_nutch_xml(path: Path) -> list[tuple[str, object]]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from None
    pairs: list[tuple[str, object]] = []
    for prop in root.iter("property"):
        name = (prop.findtext("name") or "").strip()
        if not name:
            raise SettingsError(f"{path}: a <property> without <name>")
        pairs.append((name, (prop.findtext("value") or "").strip()))
    return pairs
