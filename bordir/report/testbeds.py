"""Reports of a testbed directory (written by ``bordir testbed …``): tables, the noise plot, ``report.html``.

:func:`build_testbed_report` reads a testbed directory (its record's kind is ``testbed``:
:data:`bordir.report.dispatch.REPORTS`), its ``testbed.json`` and ``scores.json``, and writes
into the same directory, through the output protocol
(:class:`~bordir.runrecord.outputs.OutputWriter`):

* ``tables/testbed_scores.{md,tex,csv}``: every metric that applies per model ×
  language × setting × noise rate, under the run's headline policy, as value
  ×100 with its 95 % cluster-bootstrap interval and its count ``k/n``;
  ``tables/testbed_policies.*``: the same accuracy (and rejection rate)
  under both policies side by side; ``tables/testbed_comparisons.*``: the
  paired comparisons with their Holm-adjusted p-values;
* ``plots/accuracy_vs_noise.{png,svg}`` when the run has several noise rates (a testbed with
  an engine draws its own: NoMIRACL's ``plots/hallucination_vs_error.{png,svg}``);
* ``report.html``: all of it on one self-contained page, led by its summary
  (:func:`bordir.testbeds.lead.summarize_testbed`: the headline rate per model, setting and noise rate,
  the differences that hold, what cannot be judged) and a table of contents; the run's settings last.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any, cast

import pandas as pd

from .._io.atomic import atomic_write_text
from .._io.json_read import read_json
from ..errors import DataError
from ..stats.rate import format_rate_dict
from ..testbeds.config import TESTBED_JSON
from ..testbeds.metrics import METRICS, RGB_REJECTION_NOTE
from .html import NO_PLOTS_NOTE, data_uri, render_page
from .tables import Table, fmt_ci, fmt_p, fmt_value, write_tables
from .view_links import tb_link, write_view_beside

__all__ = ["build_testbed_report", "score_tables", "TESTBED_REPORT_OUTPUTS"]

TESTBED_REPORT_OUTPUTS = ("tables", "plots", "report.html", "view.html")
"""The output set of ``bordir report`` on a testbed directory (replaced as a whole)."""


def _read(path: Path, hint: str) -> dict[str, Any]:
    return cast("dict[str, Any]", read_json(path, missing=hint))


def _cell(m: dict[str, Any] | None) -> str:
    return format_rate_dict(m) if m else ""


def score_tables(info: dict[str, Any], scores: dict[str, Any]) -> list[Table]:
    """The three tables of the module docs."""
    policy = scores["policy"]
    groups = scores["groups"]
    metrics = [m for m in METRICS if any(m in g["metrics"][policy] for g in groups)]
    key = ("model", "lang", "setting", "noise_rate")
    rows, data, links = [], [], []
    for g in groups:
        ms = g["metrics"][policy]
        links.append(
            (None,) * 5
            + tuple(tb_link(g, m, policy, (ms.get(m) or {}).get("value")) for m in metrics)
        )
        rows.append(
            (
                g["model"],
                g["lang"],
                g["setting"],
                f"{g['noise_rate']:g}",
                str(g["n_items"]),
                *(_cell(ms.get(m)) for m in metrics),
            )
        )
        data.append(
            {
                **{k: g[k] for k in key},
                "n_items": g["n_items"],
                "n_failed": g["n_failed"],
                **{f"{m}": (ms.get(m) or {}).get("value") for m in metrics},
                **{f"{m}_low": ((ms.get(m) or {}).get("ci95") or [None, None])[0] for m in metrics},
                **{
                    f"{m}_high": ((ms.get(m) or {}).get("ci95") or [None, None])[1] for m in metrics
                },
            }
        )
    testbed = info["config"]["testbed"]
    main = Table(
        "testbed_scores",
        f"{testbed} testbed, {policy} policy: value ×100 [95 % cluster-bootstrap interval over questions "
        f"sharing a source, {scores['n_resamples']} resamples] (count/n). Acc accuracy, Rej rejection rate "
        "(r = 1), ED error detection, CR error correction, Halluc. NoMIRACL hallucination rate (r = 1), "
        "Err NoMIRACL error rate (refusals with a positive in the prompt), Inv. NoMIRACL invalid rate "
        "(neither an answer nor a refusal); Rej*, ED*, CR* by the LLM judge."
        + (f" Rej: {RGB_REJECTION_NOTE}." if policy == "rgb" else ""),
        ("Model", "Lang", "Setting", "r", "n", *(METRICS[m] for m in metrics)),
        tuple(rows),
        pd.DataFrame(data),
        left=3,
        links=tuple(links),
    )
    prow, plinks = [], []
    for g in groups:
        cells, cell_links = [], []
        for p in scores["policies"]:
            for m in ("accuracy", "rejection_rate"):
                cells.append(_cell(g["metrics"][p].get(m)) or "–")
                cell_links.append(tb_link(g, m, p, (g["metrics"][p].get(m) or {}).get("value")))
        prow.append((g["model"], g["lang"], g["setting"], f"{g['noise_rate']:g}", *cells))
        plinks.append((None,) * 4 + tuple(cell_links))
    heads = tuple(
        f"{METRICS[m]} ({p})" for p in scores["policies"] for m in ("accuracy", "rejection_rate")
    )
    pol = Table(
        "testbed_policies",
        "Accuracy and rejection rate under RGB's rules (rgb) and bordir's scorer "
        f"(bordir); see docs/testbeds.md for every difference. Rej — {RGB_REJECTION_NOTE}.",
        ("Model", "Lang", "Setting", "r", *heads),
        tuple(prow),
        left=3,
        links=tuple(plinks),
    )
    crow = [
        (
            c["metric"],
            c["a"],
            c["b"],
            fmt_value(c["value_a"]),
            fmt_value(c["value_b"]),
            fmt_value(c["diff"]),
            fmt_ci(c["ci95"]),
            fmt_p(c["p_value"]),
            fmt_p(c["p_holm"]),
            str(c["n_clusters"]),
        )
        for c in scores["comparisons"]
    ]
    comp = Table(
        "testbed_comparisons",
        f"Paired comparisons ({policy} policy) on common questions: difference ×100 "
        "with a paired cluster-bootstrap 95 % CI, sign-flip permutation p = (c+1)/(n+1), Holm across all."
        + (
            f" rejection_rate: {RGB_REJECTION_NOTE}."
            if policy == "rgb"
            and any(c["metric"] == "rejection_rate" for c in scores["comparisons"])
            else ""
        ),
        ("Metric", "A", "B", "A", "B", "A − B", "95% CI", "p", "p (Holm)", "clusters"),
        tuple(crow),
        left=3,
    )
    return [main, pol, comp]


def build_testbed_report(
    path: str | os.PathLike[str], *, plots: bool = True, **_computed: Any
) -> Path:
    """Write tables, the plot and ``report.html`` for a testbed directory; returns ``report.html``'s path.

    ``plots=False`` leaves the plot out (the page says so), as :func:`bordir.report.build_report`.
    The numbers are the run's own (``scores.json``): the resampling options of a run's report
    (``n_resamples``, ``seed``) do not apply.
    """
    from ..runrecord.outputs import OutputWriter
    from ..runrecord.record import require_complete

    src = Path(path)
    with OutputWriter(src, by="bordir report") as w:
        require_complete(src, kind="testbed")
        _write(src, w.stage, plots)
        w.commit(replaces=TESTBED_REPORT_OUTPUTS)
    return src / "report.html"


def _write(src: Path, out: Path, plots: bool) -> None:
    """The report of the testbed directory ``src``, written into ``out``."""
    info = _read(src / TESTBED_JSON, "expected a directory written by `bordir testbed … --out DIR`")
    if info.get("status") != "complete":
        raise DataError(
            "the testbed run has not finished (status: running); re-run the same `bordir testbed` "
            "command, which resumes",
            path=src / TESTBED_JSON,
            field="status",
        )
    scores = _read(src / "scores.json", "the testbed run did not finish; re-run it (it resumes)")
    tables = score_tables(info, scores)
    write_tables(tables, out / "tables")
    from ..testbeds.testbed import TESTBEDS

    name = info["config"]["testbed"]
    figure: tuple[Path, str, str, str] | None = None  # png, name, alt text, caption
    if plots and name in TESTBEDS:  # the testbed's engine draws its plot (RGB's, NoMIRACL's)
        drawn = TESTBEDS.get(name).run_engine.plot(
            scores["groups"], scores["policy"], out / "plots"
        )
        if drawn is not None:
            alt = drawn[3] if len(drawn) > 3 else drawn[0].stem.replace("_", " ")
            figure = (drawn[0], drawn[0].stem, alt, drawn[2])
    e = html.escape
    cfg = info["config"]
    kv = [
        ("testbed", cfg["testbed"]),
        ("data", f"{cfg['data']} ({info['data'].get('hash')})"),
        ("models", ", ".join(cfg["models"])),
        ("noise ratios", ", ".join(f"{r:g}" for r in cfg["ratios"])),
        ("documents per prompt", cfg["passage_num"]),
        ("seed, seeding", f"{cfg['seed']}, {cfg['seeding']}"),
        ("temperature, max tokens", f"{cfg['temperature']}, {cfg['max_tokens']}"),
        ("instances, items", f"{info['instances']}, {info.get('items')}"),
        ("calls", json.dumps(info.get("calls"))),
        ("instructions", ", ".join(f"{k}: {v}" for k, v in info["instructions"].items())),
        ("headline policy", scores["policy"]),
        ("judge", cfg.get("judge") or "none"),
        ("bordir, git", f"{info['bordir_version']}, {info['git_revision']}"),
    ]
    from ..testbeds.lead import summarize_testbed
    from .html import toc
    from .lead import lead_html

    lead = summarize_testbed(info, scores)
    sections = [
        lead_html(lead, headline_title=f"Headline: {lead['metric']} ({lead['policy']} policy)"),
        '<h2 id="tables">Tables</h2>',
        *(t.to_html() for t in tables),
    ]
    if scores.get("judge_calibration"):
        from .judge_calibration import calibration_html

        sections.append(calibration_html(scores["judge_calibration"]))
    if not plots:
        sections.append(NO_PLOTS_NOTE)
    elif figure is not None:
        png, name, alt, caption = figure
        uri = data_uri(png.read_bytes(), "image/png")
        sections += [
            '<h2 id="plots">Plots</h2>',
            f'<figure id="plot-{e(name)}"><img src="{uri}" alt="{e(alt)}">'
            f"<figcaption>{e(caption)}</figcaption></figure>",
        ]
    skipped = info.get("skipped") or []
    sections += [
        '<h2 id="skipped">Questions left out</h2>',
        "<p>None.</p>"
        if not skipped
        else "<ul>"
        + "".join(
            f"<li>{e(s.get('setting', ''))}: {e(s['query_id'])}: {e(s['reason'])}</li>"
            for s in skipped
        )
        + "</ul>",
    ]
    sections += [  # the settings after the results, as in the experiment report
        '<h2 id="run">Run</h2>',
        '<table class="data kv"><tbody>'
        + "".join(f"<tr><th>{e(str(k))}</th><td>{e(str(v))}</td></tr>" for k, v in kv)
        + "</tbody></table>",
    ]
    note = write_view_beside(src, out)  # view.html: the items behind every linked rate
    if note:
        sections.append(f'<p class="warn">{e(note)}</p>')
    page = render_page(
        f"bordir testbed: {src.name}",
        f"{e(cfg['testbed'])} testbed in the style of RGB; values ×100. Generated by bordir "
        f"{e(info['bordir_version'])} from <code>{e(src.resolve().name)}</code>.",
        [toc(sections), *sections],
    )
    atomic_write_text(out / "report.html", page)
