"""The report's per-language section: which languages each mode moves, with intervals and Holm-adjusted p.

:func:`perlang_report` computes, from the run's responses:

* every per-language measure (:mod:`bordir.metrics.perlang.items`) per model × mode
  × query language, mean over runs (``tables/perlang_measures.csv``);
* paired comparisons (:func:`bordir.metrics.perlang.compare.compare_items`)
  of every mode against ``no_ir`` and of ``rel_langs`` against ``qlang``, for
  the three directional measures (toward the controller, toward the query
  language's own claimant, toward the English answer), per query language and
  per resource level (``tables/perlang_comparisons.csv``);
* a forest plot per model (one row per language, point and 95 % interval,
  sorted by effect, languages with too few territories greyed) and a
  language × mode heatmap of every measure (:mod:`~bordir.report.perlang_plots`);
* a paragraph per model generated from those numbers: which languages move
  toward the controller, their own claimant or English under each mode, with
  the interval and the adjusted p, and which languages are too thin to judge.

It returns the JSON for ``metrics.json`` (key ``perlang``) and the HTML section.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .._io.json_write import jsonable
from ..experiment.rundir import RunDir
from ..metrics.intervals.paired_rule import MIN_INTERVAL_TERRITORIES
from ..metrics.perlang.compare import DEFAULT_MIN_TERRITORIES, compare_items
from ..metrics.perlang.items import language_measures, perlang_items
from ..metrics.perlang.measures import PERLANG_MEASURES, PERLANG_NAMES
from ..stats import resolve_seed
from .html import data_uri
from .sentences import power_phrase

__all__ = [
    "DIRECTIONAL",
    "PerLangReport",
    "comparison_pairs",
    "perlang_report",
    "finding_paragraph",
    "untested_sentence",
]

BASELINE = "no_ir"
DIRECTIONAL: Mapping[str, tuple[str, str]] = {
    "controller_agreement": ("toward the controller", "away from the controller"),
    "in_group_rate": ("toward their own claimant", "away from their own claimant"),
    "en_agreement": ("toward the English answer", "away from the English answer"),
}
"""The measures the section compares, and how a positive / negative difference reads."""


@dataclass(frozen=True)
class PerLangReport:
    """What the per-language section adds: JSON for ``metrics.json``, the HTML section, the files written."""

    json: dict[str, Any]
    html: str
    files: tuple[Path, ...]


def comparison_pairs(modes: Sequence[str]) -> list[tuple[str, str]]:
    """``(a, b)`` pairs compared (Δ = b − a): every mode from ``no_ir``, then from ``qlang`` to ``rel_langs``.

    >>> comparison_pairs(["no_ir", "qlang", "rel_langs", "swap_docs"])
    [('no_ir', 'qlang'), ('no_ir', 'rel_langs'), ('no_ir', 'swap_docs'), ('qlang', 'rel_langs')]
    """
    pairs = [(BASELINE, m) for m in modes if m != BASELINE and BASELINE in modes]
    if "rel_langs" in modes and "qlang" in modes:
        pairs.append(("qlang", "rel_langs"))
    return pairs


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def _cite(r: Mapping[str, Any]) -> str:
    ci = (
        "no interval below 30 territories"
        if r["ci_low"] != r["ci_low"]
        else f"95% CI [{_pts(r['ci_low'])}, {_pts(r['ci_high'])}]"
    )
    return (
        f"{r['group']} ({_pts(r['diff'])} points, {ci}, "
        f"Holm p = {r['p_holm']:.3g}, {r['n_territories']} territories)"
    )


def finding_paragraph(
    rows: pd.DataFrame, model: str, pairs: Sequence[tuple[str, str]], min_territories: int
) -> list[str]:
    """Sentences for one model from its per-language comparison rows (``by == 'query_lang'``).

    Every sentence is built from the numbers: for each pair of modes and each
    directional measure, the languages whose difference is significant after
    Holm, with the interval and adjusted p; then the languages too thin to judge.
    """
    out: list[str] = []
    thin_list: list[dict[str, int]] = []
    sub = rows[(rows["model"] == model) & (rows["by"] == "query_lang")]
    for a, b in pairs:
        pair = sub[(sub["a"] == a) & (sub["b"] == b)]
        if not len(pair):
            continue
        found, quiet = [], []
        n_judged = 0
        for metric, (up, down) in DIRECTIONAL.items():
            m = pair[pair["metric"] == metric]
            judged = m[m["status"] == "judged"]
            n_judged = max(n_judged, len(judged))
            sig = judged[judged["significant"]]
            pos = [
                _cite(r)
                for r in sig[sig["diff"] > 0]
                .sort_values("diff", ascending=False)
                .to_dict("records")
            ]
            neg = [_cite(r) for r in sig[sig["diff"] < 0].sort_values("diff").to_dict("records")]
            if pos:
                found.append(f"{up}: {'; '.join(pos)}")
            if neg:
                found.append(f"{down}: {'; '.join(neg)}")
            if not pos and not neg:
                quiet.append(f"{up.removeprefix('toward ')} ({_judged(len(judged))})")
        sentence = f"{b} compared with {a}: "
        ctl = pair[pair["metric"] == "controller_agreement"]
        if found:
            sentence += "answers move " + "; ".join(found) + "."
        elif n_judged:
            sentence += (
                f"no language's answers move detectably ({_judged(n_judged)}; "
                f"{power_phrase(ctl[ctl['status'] == 'judged'])})."
            )
        else:
            sentence += (
                "no language has enough territories to be judged ("
                f"{power_phrase(ctl[ctl['status'] != 'undefined'], tested=False)})."
            )
        if found and quiet:
            sentence += (
                " No language moves detectably toward or away from " + " or ".join(quiet) + "."
            )
        thin = pair[(pair["metric"] == "controller_agreement") & (pair["status"] != "judged")]
        thin_list.append(dict(zip(thin["group"], thin["n_territories"].astype(int))))
        out.append(sentence)
    why = (
        f"Too few territories to judge (fewer than {min_territories} with the controller agreement defined in "
        "both modes; count in brackets)"
    )

    def fmt(counts: Mapping[str, Sequence[int]]) -> str:
        return ", ".join(
            f"{g} ({min(n)}{'' if min(n) == max(n) else f'–{max(n)}'})" for g, n in counts.items()
        )

    if thin_list and all(
        set(t) == set(thin_list[0]) for t in thin_list
    ):  # same languages everywhere: say it once
        if thin_list[0]:
            merged = {g: [t[g] for t in thin_list] for g in thin_list[0]}
            out.append(f"{why}, in every comparison: {fmt(merged)}.")
    else:
        out = [
            f"{o} {why}: {fmt({g: [n] for g, n in t.items()})}." if t else o
            for o, t in zip(out, thin_list)
        ]
    return out


def untested_sentence(cmp: pd.DataFrame, min_territories: int) -> str | None:
    """One sentence when no query language of any comparison was tested (None when one was).

    >>> untested_sentence(pd.DataFrame({"by": ["query_lang"] * 2, "status": ["too few to judge"] * 2,
    ...                                 "group": ["ru", "uk"], "n_territories": [2, 5]}), 6)
    'No query language has enough paired territories to be tested: the 2 languages have 2–5 each, and the sign-flip test needs 6 to reach p < 0.05. The comparisons, untested, are folded below.'
    """
    if not len(cmp):
        return None
    sub = cmp[cmp["by"] == "query_lang"]
    if not len(sub) or (sub["status"] == "judged").any():
        return None
    n = sub.loc[sub["status"] != "undefined", "n_territories"].astype(int)
    lo, hi = (int(n.min()), int(n.max())) if len(n) else (0, 0)
    span = f"{lo}" if lo == hi else f"{lo}–{hi}"
    return (
        "No query language has enough paired territories to be tested: the "
        f"{sub['group'].nunique()} languages have {span} each, and the sign-flip test needs "
        f"{min_territories} to reach p < 0.05. The comparisons, untested, are folded below."
    )


def _judged(n: int) -> str:
    return f"{n} language{'' if n == 1 else 's'} judged"


def _mean_measures(measures: pd.DataFrame) -> pd.DataFrame:
    g = measures.groupby(["model", "mode", "query_lang", "metric"], sort=False)
    out = g.agg(
        mean=("value", "mean"),
        n_runs=("value", "count"),
        n_territories=("n_territories", "max"),
        items=("denominator", "sum"),
    ).reset_index()
    return out


def perlang_report(
    run: RunDir,
    out: Path,
    *,
    n_resamples: int,
    seed: int | None,
    min_territories: int = DEFAULT_MIN_TERRITORIES,
    draw: bool = True,
) -> PerLangReport:
    """Compute and write the per-language section (see the module docs); ``draw=False``: no plots."""
    from .perlang_plots import PERLANG_PLOTS, write_perlang_plots

    seed = resolve_seed(seed)
    policy = run.config.policy
    items = perlang_items(run.responses, run.dataset, policy=policy, validate=False)
    measures = language_measures(run.responses, run.dataset, policy=policy, items=items)
    means = _mean_measures(measures)
    modes = [m for m in run.modes if m in set(items["mode"])]
    pairs = comparison_pairs(modes)
    frames = []
    for by in ("query_lang", "resource"):
        for a, b in pairs:
            for metric in DIRECTIONAL:
                frames.append(
                    compare_items(
                        items,
                        run.dataset,
                        a,
                        b,
                        by=by,
                        metric=metric,
                        resamples=n_resamples,
                        seed=seed,
                        min_territories=min_territories,
                        policy=policy,
                    )
                )
    cmp = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    tables = out / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    files = [tables / "perlang_measures.csv", tables / "perlang_comparisons.csv"]
    measures.to_csv(files[0], index=False)
    cmp.to_csv(files[1], index=False)
    models = [m for m in run.models if m in set(items["model"])]
    plots = (
        write_perlang_plots(
            means,
            cmp,
            models,
            modes,
            pairs,
            out / "plots",
            measures=list(DIRECTIONAL),
            min_territories=min_territories,
            n_resamples=n_resamples,
            seed=seed,
        )
        if len(items) and draw
        else {}
    )
    paragraphs = {
        m: finding_paragraph(cmp, m, pairs, min_territories) if len(cmp) else [] for m in models
    }

    e = html.escape
    intro = (
        "<p>Which query languages' answers each mode moves, and in which direction: toward the controller "
        "(agreement with the controller), toward the query language's own claimant (in-group answer rate) "
        "or toward the English control answer (docs/metrics.md, per-language measures). Each difference is "
        "paired by territory, runs pooled per territory, with a sign-flip permutation p-value, "
        "(c + 1) / (n + 1), exact at any size and Holm-adjusted across the languages of that comparison, "
        "and, from "
        f"{MIN_INTERVAL_TERRITORIES} paired territories, a 95% paired cluster-bootstrap interval over the "
        f"language's territories ({n_resamples} resamples, seed {seed}; it under-covers below). The "
        f"{len(pairs)} × {len(DIRECTIONAL)} comparisons per model are not corrected against one another. "
        f"Languages with fewer than {min_territories} paired territories are not tested (the test cannot "
        "reach p < 0.05 there; grey in the plots). "
        "All numbers: <code>tables/perlang_comparisons.csv</code> (also per resource level) and "
        "<code>tables/perlang_measures.csv</code>.</p>"
    )
    untested = untested_sentence(cmp, min_territories)
    parts = ['<h2 id="per-language">Per-language comparisons</h2>']
    parts.append(f'<p class="untested">{e(untested)}</p>' if untested else intro)
    for model in models:
        parts.append(f'<h3 class="perlang-model">{e(model)}</h3>')
        body = [f'<p class="perlang-finding">{e(s)}</p>' for s in paragraphs[model]] or [
            "<p>No mode pair to compare (the run needs no_ir, or qlang and rel_langs).</p>"
        ]
        for name, (png, svg) in plots.items():
            if plots_model(name) != models.index(model):
                continue
            files += [png, svg]
            cap = PERLANG_PLOTS[name.split("_", 2)[1]].format(model=model)
            fig = (
                f'<figure id="plot-{e(name)}"><img src="{data_uri(Path(png).read_bytes(), "image/png")}" '
                f'alt="{e(cap)}"><figcaption>{e(cap)} (also plots/{e(Path(svg).name)}).</figcaption>'
                "</figure>"
            )
            # nothing tested: the heatmap of measured values stays, the untested forest is folded
            (parts if untested and "heatmap" in name else body).append(fig)
        body.append(comparison_rows(cmp, model))
        if untested:
            body[0:0] = [intro]
            parts.append(
                f'<details class="untested"><summary>The untested comparisons of {e(model)}: finding '
                "sentences, forest plot and rows</summary>" + "\n".join(body) + "</details>"
            )
        else:
            parts += body
    settings = {
        "pairs": [list(p) for p in pairs],
        "measures": list(DIRECTIONAL),
        "all_measures": list(PERLANG_NAMES),
        "labels": {k: v.label for k, v in PERLANG_MEASURES.items()},
        "min_territories": min_territories,
        "n_resamples": n_resamples,
        "seed": seed,
        "ci95": "paired cluster bootstrap over territories, given from "
        f"{MIN_INTERVAL_TERRITORIES} paired territories",
        "test": "two-sided sign-flip permutation test, p = (c + 1) / (n + 1)",
        "correction": "holm across the groups of each comparison",
        "power": "power_10 / power_20: the power the test had against a true difference of 10 / 20 "
        "points (judged: at alpha / m, Holm's first step; too few to judge: a test at alpha alone)",
    }
    doc = {
        "settings": settings,
        "measures": means.to_dict("records"),
        "comparisons": cmp.to_dict("records") if len(cmp) else [],
        "paragraphs": paragraphs,
    }
    return PerLangReport(jsonable(doc), "\n".join(parts), tuple(files))


def comparison_rows(cmp: pd.DataFrame, model: str) -> str:
    """The per-language comparison rows of ``model`` (by query language) as a collapsed table, each Δ linked to the samples it was computed from (:func:`~bordir.report.view_links.pl_link`)."""
    from .view_links import minuend, pl_link

    if not len(cmp):
        return ""
    sub = cmp[(cmp["model"] == model) & (cmp["by"] == "query_lang")]
    if not len(sub):
        return ""
    e = html.escape
    rows = []
    for r in sub.to_dict("records"):
        x, y = minuend(str(r["a"]), str(r["b"]), r["value_a"], r["value_b"], r["diff"])
        link = pl_link(model, str(r["metric"]), x, y, str(r["group"]), r["diff"])
        diff = "n/a" if r["diff"] != r["diff"] else _pts(float(r["diff"]))
        cell = f'<a href="{e(link)}">{diff}</a>' if link else diff
        va = "n/a" if r["value_a"] != r["value_a"] else f"{100 * r['value_a']:.1f}"
        vb = "n/a" if r["value_b"] != r["value_b"] else f"{100 * r['value_b']:.1f}"
        p10, p20 = r.get("power_10"), r.get("power_20")
        power = (
            ""
            if r.get("significant") or p10 is None or p10 != p10
            else f"{100 * p10:.0f} / {100 * p20:.0f}"
        )
        rows.append(
            f'<tr><td class="t">{e(str(r["b"]))} − {e(str(r["a"]))}</td><td class="t">{e(str(r["metric"]))}</td>'
            f'<td class="t">{e(str(r["group"]))}</td><td class="n">{va}</td><td class="n">{vb}</td>'
            f'<td class="n">{cell}</td><td class="n">{int(r["n_territories"])}</td>'
            f'<td class="t">{e(str(r["status"]))}</td><td class="n">{power}</td></tr>'
        )
    return (
        f'<details class="perlang-rows"><summary>Per-language comparison rows of {e(model)} ({len(rows)}; each Δ '
        "opens the samples it was computed from)</summary>"
        f'<table class="data" id="table-perlang-{e(model)}"><thead><tr><th class="t">Modes</th>'
        '<th class="t">Measure</th><th class="t">Query lang</th><th class="n">A</th><th class="n">B</th>'
        '<th class="n">Δ (points)</th><th class="n">Terr.</th><th class="t">Status</th>'
        '<th class="n" title="the power (%) the test had against a true difference of 10 / 20 points, '
        'shown where it is not significant">Power 10 / 20</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table></details>"
    )


def plots_model(name: str) -> int:
    """The model index a per-language plot file stem belongs to (``perlang_forest_0`` → 0)."""
    tail = name.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else -1
