"""Politeness queues: one per host, domain or IP, with Nutch's delays, limits and back-off.

A :class:`FetchQueues` holds :class:`FetchItem` s grouped by queue id
(``fetcher.queue.mode``).  A queue hands out an item only while fewer than
``fetcher.threads.per.queue`` of its items are in progress and its next fetch
time has come; after each fetch the next fetch time is the end of that fetch
plus the queue delay (``fetcher.server.delay``, or ``fetcher.server.min.delay``
when more than one request per queue is allowed, or the robots Crawl-delay set
with :meth:`FetchQueues.set_delay`).  Ready queues are found through a heap of
next-ready times, so picking one never scans every queue and never busy-waits.

Nothing here sleeps or does I/O except :meth:`QueueIdResolver.queue_id` in byIP mode.
Times are plain floats in seconds from one monotonic clock chosen by the caller.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import socket
from collections import deque
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from gossamer.core import CrawlDatum, Settings, domain_of


@dataclass(slots=True)
class FetchItem:
    """One URL to fetch: its datum, its queue, and how it got here (redirect hops, robots.txt waits)."""

    url: str
    datum: CrawlDatum
    queue_id: str
    redirects: int = 0
    chain: tuple[str, ...] = ()
    waited: bool = False  # already re-queued once after a robots.txt request to its host


@dataclass(slots=True)
class FetchQueue:
    """The state of one politeness queue (see the module docstring)."""

    id: str
    delay: float
    max_threads: int
    items: deque[FetchItem] = field(default_factory=deque)
    in_progress: int = 0
    next_fetch: float = 0.0
    exceptions: int = 0
    robots_deferrals: int = 0
    blocked: str = ""
    scheduled: float | None = None

    def ready_time(self) -> float | None:
        """When this queue can hand out an item; None while empty, busy or blocked."""
        if not self.items or self.in_progress >= self.max_threads or self.blocked:
            return None
        return self.next_fetch


class FetchQueues:
    """All queues of one fetch run, with Nutch's politeness rules.

    Items removed without being fetched (a blocked queue, time limit …) are
    returned by the method that removed them, with the reason, so the caller can
    report them.
    """

    def __init__(self, settings: Settings) -> None:
        self.max_threads = max(1, settings.get_int("fetcher.threads.per.queue"))
        self.default_delay = settings.get_float(
            "fetcher.server.min.delay" if self.max_threads > 1 else "fetcher.server.delay")
        self.max_exceptions = settings.get_int("fetcher.max.exceptions.per.queue")
        self.exception_delay = settings.get_float("fetcher.exceptions.per.queue.delay")
        self.queues: dict[str, FetchQueue] = {}
        self._heap: list[tuple[float, int, str]] = []
        self._seq = itertools.count()
        self.queued = 0
        self.in_progress = 0

    def _queue(self, queue_id: str) -> FetchQueue:
        queue = self.queues.get(queue_id)
        if queue is None:
            queue = self.queues[queue_id] = FetchQueue(queue_id, self.default_delay, self.max_threads)
        return queue

    def _schedule(self, queue: FetchQueue) -> None:
        ready = queue.ready_time()
        if ready is None or (queue.scheduled is not None and queue.scheduled <= ready):
            return
        queue.scheduled = ready
        heapq.heappush(self._heap, (ready, next(self._seq), queue.id))

    def add(self, item: FetchItem, front: bool = False) -> str | None:
        """Queue ``item`` (at the front for redirects and deferrals); returns a drop reason if its queue is blocked."""
        queue = self._queue(item.queue_id)
        if queue.blocked:
            return queue.blocked
        item.queue_id = queue.id  # one string per queue, not one per queued item
        (queue.items.appendleft if front else queue.items.append)(item)
        self.queued += 1
        self._schedule(queue)
        return None

    def next_ready(self) -> float | None:
        """Earliest time some queue can hand out an item (None: none can until something finishes or is added)."""
        while self._heap:
            ready, _, queue_id = self._heap[0]
            queue = self.queues[queue_id]
            if queue.scheduled != ready or queue.ready_time() is None:
                heapq.heappop(self._heap)
                if queue.scheduled == ready:
                    queue.scheduled = None
                continue
            if queue.ready_time() != ready:  # moved later (back-off): re-file
                heapq.heappop(self._heap)
                queue.scheduled = None
                self._schedule(queue)
                continue
            return ready
        return None

    def acquire(self, now: float) -> FetchItem | None:
        """An item of a ready queue, marked in progress; None when no queue is ready at ``now``."""
        ready = self.next_ready()
        if ready is None or ready > now:
            return None
        _, _, queue_id = heapq.heappop(self._heap)
        queue = self.queues[queue_id]
        queue.scheduled = None
        item = queue.items.popleft()
        queue.in_progress += 1
        self.queued -= 1
        self.in_progress += 1
        self._schedule(queue)
        return item

    def finish(self, item: FetchItem, now: float, asap: bool = False) -> None:
        """An item's fetch ended at ``now``: next fetch at ``now`` + delay (``now`` if ``asap``)."""
        queue = self.queues[item.queue_id]
        queue.in_progress -= 1
        self.in_progress -= 1
        queue.next_fetch = max(queue.next_fetch, now if asap else now + queue.delay)
        self._schedule(queue)

    def set_delay(self, queue_id: str, delay: float) -> None:
        """Set the queue's delay between requests (robots Crawl-delay, already bounded by the caller)."""
        self._queue(queue_id).delay = delay

    def delay_until(self, queue_id: str, when: float) -> None:
        """Do not hand out items of this queue before ``when`` (Retry-After, robots deferral)."""
        queue = self._queue(queue_id)
        queue.next_fetch = max(queue.next_fetch, when)
        self._schedule(queue)

    def record_exception(self, queue_id: str) -> list[tuple[FetchItem, str]]:
        """Count an EXCEPTION of the queue: back off ×2^(n−1), or block it at the limit.

        Returns the items removed when the queue reaches fetcher.max.exceptions.per.queue.
        """
        queue = self._queue(queue_id)
        queue.exceptions += 1
        if 0 <= self.max_exceptions <= queue.exceptions:
            return self.block(queue_id, f"queue {queue_id} blocked after {queue.exceptions} exceptions")
        if self.exception_delay > 0:
            queue.next_fetch += self.exception_delay * 2 ** (queue.exceptions - 1)
        return []

    def block(self, queue_id: str, reason: str) -> list[tuple[FetchItem, str]]:
        """Empty the queue and refuse its items for the rest of the run; returns the removed items."""
        queue = self._queue(queue_id)
        queue.blocked = reason
        removed = [(item, reason) for item in queue.items]
        self.queued -= len(queue.items)
        queue.items.clear()
        return removed

    def empty_all(self, reason: str) -> list[tuple[FetchItem, str]]:
        """Remove every queued item (time limit, low throughput); items in progress finish normally."""
        removed: list[tuple[FetchItem, str]] = []
        for queue in self.queues.values():
            removed.extend((item, reason) for item in queue.items)
            queue.items.clear()
        self.queued = 0
        return removed

    def only_deferred(self) -> bool:
        """True when items are queued and every queue holding some waits on a robots.txt deferral."""
        holding = [q for q in self.queues.values() if q.items]
        return bool(holding) and all(q.robots_deferrals > 0 for q in holding)

    def active_queues(self) -> int:
        """Queues with items queued or in progress."""
        return sum(1 for q in self.queues.values() if q.items or q.in_progress)


LOCAL_FILES_QUEUE = "file://localhost"
"""The fetch queue of every local ``file:`` URL (one disk, one politeness queue)."""


class QueueIdResolver:
    """Queue ids for URLs in ``fetcher.queue.mode``: byHost, byDomain or byIP.

    byIP resolves host names with the event loop's ``getaddrinfo`` and caches the
    answer (also failures) per host, bounded to ``max_entries``.  ``file:`` URLs (no host:
    the local filesystem) share the one queue :data:`LOCAL_FILES_QUEUE` in every mode.
    """

    def __init__(self, settings: Settings, max_entries: int = 100_000) -> None:
        mode = settings.get_str("fetcher.queue.mode").strip().lower()
        if mode not in ("byhost", "bydomain", "byip"):
            raise ValueError(f"fetcher.queue.mode must be byHost, byDomain or byIP, not {mode!r}")
        self.mode = mode
        self.max_entries = max_entries
        self._ips: dict[str, str | None] = {}

    async def queue_id(self, url: str) -> tuple[str | None, str]:
        """``(queue_id, "")`` or ``(None, reason)`` for a URL without host or a host that does not resolve."""
        try:
            parts = urlsplit(url)
            host = (parts.hostname or "").lower()
        except ValueError as exc:
            return None, f"malformed URL: {exc}"
        if parts.scheme.lower() == "file" and host in ("", "localhost"):
            return LOCAL_FILES_QUEUE, ""
        if not host:
            return None, "URL without host"
        if self.mode == "byhost":
            return host, ""
        if self.mode == "bydomain":
            return domain_of(host), ""
        if host not in self._ips:
            if len(self._ips) >= self.max_entries:
                self._ips.clear()
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
                self._ips[host] = str(infos[0][4][0]) if infos else None
            except (OSError, UnicodeError):
                self._ips[host] = None
        ip = self._ips[host]
        return (ip, "") if ip else (None, f"unknown host {host} (fetcher.queue.mode=byIP)")
