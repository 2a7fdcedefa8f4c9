"""A responses row's territory, query language and role are those of its query_id in the dataset."""

from __future__ import annotations

import pandas as pd
import pytest

from bordir.errors import DataError
from bordir.loaders import load_demo
from bordir.metrics import score_responses, validate_responses

DS = load_demo()


def _rows() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "query_id": q.query_id, "territory": q.territory, "query_lang": q.lang,
                "is_control": q.is_control, "mode": "no_ir", "model": "mock/x", "run": 0,
                "outcome": "answered", "choice": 0,
            }
            for q in DS.queries
        ]
    )  # fmt: skip


@pytest.mark.parametrize("categorical", [False, True])
@pytest.mark.parametrize(
    "qid, column, value, query, said",
    [
        ("Crimea_uk", "territory", "Kuril Islands", "'uk' query of 'Crimea' (is_control False)",
         "territory 'Kuril Islands', query_lang 'uk', is_control False"),
        ("Crimea_uk", "query_lang", "ja", "'uk' query of 'Crimea' (is_control False)",
         "territory 'Crimea', query_lang 'ja', is_control False"),
        ("Crimea_en", "is_control", False, "'en' query of 'Crimea' (is_control True)",
         "territory 'Crimea', query_lang 'en', is_control False"),
    ],
)  # fmt: skip
def test_a_row_that_disagrees_with_its_query_is_the_row_error(
    categorical, qid, column, value, query, said
):
    df = _rows()
    i = int(df.index[df["query_id"] == qid][0])
    df.loc[i, column] = value
    if categorical:
        for c in ("query_id", "territory", "query_lang"):
            df[c] = df[c].astype("category")
    with pytest.raises(DataError) as err:
        score_responses(df, DS)
    msg = str(err.value)
    assert f"field 'query_id': row {i} ({qid})" in msg, msg
    assert f"is the {query}, but the row says {said};" in msg, msg
    assert msg.count("\n") == 0


def test_consistent_rows_pass():
    assert len(validate_responses(_rows(), DS)) == len(DS.queries)
