"""Helpers shared by built-in plugins: Java regex translation, configuration file lookup."""
