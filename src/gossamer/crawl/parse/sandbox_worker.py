"""The parse worker process of :mod:`.sandbox`: ``python -m gossamer.crawl.parse.sandbox_worker PARENT_PID``.

Reads from standard input a first frame ``(sys.path, settings, plugins)`` — the
parent's import path, so plugins a test or an application put on it are found too, and
the parent's plugin list when it could be pickled (else the worker discovers the entry
points itself) — caps its
address space at ``parser.memory.max`` MiB, answers ``("ready", None)``, then for
each frame ``(plugin_id, content)`` answers ``("ok", ParseResult)``, ``("error", reason)`` or
``("missing", reason)`` when it has no such plugin.  The frames go out on a copy of the original standard output; what
plugins print lands on standard error.  Ends at end of input and when the parent dies.
"""

from __future__ import annotations

import os
import pickle
import sys


def _cap_memory(mebibytes: int) -> None:
    if mebibytes <= 0:
        return
    try:
        import resource
    except ImportError:  # not on this platform: no cap
        return
    limit = mebibytes * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def main(argv: list[str]) -> int:
    """Serve parse requests until end of input (see the module docstring)."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    from gossamer.crawl.parse.sandbox import read_frame, write_frame
    from gossamer.engine import die_with_parent

    die_with_parent(int(argv[0]))
    path, settings, plugins = read_frame(0)
    sys.path[:] = path
    from gossamer.plugins import Parser, PluginRepository

    repository = PluginRepository(settings, pickle.loads(plugins) if plugins else None)  # noqa: S301
    for state in repository.states():  # import the parsers before the memory cap
        if state.info.point == "Parser" and state.active:
            try:
                repository.named(Parser, state.info.id)
            except LookupError:
                pass
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
