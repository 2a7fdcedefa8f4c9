"""docs/reproduce.md offers no command on a file that is not published (issue 51.10).

The BorderLines repository's ``all_results/<model>.csv`` are symbolic links to response tables
that were never committed; only the ``*_scores.json`` aggregates are real. The page keeps the
published numbers as targets, says so, and shows how a user who has such a table scores it.
"""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reproduce.md"


def test_no_command_runs_on_an_unpublished_response_table():
    text = PAGE.read_text(encoding="utf-8")
    assert not re.search(r"borderlines-table\s+all_results/\S+\.csv", text)
    assert "symbolic link" in text and "never committed" in text
    assert "_scores.json" in text


def test_the_published_targets_stay_and_a_users_table_is_scored():
    text = PAGE.read_text(encoding="utf-8")
    assert "| gpt4 | vanilla | 79.503 | 76.923 | 63.239 | 21.639 | 65.556 | 70.849 |" in text
    assert "$ bordir score borderlines-table my_response_table.csv" in text
