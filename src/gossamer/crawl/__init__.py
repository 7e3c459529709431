"""Crawl jobs: inject, readdb (and, in later issues, generate, fetch, parse, updatedb …)."""

from gossamer.crawl.inject import InjectOptions, InjectReport, inject
from gossamer.crawl.seeds import SeedError, SeedLine, parse_seed_line

__all__ = ["InjectOptions", "InjectReport", "SeedError", "SeedLine", "inject", "parse_seed_line"]
