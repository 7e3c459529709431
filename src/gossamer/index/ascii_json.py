"""Documents' JSON with every character beyond ASCII escaped, for the index job's own staging (issue 22).

The ``index`` command's driver hands each staged document to tantivy-py as a ``str``.  From ASCII
bytes that ``str`` is a copy, and tantivy-py reads its UTF-8 in place; a document with any other
character (89 % of the doc web's: a dash, a quote, a copyright sign) was decoded to 2 or 4 bytes per
character and encoded back to UTF-8 for tantivy-py, ~5–9 µs a document on the driver's thread.
:func:`ascii_json` writes those characters as ``\\uXXXX`` escapes instead (RFC 8259: the same values),
one pass in C in the reduce task.

Contract: ``ascii_json(data)`` is JSON text equal in value to ``data`` (UTF-8 JSON, as orjson writes
it); ASCII when the optional C extension ``_ascii_json`` is built (``data`` itself when ASCII already),
else ``data`` unchanged.  ValueError for bytes that are not UTF-8.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache


@cache
def _native() -> Callable[[bytes], bytes] | None:
    try:
        return importlib.import_module("gossamer.index._ascii_json").ascii_json
    except ImportError:
        return None


def escapes_natively() -> bool:
    """Whether :func:`ascii_json` escapes (the C extension is built) or passes the text through."""
    return _native() is not None


def ascii_json(data: bytes) -> bytes:
    """``data`` with its characters beyond ASCII as ``\\u`` escapes (see the module docstring)."""
    native = _native()
    return data if native is None else native(data)


__all__ = ["ascii_json", "escapes_natively"]
