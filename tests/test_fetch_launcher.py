"""The fetch loop's launcher: slots, the delay counted from the response's end, failures, the end of a run.

A fake protocol and a fake clock stand in for the network and for time, so nothing here
waits for a politeness delay or depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio

import pytest

from gossamer.core import ProtocolStatus, ProtocolStatusCode
from gossamer.crawl.fetch.fetcher import ListSink, RedirectTargets, fetch_all
from gossamer.crawl.fetch.results import FetchResult
from gossamer.crawl.robots import allow_all
from gossamer.engine import return_free_memory
from gossamer.plugins import ProtocolOutput
from tests.fetch_server import items, settings


class FakeClock:
    """A clock that only moves when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeProtocol:
    """Answers 404 to everything after a few turns of the event loop; records starts and concurrency."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.starts: list[tuple[str, float]] = []
        self.active = 0
        self.max_active = 0

    async def fetch(self, url: str, datum: object) -> ProtocolOutput:
        self.starts.append((url, self.clock()))
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        for _ in range(3):
            await asyncio.sleep(0)
        self.active -= 1
        return ProtocolOutput(ProtocolStatus(ProtocolStatusCode.NOTFOUND))

    async def close(self) -> None:
        pass


class AllowAll:
    """robots.txt rules that allow everything, without requests."""

    async def rules(self, url: str) -> tuple[object, bool]:
        return allow_all("test"), False

    async def close(self) -> None:
        pass


class SlowSink(ListSink):
    """A sink whose every result takes ``cost`` seconds of the fake clock (parsing, storing)."""

    def __init__(self, clock: FakeClock, cost: float) -> None:
        super().__init__()
        self.clock, self.cost = clock, cost

    def result(self, result: FetchResult) -> None:
        super().result(result)
        self.clock.now += self.cost


def run_loop(urls: list[str], sink: ListSink, clock: FakeClock, **values: object) -> FakeProtocol:
    protocol = FakeProtocol(clock)
    run = fetch_all(items(*urls), settings(**values), sink, protocol=protocol, robots=AllowAll(),
                    redirects=RedirectTargets.passthrough(), clock=clock)
    # the fake clock never moves by itself: a loop that waits for it would wait for ever (a guard, not a measure)
    asyncio.run(asyncio.wait_for(run, 60))
    return protocol


def test_the_delay_runs_from_the_end_of_the_response_not_from_after_the_page_was_stored() -> None:
    clock = FakeClock()
    sink = SlowSink(clock, cost=10.0)  # storing a page takes longer than the delay
    urls = [f"http://a.test/p{i}" for i in range(3)]
    protocol = run_loop(urls, sink, clock, fetcher_server_delay=5.0)
    # each response ends at the time its fetch started (the fake network takes no time); storing it
    # moves the clock 10 s on, past the 5 s delay, so the next request may start at once
    assert [t for _, t in protocol.starts] == [1000.0, 1010.0, 1020.0]
    assert len(sink.results) == 3


def test_no_more_fetches_at_once_than_threads_and_every_host_is_fetched() -> None:
    clock = FakeClock()
    sink = ListSink()
    urls = [f"http://h{h}.test/p{i}" for i in range(2) for h in range(6)]
    protocol = run_loop(urls, sink, clock, fetcher_server_delay=0.0, fetcher_threads_fetch=2)
    assert protocol.max_active == 2
    assert sorted(r.url for r in sink.results) == sorted(urls)


def test_one_queue_is_never_fetched_twice_at_once() -> None:
    clock = FakeClock()
    urls = [f"http://a.test/p{i}" for i in range(5)]
    protocol = run_loop(urls, ListSink(), clock, fetcher_server_delay=0.0, fetcher_threads_fetch=8)
    assert protocol.max_active == 1
    assert [u for u, _ in protocol.starts] == urls


def test_an_error_escaping_a_fetch_ends_the_run_with_that_error() -> None:
    class Broken(ListSink):
        def result(self, result: FetchResult) -> None:
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        run_loop(["http://a.test/1", "http://b.test/1"], Broken(), FakeClock(), fetcher_server_delay=0.0)


def test_an_empty_fetch_list_ends_at_once() -> None:
    sink = ListSink()
    protocol = run_loop([], sink, FakeClock())
    assert protocol.starts == [] and sink.results == []


def test_return_free_memory_changes_nothing_visible() -> None:
    kept = [bytes(1000) for _ in range(100)]
    return_free_memory()
    assert len(kept) == 100


def test_a_cancelled_run_starts_nothing_more() -> None:
    clock = FakeClock()
    protocol = FakeProtocol(clock)

    async def main() -> None:
        run = asyncio.ensure_future(fetch_all(
            items(*[f"http://h{i}.test/" for i in range(20)]), settings(fetcher_threads_fetch=2), ListSink(),
            protocol=protocol, robots=AllowAll(), redirects=RedirectTargets.passthrough(), clock=clock))
        while not protocol.starts:
            await asyncio.sleep(0)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        started = len(protocol.starts)
        for _ in range(20):
            await asyncio.sleep(0)
        assert len(protocol.starts) == started <= 2

    asyncio.run(asyncio.wait_for(main(), 60))
