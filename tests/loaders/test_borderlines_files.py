from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bordir.errors import DataError, UnknownLanguageError
from bordir.loaders import load_borderlines_files, load_demo
from bordir.loaders.demo import demo_dir

from ..conftest import invoke_cli, run_cli

REFERENCE_COUNTS = {
    "zht": 81,
    "zhs": 66,
    "en": 38,
    "ar": 35,
    "hi": 28,
    "es": 26,
    "ru": 23,
    "fr": 21,
    "sw": 19,
    "nl": 4,
}


@pytest.fixture(scope="module")
def real(shared_borderlines):
    return load_borderlines_files(shared_borderlines)


def test_real_counts(real):
    info = real.info()
    assert info["territories"] == 251
    assert info["territories_controller_unknown"] == 90
    assert info["queries"] == 720
    assert info["control_queries"] == 251
    assert info["non_english_queries"] == 469
    assert info["query_languages"] == 49
    for lang, n in REFERENCE_COUNTS.items():
        assert info["queries_per_language"][lang] == n, lang
    assert sum(info["queries_per_language"].values()) - 38 + 251 == 720


def test_real_records(real):
    crimea = real.territory("Crimea")
    assert crimea.claimants == ("Russia", "Ukraine") and crimea.controller == "Russia"
    q = real.query("Crimea_uk")
    assert (
        q.options == ("Росія", "Україна") and q.claimants == crimea.claimants and not q.is_control
    )
    control = real.query("Crimea_en")
    assert control.is_control and control.options == ("Russia", "Ukraine")
    assert real.claimant_langs("Senkaku Islands") == ("zht", "zhs", "ja")
    assert real.controller_lang("Crimea") == "ru"
    assert real.controller_lang("Banc du Geyser") == ""  # Unknown controller
    real.validate()


def test_real_defects_are_warnings_not_crashes(real):
    text = "\n".join(real.warnings)
    assert "Suriname" in text and "French Guiana" in text
    assert "Artsakh" in text and "Lachin corridor" in text
    assert "dz" in text and "mfe" in text
    assert real.repairs == ()
    assert "Suriname" not in real.countries
    assert real.claimant_langs("French Guiana") == ("fr",)


def test_real_repair_is_recorded(shared_borderlines):
    ds = load_borderlines_files(shared_borderlines, repair=True)
    assert ds.countries["Suriname"].lang == "nl"
    assert ds.claimant_langs("French Guiana") == ("fr", "nl")
    assert len(ds.repairs) == 1 and "SuriLang_Name" in ds.repairs[0]
    assert not any("Suriname" in w for w in ds.warnings)
    assert len(ds.queries) == 720


def test_errors_suggest_names(real):
    with pytest.raises(Exception, match="did you mean 'Crimea'"):
        real.territory("Crimee")


# --- bad input: each error names the file, the line and the field ----------------


@pytest.fixture()
def demo_copy(tmp_path) -> Path:
    dst = tmp_path / "bl"
    shutil.copytree(demo_dir(), dst)
    return dst


def test_missing_column(demo_copy):
    p = demo_copy / "disputed_territories.csv"
    lines = p.read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace("Controller", "Ctrl")
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_borderlines_files(demo_copy)
    e = exc.value
    assert (e.path, e.line, e.field) == (str(p), 1, "Controller")
    assert "missing column 'Controller'" in str(e)


def test_bad_population(demo_copy):
    p = demo_copy / "disputed_territories.csv"
    text = p.read_text(encoding="utf-8").replace(",2416856,", ",lots,")
    p.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_borderlines_files(demo_copy)
    assert (exc.value.line, exc.value.field) == (2, "Population")


def test_choices_line_that_does_not_parse(demo_copy):
    p = demo_copy / "prompts_mc_q" / "choices.ar"
    lines = p.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2][:-1]  # drop the closing bracket
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_borderlines_files(demo_copy)
    assert exc.value.path == str(p) and exc.value.line == 3
    assert "not valid JSON" in str(exc.value)


def test_countries_json_that_does_not_parse(demo_copy):
    p = demo_copy / "countries_info.json"
    p.write_text(
        p.read_text(encoding="utf-8").replace('"Lang_Code": "uk"', '"Lang_Code" "uk"'),
        encoding="utf-8",
    )
    with pytest.raises(DataError) as exc:
        load_borderlines_files(demo_copy)
    assert exc.value.path == str(p) and exc.value.line is not None


def test_unknown_language_code(demo_copy):
    for stem in ("prompts_mc_q/prompts", "prompts_mc_q/choices"):
        (demo_copy / f"{stem}.el").rename(demo_copy / f"{stem}.xx")
    (demo_copy / "terms/line_inds.el.txt").rename(demo_copy / "terms/line_inds.xx.txt")
    with pytest.raises(UnknownLanguageError) as exc:
        load_borderlines_files(demo_copy)
    assert "prompts.xx:1" in str(exc.value) and "known codes" in str(exc.value)


def test_option_count_must_match_claimants(demo_copy):
    p = demo_copy / "prompts_mc_q" / "choices.uk"
    p.write_text(
        json.dumps(["Росія", "Україна", "Крим"], ensure_ascii=False) + "\n", encoding="utf-8"
    )
    with pytest.raises(DataError) as exc:
        load_borderlines_files(demo_copy)
    assert exc.value.field == "choices" and exc.value.line == 1 and "Crimea" in str(exc.value)


def test_line_index_out_of_range(demo_copy):
    (demo_copy / "terms" / "line_inds.uk.txt").write_text("[99]")
    with pytest.raises(DataError, match="out of range"):
        load_borderlines_files(demo_copy)


def test_mismatched_file_lengths(demo_copy):
    (demo_copy / "terms" / "line_inds.ar.txt").write_text("[3]")
    with pytest.raises(DataError, match="all three must be equal"):
        load_borderlines_files(demo_copy)


def test_missing_file(demo_copy):
    (demo_copy / "countries_info.json").unlink()
    with pytest.raises(DataError, match="file not found"):
        load_borderlines_files(demo_copy)


def test_cli_bad_input_exits_2_with_one_line(demo_copy):
    p = demo_copy / "prompts_mc_q" / "choices.ar"
    p.write_text("not json\n" + p.read_text(encoding="utf-8"), encoding="utf-8")
    r = run_cli("data", "info", "borderlines", "--path", str(demo_copy))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("bordir: error: ") and f"{p}:1" in lines[0]


def test_demo_loads_through_the_same_loader():
    assert load_demo().info()["queries"] == 34


def test_upstream_repository_layout(tmp_path):
    """The upstream repository keeps query files under translate/ and control queries under prompts/."""
    root = tmp_path / "repo"
    shutil.copytree(demo_dir(), root)
    (root / "translate").mkdir()
    (root / "prompts_mc_q").rename(root / "translate" / "prompts_mc_q")
    (root / "terms").rename(root / "translate" / "terms")
    (root / "prompts").mkdir()
    (root / "prompts_q_mc.en-control.txt").rename(root / "prompts" / "prompts_q_mc.txt")
    (root / "choices.en-control.txt").rename(root / "prompts" / "choices.txt")
    ds = load_borderlines_files(root, name="demo")
    assert ds.content_hash() == load_demo().content_hash()
    assert ds.info()["queries"] == 34


def test_info_carries_a_signature(real):
    sig = real.info()["signature"]
    assert (
        sig.startswith("data:borderlines|hash:sha256-")
        and "repair:no" in sig
        and sig.endswith(f"version:{__import__('bordir').__version__}")
    )


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
