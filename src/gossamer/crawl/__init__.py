"""Crawl jobs: inject, readdb (and, in later issues, generate, fetch, parse, updatedb …)."""

from gossamer.crawl.inject import InjectOptions, InjectReport, inject
from gossamer.crawl.linkdb import LINKDB_SCHEMA, InvertReport, invert_links, merge_linkdbs, read_inlinks
from gossamer.crawl.seeds import SeedError, SeedLine, parse_seed_line

__all__ = [
    "LINKDB_SCHEMA",
    "InjectOptions",
    "InjectReport",
    "InvertReport",
    "SeedError",
    "SeedLine",
    "inject",
    "invert_links",
    "merge_linkdbs",
    "parse_seed_line",
    "read_inlinks",
]
