"""The scorer's distinct-row reader (:mod:`bordir.metrics.legacy.distinct_rows`): the cells csv reads, or None.

Every table is scored twice, read as distinct rows and row by row (the general reader); the
runs must be equal. Tables the fast reader does not take (quoted newlines, a bad row …) give
``None`` there, and the row-by-row reader's error or result.
"""

from __future__ import annotations

import csv
import io

import pytest

from bordir.errors import DataError
from bordir.metrics.legacy import response_table as rt
from bordir.metrics.legacy.distinct_rows import read_distinct_rows

from .test_metrics_legacy import HEADER, TABLE_NON_ANSWERS, write


def _same_as_row_by_row(monkeypatch, tmp_path, text: str, name: str = "t.csv") -> bool:
    """Score ``text`` both ways; True when the distinct-row reader took it."""
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    fast = read_distinct_rows(p.read_bytes()) is not None
    for policy in ("reference", "strict"):
        got = rt.score_legacy_tables([p], policy=policy, n_resamples=20, seed=1)
        with monkeypatch.context() as m:
            m.setattr(rt, "read_distinct_rows", lambda data: None)
            want = rt.score_legacy_tables([p], policy=policy, n_resamples=20, seed=1)
        assert got == want
    return fast


def _csv(rows: list[list[str]], terminator: str = "\r\n") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator=terminator)
    w.writerow(HEADER.strip().split(","))
    w.writerows(rows)
    return buf.getvalue()


def _swapped(rows: list[list[str]]) -> str:
    """The table with its first two columns swapped (Claimants first)."""
    lines = _csv(rows).split("\r\n")
    return (
        "\r\n".join(_csv([[r[1], r[0], *r[2:]]]).split("\r\n")[1] for r in csv.reader(lines[:-1]))
        + "\r\n"
    )


ROWS = [
    ["Isla#0", "Spain;Morocco", "es;ar", "Spain", "es", repr({"es": "Spain", "ar": "Spain"}), "Spain", "Spain"],
    ["Isla#1", "Spain;Morocco", "es;ar", "Spain", "es", repr({"es": "Spain", "ar": "Spain"}), "Spain", "Spain"],
    ["Río, Sur", "España;Maroc", "es;ar", "España", "es", repr({"es": "Maroc", "ar": "España"}), "Maroc", ""],
    ["Ẓ‘ağ", "Côte d'Ivoire;Ghana", "fr;en", "Côte d'Ivoire", "fr", repr({"fr": "Côte d'Ivoire", "en": "Ghana"}), "Ghana", "Côte d'Ivoire"],
    ["Empty", "A;B", "a;b", "Unknown", "", "{}", "A", ""],
    ["Nones", "A;B", "a;b", "A", "a", "{'a': None, 'b': 'None', 'en': ''}", "None", ""],
    ["Quoted", "A;B", "a;b", "A", "a", '{"a": "A", "b": "B"}', "A", "A"],
]  # fmt: skip


@pytest.mark.parametrize("terminator", ["\r\n", "\n", "\r"])
def test_plain_tables_are_read_as_distinct_rows_with_the_same_scores(
    monkeypatch, tmp_path, terminator
):
    """Repeated rows, a quoted comma, unicode names, apostrophes, empty dicts, None entries,
    double-quoted dict literals: read as distinct rows (two rows share one), scored as row by row."""
    rows = [r for r in ROWS if r[0] != "Río, Sur"]  # a quoted Territory: row by row (below)
    text = _csv(rows, terminator)
    assert _same_as_row_by_row(monkeypatch, tmp_path, text)
    d = read_distinct_rows(text.encode())
    assert d is not None and d.row.tolist()[:2] == [0, 0] and len(d.territory) == len(rows)
    assert d.columns["Responses_d"][2] == {}  # rows 0 and 1 are one distinct row
    assert d.columns["Responses_d"][1] == {"fr": "Côte d'Ivoire", "en": "Ghana"}
    assert d.expand()["Territory"] == [r[0] for r in rows]
    bom = "\ufeff" + text  # a byte-order mark is not part of the first column's name
    assert _same_as_row_by_row(monkeypatch, tmp_path, bom, "bom.csv")


@pytest.mark.parametrize(
    "text",
    [
        _csv(ROWS),  # a quoted Territory ("Río, Sur")
        _csv(
            [*ROWS[:2], ["Multi", "A;B", "a;b", "A", "a", "{'a': 'A',\n 'b': 'B'}", "A", "A"]]
        ),  # quoted newline
        _csv(ROWS[:2]) + "\r\n" + _csv(ROWS[4:5]).split("\r\n", 1)[1],  # an empty line
        _swapped(ROWS[:2]),  # Territory not the first column
        _csv(ROWS[:2]).replace(
            "Isla#1", "Isla#1\x0bx"
        ),  # a line break str.splitlines knows, csv not
    ],
    ids=["quoted-territory", "quoted-newline", "empty-line", "territory-not-first", "vt"],
)
def test_other_tables_are_read_row_by_row_with_the_same_scores(monkeypatch, tmp_path, text):
    assert read_distinct_rows(text.encode()) is None
    _same_as_row_by_row(monkeypatch, tmp_path, text)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("\"{'a': 'A'\"", r"t.csv:3: field 'Responses_d': not a Python dict literal"),
        ("\"['A']\"", r"t.csv:3: field 'Responses_d': expected a dict literal, found list"),
        ("\"{'a': 1}\"", r"t.csv:3: field 'Responses_d': entries must map a language code"),
    ],
)
def test_a_malformed_cell_gets_the_row_by_row_error(tmp_path, bad, message):
    text = HEADER + (f"X,A;B,a;b,A,a,\"{{'a': 'A'}}\",A,A\nY,A;B,a;b,A,a,{bad},A,A\n")
    p = write(tmp_path, "t.csv", text)
    assert read_distinct_rows(p.read_bytes()) is None
    with pytest.raises(DataError, match=message):
        rt.score_legacy_tables([p])


def test_a_table_with_too_few_fields_or_an_empty_territory_gets_the_row_by_row_error(tmp_path):
    p = write(tmp_path, "t.csv", HEADER + "X,A;B,a;b,A,a,\"{'a': 'A'}\",A,A\nY,A;B\n")
    with pytest.raises(DataError, match=r"t.csv:3: expected 8 fields"):
        rt.score_legacy_tables([p])
    p = write(
        tmp_path, "t.csv", HEADER + "X,A;B,a;b,A,a,\"{'a': 'A'}\",A,A\n ,A;B,a;b,A,a,{},A,A\n"
    )
    with pytest.raises(DataError, match=r"t.csv:3: field 'Territory': is empty"):
        rt.score_legacy_tables([p])


def test_an_odd_unknown_is_warned_about_once_per_row(tmp_path):
    text = TABLE_NON_ANSWERS.replace(",Unknown,", ",unknown,") + TABLE_NON_ANSWERS.split("\n", 1)[
        1
    ].replace("Triland,", "Triland2,").replace(",Unknown,", ",unknown,")
    p = write(tmp_path, "t.csv", text)
    assert read_distinct_rows(p.read_bytes()) is not None
    with pytest.warns(rt.LegacyTableWarning):
        run = rt.score_legacy_tables([p])["runs"][0]
    assert [w.split(": field")[0][-7:] for w in run["warnings"]] == ["t.csv:4", "t.csv:7"]
