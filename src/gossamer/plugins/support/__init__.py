"""Helpers of built-in plugins: Java regex and URL semantics, rule and config files, domain lists, link scope."""
