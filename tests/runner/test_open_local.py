"""The open format with the real local model on the demo (slow tier): it generates free text, never ranks.

The local backend's rank-classification path scores options; an open request has none, so the model
generates a free answer (decided: generate, not refuse), which the resolver resolves; the forced twin
is ranked as a direct run is.
"""

from __future__ import annotations

import pandas as pd
import pytest

from bordir.experiment.config import ExperimentConfig
from bordir.generation.parse.free import FREE_OUTCOMES
from bordir.runner.run import run


@pytest.mark.slow
def test_open_run_of_the_demo_with_the_local_model(local_model, tmp_path):
    cfg = ExperimentConfig.from_dict(
        {"dataset": "demo", "corpus": "demo", "models": ["local/gemma-3-270m"], "modes": ["no_ir", "qlang"],
         "runs": 1, "limit": 2, "k": 1, "temperature": 0.0, "response_format": "open", "max_tokens": 16,
         "cache": str(tmp_path / "cache.sqlite3")}
    )  # fmt: skip
    run(cfg, out=tmp_path / "run", progress=False)
    free = pd.read_parquet(tmp_path / "run" / "responses.parquet")
    forced = pd.read_parquet(tmp_path / "run" / "forced" / "responses.parquet")
    assert len(free) == len(forced) > 0
    assert free["option_logprobs"].isna().all()  # generated, not ranked
    assert forced["option_logprobs"].notna().all()  # the twin is ranked, as a direct run
    assert (free["raw_text"].str.len() > 0).all()
    outcomes = set(free["outcome"]) - {"answered"}
    assert outcomes <= set(FREE_OUTCOMES) and "failed" not in outcomes
