"""``bordir score``: concurrence scores from responses."""

from __future__ import annotations

from functools import partial
from typing import Any

import click

from .._io.percent import pct
from . import _decorators as opt
from ._output import echo_json, echo_lines, echo_table, split_line

_pct = partial(pct, digits=3, missing="-")  # CS values as BorderLines' scorer prints them
_pct1 = partial(pct, missing="-")  # rates of free answers


def _ci_variants() -> tuple[str, ...]:
    from ..metrics.intervals.runs import CI_VARIANTS

    return CI_VARIANTS


def _policies() -> tuple[str, ...]:
    from ..policies import PARSE_POLICIES

    return PARSE_POLICIES.names()


def _labels() -> dict[str, str]:
    """Every CS metric of the metric registry (a plugin's too) with its paper label, in reporting order."""
    from ..metrics.registry import cs_metric_names, metric_label

    return {m: metric_label(m, "paper_label") for m in cs_metric_names()}


@click.group("score")
def score_group() -> None:
    """Score responses (BorderLines / BordIRLines concurrence scores)."""


def _rc(mean: float | None, sd: float | None) -> str:
    return "-" if mean is None else f"{mean:.3f} ({'-' if sd is None else f'{sd:.3f}'})"


def _count(run: dict[str, Any], metric: str) -> str:
    c = run["counts"].get(metric)
    if c is None:
        return ""
    if metric in ("kb_cs", "control_cs"):
        return f"{int(c['numerator'])}/{c['denominator']}"
    unit = "pairs" if metric.startswith("cst") else "answers"
    return f"{c['denominator']} territories, {c['items']} {unit}"


@score_group.command("borderlines-table")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str))
@opt.registry(
    "--policy",
    _policies,
    "reference",
    "reference: exactly calculate_CS.py; strict: None answers are missing (skipped, counted).",
)
@opt.registry(
    "--ci",
    _ci_variants,
    "t95",
    "Interval over runs: t95 (sample sd, ddof=1) or paper (population sd, as BordIRLines).",
)
@opt.resamples(
    0,
    "Also a cluster bootstrap over territories with this many resamples (0: off).",
    dest="n_resamples",
    minimum=0,
    name="--boot",
)
@opt.seed()
@opt.switch(
    "--clip/--no-clip", True, "Clip intervals over runs to each metric's range (as the reports do)."
)
@opt.json("Print JSON (values as fractions).")
def borderlines_table(
    files: tuple[str, ...],
    policy: str,
    ci: str,
    n_resamples: int,
    seed: int | None,
    clip: bool,
    as_json: bool,
) -> None:
    """Score BorderLines response_table.csv FILES (one per run), as calculate_CS.py does."""
    import warnings

    from ..metrics.legacy.response_table import LegacyTableWarning, score_legacy_tables

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LegacyTableWarning)  # printed below, one line each
        result = score_legacy_tables(
            files,
            policy=policy,  # type: ignore[arg-type]
            ci=ci,  # type: ignore[arg-type]
            n_resamples=n_resamples,
            seed=seed,
            clip=clip,
        )
    for r in result["runs"]:
        for w in r["warnings"]:
            click.echo(f"bordir: warning: {w}", err=True)
    if as_json:
        echo_json(result)
        return
    runs, summary = result["runs"], result["summary"]
    headers = ["metric", *(f"run {i}" for i in range(len(runs))), "mean", "95% CI"]
    if n_resamples:
        headers.append("boot 95% CI")
    rows = []
    for m, label in _labels().items():
        s = summary[m]
        ci_text = "-" if s["ci95"] is None else f"[{_pct(s['ci95'][0])}, {_pct(s['ci95'][1])}]"
        row = [label, *(_pct(r[m]) for r in runs), _pct(s["mean"]), ci_text]
        if n_resamples:
            b = s.get("boot95")
            # the normalised ΔCS resamples the counts pooled over runs: its estimate is not the mean
            est = f"{_pct(s['boot_estimate'])} " if s.get("boot_estimate") is not None else ""
            row.append("-" if b is None else f"{est}[{_pct(b[0])}, {_pct(b[1])}]")
        rows.append(row)
    rc = summary["response_countries"]
    for label, key in (("Response countries", ""), ("Response countries + en", "_en")):
        cells = [
            _rc(r["response_countries"][f"mean{key}"], r["response_countries"][f"sd{key}"])
            for r in runs
        ]
        ci_rc = rc[f"ci95{key}"]
        row = [
            label,
            *cells,
            _rc(rc[f"mean{key}"], rc[f"sd{key}"]),
            "-" if ci_rc is None else f"[{ci_rc[0]:.3f}, {ci_rc[1]:.3f}]",
        ]
        rows.append(row + (["-"] if n_resamples else []))
    echo_table(headers, rows)
    if any(summary[m].get("boot_estimate") is not None for m in _labels()):
        click.echo(
            "boot: the normalised ΔCS resamples the counts pooled over runs; its bootstrap column "
            "starts with that pooled estimate, which can differ from the mean of the runs"
        )
    click.echo(
        "values x100 (response countries: mean (sd) of distinct answers per territory); counts per run:"
    )
    for i, r in enumerate(runs):
        counts = "; ".join(f"{_labels()[m]} {_count(r, m)}" for m in r["counts"])
        click.echo(
            f"  run {i} ({r['file']}): {r['n_territories']} territories, {r['n_queries']} queries; {counts}"
        )
        for m, note in r.get("notes", {}).items():
            click.echo(f"    {_labels()[m]}: {note}")
    for m, label in _labels().items():
        if summary[m].get("note"):
            click.echo(f"  {label} over runs: {summary[m]['note']}")
        if summary[m].get("boot_estimate") is not None:
            click.echo(
                f"  {label} bootstrap: the ratio of the counts pooled over runs, "
                f"{_pct(summary[m]['boot_estimate'])}"
            )
        if summary[m].get("boot_note"):
            click.echo(f"  {label} bootstrap: {summary[m]['boot_note']}")
    echo_lines(f"signature: {result['signature']}")


@score_group.command("free")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--dataset", default="demo", show_default=True, help="demo or borderlines.")
@opt.dataset_path("With --dataset borderlines: its directory (else the hub copy).")
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False, path_type=str),
    help="Where to write the resolved records (.jsonl, .csv or .parquet; default: FILE's name "
    "with .resolved.jsonl).",
)
@click.option(
    "--reader",
    help="provider/model of an LLM stance reader: a second pass over the answers the rules leave "
    "unparsed (recorded with the rule llm_reader and its reply).",
)
@click.option(
    "--calibration",
    type=click.Path(dir_okay=False, path_type=str),
    help="With --reader: the judge-calibration file to report its agreement with (recorded).",
)
@opt.resamples(2000, "Cluster-bootstrap resamples and sign flips of the gap.")
@opt.seed()
@opt.json("Print the metrics (and where the records went) as JSON, with the signature.")
def free_cmd(
    file: str,
    dataset: str,
    path: str | None,
    out_file: str | None,
    reader: str | None,
    calibration: str | None,
    resamples: int,
    seed: int | None,
    as_json: bool,
) -> None:
    """Resolve free answers of FILE (query_id or territory + query_lang, answer) and score them.

    Each record gets its outcome (claimant, several, controller_only, refusal, other_country,
    unparsed, empty), the claimant it names, the rule and the span that decided; the metrics are
    an open run's: outcome rates, CS on free answers and, with a ``forced`` field, the
    forced-vs-free gap (docs/free_answers.md).
    """
    from pathlib import Path

    from ..loaders.catalog import load_dataset
    from ..metrics.free.score_file import score_free_file

    ds = load_dataset(dataset, path)
    stance = None
    if reader:
        from ..generation.cache import ResponseCache, default_cache_path
        from ..generation.parse.free.reader import StanceReader

        stance = StanceReader(
            reader, cache=ResponseCache(default_cache_path()), calibration=calibration
        )
    target = (
        Path(out_file) if out_file else Path(file).with_name(Path(file).stem + ".resolved.jsonl")
    )
    if target.resolve() == Path(file).resolve():
        from ..errors import ConfigError

        raise ConfigError(
            f"--out {target} is the input file; the resolved records go to another file (e.g. "
            f"--out {Path(file).stem}.resolved.jsonl)"
        )
    records, summary = score_free_file(file, ds, n_resamples=resamples, seed=seed, reader=stance)
    _write_records(records, target)
    if as_json:
        echo_json({**summary, "records": str(target), "n_records": len(records)})
        return
    counts = records["outcome"].value_counts()
    click.echo(f"{len(records)} answers resolved -> {target}")
    click.echo(", ".join(f"{o} {n}" for o, n in counts.items()))
    outside = summary.get("outside_dataset") or {}
    if outside.get("n"):
        pairs = outside["pairs"]
        shown = ", ".join(pairs[:4]) + (f" and {len(pairs) - 4} more" if len(pairs) > 4 else "")
        click.echo(
            f"{outside['n']} answer(s) to questions {ds.name} does not ask ({shown}): resolved, "
            "left out of the CS metrics and the gap (in_dataset = false)"
        )
    for text in summary["headline"]:
        for line in split_line(text, sep=" ", indent="  "):
            click.echo(line)
    rows = summary.get("languages", [])
    if rows:
        echo_table(
            ["model", "mode", "lang", "switch %", "named %", "agree forced %", "agree free %", "gap [95% CI]",
             "p_holm", "status", "territories", "power 10/20"],
            [
                [
                    r["model"], r["mode"], r["query_lang"], _pct1(r["switch_rate"]),
                    _pct1(r["free_named_rate"]), _pct1(r["agree_forced"]), _pct1(r["agree_free"]),
                    _gap(r), "-" if r["p_holm"] is None else f"{r['p_holm']:.4f}", r["status"],
                    r["n_territories"], f"{100 * r['power_10']:.0f}/{100 * r['power_20']:.0f}",
                ]
                for r in rows
            ],
        )  # fmt: skip
    echo_lines(f"signature: {summary['signature']}")


def _gap(r: dict[str, Any]) -> str:
    if r["gap"] is None:
        return "-"
    text = f"{100 * r['gap']:+.1f}"
    if r["gap_low"] is not None and r["gap_high"] is not None:
        text += f" [{100 * r['gap_low']:+.1f}, {100 * r['gap_high']:+.1f}]"
    return text


def _write_records(records: Any, target: Any) -> None:
    from .._io.atomic import atomic_path
    from ..errors import DataError

    suffix = target.suffix.lower()
    if suffix not in (".jsonl", ".csv", ".parquet"):
        raise DataError(
            f"unknown output kind {suffix!r}; use .jsonl, .csv or .parquet", path=target
        )
    with atomic_path(target) as tmp:
        if suffix == ".jsonl":
            records.to_json(tmp, orient="records", lines=True, force_ascii=False)
        elif suffix == ".csv":
            records.to_csv(tmp, index=False)
        else:
            records.to_parquet(tmp, index=False)
