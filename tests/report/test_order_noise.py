"""Position bias vs re-sampling noise, through the real report path (issue 50, item 1).

A run on the demo dataset, asked in the given and the reversed order, 3 runs at temperature 0.7,
whose answers are then those of a model with **no letter habit at all** (content logits sampled
at 0.7, :func:`benchmarks.simulate.orders.resampled_orders`): its answers change with the
order about as often as between two runs in one order. The report's summary must not state a
position bias (nor a favoured letter) as a finding; it says both rates instead. A model with a
strong mixture habit (answers A in 70 % of calls) must be found.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ..rundirs import rerecord

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    import bordir

    out = tmp_path_factory.mktemp("noise") / "run"
    cfg = {"models": ["mock/first"], "modes": ["no_ir"], "runs": 3, "k": 2,
           "option_orders": "reversed", "temperature": 0.7}  # fmt: skip
    bordir.run(cfg, cache=out.parent / "c.sqlite3", out=out, progress=False)
    return out


def _report(run_dir, tmp_path, *, habit: float, seed: int):
    import shutil

    from benchmarks.simulate.orders import resampled_orders
    from bordir.loaders import load_demo
    from bordir.report import build_report

    d = tmp_path / f"run-{habit}-{seed}"
    shutil.copytree(run_dir, d)
    df = pd.read_parquet(d / "responses.parquet")
    resampled_orders(df, load_demo(), np.random.default_rng(seed), habit=habit).to_parquet(
        d / "responses.parquet"
    )
    rerecord(d)  # the answers were replaced on purpose
    build_report(d, n_resamples=200, seed=seed)
    return json.loads((d / "metrics.json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_model_without_a_letter_habit_has_no_position_bias_finding(run_dir, tmp_path, seed):
    m = _report(run_dir, tmp_path, habit=0.0, seed=seed)
    s = m["summary"]
    assert not any("osition bias" in f or "picks option" in f for f in s["findings"]), s["findings"]
    quiet = [c for c in s["cannot_judge"] if "Position bias" in c]
    assert quiet and "between two runs in one order" in quiet[0]
    assert "0 = reads the question" not in json.dumps(s)
    ex = m["option_order"]["position_bias_excess"][0]
    assert ex["basis"] == "resample" and ex["resample"] > 0.1 and not ex["significant"]


@pytest.mark.slow
def test_a_strong_letter_habit_is_found(run_dir, tmp_path):
    m = _report(run_dir, tmp_path, habit=0.7, seed=4)
    found = [f for f in m["summary"]["findings"] if "Position bias" in f]
    assert found and "the excess, the order's own effect" in found[0]
