"""The parse worker process: :func:`main` with the parent's pid as its argument.

The parent side is :mod:`gossamer.crawl.parse.sandbox`; the parent passes its import
path in ``PYTHONPATH``.  The worker reads from standard input a first frame
``(settings, plugins, entry_point_ids)``: the pickled Parser plugins of the parent's
registry (only their modules are imported, not every plugin's) and the ids of those
that could not be pickled (loaded from the entry points of those names; an empty
``plugins`` means: discover every entry point).  It lets its
address space grow by at most ``parser.memory.max`` MiB beyond what it has once the plugins
are loaded, answers ``("ready", None)``, then for
each frame ``(plugin_id, content)`` answers ``("ok", ParseResult)``, ``("error", reason)`` or
``("missing", reason)`` when it has no such plugin.  The frames go out on a copy of the original standard output; what
plugins print lands on standard error.  Ends at end of input and when the parent dies.
"""

from __future__ import annotations

import os
import pickle
import select
import time
from importlib.metadata import entry_points
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gossamer.plugins.registry import PluginInfo


def write_frame(stream: IO[bytes], value: Any) -> None:
    """Send one pickled value (length-prefixed) and flush."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(8, "big") + data)
    stream.flush()


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    parts: list[bytes] = []
    while size:
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise TimeoutError
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            raise TimeoutError
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def read_frame(fd: int, deadline: float | None = None) -> Any:
    """Read one value written by :func:`write_frame` from ``fd``.

    ``EOFError`` at the end of input, ``TimeoutError`` when ``deadline`` (monotonic) passes.
    """
    size = int.from_bytes(_read_exact(fd, 8, deadline), "big")
    return pickle.loads(_read_exact(fd, size, deadline))  # noqa: S301 - frames come from our own processes


def _address_space() -> int:
    """The virtual memory size of this process in bytes (0 where ``/proc`` does not tell)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _cap_memory(mebibytes: int) -> None:
    """Let the address space grow by at most ``mebibytes`` MiB from here on (``<= 0``: no cap)."""
    if mebibytes <= 0:
        return
    try:
        import resource
    except ImportError:  # not on this platform: no cap
        return
    limit = _address_space() + mebibytes * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _plugins(blob: bytes, names: list[str]) -> list[tuple[PluginInfo, str]] | None:
    if not blob:
        return None
    from gossamer.plugins.registry import ENTRY_POINT_GROUP, PluginInfo

    plugins: list[tuple[PluginInfo, str]] = pickle.loads(blob)  # noqa: S301 - from our parent
    if names:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name in names:
                try:
                    loaded = ep.load()
                except Exception:  # noqa: BLE001, S112 - reported by the parent's own discovery
                    continue
                items = loaded if isinstance(loaded, (list, tuple)) else [loaded]
                plugins.extend((item, "entry point") for item in items if isinstance(item, PluginInfo))
    return plugins


def main(argv: list[str]) -> int:
    """Serve parse requests until end of input (see the module docstring)."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    from gossamer.core import die_with_parent
    from gossamer.plugins.api import Parser
    from gossamer.plugins.registry import PluginRepository

    die_with_parent(int(argv[0]))
    settings, blob, by_entry_point = read_frame(0)
    repository = PluginRepository(settings, _plugins(blob, by_entry_point))
    for state in repository.states():  # import the parsers before the memory cap
        if state.info.point == "Parser" and state.active:
            try:
                repository.named(Parser, state.info.id)
            except LookupError:
                pass
    import hashlib  # noqa: F401 - loads OpenSSL before the cap, for parsers that hash

    _cap_memory(settings.get_int("parser.memory.max"))
    write_frame(out, ("ready", None))
    while True:
        try:
            plugin_id, content = read_frame(0)
        except EOFError:
            return 0
        try:
            parser = repository.named(Parser, plugin_id)
        except LookupError as exc:
            write_frame(out, ("missing", str(exc)))
            continue
        try:
            reply = ("ok", parser.parse(content))
        except MemoryError:
            reply = ("error", f"out of memory: more than {settings.get_int('parser.memory.max')} MiB "
                              "(parser.memory.max)")
        except RecursionError:
            reply = ("error", "too deeply nested (recursion limit)")
        except Exception as exc:  # noqa: BLE001 - any failure of a plugin is this document's failure
            reply = ("error", f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        write_frame(out, reply)


