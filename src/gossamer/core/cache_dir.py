"""Where Gossamer keeps what it derives once and reuses across runs (models, token ids)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """Where derived models are kept: ``$XDG_CACHE_HOME/gossamer``, else ``~/.cache/gossamer``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gossamer"


__all__ = ["cache_root"]
