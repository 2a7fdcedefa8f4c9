"""``read_responses``: a responses Parquet file with its string columns as categoricals, scored as the
strings are; and categorical columns coded from their categories (unused, unsorted, non-string)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bordir.errors import DataError
from bordir.loaders import load_demo
from bordir.metrics import read_responses, score_responses, territory_tables
from bordir.metrics.codes import KEY_COLUMNS, response_codes
from bordir.metrics.responses import STRING_COLUMNS

DS = load_demo()


def _responses(runs: int = 3, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for mode in ("no_ir", "qlang", "en_only"):
        for run in range(runs):
            for q in DS.queries:
                answered = rng.random() < 0.85
                outcome = "answered" if answered else str(rng.choice(["refused", "unparsed"]))
                choice = int(rng.integers(len(q.claimants))) if answered else -1
                rows.append(
                    {
                        "query_id": q.query_id, "territory": q.territory, "query_lang": q.lang,
                        "is_control": q.is_control, "mode": mode, "model": "mock/x", "run": run,
                        "outcome": outcome, "choice": choice, "raw_text": f"answer {choice}",
                    }
                )  # fmt: skip
    return pd.DataFrame(rows)


def _same_scores(a: pd.DataFrame, b: pd.DataFrame) -> None:
    for policy in ("strict", "reference"):
        pd.testing.assert_frame_equal(
            score_responses(a, DS, policy=policy),
            score_responses(b, DS, policy=policy),
            check_exact=True,
        )


def test_read_responses_is_the_file_with_categorical_strings(tmp_path):
    df = _responses()
    path = tmp_path / "responses.parquet"
    df.to_parquet(path, index=False)
    got = read_responses(path)
    assert list(got.columns) == list(df.columns)
    for c in STRING_COLUMNS:
        assert isinstance(got[c].dtype, pd.CategoricalDtype), c
        assert got[c].astype(str).tolist() == df[c].tolist()
    assert got["raw_text"].tolist() == df["raw_text"].tolist()  # other columns as pandas reads them
    _same_scores(got, df)
    _same_scores(got, pd.read_parquet(path))
    only = read_responses(path, columns=["query_id", "territory", "query_lang", "is_control",
                                         "mode", "model", "run", "outcome", "choice"])  # fmt: skip
    assert "raw_text" not in only.columns
    _same_scores(only, df)


def test_categorical_codes_leave_out_unused_categories_and_sort_the_rest():
    df = _responses()
    cat = df.copy()
    for c in STRING_COLUMNS:
        values = sorted(set(df[c]), reverse=True)  # categories in reverse order
        cat[c] = pd.Categorical(df[c], categories=[*values, "zz-unused", "Atlantis"])
    a, b = response_codes(df), response_codes(cat)
    for c in (c for c in KEY_COLUMNS if c != "run"):
        assert b.uniques[c].tolist() == a.uniques[c].tolist(), c
        np.testing.assert_array_equal(b.codes[c], a.codes[c])
    _same_scores(cat, df)
    # a filtered table keeps every category: the absent modes and territories are not scored
    part = cat[(cat["mode"] == "qlang") & (cat["territory"] != DS.territories[0].name)]
    _same_scores(part, df[(df["mode"] == "qlang") & (df["territory"] != DS.territories[0].name)])
    assert set(score_responses(part, DS)["mode"]) == {"qlang"}
    tables = territory_tables(part, DS)
    assert all(DS.territories[0].name not in t.table["territory"].tolist() for t in tables.values())


def test_categoricals_that_are_not_strings_are_read_as_strings():
    df = _responses(runs=2)
    odd = df.copy()
    odd["model"] = pd.Categorical(np.zeros(len(df), dtype=int))  # a model named 0
    plain = df.assign(model="0")
    _same_scores(odd, plain)


def test_a_missing_value_in_a_categorical_column_is_the_row_error():
    df = _responses(runs=1)
    df["mode"] = pd.Categorical(df["mode"])
    df.loc[5, "mode"] = np.nan
    with pytest.raises(DataError, match=r"field 'mode': row 5 .*mode is empty"):
        score_responses(df, DS)


def test_an_unknown_territory_in_a_categorical_is_the_row_error():
    df = _responses(runs=1)
    df["territory"] = pd.Categorical(df["territory"].where(df.index != 7, "Atlantis"))
    with pytest.raises(DataError, match=r"row 7 .*Atlantis"):
        score_responses(df, DS)


def test_read_responses_errors_name_the_file_and_the_fix(tmp_path):
    with pytest.raises(DataError, match=r"nope\.parquet.*file not found"):
        read_responses(tmp_path / "nope.parquet")
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.parquet.*not a readable Parquet file"):
        read_responses(bad)
    short = tmp_path / "short.parquet"
    _responses(runs=1).drop(columns=["outcome", "choice"]).to_parquet(short)
    with pytest.raises(
        DataError, match=r"short\.parquet.*no column outcome, choice; a responses table needs"
    ):
        read_responses(short)
    full = tmp_path / "full.parquet"
    _responses(runs=1).to_parquet(full)
    with pytest.raises(DataError, match=r"no column prompt; the file has query_id"):
        read_responses(full, columns=["query_id", "prompt"])
