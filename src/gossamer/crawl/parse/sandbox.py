"""Running a parser plugin in a child process that is killed when it takes too long.

A pure-Python parser that loops forever cannot be stopped by a thread, and one that
allocates without bound takes the whole job down with it.  So the parsers not listed in
``parser.inprocess`` run in a worker process (:mod:`.sandbox_worker`), one per
:class:`~gossamer.crawl.parse.page.PageParser`, started on first use with
``python -m gossamer.crawl.parse.sandbox_worker`` (a plain subprocess: the parse job's
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
import select
import subprocess
import sys
import time
from typing import IO, Any

from gossamer.core import Content, Settings
from gossamer.plugins import ParseResult, PluginInfo

START_SECONDS = 120.0
"""How long a worker may take to import the plugins and say it is ready."""


class ParseLimitError(Exception):
    """A parse stopped by the sandbox or failed in it; ``str()`` is the reason recorded with ``parse_failed``."""


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


class ParseSandbox:
    """One worker process running parser plugins by id (see the module docstring)."""

    def __init__(self, settings: Settings, plugins: list[tuple[PluginInfo, str]] | None = None) -> None:
        self.settings = settings
        try:
            self._plugins = pickle.dumps(plugins) if plugins is not None else b""
        except (pickle.PicklingError, AttributeError, TypeError):  # a factory defined in a function, say
            self._plugins = b""
        self.timeout = settings.get_int("parser.timeout")
        self._process: subprocess.Popen[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(  # noqa: S603 - our own module, with this interpreter
            [sys.executable, "-m", "gossamer.crawl.parse.sandbox_worker", str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        try:
            write_frame(process.stdin, (list(sys.path), self.settings, self._plugins))
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
