"""The answer language of a rank-classification run (its answer is the chosen option's letter): classified
``n/a`` without loading a language detector (issue 25.7: before, "not computed" when langdetect was missing)."""

from __future__ import annotations

import pandas as pd


def test_answer_language_of_a_rank_classification_run_needs_no_detector(monkeypatch):
    from bordir.errors import MissingExtraError
    from bordir.langid import check
    from bordir.metrics.answer_lang import detect_answers

    def missing(*a, **k):
        raise MissingExtraError("langdetect", "audit", purpose="detecting languages")

    monkeypatch.setattr(check, "detect_many", missing)
    rows = pd.DataFrame(
        {
            "raw_text": ["A)", "B)"],
            "outcome": ["answered"] * 2,
            "query_lang": ["uk", "ru"],
            "option_logprobs": [[-0.1, -2.0], [-1.0, -0.2]],
        }  # fmt: skip
    )
    det = detect_answers(rows)  # before: "not computed" (the detector was loaded for nothing)
    assert (det["answer_lang_class"] == "n/a").all()
