"""``gossamer search``: one query, or a topics file in batch (TREC run output)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gossamer.cli.common import EXIT_NOTHING, EXIT_USAGE, fail, settings_for
from gossamer.cli.hints import is_crawl_dir
from gossamer.store import Place, as_place

if TYPE_CHECKING:
    from gossamer.core import Settings
    from gossamer.search import Broker, SearchResults

DIR_HELP = "crawl directory, or its URI (s3://bucket/crawl): its index is searched"
INDEX_HELP = "the index to search, a directory or URI (default: <crawl>/index)"
BATCH_PER_SITE = 0
"""Hits per site in batch mode (``--topics``) unless ``--per-site`` is given: no grouping, the plain
ranking that TREC-style evaluation expects; one query keeps ``searcher.max.hits.per.site``."""


def searched_index(crawl_dir: str, index: str | None) -> tuple[Path | None, Place, Settings]:
    """The local crawl directory, the index to search and the settings; exits 2 on a bad URI.

    The crawl directory is ``None`` when ``-d`` is a URI; the index is ``--index``, else
    ``<crawl>/index``; the settings are the local crawl directory's, else defaults, ``--conf`` and ``-D``.
    """
    from gossamer.store import CrawlLayout, is_uri

    try:
        local = None if is_uri(crawl_dir) else as_place(crawl_dir).local_path()
        settings = settings_for(local)
        if index is not None:
            return local, as_place(index, settings), settings
        if local is None:
            return None, as_place(crawl_dir, settings) / "index", settings
        return local, CrawlLayout(local).index, settings
    except ValueError as exc:
        fail(str(exc))


def search_command(
    words: Annotated[list[str] | None, typer.Argument(help="the query (see docs/search.md for the syntax); "
                                                      "several words are one query", show_default=False)] = None,
    crawl_dir: Annotated[str | None, typer.Option("-d", "--dir", help=DIR_HELP + " [default: crawl]",
                                                  show_default=False)] = None,
    index: Annotated[str | None, typer.Option("--index", help=INDEX_HELP)] = None,
    hits: Annotated[int, typer.Option("-n", "--hits", help="results per page (10)")] = 10,
    start: Annotated[int, typer.Option("--start", help="rank of the first result (0-based)")] = 0,
    per_site: Annotated[int | None, typer.Option("--per-site", help="max hits per site (0 = no grouping; default: "
                                                             "searcher.max.hits.per.site, with --topics 0)")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the answer as JSON")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="explain each hit's score")] = False,
    nodes: Annotated[str | None, typer.Option("--nodes", help="search nodes host:port,… instead of the local index")]
    = None,
    topics: Annotated[Path | None, typer.Option("--topics", help="batch: file of qid<TAB>query lines")] = None,
    run: Annotated[Path | None, typer.Option("--run", help="batch: TREC run file to write")] = None,
    tag: Annotated[str, typer.Option("--tag", help="batch: run tag (6th column)")] = "gossamer",
) -> None:
    """Search the crawl's index (or search nodes); the index may live on S3, HDFS … (-d or --index URI).

    Exit code 1 when nothing matches (or there is no index), 0 when something does.

    Examples:

      gossamer search -d crawl "os.path join"

      gossamer search -d crawl 'site:docs.python.org "list comprehension" -lambda' --json

      gossamer search -d crawl --topics queries.tsv --run run.txt -n 10

      gossamer search --index s3://bucket/crawl/index "os.path join"
    """
    from gossamer.search import QuerySyntaxError, SearchUnavailable, open_searcher
    from gossamer.store import TableError

    query = " ".join(words) if words else None
    if crawl_dir is None:
        if words and index is None and nodes is None and is_crawl_dir(Path(words[0])):
            rest = " ".join(words[1:]) or "<query>"
            fail(f"{words[0]} is a crawl directory: give it with -d, e.g. gossamer search -d {words[0]} {rest!r}")
        crawl_dir = "crawl"
    if hits < 1 or start < 0:
        fail("-n must be at least 1 and --start at least 0")
    if (topics is None) != (run is None):
        fail("--topics and --run go together")
    if topics is None and not query:
        fail("give a query, or --topics and --run")
    local, place, settings = searched_index(crawl_dir, index)
    try:
        searcher = open_searcher(local, settings, [n.strip() for n in nodes.split(",") if n.strip()]
                                 if nodes else None, index=place)
    except (TableError, OSError) as exc:
        fail(str(exc), EXIT_NOTHING)
    try:
        if topics is not None and run is not None:
            raise typer.Exit(_batch(searcher, topics, run, hits, BATCH_PER_SITE if per_site is None else per_site, tag))
        assert query is not None
        try:
            results = searcher.search(query, hits, start, per_site)
        except QuerySyntaxError as exc:
            fail(f"bad query: {exc}")
        except SearchUnavailable as exc:
            fail(f"search failed: {exc}", EXIT_NOTHING)
        if as_json:
            answer = results.to_json()
            if explain:
                for hit in answer["hits"]:
                    hit["explanation"] = searcher.explain(hit["url"], query)
            typer.echo(json.dumps(answer, ensure_ascii=False, indent=1))
        else:
            _print(results, searcher if explain else None)
    finally:
        searcher.close()
    if not results.hits:
        raise typer.Exit(EXIT_NOTHING)


def _print(results: SearchResults, explainer: Broker | None) -> None:
    """Human-readable results: terms in bold on a terminal, in [brackets] otherwise."""
    bold = sys.stdout.isatty()
    shown = f"{results.start + 1}-{results.start + len(results.hits)}" if results.hits else "0"
    typer.echo(f"Hits {shown} (of {results.total} matching) for {results.query!r} in {results.seconds:.3f} s")
    if results.partial:
        typer.echo("partial results: " + "; ".join(results.failures))
    for rank, hit in enumerate(results.hits, start=results.start + 1):
        typer.echo(f"\n{rank}. {hit.details.title or hit.url}")
        typer.echo(f"   {hit.url}  (score {hit.score:.4f})")
        parts = [f"\033[1m{t}\033[0m" if on and bold else f"[{t}]" if on else t
                 for t, on in hit.details.snippet.parts()]
        typer.echo("   " + "".join(parts).replace("\n", " "))
        if hit.more_from_site:
            typer.echo(f"   more from {hit.details.site}: site:{hit.details.site}")
        if explainer is not None:
            from gossamer.search import explained_factors

            detail = explainer.explain(hit.url, results.query)
            if detail:
                typer.echo(f"   = {detail['text_score']:.4f} text × {detail['static_factor']:.3f} static"
                           + "".join(f" × {value:.3f} {label}" for label, value in explained_factors(detail)))
                for leaf in detail["leaves"]:
                    typer.echo(f"     {leaf['value']:.4f} {leaf['field']}:{leaf['term']} (freq {leaf['freq']:g}, "
                               f"idf {leaf['idf']:.3f}, boost {leaf['boost']:g})")
                _print_semantic(detail.get("semantic"))


def _print_semantic(part: dict[str, Any] | None) -> None:
    """The semantic part of an explanation: ranks in both rankings, cosine, fused score and formula."""
    if not part:
        return
    similarity = part.get("similarity")
    cosine = f"{similarity:.4f}" if isinstance(similarity, float) else "-"
    typer.echo(f"   fused {part.get('score', 0.0):.5f} = {part['formula']}: text rank {part.get('text_rank', '-')}, "
               f"semantic rank {part.get('semantic_rank', '-')} (cosine {cosine})")


def _batch(searcher: Broker, topics: Path, run: Path, hits: int, per_site: int | None, tag: str) -> int:
    """Run every topic; write ``qid Q0 url rank score tag`` lines. Bad lines are reported and skipped."""
    from gossamer.search import QuerySyntaxError

    try:
        lines = topics.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        fail(f"cannot read {topics}: {exc}")
    done = bad = 0
    with open(run, "w", encoding="utf-8") as out:
        for number, line in enumerate(lines, start=1):
            if not line.strip() or line.startswith("#"):
                continue
            qid, sep, text = line.partition("\t")
            if not sep or not qid.strip() or not text.strip():
                typer.echo(f"{topics}:{number}: expected qid<TAB>query, skipped", err=True)
                bad += 1
                continue
            try:
                results = searcher.search(text.strip(), hits, 0, per_site)
            except QuerySyntaxError as exc:
                typer.echo(f"{topics}:{number}: bad query ({exc}), skipped", err=True)
                bad += 1
                continue
            for rank, hit in enumerate(results.hits, start=1):
                out.write(f"{qid.strip()} Q0 {hit.url} {rank} {hit.score:.6f} {tag}\n")
            done += 1
    typer.echo(f"{done} topics searched, {bad} skipped; run written to {run}")
    return EXIT_USAGE if done == 0 and bad else 0
