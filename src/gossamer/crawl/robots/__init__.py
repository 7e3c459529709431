"""robots.txt with Nutch's semantics.

* :mod:`.parser` — robots.txt text → rules for one crawler (crawler-commons / RFC 9309);
* :mod:`.rules` — :class:`RobotRules`, HTTP-status meaning, crawl-delay (:class:`RobotsPolicy`);
* :mod:`.fetching` — fetching and caching robots.txt.
"""

from gossamer.crawl.robots.fetching import RobotsCache, fetch_robots, fetch_robots_txt
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
    "rules_for_response",
]
