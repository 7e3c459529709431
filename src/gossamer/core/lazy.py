"""Package attributes imported on first use (PEP 562), so importing one submodule stays cheap.

A plugin's entry point names a submodule (``gossamer.search.query_filter_basic``); importing it
runs the package's ``__init__`` first.  When that ``__init__`` imports the package's whole public
API (the search broker, node server, aiohttp …), every process that discovers plugins pays for
it.  :func:`lazy_attributes` gives such a package a module ``__getattr__`` that imports a name's
submodule only when the name is first read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: name → ``where[name]``, ``"submodule"`` or ``"submodule:attr"``.

    The value is looked up in ``package.submodule`` (under the same name, or ``attr``), stored
    in the package's namespace (later reads do not come back here) and returned; a name not in
    ``where`` raises :class:`AttributeError` as a plain module would.
    """

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module-level hook of PEP 562
        target = where.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        submodule, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(f"{package}.{submodule}"), attribute or name)
        setattr(importlib.import_module(package), name, value)
        return value

    return __getattr__
