"""Finding a plugin's configuration file (``regex-urlfilter.txt`` …) the way Nutch does.

Nutch looks a file name up on its classpath, i.e. in ``conf/``.  Gossamer looks,
in order, for:

1. the name itself when it is an absolute path, or relative and exists from the
   current directory (``-D urlfilter.regex.file=./my-rules.txt``);
2. ``<conf_dir>/<name>`` — the directory of the crawl's configuration
   (``--conf``, ``$GOSSAMER_CONF`` or the crawl directory, see
   :mod:`gossamer.core.settings`) — and ``<conf_dir>/conf/<name>``;
3. Gossamer's own default file of that name, shipped in ``gossamer/conf/``.

A plugin whose file is found nowhere raises
:class:`~gossamer.plugins.api.PluginNotConfigured` so it leaves its chain with a
reason that ``gossamer plugins`` shows.
"""

from __future__ import annotations

from pathlib import Path

from gossamer.core import Settings
from gossamer.plugins.api import PluginNotConfigured

PACKAGED_CONF = Path(__file__).resolve().parents[2] / "conf"


def find_conf_file(settings: Settings, name: str) -> Path | None:
    """The file a configuration name refers to, or ``None`` (see the module docstring)."""
    if not name:
        return None
    direct = Path(name).expanduser()
    if direct.is_absolute() or direct.is_file():
        return direct if direct.is_file() else None
    candidates = []
    if settings.conf_dir is not None:
        candidates += [settings.conf_dir / name, settings.conf_dir / "conf" / name]
    candidates.append(PACKAGED_CONF / name)
    return next((c for c in candidates if c.is_file()), None)


def require_conf_file(settings: Settings, prop: str) -> Path:
    """The file named by property ``prop``; :class:`PluginNotConfigured` when it does not exist."""
    name = settings.get_str(prop)
    found = find_conf_file(settings, name)
    if found is None:
        raise PluginNotConfigured(f"{prop}={name!r}: no such file (looked in the configuration directory "
                                  f"and Gossamer's defaults)")
    return found


def read_conf_text(settings: Settings, prop: str) -> tuple[str, Path]:
    """Text (UTF-8) and path of the file named by ``prop``."""
    path = require_conf_file(settings, prop)
    try:
        return path.read_text(encoding="utf-8"), path
    except (OSError, UnicodeDecodeError) as exc:
        raise PluginNotConfigured(f"{prop}: cannot read {path}: {exc}") from None
