"""The report's per-language section on a planted run: numbers, generated paragraph, plots, headless Chromium.

The run is `bordir run` on the synthetic data set of tests/perlang_synthetic.py (42 territories per language)
with the planted mock (``es`` and ``sw`` answer their own claimant under qlang, the controller under
rel_langs) and ``mock/first`` (always option A: no mode changes anything).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from bordir.report import build_report

from ..perlang_synthetic import run_cli, write_synthetic
from .test_report import CHROMIUM_FLAGS, _chromium

pytestmark = pytest.mark.slow  # a `bordir run` and its report, shared by the module

B = 500


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("perlang-report")
    data, corpus = write_synthetic(tmp / "synthetic")
    run = run_cli(
        tmp,
        "run",
        f"""
[experiment]
dataset = "borderlines"
dataset_path = "{data}"
corpus = "{corpus}"
modes = "no_ir,qlang,rel_langs"
models = ["mock/planted:es+sw@{data}", "mock/first"]
k = 4
runs = 2
cache = "{tmp / "cache.sqlite3"}"
""",
    )
    return build_report(run, n_resamples=B, seed=11)


@pytest.fixture(scope="module")
def perlang(report) -> dict:
    text = (report.parent / "metrics.json").read_text(encoding="utf-8")
    return json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))[
        "perlang"
    ]


def test_section_numbers(perlang):
    s = perlang["settings"]
    # (a, b): from a to b, diff = b − a (the sign rule, docs/metrics.md)
    assert s["pairs"] == [["no_ir", "qlang"], ["no_ir", "rel_langs"], ["qlang", "rel_langs"]]
    assert s["measures"] == ["controller_agreement", "in_group_rate", "en_agreement"]
    cmp = perlang["comparisons"]
    # 2 models × 3 pairs × 3 measures × (8 languages + 3 resource levels)
    assert len(cmp) == 2 * 3 * 3 * (8 + 3)
    flagged = {
        (c["model"].split("@")[0], c["a"], c["b"], c["metric"], c["group"], c["diff"] > 0)
        for c in cmp
        if c["significant"] and c["by"] == "query_lang"
    }
    planted = "mock/planted:es+sw"
    expected = {(planted, "no_ir", "qlang", "in_group_rate", g, True) for g in ("es", "sw")}
    expected |= {
        (planted, "no_ir", "rel_langs", "controller_agreement", g, True) for g in ("es", "sw")
    }
    expected |= {
        (planted, "qlang", "rel_langs", "controller_agreement", g, True) for g in ("es", "sw")
    }
    expected |= {(planted, "qlang", "rel_langs", "in_group_rate", g, False) for g in ("es", "sw")}
    assert flagged == expected
    assert all(c["signature"].startswith(f"{c['metric']}|cmp:{c['a']}-vs-{c['b']}|") for c in cmp)
    # mean over runs of every measure, per model × mode × language
    m = [
        r
        for r in perlang["measures"]
        if r["model"] == "mock/first" and r["metric"] == "refused_rate"
    ]
    assert len(m) == 3 * 8 and all(r["mean"] == 0.0 for r in m)


def test_generated_paragraph(perlang):
    planted = next(k for k in perlang["paragraphs"] if k.startswith("mock/planted"))
    text = " ".join(perlang["paragraphs"][planted])
    rel = next(
        p for p in perlang["paragraphs"][planted] if p.startswith("rel_langs compared with qlang")
    )
    assert re.search(
        r"toward the controller: (es|sw) \(\+50\.0 points, 95% CI \[\+\d+\.\d, \+\d+\.\d\], Holm p = ",
        rel,
    )
    assert "away from their own claimant: " in rel
    assert "Too few territories" not in text
    first = " ".join(perlang["paragraphs"]["mock/first"])
    # a null finding carries the power its tests had (issue 25: no evidence of no difference)
    assert (
        first.count(
            "no language's answers move detectably (8 languages judged; power against a 10-point "
            "difference "
        )
        == 3
    )


def test_files_and_html(report):
    out = report.parent
    for name in ("perlang_forest_0", "perlang_forest_1", "perlang_heatmap_0", "perlang_heatmap_1"):
        assert (out / "plots" / f"{name}.png").stat().st_size > 5000
        assert (out / "plots" / f"{name}.svg").is_file()
    html = report.read_text(encoding="utf-8")
    assert '<h2 id="per-language">Per-language comparisons</h2>' in html
    for fid in ("plot-perlang_forest_0", "plot-perlang_heatmap_1"):
        assert f'<figure id="{fid}"><img src="data:image/png;base64,' in html
    assert html.count('class="perlang-finding"') == 2 * 3
    assert (out / "tables" / "perlang_comparisons.csv").is_file()


def test_section_renders_in_chromium(report, tmp_path):
    exe = _chromium()
    if exe is None:
        pytest.skip("no chromium binary (apt-get install chromium)")
    common = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*common, "--dump-dom", report.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", dom.stdout)
    assert body, dom.stdout[:500]
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
    assert attrs.get("data-ready") == "1", attrs
    n_img = len(re.findall(r"<img ", report.read_text(encoding="utf-8")))
    assert n_img >= 3 + 4  # the report's own plots and 2 models × (forest, heatmap)
    assert attrs["data-images-total"] == str(n_img) and attrs["data-images-loaded"] == str(n_img), (
        attrs
    )
    assert (
        'id="plot-perlang_forest_0"' in dom.stdout and 'id="plot-perlang_heatmap_0"' in dom.stdout
    )


def test_paragraph_from_hand_made_rows():
    from bordir.report.perlang import finding_paragraph

    def row(a, b, metric, group, status, diff=0.0, sig=False, n=40, lo=-0.1, hi=0.1, p=0.5):
        return {
            "model": "m/x",
            "by": "query_lang",
            "a": a,
            "b": b,
            "metric": metric,
            "group": group,
            "status": status,
            "diff": diff,
            "significant": sig,
            "n_territories": n,
            "ci_low": lo,
            "ci_high": hi,
            "p_holm": p,
            "power_10": 0.3 if n >= 30 else 0.05,
            "power_20": 0.8 if n >= 30 else 0.1,
        }

    rows = []
    for a, b in (("no_ir", "qlang"), ("qlang", "rel_langs")):
        for metric in ("controller_agreement", "in_group_rate", "en_agreement"):
            rows.append(
                row(
                    a,
                    b,
                    metric,
                    "sw",
                    "judged",
                    0.25,
                    metric == "controller_agreement" and b == "rel_langs",
                    lo=0.1,
                    hi=0.4,
                    p=0.012,
                )
            )
            rows.append(
                row(a, b, metric, "ar", "too few to judge", 0.1, n=4 if b == "qlang" else 3)
            )
    text = finding_paragraph(
        pd.DataFrame(rows), "m/x", [("no_ir", "qlang"), ("qlang", "rel_langs")], 30
    )
    assert text == [
        "qlang compared with no_ir: no language's answers move detectably (1 language judged; power "
        "against a 10-point difference 30%, against 20 points 80%).",
        "rel_langs compared with qlang: answers move toward the controller: sw (+25.0 points, 95% CI [+10.0, "
        "+40.0], Holm p = 0.012, 40 territories). No language moves detectably toward or away from their own "
        "claimant (1 language judged) or the English answer (1 language judged).",
        "Too few territories to judge (fewer than 30 with the controller agreement defined in both modes; count in "
        "brackets), in every comparison: ar (3–4).",
    ]
