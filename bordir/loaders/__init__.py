"""Loaders for BorderLines-format datasets and BordIRLines retrieval results, and the dataset catalog.

:func:`~bordir.loaders.catalog.load_dataset` loads any dataset of the catalog
(:data:`~bordir.loaders.catalog.DATASETS`) by name; the loaders below it load one
source each.
"""

from __future__ import annotations

from .borderlines import load_borderlines
from .borderlines_files import load_borderlines_files
from .borderlines_hub import load_borderlines_hub
from .bordirlines import BordIRLines, load_bordirlines
from .catalog import DATASETS, DatasetEntry, get_dataset_entry, load_dataset
from .demo import demo_dir, load_demo, load_demo_corpus
from .nomiracl import NoMIRACL, load_nomiracl

__all__ = [
    "load_borderlines_files",
    "load_borderlines_hub",
    "load_bordirlines",
    "BordIRLines",
    "load_demo",
    "load_demo_corpus",
    "demo_dir",
    "load_borderlines",
    "load_nomiracl",
    "NoMIRACL",
    "DATASETS",
    "DatasetEntry",
    "get_dataset_entry",
    "load_dataset",
]
