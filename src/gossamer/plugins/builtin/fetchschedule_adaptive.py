"""``fetchschedule-adaptive`` and ``fetchschedule-mimeadaptive``: Nutch's adaptive re-fetch schedules.

After each successful fetch the interval shrinks when the page changed
(× (1 − ``dec_rate``)) and grows when it did not (× (1 + ``inc_rate``)), within
``[min_interval, max_interval]`` (reference §7.1).  With ``sync_delta`` the next
fetch is pulled towards the page's last change.  The arithmetic reproduces
Java's exactly: the interval is a float32, rates are float32, the sync offset is
computed in double, and the "offset as a ratio of the max interval" branch uses
Java long division, which makes the offset 0 whenever it applies (reference §11).

Per-host bounds come from ``adaptive-host-specific-intervals.txt`` (Nutch reads
that fixed name from its conf directory; here: the crawl's configuration
directory, then Gossamer's defaults, see :mod:`gossamer.plugins.support.conffiles`).
Lines are ``host min max``; ``0`` or ``default`` stands for the global value.

A datum whose metadata holds ``fixedInterval`` keeps that interval (no rates,
no bounds, no sync) — Nutch's ``nutch.fetchInterval.fixed`` injection option.
"""

from __future__ import annotations

import logging
import math
import struct
from urllib.parse import urlsplit

from gossamer.core import (
    META_CONTENT_TYPE,
    META_FIXED_INTERVAL,
    STATE_MODIFIED,
    STATE_NOTMODIFIED,
    CrawlDatum,
    Settings,
)
from gossamer.plugins.api import PluginNotConfigured
from gossamer.plugins.builtin.fetchschedule_default import AbstractFetchSchedule
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.conffiles import find_conf_file, read_conf_text

LOG = logging.getLogger(__name__)

HOST_INTERVALS_FILE = "adaptive-host-specific-intervals.txt"
_INT_MAX, _INT_MIN = 2**31 - 1, -(2**31)
_LONG_MAX, _LONG_MIN = 2**63 - 1, -(2**63)


def f32(value: float) -> float:
    """``value`` rounded to the nearest float32 (Java ``(float)``), overflowing to ±inf."""
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def java_round(value: float, *, bits: int = 64) -> int:
    """Java ``Math.round``: floor(value + ½) without double-rounding error, saturating; NaN → 0.

    ``bits=32`` gives ``Math.round(float)`` (an int), ``bits=64`` ``Math.round(double)`` (a long).
    """
    low, high = (_INT_MIN, _INT_MAX) if bits == 32 else (_LONG_MIN, _LONG_MAX)
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return high if value > 0 else low
    floor = math.floor(value)
    rounded = floor + 1 if value - floor >= 0.5 else floor
    return max(low, min(high, rounded))


def _java_long(value: float) -> int:
    """Java ``(long)`` cast of a float: truncation toward zero, saturating, NaN → 0."""
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return _LONG_MAX if value > 0 else _LONG_MIN
    return max(_LONG_MIN, min(_LONG_MAX, int(value)))


def java_div(a: int, b: int) -> int:
    """Java long division: the quotient truncated toward zero."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def parse_host_intervals(text: str, default_min: float, default_max: float) -> dict[str, tuple[float, float]]:
    """Parse ``adaptive-host-specific-intervals.txt``: host → (min, max) as float32.

    Blank lines and lines starting with ``#`` are skipped.  ``0``/``default`` takes
    the global bound (a line with both is ignored).  Lines with a negative value,
    min > max, min below the global min or max above the global max are logged
    and ignored, as in Nutch.  Host names are lower-cased.
    """
    table: dict[str, tuple[float, float]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 3:
            LOG.error("%s line %d: expected 'host min max': %r", HOST_INTERVALS_FILE, number, line)
            continue
        host = parts[0].lower()
        try:
            low, high = (0.0 if p.lower() == "default" else f32(float(p)) for p in parts[1:])
        except ValueError:
            LOG.error("%s line %d: bad interval: %r", HOST_INTERVALS_FILE, number, line)
            continue
        if low == 0 and high == 0:
            LOG.warning("%s line %d: both intervals default, ignored", HOST_INTERVALS_FILE, number)
            continue
        if low == 0:
            low = default_min
        elif high == 0:
            high = default_max
        if low < 0 or high < 0 or low > high or low < default_min or high > default_max:
            LOG.error("%s line %d: intervals out of bounds: %r", HOST_INTERVALS_FILE, number, line)
            continue
        table[host] = (low, high)
    return table


class AdaptiveFetchSchedule(AbstractFetchSchedule):
    """Adaptive interval (Nutch's AdaptiveFetchSchedule); see the module docstring."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.inc_rate = f32(settings.get_float("db.fetch.schedule.adaptive.inc_rate"))
        self.dec_rate = f32(settings.get_float("db.fetch.schedule.adaptive.dec_rate"))
        self.min_interval = f32(settings.get_float("db.fetch.schedule.adaptive.min_interval"))
        self.max_interval_adaptive = f32(settings.get_float("db.fetch.schedule.adaptive.max_interval"))
        self.sync_delta = settings.get_bool("db.fetch.schedule.adaptive.sync_delta")
        # Nutch reads the rate as a float and keeps it in a double: 0.3 → 0.30000001192092896.
        self.sync_delta_rate = f32(settings.get_float("db.fetch.schedule.adaptive.sync_delta_rate"))
        self.host_intervals: dict[str, tuple[float, float]] = {}
        path = find_conf_file(settings, HOST_INTERVALS_FILE)
        if path is not None:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                LOG.error("cannot read %s: %s", path, exc)  # Nutch logs and goes on without host bounds
                text = ""
            self.host_intervals = parse_host_intervals(text, self.min_interval, self.max_interval_adaptive)

    def bounds(self, url: str) -> tuple[float, float]:
        """(min, max) interval in seconds for ``url``: its host's entry, else the global settings."""
        if self.host_intervals:
            try:
                host = urlsplit(url).hostname
            except ValueError:
                host = None
            if host is not None and host in self.host_intervals:
                return self.host_intervals[host]
        return self.min_interval, self.max_interval_adaptive

    def rates(self, datum: CrawlDatum) -> tuple[float, float]:
        """(inc_rate, dec_rate) as float32 for this datum; subclasses may vary them."""
        return self.inc_rate, self.dec_rate

    def set_fetch_schedule(
        self, url: str, datum: CrawlDatum, prev_fetch_time: int, prev_modified_time: int,
        fetch_time: int, modified_time: int, state: int,
    ) -> None:
        """Adapt the interval to ``state`` (1 modified, 2 not modified, else unknown) and schedule.

        Sets retries 0, ``fetch_interval`` (rounded like Java), ``fetch_time`` and
        ``modified_time`` (``fetch_time`` when ≤ 0 or modified).
        """
        super().set_fetch_schedule(
            url, datum, prev_fetch_time, prev_modified_time, fetch_time, modified_time, state
        )
        interval = f32(datum.fetch_interval or self.default_interval)
        ref_time = fetch_time
        fixed = _fixed_interval(datum)
        if fixed is not None:
            interval = fixed
        else:
            if modified_time <= 0:
                modified_time = fetch_time
            inc_rate, dec_rate = self.rates(datum)
            if state == STATE_MODIFIED:
                interval = f32(interval * f32(1.0 - dec_rate))
                modified_time = fetch_time
            elif state == STATE_NOTMODIFIED:
                interval = f32(interval * f32(1.0 + inc_rate))
            low, high = self.bounds(url)
            if self.sync_delta:
                delta = fetch_time - modified_time
                if f32(delta) > f32(interval * 1000.0):
                    interval = f32(java_div(delta, 1000))
                offset = java_round(delta * self.sync_delta_rate)
                max_millis = _java_long(high) * 1000
                if delta > 0 and offset > max_millis:
                    offset = java_div(offset, delta) * max_millis
                ref_time = fetch_time - offset
            if interval < low:
                interval = low
            elif interval > high:
                interval = high
        datum.fetch_interval = java_round(interval, bits=32)
        datum.fetch_time = ref_time + java_round(interval * 1000.0)
        datum.modified_time = modified_time


def _fixed_interval(datum: CrawlDatum) -> float | None:
    """The float32 ``fixedInterval`` metadata value, or ``None`` (also when unparsable)."""
    raw = datum.metadata.get(META_FIXED_INTERVAL)
    if raw is None:
        return None
    try:
        return f32(float(raw))
    except ValueError:
        LOG.warning("ignoring unparsable %s=%r", META_FIXED_INTERVAL, raw)
        return None


def clean_mime_type(value: str) -> str:
    """The MIME type without parameters, trimmed and lower-cased (``Text/HTML; charset=x`` → ``text/html``)."""
    return value.split(";", 1)[0].strip().lower()


def parse_mime_rates(text: str) -> dict[str, tuple[float, float]]:
    """Parse ``adaptive-mimetypes.txt``: ``mime<TAB>inc<TAB>dec`` lines → mime → (inc, dec) float32.

    Blank and ``#`` lines are skipped; a line without exactly three TAB-separated
    fields is logged and skipped; an unparsable number raises :class:`ValueError`.
    """
    table: dict[str, tuple[float, float]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\t").split("\t")
        if len(fields) != 3:
            LOG.warning("adaptive-mimetypes line %d: expected mime<TAB>inc<TAB>dec: %r", number, line)
            continue
        try:
            table[fields[0].strip().lower()] = (f32(float(fields[1])), f32(float(fields[2])))
        except ValueError:
            raise ValueError(f"adaptive-mimetypes line {number}: bad rate in {line!r}") from None
    return table


class MimeAdaptiveFetchSchedule(AdaptiveFetchSchedule):
    """Adaptive schedule whose rates depend on the datum's ``Content-Type`` metadata.

    Rates come from the file named by ``db.fetch.schedule.mime.file``; types not
    listed (or datums without ``Content-Type``) use the global adaptive rates.
    """

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        text, path = read_conf_text(settings, "db.fetch.schedule.mime.file")
        try:
            self.mime_rates = parse_mime_rates(text)
        except ValueError as exc:
            raise PluginNotConfigured(f"{path}: {exc}") from None

    def rates(self, datum: CrawlDatum) -> tuple[float, float]:
        """The rates of the datum's MIME type, else the global ones."""
        content_type = datum.metadata.get(META_CONTENT_TYPE)
        if content_type is not None:
            found = self.mime_rates.get(clean_mime_type(content_type))
            if found is not None:
                return found
        return self.inc_rate, self.dec_rate


PLUGIN = PluginInfo(
    id="fetchschedule-adaptive",
    point="FetchSchedule",
    factory=AdaptiveFetchSchedule,
    description="Adaptive re-fetch interval (db.fetch.schedule.adaptive.*)",
    aliases=("org.apache.nutch.crawl.AdaptiveFetchSchedule", "AdaptiveFetchSchedule"),
)

MIME_PLUGIN = PluginInfo(
    id="fetchschedule-mimeadaptive",
    point="FetchSchedule",
    factory=MimeAdaptiveFetchSchedule,
    description="Adaptive re-fetch interval with per-MIME-type rates (db.fetch.schedule.mime.file)",
    aliases=("org.apache.nutch.crawl.MimeAdaptiveFetchSchedule", "MimeAdaptiveFetchSchedule"),
)
