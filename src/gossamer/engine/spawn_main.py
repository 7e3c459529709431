"""Keeping a program's main script out of the engine's spawned processes.

The local engine starts its task processes with multiprocessing's *spawn* method, which
imports the parent's ``__main__`` module again in every child (as ``__mp_main__``) so that
functions defined there can be unpickled.  When the program is the ``gossamer`` console
script, that script only imports the CLI; importing it again loads every command's modules
(Typer, DuckDB, the search server …) in each fetch, parse or map process, about half a second
of CPU each, for nothing: the engine's task functions live in gossamer's own modules.
"""

from __future__ import annotations

import sys


def keep_main_script_out_of_children() -> bool:
    """Spawned children of this process will not run its main script; ``True`` when that changed anything.

    Acts only on a main module run from a file (``__spec__`` is ``None``: a script, not
    ``python -m``, whose module multiprocessing already leaves alone when it is a
    ``__main__`` of a package).  Afterwards a function defined in the main script can no
    longer be the target of a spawned process: call this only from a script that defines none
    (the console script, which only imports :func:`gossamer.cli.main.main`).
    """
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None or not hasattr(main, "__file__"):
        return False
    del main.__file__
    return True
