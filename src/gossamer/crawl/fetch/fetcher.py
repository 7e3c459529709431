"""The async fetch loop: :func:`fetch_all` fetches a stream of ``(url, CrawlDatum)`` politely.

One loop runs in one process (run one loop per partition group in separate
processes; a host is only ever in one partition).  A feeder task streams the
input into :class:`~gossamer.crawl.fetch.queues.FetchQueues`, keeping at most
max(``fetcher.threads.fetch × fetcher.queue.depth.multiplier``, ``fetcher.queue.readahead``)
items queued; a :class:`~gossamer.crawl.fetch.launcher.Launcher` starts the next item of
a queue the moment its delay has passed, at most ``fetcher.threads.fetch`` at once; each
checks robots.txt, fetches through the protocol, maps the outcome to Nutch's fetch status
and hands a :class:`FetchResult` to the sink.  A queue's delay runs from the moment its
response was complete, not from when the page was parsed and stored.  Items removed without a fetch
(blocked queue, time limit …) go to ``sink.dropped`` and, as in Nutch, get no
crawl_fetch record.  The status mapping and redirect rules are in ``docs/fetching.md``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterable, Callable, Iterable

from gossamer.core import (
    CRAWL_SCORE_KEY,
    META_CONTENT_TYPE,
    META_ETAG,
    META_PROTOCOL_CODE,
    META_PROTOCOL_STATUS,
    META_RESPONSE_TIME,
    CrawlDatum,
    CrawlStatus,
    ProtocolStatus,
    ProtocolStatusCode,
    Settings,
    now_millis,
    retry_after_seconds,
    status_name,
)
from gossamer.crawl.fetch.launcher import Launcher
from gossamer.crawl.fetch.loop_helpers import (
    CODE_NAMES,
    STATUS_MAP,
    FetchRobots,
    RedirectTargets,
    last_value,
    redirect_metadata,
    representative_url,
)
from gossamer.crawl.fetch.queues import FetchItem, FetchQueues, QueueIdResolver
from gossamer.crawl.fetch.results import FetchResult, FetchSink, FetchSummary, ListSink
from gossamer.crawl.fetch.turns import TurnBudget
from gossamer.crawl.robots import RobotRules, RobotsPolicy, effective_delay
from gossamer.plugins import PluginRepository, Protocol, ProtocolOutput, ProtocolSelector
from gossamer.store import host_of

__all__ = ["FetchResult", "FetchRobots", "FetchSink", "FetchSummary", "ListSink", "RedirectTargets",
           "fetch_all", "time_limit_seconds"]


class _Run:
    """State of one :func:`fetch_all` call."""

    def __init__(self, settings: Settings, sink: FetchSink, protocol: Protocol, robots: FetchRobots,
                 redirects: RedirectTargets, clock: Callable[[], float], deadline: float | None,
                 owns: Callable[[str], bool] | None = None, sharers: int = 1) -> None:
        self.sharers = max(1, sharers)
        self.settings, self.sink, self.protocol, self.robots, self.redirects = \
            settings, sink, protocol, robots, redirects
        self.clock = clock
        self.owns = owns
        self.queues = FetchQueues(settings)
        self.resolver = QueueIdResolver(settings)
        self.policy = RobotsPolicy.from_settings(settings)
        self.threads = max(1, settings.get_int("fetcher.threads.fetch"))
        self.buffer = max(1, self.threads * settings.get_int("fetcher.queue.depth.multiplier"),
                          settings.get_int("fetcher.queue.readahead"))
        self.redirect_max = settings.get_int("http.redirect.max")
        self.redirect_skip = settings.get_bool("http.redirect.max.exceeded.skip")
        self.max_crawl_delay = settings.get_int("fetcher.max.crawl.delay")
        self.store_rs = settings.get_bool("http.store.responsetime")
        self.summary = FetchSummary(started=clock())
        self.deadline = deadline
        self.refill = max(1, min(64, self.buffer // 4))  # the feeder wakes when this many items fit
        self.room = asyncio.Event()
        self.launcher = Launcher(self.queues, self.threads, clock, self.work, self.check)
        self.turns = TurnBudget(settings.get_float("fetcher.turn.page.ms") / 1000.0, clock)
        self.feeding = True
        self.stopping = ""

    # --- bookkeeping -------------------------------------------------------------------------

    def drop(self, item: FetchItem | tuple[str, CrawlDatum], reason: str, detail: str) -> None:
        url, datum = (item.url, item.datum) if isinstance(item, FetchItem) else item
        self.summary.dropped[reason] += 1
        self.sink.dropped(url, datum, reason, detail)

    def drop_all(self, removed: list[tuple[FetchItem, str]], reason: str) -> None:
        for item, detail in removed:
            self.drop(item, reason, detail)

    def stop(self, reason: str, detail: str) -> None:
        if not self.stopping:
            self.stopping = reason
            self.summary.stopped = detail
        self.drop_all(self.queues.empty_all(detail), reason)
        self.room.set()

    def check(self, now: float) -> float | None:
        """The launcher's rules (see :class:`Launcher`): time limit, refill, end of the run; next deadline."""
        queues = self.queues
        if self.deadline is not None and now >= self.deadline and queues.queued:
            self.stop("timelimit", "fetcher.timelimit reached")
        if not self.feeding and queues.in_progress == 0 and queues.queued and queues.only_deferred():
            # Nothing left but hosts whose robots.txt is temporarily unavailable: waiting out
            # their deferrals would idle the whole run; their URLs stay due for the next round.
            self.drop_all(queues.empty_all("robots.txt unavailable (5xx/429); nothing else to "
                                           "fetch, so not waiting for a retry"), "robots deferred")
        if not self.feeding and queues.in_progress == 0 and queues.queued == 0:
            self.launcher.finish()
            return None
        if queues.queued <= self.buffer - self.refill:
            self.room.set()
        return self.deadline if self.deadline is not None and queues.queued else None

    # --- feeder and workers ------------------------------------------------------------------

    async def hold_recent(self, recent: dict[str, float]) -> None:
        """Keep the queues of hosts requested moments ago (``url → epoch end``) waiting their delay."""
        now_wall, now = time.time(), self.clock()
        for url, ended in recent.items():
            queue_id, _ = await self.resolver.queue_id(url)
            wait = ended + self.queues.default_delay - now_wall
            if queue_id is not None and wait > 0:
                self.queues.delay_until(queue_id, now + wait)

    async def feed(self, items: Iterable[tuple[str, CrawlDatum]] | AsyncIterable[tuple[str, CrawlDatum]]) -> None:
        try:
            iterator = items.__aiter__() if isinstance(items, AsyncIterable) else _aiter(items)
            async for url, datum in iterator:
                while self.queues.queued >= self.buffer and not self.stopping:
                    self.room.clear()
                    await self.room.wait()
                if self.stopping:
                    self.drop((url, datum), self.stopping, self.summary.stopped)
                    continue
                if self.deadline is not None and self.clock() >= self.deadline:
                    self.stop("timelimit", "fetcher.timelimit reached")
                    self.drop((url, datum), "timelimit", "fetcher.timelimit reached")
                    continue
                await self.enqueue(url, datum)
        finally:
            self.feeding = False
            self.launcher.pump()

    async def enqueue(self, url: str, datum: CrawlDatum, redirects: int = 0, chain: tuple[str, ...] = (),
                      front: bool = False) -> bool:
        if redirects == 0:
            accepted = self.redirects.input_url(url)
            if accepted is None:
                self.drop((url, datum), "filtered", "rejected by fetcher.filter.urls / fetcher.normalize.urls")
                return False
            url = accepted
        queue_id, reason = await self.resolver.queue_id(url)
        if queue_id is None:
            self.drop((url, datum), "unresolvable", reason)
            return False
        blocked = self.queues.add(FetchItem(url, datum, queue_id, redirects, chain), front=front)
        if blocked:
            self.drop((url, datum), "queue blocked", blocked)
            return False
        self.launcher.pump()
        return True

    async def work(self, item: FetchItem) -> None:
        """Fetch one item (the launcher's coroutine); its queue's delay runs from the end of its response."""
        after: list[Callable[[], None]] = []
        ended: float | None = self.clock()
        try:
            ended = await self.process(item, after)
        except Exception as exc:  # noqa: BLE001 - an escaping error is FAILED → fetch_retry, as in Nutch
            ended = self.clock()
            status = ProtocolStatus(ProtocolStatusCode.FAILED, (f"{type(exc).__name__}: {exc}",))
            self.emit(item, status, ProtocolOutput(status))
        finally:
            self.queues.finish(item, self.clock() if ended is None else ended, ended is None)
            for action in after:
                action()
            self.launcher.done()

    # --- one item ----------------------------------------------------------------------------

    async def process(self, item: FetchItem, after: list[Callable[[], None]]) -> float | None:
        """Robots, fetch, map, emit; returns when the last request to the host ended (None: no request made)."""
        rules, fetched = await self.robots.rules(item.url)
        decision = rules.check(item.url)
        if not decision.allowed and decision.defer:
            return self.defer(item, rules, after)
        if not decision.allowed:
            self.emit_robots_denied(item, decision.reason)
            return self.clock() if fetched else None
        skip, delay, reason = effective_delay(rules, self.settings)
        if skip:
            self.emit_robots_denied(item, reason)
            return self.clock() if fetched else None
        if self.sharers > 1 and rules.crawl_delay:
            delay *= self.sharers  # the host's Crawl-delay holds for all the loops that share it
        self.queues.set_delay(item.queue_id, delay)
        if fetched and not item.waited:  # robots.txt was a request to this host too: the page waits its turn
            item.waited = True
            self.queues.add(item, front=True)
            return self.clock()
        output = await self.protocol.fetch(item.url, item.datum)
        ended = self.clock()  # the response is complete: the delay runs from here, not from after parsing
        status = output.status
        if status.code == ProtocolStatusCode.EXCEPTION:
            after.append(lambda: self.drop_all(self.queues.record_exception(item.queue_id), "queue blocked"))
            self.retry_after(item, output, after)
        linked: list[tuple[str, CrawlDatum]] = []
        if status.code in (ProtocolStatusCode.MOVED, ProtocolStatusCode.TEMP_MOVED) and status.args:
            linked = await self.redirect(item, status.args[0], status.code == ProtocolStatusCode.TEMP_MOVED)
        await self.turns.wait()  # the page's handling in a turn of the loop with room for it
        self.emit(item, status, output, linked)
        return ended

    def defer(self, item: FetchItem, rules: RobotRules, after: list[Callable[[], None]]) -> float:
        queue = self.queues.queues[item.queue_id]
        queue.robots_deferrals += 1
        if queue.robots_deferrals > self.policy.defer_retries:
            detail = f"{rules.note}; deferred {queue.robots_deferrals - 1} times"
            self.drop(item, "robots deferred", detail)
            self.drop_all(self.queues.block(item.queue_id, detail), "robots deferred")
            return self.clock()
        self.queues.add(item, front=True)
        when = self.clock() + self.policy.defer_delay
        after.append(lambda: self.queues.delay_until(item.queue_id, when))
        return self.clock()

    def retry_after(self, item: FetchItem, output: ProtocolOutput, after: list[Callable[[], None]]) -> None:
        exchange = output.exchange
        if exchange is None or exchange.status not in (429, 503):
            return
        headers = getattr(output, "headers", {}) or {}
        wait = retry_after_seconds(headers.get("Retry-After"))
        if wait is None:
            return
        if 0 <= self.max_crawl_delay < wait:
            detail = f"Retry-After {wait:g} s exceeds fetcher.max.crawl.delay={self.max_crawl_delay} s"
            after.append(lambda: self.drop_all(self.queues.block(item.queue_id, detail), "retry-after"))
        else:
            when = self.clock() + wait
            after.append(lambda: self.queues.delay_until(item.queue_id, when))

    async def redirect(self, item: FetchItem, target: str, temp: bool) -> list[tuple[str, CrawlDatum]]:
        accepted = self.redirects.target(target, item.url)
        if accepted is None or accepted == item.url:
            return []
        repr_url = representative_url(item.url, accepted, temp)
        metadata = redirect_metadata(item.datum.metadata, repr_url, host_of(accepted) == host_of(item.url))
        mine = self.owns is None or self.owns(accepted)
        if self.redirect_max > 0 and item.redirects < self.redirect_max and mine:
            chain = (*item.chain, item.url)
            if accepted in chain:
                self.summary.redirect_loops += 1
                self.drop((accepted, item.datum), "redirect loop", " -> ".join((*chain, accepted)))
                return []
            datum = CrawlDatum(CrawlStatus.DB_UNFETCHED, now_millis(), 0, item.datum.fetch_interval,
                               item.datum.score, metadata=metadata)
            if await self.enqueue(accepted, datum, item.redirects + 1, chain, front=True):
                self.summary.redirects_followed += 1
            return []
        if self.redirect_max > 0 and self.redirect_skip and mine:
            return []
        linked = CrawlDatum(CrawlStatus.LINKED, now_millis(), 0, item.datum.fetch_interval, item.datum.score,
                            metadata=metadata)
        return [(accepted, linked)]

    def emit_robots_denied(self, item: FetchItem, reason: str) -> None:
        status = ProtocolStatus(ProtocolStatusCode.ROBOTS_DENIED, (reason,))
        self.emit(item, status, ProtocolOutput(status))

    def emit(self, item: FetchItem, status: ProtocolStatus, output: ProtocolOutput,
             linked: list[tuple[str, CrawlDatum]] | None = None) -> None:
        fetch_status = STATUS_MAP.get(status.code, CrawlStatus.FETCH_RETRY)
        datum = item.datum.copy()
        datum.status = fetch_status
        datum.fetch_time = now_millis()
        datum.metadata[META_PROTOCOL_STATUS] = status.to_text()
        exchange = output.exchange
        content = output.content
        if exchange is not None:
            datum.metadata[META_PROTOCOL_CODE] = str(exchange.status)
            if fetch_status == CrawlStatus.FETCH_SUCCESS:
                etag = last_value(exchange.response_headers, "etag")
                if etag:
                    datum.metadata[META_ETAG] = etag
        if fetch_status == CrawlStatus.FETCH_SUCCESS and 0 < status.last_modified <= datum.fetch_time:
            # The server's Last-Modified (never a future one) becomes the page's modified time:
            # the fetch schedule keeps it and the next fetch sends it back as If-Modified-Since.
            datum.modified_time = status.last_modified
        if self.store_rs and exchange is not None:
            datum.metadata[META_RESPONSE_TIME] = str(output.response_ms)
        if content is not None:
            if content.content_type:
                datum.metadata[META_CONTENT_TYPE] = content.content_type
            content.metadata.setdefault(CRAWL_SCORE_KEY, str(item.datum.score))
            content.metadata["_fst_"] = str(int(fetch_status))
            content.metadata["_ftk_"] = str(datum.fetch_time)
            self.summary.bytes += len(content.content)
        if status.code in (ProtocolStatusCode.EXCEPTION, ProtocolStatusCode.FAILED):
            self.summary.errors += 1
        self.summary.results += 1
        if exchange is not None or content is not None:  # a real response: a page (a 404 is one, a refusal not)
            self.summary.pages += 1
        self.summary.by_status[status_name(fetch_status)] += 1
        self.summary.by_protocol[CODE_NAMES.get(status.code) or status.code.name.lower()] += 1
        self.sink.result(FetchResult(item.url, datum, content, exchange, linked or []))

    async def monitor(self, progress: Callable[[FetchSummary, int], None] | None,
                      check_after: float, threshold: int, retries: int, interval: float) -> None:
        strikes, last_pages, last_time = 0, 0, self.clock()
        while True:
            await asyncio.sleep(interval)
            now = self.clock()
            self.summary.elapsed = now - self.summary.started
            if progress is not None:
                progress(self.summary, self.queues.active_queues())
            if threshold > 0 and now - self.summary.started >= check_after and not self.stopping:
                rate = (self.summary.results - last_pages) / max(now - last_time, 1e-9)
                strikes = strikes + 1 if rate < threshold else 0
                if strikes >= retries:
                    self.stop("throughput", f"throughput {rate:.2f} pages/s below "
                                            f"fetcher.throughput.threshold.pages={threshold}")
                    self.launcher.pump()
            last_pages, last_time = self.summary.results, now


async def _aiter(items: Iterable[tuple[str, CrawlDatum]]) -> AsyncIterable[tuple[str, CrawlDatum]]:
    for entry in items:
        yield entry


def time_limit_seconds(settings: Settings) -> float | None:
    """fetcher.timelimit.mins in seconds; None when it is negative (no limit)."""
    minutes = settings.get_int("fetcher.timelimit.mins")
    return None if minutes < 0 else minutes * 60.0


async def fetch_all(
    items: Iterable[tuple[str, CrawlDatum]] | AsyncIterable[tuple[str, CrawlDatum]],
    settings: Settings,
    sink: FetchSink,
    *,
    protocol: Protocol | None = None,
    robots: FetchRobots | None = None,
    redirects: RedirectTargets | None = None,
    clock: Callable[[], float] = time.monotonic,
    time_limit: float | None = None,
    progress: Callable[[FetchSummary, int], None] | None = None,
    monitor_interval: float = 1.0,
    owns: Callable[[str], bool] | None = None,
    sharers: int = 1,
    recent: dict[str, float] | None = None,
) -> FetchSummary:
    """Fetch every item politely; return the counts.  Never raises for network trouble.

    ``protocol`` defaults to a :class:`~gossamer.plugins.protocols.ProtocolSelector` over the active
    Protocol plugins, chosen by URL scheme (closed at the end; a protocol passed in is left open),
    ``robots`` to a :class:`FetchRobots`
    with its own cache, ``redirects`` to the ``fetcher`` URL chains.  ``time_limit``
    (seconds from now) overrides fetcher.timelimit.mins.  ``progress(summary,
    active_queues)`` is called every ``monitor_interval`` seconds.  ``owns(url)`` says whether
    this loop may fetch a redirect target's host (other fetch processes own other hosts); a
    target it does not own is recorded as ``linked`` for a later round instead of followed.
    ``sharers`` > 1 says that many loops fetch from every host at once (politeness-free
    crawls, see :mod:`gossamer.crawl.fetch.job`): a robots Crawl-delay is multiplied by it so
    that the host still gets no more than one request per Crawl-delay on average.  ``recent``
    maps a URL of a host to the wall-clock time (epoch seconds) its last response ended in an
    earlier fetch (the previous round): its queue waits the delay from then, robots.txt
    request included.  Raises
    ValueError for bad settings (empty http.agent.name, unknown fetcher.queue.mode).
    """
    own_protocol = protocol is None
    protocol = protocol or ProtocolSelector(PluginRepository(settings))
    own_robots = robots is None
    robots = robots or FetchRobots(settings, protocol=protocol)  # robots.txt over the same connections
    redirects = redirects or RedirectTargets.from_settings(settings)
    limit = time_limit if time_limit is not None else time_limit_seconds(settings)
    run = _Run(settings, sink, protocol, robots, redirects, clock,
               None if limit is None else clock() + limit, owns, sharers)
    monitor = asyncio.create_task(run.monitor(
        progress, settings.get_int("fetcher.throughput.threshold.check.after") * 60.0,
        settings.get_int("fetcher.throughput.threshold.pages"),
        max(1, settings.get_int("fetcher.throughput.threshold.retries")), monitor_interval))
    if recent:
        await run.hold_recent(recent)
    run.launcher.watch(asyncio.create_task(run.feed(items)))
    try:
        await run.launcher.wait()
    finally:
        monitor.cancel()
        await run.launcher.cancel()
        await asyncio.gather(monitor, return_exceptions=True)
        if own_protocol:
            await protocol.close()
        if own_robots:
            await robots.close()
    run.summary.elapsed = clock() - run.summary.started
    return run.summary
