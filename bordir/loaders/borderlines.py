"""BorderLines from a directory or from the hub: :func:`load_borderlines`, the one entry point of both."""

from __future__ import annotations

from ..dataset import BorderLines
from .borderlines_files import load_borderlines_files
from .borderlines_hub import load_borderlines_hub

__all__ = ["load_borderlines"]


def load_borderlines(
    path: str | None = None, *, repair: bool = False, revision: str | None = None
) -> BorderLines:
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
