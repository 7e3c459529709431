"""robots.txt with Nutch's semantics.

* :mod:`.parser` — robots.txt text → rules for one crawler (crawler-commons / RFC 9309);
* :mod:`.rules` — :class:`RobotRules`, HTTP-status meaning, crawl-delay (:class:`RobotsPolicy`);
* :mod:`.fetching` — fetching robots.txt through the Protocol plugins, and caching it.
"""

from gossamer.crawl.robots.fetching import RobotsCache, fetch_robots, fetch_robots_txt, robots_protocol
from gossamer.crawl.robots.rules import (
    RobotRules,
    RobotsPolicy,
    allow_all,
    effective_delay,
    parse_robots,
    rules_for_response,
)

__all__ = [
    "RobotRules",
    "RobotsCache",
    "RobotsPolicy",
    "allow_all",
    "effective_delay",
    "fetch_robots",
    "fetch_robots_txt",
    "parse_robots",
    "robots_protocol",
    "rules_for_response",
]
