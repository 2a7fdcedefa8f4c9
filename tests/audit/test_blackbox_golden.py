"""The black-box audit's tables on generated logs full of edge cases, against those of the previous implementation.

``tests/audit/data/blackbox_golden.json.gz`` holds every table, count and written file that the
record-by-record-in-Python implementation (before the black-box path became columns of integer
codes) gave on the logs of :mod:`tests.audit.blackbox_edge_logs`, read in blocks of 20 kB: the
columnar one must give the same, to the last digit.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from .blackbox_edge_logs import SCENARIOS, audit_tables

GOLDEN = Path(__file__).parent / "data" / "blackbox_golden.json.gz"


@pytest.fixture(scope="module")
def golden() -> dict:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as fh:
        return json.load(fh)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_tables_are_those_of_the_previous_implementation(name, golden, tmp_path):
    got = audit_tables(name, tmp_path)
    want = golden[name]
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == want[key], f"{name}: {key} differs"
