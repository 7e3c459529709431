"""Build of Gossamer's optional C extension (everything else is in pyproject.toml).

``gossamer.plugins.builtin._linkwalk`` is parse-html's link walk in C. It is optional: without a
compiler the install still succeeds and the parser uses its Python path (see ``linkwalk_native``).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gossamer.plugins.builtin._linkwalk",
            [f"src/gossamer/plugins/builtin/_linkwalk{part}.c" for part in ("", "_lexbor", "_text", "_opening", "_resolve")],
            depends=["src/gossamer/plugins/builtin/_linkwalk.h"],
            libraries=["dl"],
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"],
            optional=True,
        )
    ]
)
