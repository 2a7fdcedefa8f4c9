"""Issue 25.7: the small traps a new user fell into, one test each."""

from __future__ import annotations

import json
import shutil
import socket
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bordir.errors import BordirNote, ConfigError

from .conftest import invoke_cli

# --- testgen: one language per file ------------------------------------------------------------

ES = (
    "# Guía\n\nLa península de Crimea está situada en el mar Negro. Su estatus es objeto de una "
    "disputa entre Rusia y Ucrania desde 2014.\n\nLa ciudad de Sebastopol alberga una base naval "
    "y muchos países no reconocen la anexión de la península.\n"
)
EN = (
    "# Guide\n\nThe Crimean peninsula lies in the Black Sea. Its status has been disputed between "
    "Russia and Ukraine since 2014.\n\nThe city of Sevastopol hosts a naval base, and most countries "
    "do not recognise the annexation of the peninsula.\n"
)


def test_testgen_reads_each_file_in_its_own_language(tmp_path):
    pytest.importorskip("langdetect")
    (tmp_path / "guia.md").write_text(ES, encoding="utf-8")
    (tmp_path / "guide.md").write_text(EN, encoding="utf-8")
    out = invoke_cli("testgen", str(tmp_path / "guia.md"), str(tmp_path / "guide.md"), "--n", "4",
                     "--out", str(tmp_path / "s.jsonl"))  # fmt: skip
    assert out.returncode == 0, out.stderr
    langs = {
        json.loads(l)["doc"]: json.loads(l)["lang"]
        for l in (tmp_path / "s.chunks.jsonl").read_text(encoding="utf-8").splitlines()
    }
    assert langs == {"guia": "es", "guide": "en"}  # before: both "en" (one --lang for every file)


def test_testgen_file_colon_lang_names_a_file_language(tmp_path):
    from bordir.testgen.sources import load_chunks, split_lang

    (tmp_path / "notas.md").write_text(ES, encoding="utf-8")
    assert split_lang(f"{tmp_path}/notas.md:es") == (f"{tmp_path}/notas.md", "es")
    assert split_lang("demo") == ("demo", None)
    chunks = load_chunks([f"{tmp_path / 'notas.md'}:es", "demo"], langs=["en"])
    assert {c.lang for c in chunks if c.doc == "notas"} == {"es"}
    # --lang still sets every file's language that names none
    assert {c.lang for c in load_chunks([tmp_path / "notas.md"], lang="fr")} == {"fr"}


# --- the audit ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def audit_logs(tmp_path_factory) -> Path:
    from .audit.test_audit_planted import make_records, write_jsonl

    recs = make_records(600, seed=1)
    for r in recs:  # French queries always cite the English document: every cluster alike
        if r["query_lang"] == "fr":
            r["citations"] = [next(d["id"] for d in r["documents"] if d["lang"] == "en")]
            r["response"] = "Answer."
    return write_jsonl(recs, tmp_path_factory.mktemp("aud") / "logs.jsonl")


def test_a_zero_width_interval_never_flags_and_pooled_flags_reach_the_cli(audit_logs, tmp_path):
    from bordir.audit import AuditOptions, run_audit

    res = run_audit(str(audit_logs), AuditOptions(n_resamples=300, seed=1))
    rates = res.tables.rates
    fr_en = rates[(rates["query_lang"] == "fr") & (rates["doc_lang"] == "en")]
    assert (fr_en["verdict"] == "zero-width interval").all() and fr_en["flag"].isna().all()
    pooled = res.tables.flagged(overall=True)
    assert len(pooled) and (pooled["ratio_low"] > 1).any()  # a cell wholly above 1, pooled
    out = invoke_cli("audit", str(audit_logs), "--out", str(tmp_path / "a"), "--no-plots",
                     "--resamples", "300", "--seed", "1")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "no cell flagged" not in out.stdout  # before: the pooled flags were left out
    assert any(l.split()[:3] == ["all", "*", "en"] and l.rstrip().endswith("over")
               for l in out.stdout.splitlines())  # fmt: skip
    md = (tmp_path / "a" / "audit.md").read_text(encoding="utf-8")
    assert "No cell is flagged.\n" not in md  # the page no longer says none while listing some


def test_a_never_cited_language_is_not_shown_as_no_data(audit_logs):
    pytest.importorskip("matplotlib")
    from bordir.audit import AuditOptions, run_audit
    from bordir.citations.plots import _mpl, _ratio

    res = run_audit(str(audit_logs), AuditOptions(n_resamples=100, seed=1))
    t = res.tables.rates
    never = t[(t["rate"] == "pooled") & (t["query_lang"] == "fr") & (t["doc_lang"] == "sw")]
    assert float(never["ratio"].iloc[0]) == 0.0
    fig = _ratio(t, ["group"], _mpl(), "pooled")
    grid = fig.axes[0].images[0].get_array()
    qls = sorted(set(t[t["rate"] == "pooled"]["query_lang"]))
    langs = sorted(set(t[t["rate"] == "pooled"]["doc_lang"]))
    cell = grid[qls.index("fr"), langs.index("sw")]
    assert not np.ma.is_masked(cell) and float(cell) == -2.0  # the bottom of the scale, not grey


# --- the testbed -------------------------------------------------------------------------------


def test_the_testbed_shows_both_policies_in_points(tmp_path):
    out = invoke_cli("testbed", "noise", "--data", "demo", "--model", "mock/first", "--out",
                     str(tmp_path / "tb"), "--no-progress", "--resamples", "50", "--ratios", "0")  # fmt: skip
    assert out.returncode == 0, out.stderr
    head = out.stdout.splitlines()[0]
    assert "(bordir)" in head and "(rgb)" in head  # before: bordir's policy only
    scores = json.loads((tmp_path / "tb" / "scores.json").read_text(encoding="utf-8"))
    g = next(g for g in scores["groups"] if g["lang"] == "all" and g["setting"] == "noise")
    rgb = g["metrics"]["rgb"]["accuracy"]["value"]
    row = next(l for l in out.stdout.splitlines()[2:] if l.split()[1] == "noise")
    assert f"{100 * rgb:.1f}" in row.split()  # the rgb value, ×100 like the bordir one


def test_testbed_score_prints_points_like_the_testbed(tmp_path):
    rgb = Path(__file__).resolve().parents[2] / "shared" / "data" / "rgb" / "zh_refine.json"
    rec = {"id": 0, "query": "q", "ans": ["北京"], "label": [1], "prediction": "北京", "docs": [],
           "noise_rate": 0.0, "factlabel": 0}  # fmt: skip
    pred = tmp_path / "prediction_zh_m_temp0.7_noise0.0_passage5_correct0.0.json"
    pred.write_text(json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    out = invoke_cli("testbed", "score", str(pred))
    assert out.returncode == 0, out.stderr
    assert "value ×100" in out.stdout.splitlines()[0]
    assert any(l.split()[:3] == ["all", "accuracy", "100.0"] for l in out.stdout.splitlines())
    del rgb


# --- judge, report ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def testrun_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("trun")
    out = invoke_cli("testgen", "demo", "--n", "3", "--out", str(d / "t.jsonl"))
    assert out.returncode == 0, out.stderr
    out = invoke_cli("testrun", str(d / "t.jsonl"), "--config",
                     "retriever=bm25,backend=mock/first,mode=qlang,k=2", "--out", str(d / "run"))  # fmt: skip
    assert out.returncode == 0, out.stderr
    return d / "run"


def _judge(verdict: str) -> str:
    """A mock judge that always gives these ratings (a JSON object, as the judge prompt asks)."""
    names = ("faithfulness", "relevance", "completeness", "clarity", "keyword_match")
    return "mock/fixed:" + json.dumps({**{n: verdict for n in names}, "rationale": "fixed"})


def test_judge_does_not_replace_another_judges_files(testrun_dir):
    yes, no = _judge("True"), _judge("False")
    first = invoke_cli("judge", str(testrun_dir), "--judge", yes)
    assert first.returncode == 0, first.stderr
    before = (testrun_dir / "summary.json").read_text(encoding="utf-8")
    again = invoke_cli("judge", str(testrun_dir), "--judge", yes)  # the same judge: fine
    assert again.returncode == 0, again.stderr
    other = invoke_cli("judge", str(testrun_dir), "--judge", no)
    assert (
        other.returncode == 2
        and "already holds the verdicts of judge(s) mock/fixed" in other.stderr
    )
    assert "--replace" in other.stderr
    assert (testrun_dir / "summary.json").read_text(encoding="utf-8") == before
    forced = invoke_cli("judge", str(testrun_dir), "--judge", no, "--replace")
    assert forced.returncode == 0, forced.stderr
    assert json.loads((testrun_dir / "summary.json").read_text())["judges"] == [no]


def test_report_on_a_testrun_directory_says_what_it_is(testrun_dir):
    out = invoke_cli("report", str(testrun_dir))
    assert out.returncode == 2
    assert "a test run (`bordir testrun`)" in out.stderr and "bordir judge" in out.stderr
    assert "field 'config'" not in out.stderr  # before: a misleading run.json error


# --- names: language codes, modes, backends ----------------------------------------------------


def test_country_codes_are_read_as_languages_with_a_note(tmp_path):
    from bordir.experiment.config import ExperimentConfig

    with pytest.warns(
        BordirNote, match="'ua' is the country code of Ukraine; read as the language code 'uk'"
    ):
        cfg = ExperimentConfig.from_dict({"langs": ["ua"], "models": ["mock/first"]})
    assert cfg.langs == ("uk",)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ExperimentConfig.from_dict({"langs": ["uk"]}).langs == ("uk",)  # no note
    from bordir import languages

    assert languages.registry().resolve("se").code == "se"  # a real code is never reinterpreted
    toml = tmp_path / "ua.toml"
    toml.write_text(
        '[experiment]\nmodels = ["mock/first"]\nmodes = ["no_ir"]\nruns = 1\nlangs = ["ua"]\n'
    )
    out = invoke_cli("run", str(toml), "--out", str(tmp_path / "r"), "--dry-run")
    assert (
        out.returncode == 0 and "bordir: note:" in out.stderr and "'uk' (Ukrainian)" in out.stderr
    )


def test_modes_and_backends_say_did_you_mean():
    from bordir.experiment.config import ExperimentConfig
    from bordir.generation import get_backend
    from bordir.modes import Mode

    with pytest.raises(ConfigError, match=r"did you mean 'qlang'"):
        Mode.parse("qlnag")
    with pytest.raises(ConfigError, match=r"did you mean 'rel_langs'"):
        ExperimentConfig.from_dict({"modes": ["rel_lang"]})
    with pytest.raises(ConfigError, match=r"did you mean 'openai'"):
        ExperimentConfig.from_dict({"models": ["opneai/gpt-4o"]})
    with pytest.raises(ConfigError, match=r"did you mean 'cohere'"):
        get_backend("cohre/command-r")


# --- a DNS failure ------------------------------------------------------------------------------


def test_a_dns_failure_is_not_retried(monkeypatch):
    pytest.importorskip("openai")
    from bordir.generation import get_backend
    from bordir.generation.executor import execute
    from bordir.generation.types import GenerationRequest, Message

    calls = []
    real = socket.getaddrinfo

    def fake(host, *a, **k):
        if "invalid" in str(host):
            calls.append(host)
            raise socket.gaierror(-2, "Name or service not known")
        return real(host, *a, **k)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-test-not-a-real-key")
    backend = get_backend("openai-compatible/x", base_url="http://bordir-test.invalid/v1")
    req = GenerationRequest(model="openai-compatible/x", messages=(Message("user", "hi"),))
    t0 = time.perf_counter()
    (res,) = execute(backend, [req], progress=False)
    assert (
        not res.ok
        and "cannot resolve the host name (DNS)" in res.error
        and "not retried" in res.error
    )
    assert time.perf_counter() - t0 < 5  # before: six attempts over about 18 s
    assert len(calls) <= 2  # the client's own connect attempt, once (no backoff schedule)


# --- the BorderLines GitHub repository layout ---------------------------------------------------


def test_the_github_repository_layout_is_read(shared_borderlines, tmp_path):
    """translate/ and prompts/, zh-CN / zh-TW codes, the repository's countries_info.json fields."""
    from bordir.loaders.borderlines_files import load_borderlines_files

    src, dst = shared_borderlines, tmp_path / "borderlines"
    (dst / "translate" / "prompts_mc_q").mkdir(parents=True)
    (dst / "translate" / "terms").mkdir()
    (dst / "prompts").mkdir()
    shutil.copyfile(src / "disputed_territories.csv", dst / "disputed_territories.csv")
    google = {"zhs": "zh-CN", "zht": "zh-TW"}
    fields = {"Lang_Code": "code", "Lang_Name": "name", "Lang_Name_Native": "name_native",
              "Religion": "religion", "Population": "population"}  # fmt: skip
    countries = {}
    for name, rec in json.loads((src / "countries_info.json").read_text(encoding="utf-8")).items():
        row = {fields.get(k, k): v for k, v in rec.items()}
        row["code"] = google.get(row["code"], row["code"])
        countries["Suriname" if name == "SuriLang_Name" else name] = row
    (dst / "countries_info.json").write_text(
        json.dumps(countries, ensure_ascii=False), encoding="utf-8"
    )
    for f in (src / "prompts_mc_q").iterdir():
        kind, lang = f.name.split(".", 1)
        shutil.copyfile(f, dst / "translate" / "prompts_mc_q" / f"{kind}.{google.get(lang, lang)}")
    for f in (src / "terms").iterdir():
        lang = f.name.split(".")[1]
        if lang == "bn":  # a language without its line indices, as in the repository
            continue
        shutil.copyfile(f, dst / "translate" / "terms" / f"line_inds.{google.get(lang, lang)}.txt")
    shutil.copyfile(src / "prompts_q_mc.en-control.txt", dst / "prompts" / "prompts_q_mc.txt")
    shutil.copyfile(src / "choices.en-control.txt", dst / "prompts" / "choices.txt")
    repo = load_borderlines_files(dst)
    flat = load_borderlines_files(src, repair=True)
    assert "zhs" in repo.query_langs and "zh-CN" not in repo.query_langs
    assert (
        repo.claimant_langs("Senkaku Islands")
        == flat.claimant_langs("Senkaku Islands")
        == ("zht", "zhs", "ja")
    )
    assert any("line_inds.bn.txt is missing" in w for w in repo.warnings)
    a = {q.query_id: (q.text, q.options) for q in flat.queries}
    b = {q.query_id: (q.text, q.options) for q in repo.queries}
    assert set(a) - set(b) == {"Naf_River_bn"} and all(a[k] == b[k] for k in b)
    out = invoke_cli("data", "info", "borderlines", "--path", str(dst), "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["queries"] == 719


def test_extras_cover_every_report_section_and_testgen_detection():
    import tomllib

    extras = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())[
        "project"
    ]["optional-dependencies"]

    def closure(name: str) -> set[str]:
        out = set()
        for req in extras[name]:
            if req.startswith("bordir["):
                for sub in req[len("bordir[") : -1].split(","):
                    out |= closure(sub.strip())
            else:
                out.add(req.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip().lower())
        return out

    demo = closure("demo")
    assert {"matplotlib", "scipy", "statsmodels", "langdetect", "llama-cpp-python", "bm25s"} <= demo
    assert "langdetect" in closure("testgen")


def test_answer_language_of_a_rank_classification_run_needs_no_detector(monkeypatch):
    from bordir.errors import MissingExtraError
    from bordir.langid import check
    from bordir.metrics.answer_lang import detect_answers

    def missing(*a, **k):
        raise MissingExtraError("langdetect", "audit", purpose="detecting languages")

    monkeypatch.setattr(check, "detect_many", missing)
    rows = pd.DataFrame(
        {
            "raw_text": ["A)", "B)"],
            "outcome": ["answered"] * 2,
            "query_lang": ["uk", "ru"],
            "option_logprobs": [[-0.1, -2.0], [-1.0, -0.2]],
        }  # fmt: skip
    )
    det = detect_answers(rows)  # before: "not computed" (the detector was loaded for nothing)
    assert (det["answer_lang_class"] == "n/a").all()
