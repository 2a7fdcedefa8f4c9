"""A rank-classification model with a known letter bias: what the calibrated rule recovers.

:func:`letter_bias_responses` writes the responses table a rank-classification
run would leave (``option_logprobs``, ``cf_logprobs``, ``seed``, ``choice``),
given-order only, for a model whose option scores are

    lp(i) = c(i) + β(position of i) − log Z

``c`` is the **content**: the controller's option gets ``+μ_t + ε_q`` (one draw
``μ_t ~ N(content, 0.5)`` per territory, shared by its languages, and
``ε_q ~ N(0, 0.5)`` per query), every other option 0; ``β`` is the **letter bias**: ``letter_bias`` nats on letter A, 0
elsewhere. The content-free scores are ``β`` plus option-wise noise
``N(0, cf_noise)`` (the "N/A" query measures the bias, imperfectly), normalised.
Each run draws its choice with :func:`bordir.generation.choice.choose_option` at
``temperature`` and its own seed, as the runner does.
:func:`content_only_responses` is the same model without ``β``: its CS is what
the calibrated rule (``lp − lp_cf``, :func:`~bordir.metrics.order.rules.calibrated_responses`)
should recover, and what the given order (the papers' reading) misses.
``benchmarks/recovery_variance_order.py`` measures the recovery;
``tests/metrics/test_orders_metrics.py`` runs a small version.

:func:`resampled_orders` rewrites the answers of a run asked in several option orders with a
model that samples from content logits at a temperature, optionally with a **mixture letter
habit** (with probability ``habit`` it answers letter A whatever the content): with ``habit=0``
it has no position bias at all, yet its answers change with the order as often as between two
runs (``tests/report/test_order_noise.py`` runs it through the report;
``benchmarks/position_bias_noise.py`` measures how often a finding is stated).

Example:
    >>> from bordir.loaders import load_demo
    >>> r = letter_bias_responses(load_demo(), np.random.default_rng(0), runs=2)
    >>> sorted(set(r["option_order"])), len(r["option_logprobs"].iloc[0]) == len(r["cf_logprobs"].iloc[0])
    (['given'], True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from bordir.generation.choice import choose_option

if TYPE_CHECKING:  # pragma: no cover
    from bordir.dataset import BorderLines

__all__ = [
    "letter_bias_responses",
    "content_only_responses",
    "mixture_habit_responses",
    "resampled_orders",
]


def _log_softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max()
    return cast("np.ndarray", z - np.log(np.exp(z).sum()))


def _row(
    q: Any, model: str, run: int, seed: int, choice: int, lp: np.ndarray, cf: np.ndarray
) -> dict[str, Any]:
    """One given-order, answered response row of a simulated rank-classification model."""
    return {
        "query_id": q.query_id,
        "territory": q.territory,
        "query_lang": q.lang,
        "is_control": q.is_control,
        "mode": "no_ir",
        "model": model,
        "run": run,
        "seed": seed,
        "outcome": "answered",
        "choice": choice,
        "option_order": "given",
        "option_logprobs": lp.tolist(),
        "cf_logprobs": cf.tolist(),
    }


def letter_bias_responses(
    dataset: BorderLines,
    rng: np.random.Generator,
    *,
    runs: int = 10,
    letter_bias: float = 2.0,
    content: float = 1.0,
    temperature: float = 0.7,
    cf_noise: float = 0.0,
    model: str = "sim/letter-bias",
) -> pd.DataFrame:
    """Given-order responses of the model of the module docs, ``runs`` runs (seeds 0 … runs − 1)."""
    mu = {t.name: rng.normal(content, 0.5) for t in dataset.territories}
    rows = []
    for q in dataset.queries:
        t = dataset.territory(q.territory)
        n = len(q.options)
        c = np.zeros(n)
        eps = rng.normal(0.0, 0.5)
        if t.controller in t.claimants:
            c[t.claimants.index(t.controller)] = mu[t.name] + eps
        beta = np.zeros(n)
        beta[0] = letter_bias
        lp = _log_softmax(c + beta)
        cf = (
            _log_softmax(beta + rng.normal(0.0, cf_noise, size=n))
            if cf_noise > 0
            else _log_softmax(beta)
        )
        for run in range(runs):
            rows.append(
                _row(q, model, run, run, choose_option(lp.tolist(), temperature, run), lp, cf)
            )
    return pd.DataFrame(rows)


def content_only_responses(
    dataset: BorderLines,
    rng: np.random.Generator,
    **kwargs: float | int | str,
) -> pd.DataFrame:
    """:func:`letter_bias_responses` of the same model (same ``rng`` state) without its letter bias."""
    return letter_bias_responses(dataset, rng, **{**kwargs, "letter_bias": 0.0})  # type: ignore[arg-type]


def mixture_habit_responses(
    dataset: BorderLines,
    rng: np.random.Generator,
    *,
    runs: int = 10,
    habit: float = 0.4,
    content: float = 1.0,
    temperature: float = 0.7,
    model: str = "sim/mixture-habit",
) -> pd.DataFrame:
    """Given-order responses of a model with a **mixture** letter habit.

    With probability ``habit`` it answers A whatever the content, else it samples the content
    logits at ``temperature``. Its option scores are those of the mixture, ``log(habit·[i = A] + (1 − habit)·softmax(c)ᵢ)``, and
    its content-free scores those of the same mixture without content,
    ``log(habit·[i = A] + (1 − habit)/n)``: what the calibrated rule is given.
    """
    mu = {t.name: rng.normal(content, 0.5) for t in dataset.territories}
    rows = []
    for q in dataset.queries:
        t = dataset.territory(q.territory)
        n = len(q.options)
        c = np.zeros(n)
        if t.controller in t.claimants:
            c[t.claimants.index(t.controller)] = mu[t.name] + rng.normal(0.0, 0.5)
        a = np.zeros(n)
        a[0] = 1.0
        lp = np.log(habit * a + (1 - habit) * np.exp(_log_softmax(c)))
        cf = np.log(habit * a + (1 - habit) / n)
        for run in range(runs):
            seed = int(rng.integers(2**31))
            k = (
                0
                if rng.random() < habit
                else choose_option(_log_softmax(c).tolist(), temperature, seed)
            )
            rows.append(_row(q, model, run, seed, int(k), lp, cf))
    return pd.DataFrame(rows)


def resampled_orders(
    responses: pd.DataFrame,
    dataset: BorderLines,
    rng: np.random.Generator,
    *,
    temperature: float = 0.7,
    habit: float = 0.0,
    content: float = 1.0,
) -> pd.DataFrame:
    """``responses`` (any option orders) answered again by the content model of the module docs.

    Each (query, run, order) draws its choice from the content logits at ``temperature`` with its
    own seed; with probability ``habit`` it answers letter A instead. ``choice``, ``choice_name``,
    ``choice_position``, ``raw_text`` and ``outcome`` are rewritten; option scores are dropped.
    """
    from bordir.option_orders import OptionOrder

    mu = {t.name: rng.normal(content, 0.5) for t in dataset.territories}
    eps = {q.query_id: rng.normal(0.0, 0.5) for q in dataset.queries}
    df = responses.copy()
    orders = (
        df["option_order"].where(df["option_order"].notna(), "given").astype(str)
        if "option_order" in df.columns
        else pd.Series("given", index=df.index)
    )
    choice, names, pos, text = [], [], [], []
    for qid, order in zip(df["query_id"], orders):
        q = dataset.query(qid)
        t = dataset.territory(q.territory)
        n = len(t.claimants)
        c = np.zeros(n)
        if t.controller in t.claimants:
            c[t.claimants.index(t.controller)] = mu[t.name] + eps[qid]
        perm = OptionOrder.parse(order, n).perm
        if habit > 0 and rng.random() < habit:
            k = perm[0]
        else:
            k = choose_option(_log_softmax(c).tolist(), temperature, int(rng.integers(2**31)))
        choice.append(int(k))
        names.append(t.claimants[k])
        pos.append(perm.index(k))
        text.append(f"{chr(65 + perm.index(k))}) {q.options[k] if k < len(q.options) else ''}")
    df["choice"], df["choice_name"], df["choice_position"] = choice, names, pos
    df["raw_text"], df["outcome"] = text, "answered"
    if "option_logprobs" in df.columns:
        df["option_logprobs"] = None
    if "cf_logprobs" in df.columns:
        df["cf_logprobs"] = None
    return df
