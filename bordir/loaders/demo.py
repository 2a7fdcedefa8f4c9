"""The demo dataset shipped inside bordir (``bordir/data/demo``).

About a dozen real, well-known territorial disputes in the BorderLines file
layout (so it loads through :func:`~bordir.loaders.load_borderlines_files`),
with an English control query and a query in every claimant language, plus a
corpus of short encyclopedic paragraphs per (territory, language) written for
the project — not Wikipedia text (see ``bordir/data/demo/README.md``).

Example:
    >>> ds = load_demo()
    >>> ds.name, len(ds.territories) >= 10
    ('demo', True)
    >>> ds.validate()
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from .._io.resources import package_data
from ..corpus.base import Corpus
from ..corpus.load import load_corpus
from ..dataset import BorderLines
from .borderlines_files import load_borderlines_files

__all__ = ["demo_dir", "load_demo", "load_demo_corpus"]


def demo_dir() -> Path:
    """Directory of the bundled demo dataset."""
    return package_data("data", "demo")


@lru_cache(maxsize=1)
def load_demo() -> BorderLines:
    """Load the bundled demo dataset (validated)."""
    ds = load_borderlines_files(demo_dir(), name="demo")
    ds.validate()
    return ds


def load_demo_corpus() -> Corpus:
    """Load the bundled demo corpus (read once; the same object as ``load_corpus("demo")``)."""
    return load_corpus("demo")
