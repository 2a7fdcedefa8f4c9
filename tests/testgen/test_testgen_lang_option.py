"""An unknown language code given to testgen or judge: one line naming the option (or FILE:LANG), the known codes and the close ones; exit 2."""

from __future__ import annotations

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
