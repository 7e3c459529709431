"""Running a parser plugin in a child process that is killed when it takes too long.

A pure-Python parser that loops forever cannot be stopped by a thread, and one that
allocates without bound takes the whole job down with it.  So the parsers not listed in
``parser.inprocess`` run in a worker process (:mod:`gossamer.plugins.support.parse_worker`), one per
:class:`~gossamer.crawl.parse.page.PageParser`, started on first use with
``python -c`` calling :func:`gossamer.plugins.support.parse_worker.main` (a plain subprocess: the parse job's
task processes are daemons and may not use multiprocessing children).

Contract of :meth:`ParseSandbox.parse`: it returns the plugin's ParseResult, or raises
:class:`ParseLimitError` with a one-line reason: ``timeout`` after ``parser.timeout``
seconds (the worker is killed; the next document starts a new one), ``out of memory``
when the worker hits ``parser.memory.max`` MiB of address space, ``parser process
died`` when it crashed, or the plugin's own error (``ValueError: …``); ``LookupError`` when the worker does not
have the plugin (one given to the parent's registry only, with a factory that cannot be
pickled): the caller then runs it in its own process.  The worker's
start-up is not counted in the timeout.  Frames on the pipes are an 8-byte big-endian
length and a pickle; the worker ends on end of input and dies with its parent.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

from gossamer.core import Content, Settings
from gossamer.plugins import ParseResult, PluginInfo
from gossamer.plugins.support import read_frame, write_frame

_BOOT = "import sys; from gossamer.plugins.support.parse_worker import main; sys.exit(main(sys.argv[1:]))"
START_SECONDS = 120.0
"""How long a worker may take to import the plugins and say it is ready."""


class ParseLimitError(Exception):
    """A parse stopped by the sandbox or failed in it; ``str()`` is the reason recorded with ``parse_failed``."""


class ParseSandbox:
    """One worker process running parser plugins by id (see the module docstring)."""

    def __init__(self, settings: Settings, plugins: list[tuple[PluginInfo, str]] | None = None) -> None:
        """``plugins``: the Parser plugins the worker may run (``None``: it discovers every entry point)."""
        self.settings = settings
        portable: list[tuple[PluginInfo, str]] = []
        self._by_entry_point: list[str] = []
        for info, source in plugins or ():
            try:
                pickle.dumps(info)
                portable.append((info, source))
            except (pickle.PicklingError, AttributeError, TypeError):  # a lambda factory, say
                self._by_entry_point.append(info.id)
        self._plugins = pickle.dumps(portable) if plugins is not None else b""
        self.timeout = settings.get_int("parser.timeout")
        self._process: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(  # noqa: S603 - our own module, with this interpreter
            [sys.executable, "-c", _BOOT, str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(path for path in sys.path if path)})
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        try:
            write_frame(process.stdin, (self.settings, self._plugins, self._by_entry_point))
            read_frame(process.stdout.fileno(), time.monotonic() + START_SECONDS)
        except (OSError, EOFError, TimeoutError) as exc:
            self.close()
            raise ParseLimitError(f"parser process did not start: {type(exc).__name__}") from None
        return process

    def parse(self, plugin_id: str, content: Content) -> ParseResult:
        """Parse ``content`` with the plugin ``plugin_id`` in the worker (see the module docstring)."""
        process = self._process if self._process is not None and self._process.poll() is None else self._start()
        assert process.stdin is not None and process.stdout is not None
        deadline = time.monotonic() + self.timeout if self.timeout > 0 else None
        try:
            write_frame(process.stdin, (plugin_id, content))
            kind, value = read_frame(process.stdout.fileno(), deadline)
        except TimeoutError:
            self.close()
            raise ParseLimitError(f"timeout: parsing took more than {self.timeout} s (parser.timeout)") from None
        except (OSError, EOFError):
            code = process.wait()
            self._process = None
            raise ParseLimitError(f"parser process died (exit status {code})") from None
        if kind == "ok":
            return value
        if kind == "missing":
            raise LookupError(value)
        raise ParseLimitError(value)

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker (killed: it may be busy); the next :meth:`parse` starts a new one."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
