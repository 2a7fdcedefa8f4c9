"""The report's option-order section: position bias, pick rates by letter and country, order-debiased CS.

Present when the run asked its queries in more than one option order
(``option_orders``, column ``option_order`` in ``responses.parquet``; see
:mod:`bordir.metrics.order.rules`). Writes ``tables/position_bias.*``,
``tables/order_debiased.*``, ``tables/pick_rates_letter.csv``,
``tables/pick_rates_country.csv`` and ``plots/pick_rates.{png,svg}`` (pick rate
by letter and by country against the uniform rate, on the modes asked in every
order so that each option is shown equally often at each letter), and returns the JSON for
``metrics.json`` (key ``option_order``) and the HTML section. When the responses
carry content-free scores (``cf_logprobs``, rank classification; or a
``calibration.parquet``) the calibrated rule is added.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._io.json_write import jsonable
from ..citations.tables import ci_text, pct
from ..experiment.rundir import RESPONSES_FILE, RunDir
from ..metrics.registry import metric_label
from .html import data_uri
from .sentences import excess_sentence
from .tables import Table

__all__ = ["Section", "order_section", "CALIBRATION_FILE", "PICK_PLOT"]

CALIBRATION_FILE = "calibration.parquet"
PICK_PLOT = "pick_rates"
SHOWN = ("kb_cs", "cst_cs", "delta_cs")


@dataclass(frozen=True)
class Section:
    """A report section: JSON for ``metrics.json``, its HTML, and the files it wrote."""

    json: dict[str, Any]
    html: str
    files: tuple[Path, ...] = ()


def figure_html(html_id: str, png: Path, caption: str) -> str:
    """A report ``<figure>``: the PNG inlined, its caption naming the SVG beside it."""
    e = html.escape
    return (
        f'<figure id="plot-{e(html_id)}"><img src="{data_uri(png.read_bytes(), "image/png")}" alt="{e(caption)}">'
        f"<figcaption>{e(caption)} (also plots/{e(png.stem)}.svg).</figcaption></figure>"
    )


def _plot(letters: pd.DataFrame, countries: pd.DataFrame, out: Path) -> tuple[Path, Path]:
    from .._plotstyle import PLOT_RC
    from .plots import load_matplotlib, save_figure

    mpl = load_matplotlib()
    models = list(dict.fromkeys(letters["model"]))
    with mpl.rc_context(PLOT_RC):
        n_c = max(countries.groupby("model").size().max() if len(countries) else 1, 1)
        fig = mpl.figure.Figure(figsize=(4 + 0.28 * n_c, 2.9 * len(models)), layout="constrained")
        axes = np.atleast_2d(
            fig.subplots(len(models), 2, width_ratios=[1, max(n_c / 4, 1.5)], squeeze=False)
        )
        for row, model in zip(axes, models):
            lt = letters[letters["model"] == model]
            row[0].bar(lt["letter"], lt["rate"], color="#4c72b0", label="picked")
            row[0].scatter(
                lt["letter"],
                lt["uniform"],
                color="#d0443e",
                marker="_",
                s=400,
                zorder=3,
                label="uniform",
            )
            row[0].set_ylim(0, 1)
            row[0].set_title(f"{model}:\npick rate by letter", fontsize=9)
            row[0].legend(fontsize=7, frameon=False)
            ct = countries[countries["model"] == model]
            x = np.arange(len(ct))
            row[1].bar(x, ct["rate"], color="#4c9a5b")
            row[1].scatter(x, ct["uniform"], color="#d0443e", marker="_", s=120, zorder=3)
            row[1].set_xticks(x, ct["country"], rotation=60, ha="right", fontsize=7)
            row[1].set_ylim(0, 1)
            row[1].set_title(
                f"{model}: pick rate by country when offered (red: uniform 1/n)", fontsize=9
            )
        out.mkdir(parents=True, exist_ok=True)
        return save_figure(fig, out, PICK_PLOT)


def _bias_rows(table: pd.DataFrame, mode: str | None) -> list[tuple[str, ...]]:
    """The position-bias table's rows of ``table``: ``mode`` names the modes (None: each row's own)."""
    return [
        (
            str(r.model),
            str(r.mode) if mode is None else mode,
            str(r.n_queries),
            str(r.n_changed),
            pct(r.rate),
            ci_text(r.low, r.high),
        )
        for r in table.itertuples()
    ]


def order_section(
    run: RunDir, out: Path, *, n_resamples: int, seed: int | None, draw: bool = True
) -> Section | None:
    """The option-order section, or None when the run used the given order only."""
    from ..metrics.order.bias import (
        argmax_responses,
        country_pick_rates,
        letter_pick_rates,
        position_bias,
        position_bias_excess,
        seed_change_rate,
    )
    from ..metrics.order.rules import has_calibration, multi_order, order_metrics

    resp = pd.read_parquet(run.path / RESPONSES_FILE)
    if "option_order" not in resp.columns or resp["option_order"].nunique() < 2:
        return None
    resp = resp[resp["model"].isin(run.models)]
    calib = (
        pd.read_parquet(run.path / CALIBRATION_FILE)
        if (run.path / CALIBRATION_FILE).is_file()
        else None
    )
    ds = run.dataset
    bias = position_bias(resp, n_resamples=n_resamples, seed=seed)
    bias_model = position_bias(resp, by=("model",), n_resamples=n_resamples, seed=seed)
    scored = "option_logprobs" in resp.columns and resp["option_logprobs"].notna().any()
    bias_t0 = (
        position_bias(argmax_responses(resp), by=("model",), n_resamples=n_resamples, seed=seed)
        if scored
        else bias_model.iloc[0:0]
    )
    noise = seed_change_rate(multi_order(resp), by=("model",))
    temperature = float(run.config.temperature)
    # the order's own effect, net of re-sampling: from the option scores' argmax where the backend gives
    # them, at temperature 0 from the answers, else reorder changes minus same-order changes (runs)
    excess = (
        position_bias_excess(
            argmax_responses(resp), deterministic=True, n_resamples=n_resamples, seed=seed
        ).assign(source="argmax of option scores")
        if scored
        else position_bias_excess(
            resp, deterministic=temperature == 0, n_resamples=n_resamples, seed=seed
        ).assign(source=f"answers at temperature {temperature:g}")
    )
    balanced = multi_order(
        resp
    )  # the modes asked in every order: each option shown equally often at each letter
    letters = letter_pick_rates(balanced, ds)
    countries = country_pick_rates(balanced, ds)
    order_modes = ", ".join(dict.fromkeys(balanced["mode"]))
    calibrated = calib is not None or has_calibration(resp)
    rules = ("given", "stable", "averaged", *(("calibrated",) if calibrated else ()))
    om = order_metrics(
        resp, ds, rules=rules, calibration=calib, temperature=float(run.config.temperature)
    )
    files: list[Path] = []

    rows = [
        *_bias_rows(bias_model, "all modes"),
        *_bias_rows(bias_t0, "all modes, argmax (T = 0)"),
        *_bias_rows(bias, None),
    ]
    orders = bias_model["orders"].iloc[0] if len(bias_model) else ""
    ref = "; ".join(
        f"{r.model}: {pct(r.rate)} of {r.n_pairs} pairs" for r in noise.itertuples() if r.n_pairs
    )
    t_bias = Table(
        "position_bias",
        f"Position-bias rate ×100: share of queries (× run) answered in ≥ 2 option orders "
        f"({orders}) whose picked country changes with the order; 95% cluster bootstrap over "
        f"territories ({n_resamples} resamples). Argmax (T = 0): the same on the option scores of rank "
        f"classification, without sampling. Reference, the country changing between two runs in one "
        f"order (sampling alone): {ref or 'n/a (one run)'}.",
        ("Model", "Mode", "Queries", "Changed", "Rate", "95% CI"),
        tuple(rows),
        pd.concat(
            [bias_model.assign(mode="*"), bias_t0.assign(mode="*", choice="argmax"), bias],
            ignore_index=True,
        ),
    )
    shown = om[
        om["metric"].isin(SHOWN) & om["mode"].isin(set(balanced["mode"]))
    ]  # modes asked in every order
    wide = shown.pivot_table(
        index=["model", "mode", "metric"],
        columns="rule",
        values="value",
        aggfunc="first",
        dropna=False,
    )
    drows = []
    for (model, mode, metric), r in wide.iterrows():
        drows.append(
            (str(model), str(mode), metric_label(metric), *(pct(r.get(rule)) for rule in rules))
        )
    t_deb = Table(
        "order_debiased",
        f"CS ×100 under each order rule in the modes asked in every order ({order_modes}; "
        "all modes in metrics.json; mean over runs, strict policy): given = the "
        "dataset's order, as the papers; stable = a query counts only if its country is the same in every "
        "order; averaged = each answer is its distribution of picks over the orders"
        + (
            "; calibrated = rank-classification scores minus content-free scores (cf:na-noir): exact "
            "for an additive letter bias, but a mixture habit (letter A with probability π whatever "
            "the content) is removed only at temperature 0"
            + (
                f"; at temperature {temperature:g} about half of its effect on CS remains "
                "(50–70 % at π = 0.2–0.6 on KB / Control / Non-control CS at 0.7; docs/methodology.md)"
                if temperature > 0
                else ""
            )
            if calibrated
            else ""
        )
        + ". See docs/methodology.md.",
        ("Model", "Mode", "Metric", *rules),
        tuple(drows),
        om.drop(columns=["runs"]),
        left=3,
    )
    for t in (t_bias, t_deb):
        files += t.write(out / "tables")
    for name, df in (("pick_rates_letter", letters), ("pick_rates_country", countries)):
        p = out / "tables" / f"{name}.csv"
        df.to_csv(p, index=False)
        files.append(p)
    png: Path | None = None
    if draw:
        png, svg = _plot(letters, countries, out / "plots")
        files += [png, svg]
    e = html.escape
    lead = "".join(f"<p>{e(excess_sentence(r))}</p>" for r in excess.to_dict(orient="records"))
    parts = [
        '<h2 id="option-order">Option order</h2>',
        lead,
        "<p>Each query was asked with its options in several orders (letters and names moved together). "
        "A model that reads the question and answers deterministically picks the same country in every "
        "order. When answers are sampled (temperature > 0) they also change between two runs in one "
        "order, so the rate of change with the order is compared with that re-sampling rate, paired by "
        "query: only the excess is the order's effect.</p>",
        t_bias.to_html(),
        t_deb.to_html(),
    ]
    if png is not None:
        parts.append(
            figure_html(
                PICK_PLOT,
                png,
                f"Pick rate by letter and by country (every order and run of the modes asked "
                f"in several orders: {order_modes}) against the uniform rate",
            )
        )
    js = {
        "orders": orders,
        "position_bias": jsonable(
            pd.concat([bias_model.assign(mode="*"), bias]).to_dict(orient="records")
        ),
        "position_bias_argmax": jsonable(bias_t0.to_dict(orient="records")),
        "position_bias_excess": jsonable(excess.to_dict(orient="records")),
        "temperature": temperature,
        "seed_change": jsonable(noise.to_dict(orient="records")),
        "pick_rates_letter": jsonable(letters.to_dict(orient="records")),
        "order_metrics": jsonable(om.to_dict(orient="records")),
        "calibration": "cf:na-noir" if calibrated else None,
    }
    return Section({"option_order": js}, "\n".join(parts), tuple(files))
