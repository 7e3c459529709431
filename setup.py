"""Build of Gossamer's optional C extensions (everything else is in pyproject.toml).

``gossamer.plugins.builtin._linkwalk`` is parse-html's link walk in C, ``gossamer.plugins.builtin._langid``
language-identifier's automaton walk, ``gossamer.crawl.parse._outlinks`` the outlink filter's per-link loop,
``gossamer.store._hosts`` the host column of URLs, ``gossamer.index._ascii_json`` the index job's staged documents
with every character beyond ASCII escaped.
All are optional: without a compiler the install still succeeds and
the Python / NumPy paths run (see ``linkwalk_native`` and ``langid_native``).
"""

from setuptools import Extension, setup

_COMPILE_ARGS = ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"]

setup(
    ext_modules=[
        Extension(
            "gossamer.plugins.builtin._linkwalk",
            [f"src/gossamer/plugins/builtin/_linkwalk{part}.c"
             for part in ("", "_lexbor", "_text", "_opening", "_resolve", "_depth")],
            depends=["src/gossamer/plugins/builtin/_linkwalk.h"],
            libraries=["dl"],
            extra_compile_args=_COMPILE_ARGS,
            optional=True,
        ),
        Extension(
            "gossamer.crawl.parse._outlinks",
            ["src/gossamer/crawl/parse/_outlinks.c"],
            extra_compile_args=_COMPILE_ARGS,
            optional=True,
        ),
        Extension(
            "gossamer.store._hosts",
            ["src/gossamer/store/_hosts.c"],
            extra_compile_args=_COMPILE_ARGS,
            optional=True,
        ),
        Extension(
            "gossamer.index._ascii_json",
            ["src/gossamer/index/_ascii_json.c"],
            extra_compile_args=_COMPILE_ARGS,
            optional=True,
        ),
        Extension(
            "gossamer.plugins.builtin._langid",
            ["src/gossamer/plugins/builtin/_langid.c"],
            extra_compile_args=_COMPILE_ARGS,
            optional=True,
        ),
    ]
)
