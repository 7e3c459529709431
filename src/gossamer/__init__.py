"""Gossamer: a polite, scalable web crawler, web graph and search engine (after Apache Nutch)."""

__version__ = "0.1.0"
