"""TurnBudget: page steps spread over turns of the event loop, first come first served; and the fetch loop with it."""

from __future__ import annotations

import asyncio
import time

import pytest

from gossamer.crawl.fetch.fetcher import ListSink, RedirectTargets, fetch_all
from gossamer.crawl.fetch.results import FetchResult
from gossamer.crawl.fetch.turns import TurnBudget
from tests.fetch_server import Site, items, settings
from tests.test_fetch_launcher import FakeClock


class TurnCounter:
    """Counts turns of the running loop: a callback that reschedules itself once per turn."""

    def __init__(self) -> None:
        self.turn = 0
        self.running = True

    def start(self) -> None:
        asyncio.get_running_loop().call_soon(self._tick)

    def _tick(self) -> None:
        self.turn += 1
        if self.running:
            asyncio.get_running_loop().call_soon(self._tick)


async def _steps(budget: TurnBudget, clock: FakeClock, count: int, cost: float,
                 turns: TurnCounter) -> list[tuple[int, int]]:
    """``count`` tasks that each wait for the budget, then take ``cost`` seconds; (task, turn) in run order."""
    ran: list[tuple[int, int]] = []

    async def step(i: int) -> None:
        await budget.wait()
        ran.append((i, turns.turn))
        clock.now += cost

    turns.start()
    await asyncio.gather(*(step(i) for i in range(count)))
    turns.running = False
    return ran


def test_steps_within_the_budget_share_a_turn_and_the_rest_wait_in_order() -> None:
    async def main() -> None:
        clock, turns = FakeClock(), TurnCounter()
        budget = TurnBudget(0.0025, clock)
        ran = await _steps(budget, clock, 8, 0.001, turns)
        assert [i for i, _ in ran] == list(range(8))  # first come, first served
        first_turn = [i for i, turn in ran if turn == ran[0][1]]
        assert first_turn == [0, 1, 2]  # 0, 1 and 2 ms spent when they asked: under 2.5 ms
        later = [turn for _, turn in ran[3:]]
        assert len(set(later)) == len(later) and later == sorted(later)  # one waiter per later turn
        assert budget.waited == 5
    asyncio.run(main())


@pytest.mark.parametrize(("seconds", "steps", "cost", "turns_used", "waited"), [
    (0.0, 20, 0.01, 1, 0),  # no budget: every step in the turn it asks in
    (0.002, 3, 0.5, 3, 2),  # a step longer than the budget runs whole; the next waits for a later turn
])
def test_budget_off_and_steps_longer_than_the_budget(seconds: float, steps: int, cost: float, turns_used: int,
                                                       waited: int) -> None:
    async def main() -> None:
        clock, turns = FakeClock(), TurnCounter()
        budget = TurnBudget(seconds, clock)
        ran = await _steps(budget, clock, steps, cost, turns)
        assert len({turn for _, turn in ran}) == turns_used and budget.waited == waited
    asyncio.run(main())


def test_steps_after_a_quiet_turn_start_a_new_budget() -> None:
    async def main() -> None:
        clock, turns = FakeClock(), TurnCounter()
        budget = TurnBudget(0.002, clock)
        await _steps(budget, clock, 4, 0.001, turns)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        waited = budget.waited
        await budget.wait()  # the turn that spent the budget is over: no wait
        assert budget.waited == waited
    asyncio.run(main())


def test_cancelled_waiters_hand_their_place_on() -> None:
    async def main() -> None:
        clock = FakeClock()
        budget = TurnBudget(0.001, clock)
        ran: list[int] = []

        async def step(i: int) -> None:
            await budget.wait()
            ran.append(i)
            clock.now += 0.002

        tasks = [asyncio.get_running_loop().create_task(step(i)) for i in range(6)]
        await asyncio.sleep(0)  # 0 ran; 1..5 wait
        tasks[1].cancel()  # waiting: skipped
        await asyncio.sleep(0)  # the next turn lets 2 in (its future is set, its task not yet run)
        tasks[2].cancel()  # let in but cancelled before it ran: 3 takes its place
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 5)
        assert ran == [0, 3, 4, 5], ran
        assert all(t.done() for t in tasks)
    asyncio.run(main())


class SlowSink(ListSink):
    """A sink whose page handling takes real time, like an inline parse."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def result(self, result: FetchResult) -> None:
        time.sleep(self.seconds)
        super().result(result)


def test_the_fetch_loop_with_a_small_budget_handles_every_page_politely() -> None:
    async def main() -> None:
        sites = [Site(bind=f"127.0.0.{n}") for n in range(1, 5)]
        for site in sites:
            await site.__aenter__()
        try:
            for site in sites:
                for i in range(3):
                    site.route(f"/p{i}", body=b"<html><a href='/x'>x</a></html>")
            urls = [site.url(f"/p{i}") for i in range(3) for site in sites]
            sink = SlowSink(0.01)
            summary = await fetch_all(items(*urls), settings(fetcher_server_delay=0.2, fetcher_turn_page_ms=1.0),
                                      sink, redirects=RedirectTargets.passthrough())
            assert summary.by_status == {"fetch_success": 12}
            assert sorted(r.url for r in sink.results) == sorted(urls)
            for site in sites:
                hits = site.page_hits()
                assert [h.path for h in hits] == ["/p0", "/p1", "/p2"]
                assert min(b.start - a.end for a, b in zip(hits, hits[1:], strict=False)) >= 0.19
        finally:
            for site in sites:
                await site.__aexit__(None, None, None)
    asyncio.run(main())
