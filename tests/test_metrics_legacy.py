"""Legacy BorderLines response tables: calculate_CS.py semantics, by hand; the CLI's JSON."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.errors import DataError
from bordir.metrics import score_legacy_tables, territory_tables
from bordir.metrics.legacy import legacy_stats, read_response_table

from .test_metrics_cs import NON_ANSWERS, responses, tiny_dataset

HEADER = "Territory,Claimants,Claimant_Codes,Controller,Controller_Code,Responses_d,Response_en,Response_Controller\n"

# The NON_ANSWERS scenario of test_metrics_cs as gen_response_table.py (BordIRLines) writes it:
# Responses_d holds Picks (unparsed -> option A) and an 'en' entry for every territory;
# Response_en is "None" for the unparsed control answer.
TABLE_NON_ANSWERS = HEADER + (
    'Isla,Spain;Morocco,es;ar,Spain,es,"{\'en\': \'Morocco\', \'es\': \'Spain\', \'ar\': \'Spain\'}",Morocco,Spain\n'
    'Malvinas,Argentina;United Kingdom,es;en,United Kingdom,en,"{\'en\': \'Argentina\', \'es\': \'United Kingdom\'}",None,Argentina\n'
    'Triland,Russia;Ukraine;Japan,ru;uk;ja,Unknown,,"{\'en\': \'Russia\', \'ru\': \'Russia\', \'uk\': \'Russia\', \'ja\': \'Russia\'}",Russia,\n'
)


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_reference_semantics_by_hand(tmp_path):
    p = write(tmp_path, "run0.csv", TABLE_NON_ANSWERS)
    run = score_legacy_tables([p])["runs"][0]
    # After fix_responses_d: Isla {es: Spain, ar: Spain} (en dropped: not a claimant language);
    # Malvinas {en: Argentina, es: UK} (en kept); Triland {ru, uk, ja: Russia} (en dropped).
    # KB: Isla Morocco != Spain -> 0; Malvinas "None" != UK -> 0  => 0/2
    assert run["kb_cs"] == 0.0 and run["counts"]["kb_cs"]["denominator"] == 2
    # Control: Isla es=Spain -> 1; Malvinas en=Argentina -> 0  => 1/2
    assert run["control_cs"] == 0.5
    # Non-control: Isla [ar=Spain] -> 1; Malvinas [es=UK] -> 1  => 1.0
    assert run["non_control_cs"] == 1.0
    assert run["delta_cs"] == -0.5 and run["delta_cs_abs"] == -0.5
    # Cst: Isla 1/1, Malvinas 0/1, Triland 3/3  => (1 + 0 + 1) / 3; unk: Triland 1.0
    assert run["cst_cs"] == pytest.approx(2 / 3) and run["cst_cs_unknown"] == 1.0
    assert run["counts"]["cst_cs"]["denominator"] == 3 and run["counts"]["cst_cs_unknown"]["denominator"] == 1
    # queries: Isla {es, ar} + control = 3, Malvinas {en, es} = 2, Triland {ru, uk, ja} + control = 4
    assert (run["n_territories"], run["n_queries"]) == (3, 9)


def test_legacy_agrees_with_the_responses_path_under_the_reference_policy(tmp_path):
    p = write(tmp_path, "run0.csv", TABLE_NON_ANSWERS)
    legacy = legacy_stats(read_response_table(p)).scores()
    (stats,) = territory_tables(responses(NON_ANSWERS), tiny_dataset(), policy="reference").values()
    ours = stats.scores()
    for m in legacy:
        assert legacy[m].value == pytest.approx(ours[m].value, nan_ok=True), m
        assert legacy[m].denominator == ours[m].denominator, m


def test_strict_policy_on_a_legacy_table(tmp_path):
    p = write(tmp_path, "run0.csv", TABLE_NON_ANSWERS)
    run = score_legacy_tables([p], policy="strict")["runs"][0]
    # Only Response_en "None" is recognisably missing (the Picks already hide the unparsed answers):
    # KB: Isla 0, Malvinas skipped => 0/1
    assert run["kb_cs"] == 0.0 and run["counts"]["kb_cs"]["denominator"] == 1
    assert run["counts"]["kb_cs"]["skipped"] == 1
    assert run["control_cs"] == 0.5  # unchanged


def test_borderlines_style_none_entries(tmp_path):
    # BorderLines (2023) tables store None for unsupported languages; calculate_CS compares literally:
    # None != controller, and None == None counts as an agreeing pair.
    text = HEADER + (
        'T1,A;B;C,xa;xb;xc,A,xa,"{\'xa\': \'A\', \'xb\': None, \'xc\': None}",A,A\n'
        'T2,A;B,xa;xb,Unknown,,"{\'xa\': None, \'xb\': None}",A,\n'
    )
    p = write(tmp_path, "t.csv", text)
    ref = score_legacy_tables([p])["runs"][0]
    # T1: Control xa=A -> 1; Non-control [None, None] -> 0; Cst pairs (A,None),(A,None),(None,None) -> 1/3
    # T2: Cst (None, None) -> 1
    assert (ref["control_cs"], ref["non_control_cs"]) == (1.0, 0.0)
    assert ref["delta_cs"] is None and ref["delta_cs_abs"] == 1.0
    assert ref["cst_cs"] == pytest.approx((1 / 3 + 1) / 2) and ref["cst_cs_unknown"] == 1.0
    strict = score_legacy_tables([p], policy="strict")["runs"][0]
    # strict: the None answers are missing -> no Non-control value, no valid pair anywhere
    assert strict["non_control_cs"] is None and strict["cst_cs"] is None
    assert strict["counts"]["cst_cs"]["skipped"] == 4


def test_summary_over_runs_is_a_t_interval(tmp_path):
    stats_t = pytest.importorskip("scipy.stats").t
    a = write(tmp_path, "a.csv", TABLE_NON_ANSWERS)
    # second run: Isla's control answer is now right -> KB 1/2
    b = write(tmp_path, "b.csv", TABLE_NON_ANSWERS.replace('Spain\'}",Morocco,Spain', 'Spain\'}",Spain,Spain'))
    out = score_legacy_tables([a, b])
    assert [r["kb_cs"] for r in out["runs"]] == [0.0, 0.5]
    s = out["summary"]["kb_cs"]
    # mean 0.25; sd (ddof=1) = 0.35355; half-width t(0.975, 1) * sd / sqrt(2)
    half = stats_t.ppf(0.975, 1) * 0.3535533905932738 / math.sqrt(2)
    assert s["mean"] == 0.25 and s["n_runs"] == 2
    assert s["ci95"] == pytest.approx([0.25 - half, 0.25 + half])
    paper = score_legacy_tables([a, b], ci="paper")["summary"]["kb_cs"]
    half_p = stats_t.ppf(0.975, 1) * 0.25 / math.sqrt(2)  # population sd = 0.25
    assert paper["ci95"] == pytest.approx([0.25 - half_p, 0.25 + half_p])
    assert "|ci:paper|" in score_legacy_tables([a, b], ci="paper")["signature"]
    # one run: no interval
    assert score_legacy_tables([a])["summary"]["kb_cs"]["ci95"] is None


@settings(max_examples=25, deadline=None)
@given(st.permutations([0, 1, 2]))
def test_legacy_scores_are_invariant_to_row_order(perm):
    lines = TABLE_NON_ANSWERS.splitlines(keepends=True)
    body = [lines[1 + i] for i in perm]
    import tempfile
    from pathlib import Path

    d = Path(tempfile.mkdtemp())
    a = write(d, "a.csv", TABLE_NON_ANSWERS)
    b = write(d, "b.csv", lines[0] + "".join(body))
    ra, rb = score_legacy_tables([a])["runs"][0], score_legacy_tables([b])["runs"][0]
    for k in ("kb_cs", "control_cs", "non_control_cs", "delta_cs", "cst_cs", "cst_cs_unknown", "n_queries"):
        assert ra[k] == pytest.approx(rb[k]), k


# --- errors -------------------------------------------------------------------


def test_bad_rows_name_file_line_and_field(tmp_path):
    bad = TABLE_NON_ANSWERS.replace("{'en': 'Argentina'", "{'en': 'Argentina',,")
    p = write(tmp_path, "bad.csv", bad)
    with pytest.raises(DataError) as e:
        read_response_table(p)
    assert (e.value.path, e.value.line, e.value.field) == (str(p), 3, "Responses_d")
    assert str(e.value).startswith(f"{p}:3: field 'Responses_d': not a Python dict literal")

    p = write(tmp_path, "list.csv", TABLE_NON_ANSWERS.replace("\"{'en': 'Morocco', 'es': 'Spain', 'ar': 'Spain'}\"", "\"['x']\""))
    with pytest.raises(DataError, match="expected a dict literal, found list"):
        read_response_table(p)
    p = write(tmp_path, "cols.csv", "Territory,Claimants\nX,A;B\n")
    with pytest.raises(DataError, match="missing column"):
        read_response_table(p)
    with pytest.raises(DataError, match="no such file"):
        read_response_table(tmp_path / "none.csv")
    p = write(tmp_path, "empty.csv", HEADER)
    with pytest.raises(DataError, match="no rows"):
        read_response_table(p)


# --- CLI ----------------------------------------------------------------------


def _cli(*args: str) -> int:
    from bordir.cli import main
    from bordir.cli.main import cli
    from bordir.cli.score import score_group

    if "score" not in cli.commands:
        cli.add_command(score_group)
    return main(list(args))


def test_cli_json_shape(tmp_path, capsys):
    a = write(tmp_path, "a.csv", TABLE_NON_ANSWERS)
    b = write(tmp_path, "b.csv", TABLE_NON_ANSWERS)
    assert _cli("score", "borderlines-table", str(a), str(b), "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"runs", "summary", "signature"}
    keys = {"kb_cs", "control_cs", "non_control_cs", "delta_cs", "delta_cs_abs", "cst_cs", "cst_cs_unknown",
            "n_territories", "n_queries"}
    assert len(out["runs"]) == 2 and all(keys <= set(r) for r in out["runs"])
    assert out["runs"][0]["control_cs"] == 0.5  # fractions, not x100
    for m in ("kb_cs", "control_cs", "non_control_cs", "delta_cs", "delta_cs_abs", "cst_cs", "cst_cs_unknown"):
        assert set(out["summary"][m]) >= {"mean", "ci95"}
        assert out["summary"][m]["ci95"] is None or len(out["summary"][m]["ci95"]) == 2
    assert out["signature"].startswith("cs|src:borderlines-table|runs:2|ci:t95|policy:reference|")
    assert out["signature"].endswith("|version:0.1.0")


def test_cli_table_and_bootstrap(tmp_path, capsys):
    a = write(tmp_path, "a.csv", TABLE_NON_ANSWERS)
    assert _cli("score", "borderlines-table", str(a), "--boot", "50", "--seed", "3") == 0
    text = capsys.readouterr().out
    assert "KB CS" in text and "0/2" in text and "boot:50|seed:3" in text


def test_cli_bad_file_is_one_line_exit_2(tmp_path, capsys):
    p = write(tmp_path, "bad.csv", TABLE_NON_ANSWERS.replace("{'en': 'Argentina'", "{'en' 'Argentina'"))
    assert _cli("score", "borderlines-table", str(p)) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"bordir: error: {p}:3: field 'Responses_d'")


def test_read_response_table_types(tmp_path):
    df = read_response_table(write(tmp_path, "a.csv", TABLE_NON_ANSWERS))
    assert isinstance(df, pd.DataFrame) and df.loc[0, "Claimant_Codes"] == ["es", "ar"]
    assert df.loc[1, "Response_en"] == "None" and df.loc[2, "Controller_Code"] == ""
