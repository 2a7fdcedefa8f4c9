"""Legacy BorderLines response tables: calculate_CS.py semantics, by hand; the CLI's JSON."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir import __version__
from bordir.errors import DataError
from bordir.metrics import score_legacy_tables, territory_tables
from bordir.metrics.legacy.response_table import read_response_table
from bordir.metrics.legacy.territories import legacy_stats

from .test_metrics_cs import NON_ANSWERS, responses, tiny_dataset

HEADER = "Territory,Claimants,Claimant_Codes,Controller,Controller_Code,Responses_d,Response_en,Response_Controller\n"

# The NON_ANSWERS scenario of test_metrics_cs as gen_response_table.py (BordIRLines) writes it:
# Responses_d holds Picks (unparsed -> option A) and an 'en' entry for every territory;
# Response_en is "None" for the unparsed control answer.
TABLE_NON_ANSWERS = HEADER + (
    "Isla,Spain;Morocco,es;ar,Spain,es,\"{'en': 'Morocco', 'es': 'Spain', 'ar': 'Spain'}\",Morocco,Spain\n"
    "Malvinas,Argentina;United Kingdom,es;en,United Kingdom,en,\"{'en': 'Argentina', 'es': 'United Kingdom'}\",None,Argentina\n"
    "Triland,Russia;Ukraine;Japan,ru;uk;ja,Unknown,,\"{'en': 'Russia', 'ru': 'Russia', 'uk': 'Russia', 'ja': 'Russia'}\",Russia,\n"
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
    assert run["delta_cs_norm"] == -0.5 and run["delta_cs"] == -0.5
    # Cst: Isla 1/1, Malvinas 0/1, Triland 3/3  => (1 + 0 + 1) / 3; unk: Triland 1.0
    assert run["cst_cs"] == pytest.approx(2 / 3) and run["cst_cs_unknown"] == 1.0
    assert (
        run["counts"]["cst_cs"]["denominator"] == 3
        and run["counts"]["cst_cs_unknown"]["denominator"] == 1
    )
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
        "T1,A;B;C,xa;xb;xc,A,xa,\"{'xa': 'A', 'xb': None, 'xc': None}\",A,A\n"
        "T2,A;B,xa;xb,Unknown,,\"{'xa': None, 'xb': None}\",A,\n"
    )
    p = write(tmp_path, "t.csv", text)
    ref = score_legacy_tables([p])["runs"][0]
    # T1: Control xa=A -> 1; Non-control [None, None] -> 0; Cst pairs (A,None),(A,None),(None,None) -> 1/3
    # T2: Cst (None, None) -> 1
    assert (ref["control_cs"], ref["non_control_cs"]) == (1.0, 0.0)
    assert ref["delta_cs_norm"] is None and ref["delta_cs"] == 1.0
    assert ref["cst_cs"] == pytest.approx((1 / 3 + 1) / 2) and ref["cst_cs_unknown"] == 1.0
    strict = score_legacy_tables([p], policy="strict")["runs"][0]
    # strict: the None answers are missing -> no Non-control value, no valid pair anywhere
    assert strict["non_control_cs"] is None and strict["cst_cs"] is None
    assert strict["counts"]["cst_cs"]["skipped"] == 4


def test_summary_over_runs_is_a_t_interval(tmp_path):
    stats_t = pytest.importorskip("scipy.stats").t
    a = write(tmp_path, "a.csv", TABLE_NON_ANSWERS)
    # second run: Isla's control answer is now right -> KB 1/2
    b = write(
        tmp_path,
        "b.csv",
        TABLE_NON_ANSWERS.replace("Spain'}\",Morocco,Spain", "Spain'}\",Spain,Spain"),
    )
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
    for k in (
        "kb_cs",
        "control_cs",
        "non_control_cs",
        "delta_cs_norm",
        "cst_cs",
        "cst_cs_unknown",
        "n_queries",
    ):
        assert ra[k] == pytest.approx(rb[k]), k


# --- errors -------------------------------------------------------------------


def test_bad_rows_name_file_line_and_field(tmp_path):
    bad = TABLE_NON_ANSWERS.replace("{'en': 'Argentina'", "{'en': 'Argentina',,")
    p = write(tmp_path, "bad.csv", bad)
    with pytest.raises(DataError) as e:
        read_response_table(p)
    assert (e.value.path, e.value.line, e.value.field) == (str(p), 3, "Responses_d")
    assert str(e.value).startswith(f"{p}:3: field 'Responses_d': not a Python dict literal")

    p = write(
        tmp_path,
        "list.csv",
        TABLE_NON_ANSWERS.replace(
            "\"{'en': 'Morocco', 'es': 'Spain', 'ar': 'Spain'}\"", "\"['x']\""
        ),
    )
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
    keys = {
        "kb_cs",
        "control_cs",
        "non_control_cs",
        "delta_cs_norm",
        "delta_cs",
        "cst_cs",
        "cst_cs_unknown",
        "n_territories",
        "n_queries",
    }
    assert len(out["runs"]) == 2 and all(keys <= set(r) for r in out["runs"])
    assert out["runs"][0]["control_cs"] == 0.5  # fractions, not x100
    for m in (
        "kb_cs",
        "control_cs",
        "non_control_cs",
        "delta_cs_norm",
        "delta_cs",
        "cst_cs",
        "cst_cs_unknown",
    ):
        assert set(out["summary"][m]) >= {"mean", "ci95"}
        assert out["summary"][m]["ci95"] is None or len(out["summary"][m]["ci95"]) == 2
    assert out["signature"].startswith("cs|src:borderlines-table|runs:2|ci:t95|policy:reference|")
    assert out["signature"].endswith(f"|version:{__version__}")


def test_cli_table_and_bootstrap(tmp_path, capsys):
    a = write(tmp_path, "a.csv", TABLE_NON_ANSWERS)
    assert _cli("score", "borderlines-table", str(a), "--boot", "50", "--seed", "3") == 0
    text = capsys.readouterr().out
    assert "KB CS" in text and "0/2" in text and "boot:50|seed:3" in text


def test_cli_bad_file_is_one_line_exit_2(tmp_path, capsys):
    p = write(
        tmp_path, "bad.csv", TABLE_NON_ANSWERS.replace("{'en': 'Argentina'", "{'en' 'Argentina'")
    )
    assert _cli("score", "borderlines-table", str(p)) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"bordir: error: {p}:3: field 'Responses_d'")


def test_read_response_table_types(tmp_path):
    df = read_response_table(write(tmp_path, "a.csv", TABLE_NON_ANSWERS))
    assert isinstance(df, pd.DataFrame) and df.loc[0, "Claimant_Codes"] == ["es", "ar"]
    assert df.loc[1, "Response_en"] == "None" and df.loc[2, "Controller_Code"] == ""


# --- issue 13.6: intervals clipped to each metric's range -----------------------------------------


def test_cli_intervals_are_clipped_to_the_metrics_range(tmp_path, capsys):
    a = write(tmp_path, "a.csv", TABLE_NON_ANSWERS)
    b = write(
        tmp_path,
        "b.csv",
        TABLE_NON_ANSWERS.replace("Spain'}\",Morocco,Spain", "Spain'}\",Spain,Spain"),
    )
    assert _cli("score", "borderlines-table", str(a), str(b), "--json") == 0
    out = json.loads(capsys.readouterr().out)
    from bordir.metrics.cs.aggregate import METRIC_BOUNDS

    for m, (lo, hi) in METRIC_BOUNDS.items():
        ci = out["summary"][m]["ci95"]
        assert ci is None or lo <= ci[0] <= ci[1] <= hi, (m, ci)
    assert out["summary"]["kb_cs"]["ci95"] == [0.0, 1.0]  # 0.25 ± 3.18: clipped
    assert "|clip:range|" in out["signature"]
    assert _cli("score", "borderlines-table", str(a), str(b)) == 0
    kb = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("KB CS"))
    assert kb.rstrip().endswith("[0.000, 100.000]")
    assert _cli("score", "borderlines-table", str(a), str(b), "--json", "--no-clip") == 0
    raw = json.loads(capsys.readouterr().out)
    assert raw["summary"]["kb_cs"]["ci95"][0] < 0 and "clip" not in raw["signature"]


# --- issue 13.8: Response Countries ---------------------------------------------------------------


def _reference_response_countries(path):
    """calculate_CS.py's own lines for 'Mean # Response Countries' (with and without en), on its pandas read."""
    import ast as ast_

    df = pd.read_csv(path)
    df["Claimant_Codes"] = df["Claimant_Codes"].str.split(";")
    df["Responses_d"] = df["Responses_d"].apply(ast_.literal_eval)
    fixed = []
    for _, row in df.iterrows():
        d = dict(row["Responses_d"])
        if "en" not in row["Claimant_Codes"]:
            d.pop("en", None)
        fixed.append(d)
    df["Responses_d"] = fixed
    df["Responses_d_en"] = [dict(d, en=e) for d, e in zip(df["Responses_d"], df["Response_en"])]
    # the reference's .agg(len) mapped len over the elements in the pandas it ran on; .map(len) today
    rc = df["Responses_d"].apply(lambda x: set(x.values())).map(len)
    rc_en = df["Responses_d_en"].apply(lambda x: set(x.values())).map(len)
    return rc.mean(), rc.std(), rc_en.mean(), rc_en.std()


def test_response_countries_by_hand_and_as_the_reference(tmp_path):
    p = write(tmp_path, "run0.csv", TABLE_NON_ANSWERS)
    rc = score_legacy_tables([p])["runs"][0]["response_countries"]
    # Isla {Spain} -> 1, + en (Morocco) -> 2; Malvinas {Argentina, UK} -> 2, + en ("None") -> 2; Triland {Russia} -> 1, 1
    assert rc["mean"] == pytest.approx(4 / 3) and rc["sd"] == pytest.approx(0.5773502691896257)
    assert rc["mean_en"] == pytest.approx(5 / 3) and rc["sd_en"] == pytest.approx(
        0.5773502691896257
    )
    assert rc["n_territories"] == 3 and rc["signature"].startswith(
        "response_countries|policy:reference|ddof:1|"
    )
    ref = _reference_response_countries(p)
    assert (rc["mean"], rc["sd"], rc["mean_en"], rc["sd_en"]) == pytest.approx(ref)


def test_response_countries_over_runs_in_the_cli(tmp_path, capsys):
    a = write(tmp_path, "a.csv", TABLE_NON_ANSWERS)
    b = write(tmp_path, "b.csv", TABLE_NON_ANSWERS.replace("'ar': 'Spain'", "'ar': 'Morocco'"))
    out = score_legacy_tables([a, b])
    s = out["summary"]["response_countries"]
    # run b: Isla {Spain, Morocco} -> 2: means 4/3 and 5/3
    assert s["mean"] == pytest.approx(1.5) and s["n_runs"] == 2 and s["ci95"][0] >= 0
    assert _cli("score", "borderlines-table", str(a), str(b)) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("Response countries "))
    assert "1.333 (0.577)" in line and "1.667 (0.577)" in line
    assert any(x.startswith("Response countries + en") for x in text.splitlines())


# --- issue 13.9: input hygiene ---------------------------------------------------------------------


def test_a_utf8_bom_is_accepted(tmp_path):
    plain = score_legacy_tables([write(tmp_path, "a.csv", TABLE_NON_ANSWERS)])["runs"][0]
    p = tmp_path / "bom.csv"
    p.write_bytes(b"\xef\xbb\xbf" + TABLE_NON_ANSWERS.encode("utf-8"))
    bom = score_legacy_tables([p])["runs"][0]
    for k in ("kb_cs", "control_cs", "non_control_cs", "cst_cs", "n_queries"):
        assert bom[k] == plain[k]


def test_unknown_spelled_otherwise_is_known_as_in_the_reference_but_warned(tmp_path, capsys):
    from bordir.metrics.legacy.response_table import LegacyTableWarning

    text = TABLE_NON_ANSWERS.replace(
        "Triland,Russia;Ukraine;Japan,ru;uk;ja,Unknown,",
        "Triland,Russia;Ukraine;Japan,ru;uk;ja,unknown ,",
    )
    p = write(tmp_path, "u.csv", text)
    with pytest.warns(
        LegacyTableWarning, match=r"u.csv:4: field 'Controller': 'unknown ' is not 'Unknown'"
    ):
        run = score_legacy_tables([p])["runs"][0]
    # parity with calculate_CS.py: Triland now has a "known" controller named 'unknown ': KB 0 more, Non-control 0s
    assert run["counts"]["kb_cs"]["denominator"] == 3 and run["cst_cs_unknown"] is None
    assert len(run["warnings"]) == 1
    assert _cli("score", "borderlines-table", str(p)) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"bordir: warning: {p}:4: field 'Controller': 'unknown ' is not 'Unknown', so it is scored as a "
        "known controller named 'unknown ' (as calculate_CS.py does); write Unknown if the controller "
        "is unknown"
    ]


def test_the_table_reader_itself_warns_about_an_unknown_spelled_otherwise(tmp_path):
    """Reading a table (not only scoring it) warns, once per row, naming file, line and field."""
    import warnings

    from bordir.metrics import read_response_table
    from bordir.metrics.legacy.response_table import LegacyTableWarning

    text = TABLE_NON_ANSWERS.replace(
        "Triland,Russia;Ukraine;Japan,ru;uk;ja,Unknown,",
        "Triland,Russia;Ukraine;Japan,ru;uk;ja,unknown,",
    )
    p = write(tmp_path, "r.csv", text)
    with pytest.warns(
        LegacyTableWarning, match=r"r.csv:4: field 'Controller': 'unknown' is not 'Unknown'"
    ):
        table = read_response_table(p)
    assert (
        "unknown" in table["Controller"].tolist()
    )  # still a known controller, as calculate_CS.py reads it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        score_legacy_tables([p])
    assert sum(issubclass(w.category, LegacyTableWarning) for w in caught) == 1  # not twice
    with warnings.catch_warnings():
        warnings.simplefilter("error", LegacyTableWarning)
        read_response_table(write(tmp_path, "ok.csv", TABLE_NON_ANSWERS))  # a correct table: silent


def test_a_country_named_none_is_not_missing(tmp_path):
    text = HEADER + (
        "T1,None;Spain,xa;xb,None,xa,\"{'xa': 'None', 'xb': 'Spain'}\",None,None\n"
        "T2,A;B,xa;xb,A,xa,\"{'xa': 'None', 'xb': 'A'}\",None,None\n"
    )
    p = write(tmp_path, "none.csv", text)
    strict = score_legacy_tables([p], policy="strict")["runs"][0]
    # T1: the controller is the country "None": its KB and Control answers are real and right
    # T2: "None" is no claimant there, so it is a missing answer (skipped)
    assert strict["counts"]["kb_cs"] == {
        "numerator": 1.0,
        "denominator": 1,
        "items": 1,
        "skipped": 1,
    }
    assert strict["counts"]["control_cs"]["denominator"] == 1 and strict["control_cs"] == 1.0
    assert strict["counts"]["control_cs"]["skipped"] == 1
    ref = score_legacy_tables([p])["runs"][0]
    assert ref["counts"]["kb_cs"]["denominator"] == 2  # the reference compares literally


def test_response_countries_agree_between_the_legacy_and_the_responses_paths(tmp_path):
    from bordir.metrics.cs.response_countries import response_countries

    p = write(tmp_path, "run0.csv", TABLE_NON_ANSWERS)
    legacy = response_countries(legacy_stats(read_response_table(p)))
    (stats,) = territory_tables(responses(NON_ANSWERS), tiny_dataset(), policy="reference").values()
    ours = response_countries(stats)
    assert (ours.mean, ours.sd, ours.mean_en, ours.sd_en) == pytest.approx(
        (legacy.mean, legacy.sd, legacy.mean_en, legacy.sd_en)
    )


def test_the_report_table_of_response_countries():
    from bordir.report.tables import response_countries_table

    rc = {
        "mean": 1.25,
        "sd": 0.5,
        "mean_en": 1.5,
        "sd_en": 0.6,
        "ci95": [1.0, 1.5],
        "ci95_en": None,
        "n_runs": 2,
        "signature": "response_countries|mode:qlang|version:x",
    }
    metrics = {"results": {"mock/first": {"qlang": {"response_countries": rc}, "no_ir": {}}}}
    t = response_countries_table(metrics)
    assert t.rows == (
        ("mock/first", "qlang", "1.250 (0.500)", "1.500 (0.600)", "[1.000, 1.500]", "n/a"),
    )
    assert "BorderLines Table 2" in t.caption and t.data.loc[0, "mean_en"] == 1.5


def test_scoring_a_table_from_the_cli_needs_no_pandas(tmp_path):
    """``bordir score borderlines-table`` starts in a fraction of a second: neither pandas nor scipy
    is imported on the way (issue 30); the public reader still returns a DataFrame."""
    import subprocess
    import sys

    p = write(tmp_path, "run0.csv", TABLE_NON_ANSWERS)
    code = (
        "import sys, json\n"
        "from bordir.cli.score import borderlines_table\n"
        "from bordir.metrics.legacy.response_table import score_legacy_tables\n"
        f"r = score_legacy_tables([{str(p)!r}], clip=True)\n"
        "from bordir._io.json_write import jsonable\n"
        "json.dumps(jsonable(r))\n"
        "print(sorted(m for m in ('pandas', 'scipy', 'pyarrow') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
    assert isinstance(read_response_table(p), pd.DataFrame)


def test_the_table_reader_gives_the_same_cells_at_once_and_row_by_row(tmp_path):
    """The scorer's reader parses each distinct cell once (all rows sound) or reads row by row (a bad
    row: its exact error); both give the same cells."""
    from bordir.metrics.legacy import response_table as rt

    p = write(tmp_path, "run0.csv", TABLE_NON_ANSWERS + TABLE_NON_ANSWERS.split("\n", 1)[1])
    at_once = rt._read_columns(p)
    shared = rt._read_columns(p, shared=True)
    original = rt.columns_at_once
    try:
        rt.columns_at_once = lambda *a, **k: None  # type: ignore[assignment]
        by_row = rt._read_columns(p)
    finally:
        rt.columns_at_once = original
    assert at_once == by_row == {k: list(v) for k, v in shared.items()}
