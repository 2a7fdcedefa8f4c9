"""Loaders for BorderLines-format datasets and BordIRLines retrieval results."""

from __future__ import annotations

from .borderlines_files import load_borderlines_files
from .borderlines_hub import load_borderlines_hub
from .bordirlines import BordIRLines, load_bordirlines
from .demo import demo_dir, load_demo, load_demo_corpus

__all__ = [
    "load_borderlines_files",
    "load_borderlines_hub",
    "load_bordirlines",
    "BordIRLines",
    "load_demo",
    "load_demo_corpus",
    "demo_dir",
    "load_borderlines",
]


def load_borderlines(path: str | None = None, *, repair: bool = False, revision: str | None = None):
    """Load BorderLines from a directory (``path``) or, without one, from the hub.

    Example:
        >>> import os
        >>> ds = load_borderlines("../shared/data/borderlines") if os.path.isdir("../shared/data/borderlines") else None
        >>> ds is None or len(ds.queries) == 720
        True
    """
    if path is not None:
        return load_borderlines_files(path, repair=repair)
    return load_borderlines_hub(repair=repair, revision=revision)
