"""testgen's document languages: each file read in its own language, FILE:LANG naming one; an unknown code given to
testgen or judge is one line naming the option (or FILE:LANG), the known codes and the close ones; exit 2."""

from __future__ import annotations

import json

import pytest

from ..conftest import invoke_cli


@pytest.fixture
def guide(tmp_path):
    path = tmp_path / "guide.md"
    path.write_text("# Crimea\n\nCrimea is a peninsula in the Black Sea.\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("option", "source"),
    [("--lang", "file"), ("--lang", "demo"), ("--langs", "demo"), ("--write-lang", "demo")],
)
def test_an_unknown_language_option_names_the_option_and_the_codes(tmp_path, guide, option, source):
    extra = ["--write", "Crimea", "--writer", "mock/echo"] if option == "--write-lang" else []
    src = str(guide) if source == "file" else "demo"
    r = invoke_cli("testgen", src, option, "enn", *extra, "--out", str(tmp_path / "t.jsonl"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"{option} 'enn'" in lines[0]
    assert "known codes: ar, az" in lines[0] and "did you mean" in lines[0]
    assert "Traceback" not in r.stderr and not (tmp_path / "t.jsonl").exists()


def test_an_unknown_file_language_names_the_file_spec(tmp_path, guide):
    r = invoke_cli("testgen", f"{guide}:enn", "--out", str(tmp_path / "t.jsonl"))
    assert r.returncode == 2
    line = r.stderr.strip()
    assert f"{guide}:enn (FILE:LANG)" in line and "did you mean" in line and "en" in line
    assert "not found" not in line  # the file exists; its language code is the problem


def test_an_unknown_judge_prompt_language_names_the_option(tmp_path):
    (tmp_path / "answers.jsonl").write_text("")
    r = invoke_cli("judge", str(tmp_path), "--judge", "mock/echo", "--prompt-langs", "en,rus")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0
    assert "--prompt-langs 'rus'" in r.stderr and "de, en, es, fr, ru" in r.stderr
    assert "did you mean 'ru'" in r.stderr


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
