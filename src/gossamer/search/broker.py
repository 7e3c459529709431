"""The broker: one query over many backends, merged into one page of results.

:class:`Broker` runs the protocol of :mod:`gossamer.search.backend` against every
backend in parallel: statistics (summed), candidates (scored with the sums, so
every backend's scores compare), a merge that keeps at most ``per_site`` hits
per site, then details for the page's hits.  A backend that fails or does not
answer within ``searcher.node.timeout`` seconds is left out: the answer is then
marked ``partial`` and names the backend, and the query still succeeds when any
backend answered.

Per-site grouping across backends: each backend already keeps at most
``per_site`` per site of its own, but a site's best hits may come from several
backends, so the merge can drop some; when a backend whose list was full lost
hits that way and its last candidate could still reach the page, it is asked
again for more (at most :data:`MAX_ROUNDS` rounds).

With ``search.semantic=true`` the broker asks every backend for its best
``search.semantic.candidates`` text candidates (no per-site limit) and as many
nearest pages by embedding, fuses the two rankings
(:class:`~gossamer.search.semantic.Fusion`) and then keeps at most ``per_site``
hits per site of the fused ranking.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gossamer.core import Settings
from gossamer.search.backend import Candidate, HitDetails, SearchBackend, SearchPage, group_by_site, refill
from gossamer.search.scoring import Stats
from gossamer.search.semantic import Fusion

MAX_ROUNDS = 4
T = TypeVar("T")


@dataclass
class Hit:
    """One result: its details, global score and whether its site has more hits."""

    details: HitDetails
    score: float
    more_from_site: bool
    backend: int

    @property
    def url(self) -> str:
        """The page URL."""
        return self.details.url


@dataclass
class SearchResults:
    """One page of results."""

    query: str
    hits: list[Hit]
    total: int
    start: int
    seconds: float
    partial: bool = False
    failures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON answer of the API and of ``search --json``."""
        return {
            "query": self.query, "total": self.total, "start": self.start, "seconds": round(self.seconds, 6),
            "partial": self.partial, "failures": self.failures,
            "hits": [{"url": h.url, "title": h.details.title, "site": h.details.site, "score": h.score,
                      "more_from_site": h.more_from_site, "snippet": h.details.snippet.text,
                      "highlights": h.details.snippet.highlights, "fields": h.details.fields} for h in self.hits],
        }


class Broker:
    """Searches every backend and merges (see the module docstring)."""

    def __init__(self, backends: Sequence[SearchBackend], settings: Settings,
                 names: Sequence[str] | None = None) -> None:
        if not backends:
            raise ValueError("a broker needs at least one backend")
        self.backends = list(backends)
        self.names = list(names) if names is not None else [f"backend {i}" for i in range(len(backends))]
        self.per_site_default = settings.get_int("searcher.max.hits.per.site")
        self.timeout = settings.get_float("searcher.node.timeout")
        self.fusion = Fusion.from_settings(settings)
        self.pool = ThreadPoolExecutor(max_workers=max(2, len(backends) * 2), thread_name_prefix="broker")

    def close(self) -> None:
        """Stop the worker threads."""
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _all(self, call: Callable[[int, SearchBackend], T], which: Sequence[int],
             failures: dict[int, str]) -> dict[int, T]:
        """``call(i, backend)`` on the backends ``which`` in parallel; failures recorded, not raised."""
        if len(which) == 1 and len(self.backends) == 1:
            try:
                return {which[0]: call(which[0], self.backends[which[0]])}
            except Exception as exc:
                if not _is_remote_failure(exc):
                    raise
                failures[which[0]] = f"{self.names[which[0]]}: {exc}"
                return {}
        futures = {i: self.pool.submit(call, i, self.backends[i]) for i in which}
        wait(futures.values(), timeout=self.timeout)
        answers: dict[int, T] = {}
        for i, future in futures.items():
            if not future.done():
                future.cancel()
                failures[i] = f"{self.names[i]}: no answer within {self.timeout:g} s"
                continue
            exc = future.exception()
            if exc is None:
                answers[i] = future.result()
            elif _is_remote_failure(exc):
                failures[i] = f"{self.names[i]}: {exc}"
            else:
                raise exc
        return answers

    def search(self, text: str, n: int = 10, start: int = 0, per_site: int | None = None) -> SearchResults:
        """One page of results: ``n`` hits from rank ``start`` (0-based)."""
        started = time.monotonic()
        per_site = self.per_site_default if per_site is None else max(0, per_site)
        failures: dict[int, str] = {}
        live = list(range(len(self.backends)))
        parts = self._all(lambda _, b: b.stats(text), live, failures)
        if not parts:
            raise SearchUnavailable("; ".join(failures.values()) or "no search backend answered")
        stats = sum(parts.values(), Stats())
        live = sorted(parts)
        need = start + n
        if self.fusion is not None:
            ranking, total = self._fused(text, stats, live, need, per_site, failures)
            capped = _sites_at_cap(ranking, per_site)
            hits = self._details(text, ranking[start:need], capped, failures)
            return SearchResults(text, hits, total, start, time.monotonic() - started, bool(failures),
                                 [failures[i] for i in sorted(failures)])
        wants = dict.fromkeys(live, need)
        pages: dict[int, SearchPage] = {}
        for _ in range(MAX_ROUNDS):
            asked = [i for i in live if i not in pages or wants[i] > len(pages[i].candidates)]
            answers = self._all(lambda i, b: b.search(text, wants[i], per_site, stats),
                                asked, failures)
            pages.update(answers)
            live = [i for i in live if i in pages]
            merged = self._merge(pages, live, per_site)
            more = refill({i: pages[i].candidates for i in live}, [c for _, c in merged], need, per_site)
            if not more:
                break
            for i, extra in more.items():
                wants[i] += extra
        if not live:
            raise SearchUnavailable("; ".join(failures.values()))
        ranking = self._merge(pages, live, per_site)[:need]
        capped = _sites_at_cap(ranking, per_site)
        page_hits = ranking[start:need]
        hits = self._details(text, page_hits, capped, failures)
        total = sum(pages[i].total for i in live)
        return SearchResults(text, hits, total, start, time.monotonic() - started, bool(failures),
                             [failures[i] for i in sorted(failures)])

    def _fused_pages(self, text: str, stats: Stats, live: list[int], need: int,
                     failures: dict[int, str]) -> dict[int, SearchPage]:
        """Every live backend's text candidates (no per-site limit) and nearest pages, for fusion."""
        assert self.fusion is not None
        depth = max(need, self.fusion.candidates)
        return self._all(lambda i, b: b.search(text, depth, 0, stats, self.fusion.candidates), live, failures)

    def _fused(self, text: str, stats: Stats, live: list[int], need: int, per_site: int,
               failures: dict[int, str]) -> tuple[list[tuple[int, Candidate]], int]:
        """The fused ranking (≤ ``per_site`` per site, ``need`` long) and the number of matching pages."""
        assert self.fusion is not None
        pages = self._fused_pages(text, stats, live, need, failures)
        if not pages:
            raise SearchUnavailable("; ".join(failures.values()))
        fused = self.fusion.fuse(pages)
        tagged = {id(c): i for i, c, _ in fused}
        kept = group_by_site([c for _, c, _ in fused], per_site, need)
        total = max(sum(page.total for page in pages.values()), len(fused))
        return [(tagged[id(c)], c) for c in kept], total

    def explain(self, url: str, text: str) -> dict[str, Any] | None:
        """The explanation of ``url``'s score for ``text`` (``None`` when no backend has the page).

        With the semantic part on, ``semantic`` tells the page's ranks in both
        rankings, its similarity, the fused score and the formula.
        """
        failures: dict[int, str] = {}
        parts = self._all(lambda _, b: b.stats(text), list(range(len(self.backends))), failures)
        stats = sum(parts.values(), Stats())
        answers = self._all(lambda _, b: b.explain(url, text, stats), sorted(parts), failures)
        for i in sorted(answers):
            if answers[i] is not None:
                result = answers[i]
                if self.fusion is not None:
                    result["semantic"] = self._fusion_parts(text, stats, sorted(parts), url, result, failures)
                return result
        return None

    def _fusion_parts(self, text: str, stats: Stats, live: list[int], url: str, result: dict[str, Any],
                      failures: dict[int, str]) -> dict[str, Any]:
        """Where ``url`` stands in the text, semantic and fused rankings of ``text``."""
        assert self.fusion is not None
        pages = self._fused_pages(text, stats, live, 0, failures)
        fused = self.fusion.fuse(pages)
        details = self._details_at(text, [(i, c) for i, c, _ in fused], failures)
        entry: dict[str, Any] = {}
        for position, detail in details.items():
            if detail.url == url:
                entry = dict(fused[position][2], fused_rank=position + 1)
        entry.setdefault("similarity", result.get("similarity"))
        entry["formula"] = self.fusion.describe()
        return entry

    @staticmethod
    def _merge(pages: dict[int, SearchPage], live: list[int], per_site: int) -> list[tuple[int, Candidate]]:
        tagged = {id(c): i for i in live for c in pages[i].candidates}
        merged = group_by_site([c for i in live for c in pages[i].candidates], per_site)
        return [(tagged[id(c)], c) for c in merged]

    def _details_at(self, text: str, page_hits: list[tuple[int, Candidate]],
                    failures: dict[int, str]) -> dict[int, HitDetails]:
        """Details of each (backend, candidate) by its position (positions of failed backends are missing)."""
        by_backend: dict[int, list[int]] = {}
        for position, (i, _) in enumerate(page_hits):
            by_backend.setdefault(i, []).append(position)
        answers = self._all(lambda i, b: b.details([page_hits[p][1] for p in by_backend[i]], text),
                           sorted(by_backend), failures)
        return {position: detail for i, details in answers.items()
                for position, detail in zip(by_backend[i], details, strict=True)}

    def _details(self, text: str, page_hits: list[tuple[int, Candidate]], capped: set[int],
                 failures: dict[int, str]) -> list[Hit]:
        found = self._details_at(text, page_hits, failures)
        return [Hit(found[p], c.score, c.site in capped, i) for p, (i, c) in enumerate(page_hits) if p in found]


def _sites_at_cap(ranking: list[tuple[int, Candidate]], per_site: int) -> set[int]:
    """Sites that reached ``per_site`` hits in the ranking up to this page's end ("more from this site").

    The flag depends only on the ranking, so it is the same however the index is
    split; it means "there may be more", as the limit hid whatever else matched.
    """
    if not per_site:
        return set()
    counts: dict[int, int] = {}
    for _, candidate in ranking:
        counts[candidate.site] = counts.get(candidate.site, 0) + 1
    return {site for site, count in counts.items() if count >= per_site}


class SearchUnavailable(RuntimeError):
    """No backend could answer."""


def _is_remote_failure(exc: BaseException) -> bool:
    """Failures that mean "this backend is down or slow" rather than "the query is bad"."""
    from gossamer.search.query_parse import QuerySyntaxError

    return not isinstance(exc, QuerySyntaxError)
