"""``fetchschedule-default``: a fixed re-fetch interval (Nutch's DefaultFetchSchedule).

Times are epoch milliseconds, intervals seconds (reference §7.1).
"""

from __future__ import annotations

from gossamer.core import MILLIS_PER_DAY, STATE_MODIFIED, CrawlDatum, CrawlStatus, Settings, now_millis
from gossamer.plugins.api import FetchSchedule
from gossamer.plugins.registry import PluginInfo


class AbstractFetchSchedule(FetchSchedule):
    """The shared part of every schedule (Nutch's AbstractFetchSchedule)."""

    def __init__(self, settings: Settings) -> None:
        self.default_interval = settings.get_int("db.fetch.interval.default")
        self.max_interval = settings.get_int("db.fetch.interval.max")

    def initialize_schedule(self, url: str, datum: CrawlDatum, now: int) -> None:
        """Fetch now, default interval, no retries."""
        datum.fetch_time = now
        datum.fetch_interval = self.default_interval
        datum.retries = 0

    def set_fetch_schedule(
        self, url: str, datum: CrawlDatum, prev_fetch_time: int, prev_modified_time: int,
        fetch_time: int, modified_time: int, state: int,
    ) -> None:
        """Base behaviour: reset retries."""
        datum.retries = 0

    def set_page_gone_schedule(
        self, url: str, datum: CrawlDatum, prev_fetch_time: int, prev_modified_time: int, fetch_time: int
    ) -> None:
        """Back off: interval × 1.5 while below the maximum, else 90 % of the maximum."""
        if datum.fetch_interval * 1.5 < self.max_interval:
            datum.set_fetch_interval(datum.fetch_interval * 1.5)
        else:
            datum.set_fetch_interval(self.max_interval * 0.9)
        datum.fetch_time = fetch_time + datum.fetch_interval * 1000

    def set_page_retry_schedule(
        self, url: str, datum: CrawlDatum, prev_fetch_time: int, prev_modified_time: int, fetch_time: int
    ) -> None:
        """Try again in a day; one more retry."""
        datum.fetch_time = fetch_time + MILLIS_PER_DAY
        datum.retries += 1

    def calculate_last_fetch_time(self, datum: CrawlDatum) -> int:
        """0 for never-fetched pages, else fetch time minus one interval."""
        if datum.status == CrawlStatus.DB_UNFETCHED:
            return 0
        return datum.fetch_time - datum.fetch_interval * 1000

    def should_fetch(self, url: str, datum: CrawlDatum, now: int) -> bool:
        """Due when fetch time ≤ now; a fetch time beyond now + max interval is pulled back to now."""
        if datum.fetch_time - now > self.max_interval * 1000:
            if datum.fetch_interval > self.max_interval:
                datum.set_fetch_interval(self.max_interval * 0.9)
            datum.fetch_time = now
        return datum.fetch_time <= now

    def force_refetch(self, url: str, datum: CrawlDatum, asap: bool) -> None:
        """Forget the page's state so it is fetched again."""
        if datum.fetch_interval > self.max_interval:
            datum.set_fetch_interval(self.max_interval * 0.9)
        datum.status = CrawlStatus.DB_UNFETCHED
        datum.retries = 0
        datum.signature = None
        datum.modified_time = 0
        if asap:

            datum.fetch_time = now_millis()


class DefaultFetchSchedule(AbstractFetchSchedule):
    """Re-fetch every ``fetch_interval`` seconds, whatever happened."""

    def set_fetch_schedule(
        self, url: str, datum: CrawlDatum, prev_fetch_time: int, prev_modified_time: int,
        fetch_time: int, modified_time: int, state: int,
    ) -> None:
        """Next fetch one interval after this one; modified time follows the fetch when changed."""
        super().set_fetch_schedule(
            url, datum, prev_fetch_time, prev_modified_time, fetch_time, modified_time, state
        )
        if datum.fetch_interval == 0:
            datum.fetch_interval = self.default_interval
        datum.fetch_time = fetch_time + datum.fetch_interval * 1000
        if modified_time <= 0 or state == STATE_MODIFIED:
            datum.modified_time = fetch_time
        else:
            datum.modified_time = modified_time


PLUGIN = PluginInfo(
    id="fetchschedule-default",
    point="FetchSchedule",
    factory=DefaultFetchSchedule,
    description="Fixed re-fetch interval (db.fetch.interval.default)",
    aliases=("org.apache.nutch.crawl.DefaultFetchSchedule", "DefaultFetchSchedule"),
)
