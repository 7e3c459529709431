"""``gossamer normalizerchecker`` and ``gossamer filterchecker``: URL tools for pipes.

Both read URLs (one per line) from the given files or standard input and write
exactly one line per input line, flushing per line when standard input is a
terminal, so they work interactively and in long pipes alike.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, TextIO

import typer

from gossamer.cli.common import fail, settings_for


def _input_lines(files: list[Path] | None) -> Iterator[str]:
    if not files:  # decode as UTF-8 with U+FFFD for bad bytes, like files (and Nutch)
        stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        for line in stdin:
            yield line.rstrip("\r\n")
        return
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                yield line.rstrip("\r\n")


def _pipe(files: list[Path] | None, transform: Callable[[str], str], out: TextIO = sys.stdout) -> None:
    interactive = not files and sys.stdin.isatty()
    for line in _input_lines(files):
        out.write(transform(line) + "\n")
        if interactive:
            out.flush()
    out.flush()


def normalizerchecker_command(
    files: Annotated[list[Path] | None, typer.Argument(help="files of URLs (default: standard input)")] = None,
    normalizer: Annotated[str | None, typer.Option("-normalizer", "--normalizer",
                                                   help="only this normalizer (plugin id or Nutch class)")] = None,
    scope: Annotated[str, typer.Option("-scope", "--scope", help="normalizer scope")] = "default",
) -> None:
    """Normalize URLs read from standard input (or files): one output line per input line.

    Prints the normalized URL, or "error: reason" for a malformed one. Without
    -normalizer, the whole chain of the scope runs (urlnormalizer.scope.<scope>,
    urlnormalizer.order, urlnormalizer.loop.count).

    Examples:

      echo 'HTTP://Example.COM:80/a/../b.html#top' | gossamer normalizerchecker

      gossamer normalizerchecker urls.txt -normalizer urlnormalizer-regex -scope outlink
    """
    from gossamer.plugins import PluginRepository, URLChain, URLNormalizer

    repo = PluginRepository(settings_for(Path.cwd()))
    chain = URLChain(repo, scope, normalize=True, filter=False)
    if normalizer is not None:
        try:
            chain.normalizers = [repo.named(URLNormalizer, normalizer)]
        except LookupError as exc:
            fail(str(exc))

    def transform(url: str) -> str:
        if not url.strip():
            return ""
        try:
            return chain.normalize(url.strip())
        except ValueError as exc:
            return f"error: {exc}"

    _pipe(files, transform)


def filterchecker_command(
    files: Annotated[list[Path] | None, typer.Argument(help="files of URLs (default: standard input)")] = None,
    filter_name: Annotated[str | None, typer.Option("-filterName", "--filter-name",
                                                    help="only this filter (plugin id or Nutch class)")] = None,
    all_combined: Annotated[bool, typer.Option("-allCombined", "--all-combined",
                                               help="every active filter, in order (the default)")] = False,
) -> None:
    """Filter URLs read from standard input (or files): "+url" if accepted, "-url" if rejected.

    Examples:

      printf 'http://example.com/\\nhttp://example.com/a.gif\\n' | gossamer filterchecker

      gossamer filterchecker urls.txt -filterName urlfilter-regex -D urlfilter.regex.file=my-rules.txt
    """
    from gossamer.plugins import PluginRepository, URLChain, URLFilter

    if filter_name is not None and all_combined:
        fail("-filterName and -allCombined exclude each other")
    repo = PluginRepository(settings_for(Path.cwd()))
    chain = URLChain(repo, "default", normalize=False, filter=True)
    if filter_name is not None:
        try:
            chain.filters = [repo.named(URLFilter, filter_name)]
        except LookupError as exc:
            fail(str(exc))

    def transform(url: str) -> str:
        url = url.strip()
        return ("+" if url and chain.filter(url) is not None else "-") + url

    _pipe(files, transform)
