"""Helpers of built-in plugins: Java regex and URL semantics, rule and config files, domain lists, link scope.

Public face for the crawl: :class:`LinkScope` (which outlinks and redirects stay in scope,
``db.ignore.*``), :func:`is_exempted` and :func:`link_origin`; for the parse job's worker
process (:mod:`.parse_worker`), :func:`read_frame` and :func:`write_frame`.
"""

from gossamer.plugins.support.linkscope import LinkScope, is_exempted, link_origin
from gossamer.plugins.support.parse_worker import read_frame, write_frame

__all__ = ["LinkScope", "is_exempted", "link_origin", "read_frame", "write_frame"]
