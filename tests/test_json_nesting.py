"""A JSON text nested deeper than Python's parser goes is refused the same way by every reader, never an internal error.

``json.loads`` raises :class:`RecursionError` on a line of 100,000 ``[`` (it recurses once per
level). Every file bordir reads goes through ``bordir._io.json_read.loads``, so the CLI prints one line,
``FILE:LINE: not valid JSON: nested too deeply …``, and exits 2. Each case writes a real file on
disk and runs the real CLI; before, each ended in ``internal error: RecursionError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import invoke_cli
from .nomiracl_files import write_nomiracl
from .rundirs import reoutput, rerecord

DEEP = "[" * 100_000
PASSAGE = '{"doc_id": "d1", "lang": "en", "territory": "Crimea", "text": "Crimea is a peninsula."}'


def _lines(path: Path, *lines: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return path


def _passages(tmp: Path) -> tuple[Path, int, list[str]]:
    f = _lines(tmp / "p.jsonl", PASSAGE, DEEP)
    return f, 2, ["corpus", "info", str(f)]


def _all_docs(tmp: Path) -> tuple[Path, int, list[str]]:
    f = tmp / "all_docs.json"
    f.write_text('{"en": {"d1": "x"},\n "de": ' + DEEP + "\n", encoding="utf-8")
    return f, 2, ["corpus", "info", str(f)]


def _nomiracl_corpus(tmp: Path) -> tuple[Path, int, list[str]]:
    root = write_nomiracl(tmp / "n", ("sw",))
    f = root / "sw" / "corpus.jsonl"
    lines = f.read_text(encoding="utf-8").splitlines()
    lines[2] = DEEP
    _lines(f, *lines)
    return (
        f,
        3,
        ["data", "info", "nomiracl", "--path", str(root), "--lang", "sw", "--split", "test"],
    )


def _nomiracl_results(tmp: Path) -> tuple[Path, int, list[str]]:
    ok = json.dumps({"query_id": "1", "results": {"m": "I don't know"}})
    f = _lines(tmp / "non_relevant" / "sw.test.vanilla_prompt.jsonl", ok, DEEP)
    return f, 2, ["testbed", "score", str(f), "--format", "nomiracl"]


def _rgb_predictions(tmp: Path) -> tuple[Path, int, list[str]]:
    ok = [
        json.dumps({"id": i, "query": "q", "ans": ["a"], "prediction": "a", "noise_rate": 0.0})
        for i in range(2)
    ]
    f = _lines(tmp / "prediction_en_m_temp0.7_noise0.0_passage5_correct0.0.json", *ok, DEEP)
    return f, 3, ["testbed", "score", str(f)]


def _metrics_json(tmp: Path) -> tuple[Path, int, list[str]]:
    from .report.test_report import make_run_dir

    run = make_run_dir(tmp / "run")
    f = run / "metrics.json"
    f.write_text('{"results":\n' + DEEP + "\n", encoding="utf-8")
    reoutput(run, "metrics.json")  # the output of its record, as `bordir report` lists it
    return f, 2, ["runs", str(run)]


def _run_json(tmp: Path) -> tuple[Path, int, list[str]]:
    from .report.test_report import make_run_dir

    run = make_run_dir(tmp / "run")
    f = run / "run.json"
    f.write_text(DEEP, encoding="utf-8")
    rerecord(run)  # the record lists it as it is now: the reader gets to parse it
    return f, 1, ["report", str(run)]


def _labels(tmp: Path) -> tuple[Path, int, list[str]]:
    f = _lines(tmp / "labels.jsonl", DEEP)
    return f, 1, ["agreement", str(f), str(f)]


CASES: dict[str, Callable[[Path], tuple[Path, int, list[str]]]] = {
    "passages-jsonl": _passages,
    "all-docs-json": _all_docs,
    "nomiracl-corpus": _nomiracl_corpus,
    "nomiracl-results": _nomiracl_results,
    "rgb-predictions": _rgb_predictions,
    "metrics-json": _metrics_json,
    "run-json": _run_json,
    "labels-jsonl": _labels,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_reader_refuses_deep_nesting_in_one_line(case, tmp_path):
    path, line, args = CASES[case](tmp_path)
    res = invoke_cli(*args)
    err = res.stderr.strip()
    assert res.returncode == 2, (res.returncode, err)
    assert "Traceback" not in err and "internal error" not in err, err
    lines = err.splitlines()
    if args[0] == "runs":  # `bordir runs` says what it left out and why, then that nothing is left
        assert len(lines) == 2 and lines[1].startswith("bordir: error: no run to show"), err
    else:
        assert len(lines) == 1, err
    assert f"{path}:{line}: not valid JSON: nested too deeply" in lines[0], err


def test_a_toml_config_nested_too_deeply(tmp_path):
    f = tmp_path / "exp.toml"
    f.write_text("models = " + DEEP + "\n", encoding="utf-8")
    res = invoke_cli("run", str(f), "--out", str(tmp_path / "out"))
    assert res.returncode == 2 and "internal error" not in res.stderr, res.stderr
    assert res.stderr.strip() == f"bordir: error: {f}: invalid TOML: nested too deeply"


def test_the_audit_says_it_the_same_way(tmp_path):
    f = _lines(tmp_path / "log.jsonl", DEEP)
    res = invoke_cli("audit", str(f), "--out", str(tmp_path / "a"))
    assert res.returncode == 2, res.stderr
    assert "first at line 1: not valid JSON: nested too deeply;" in res.stderr, res.stderr


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (DEEP, "nested too deeply"),
        ('{"a": ' * 50_000, "nested too deeply"),
        ('{"n": ' + "7" * 5000 + "}", "a number with more than 4300 digits"),
    ],
)
def test_loads_turns_every_failure_into_a_decode_error(text, reason):
    from bordir._io.json_read import loads

    with pytest.raises(json.JSONDecodeError) as info:
        loads(text)
    assert info.value.msg == reason and info.value.lineno == 1
    with pytest.raises(json.JSONDecodeError):
        loads(text.encode())


def test_a_server_body_nested_too_deeply_is_a_malformed_reply(monkeypatch):
    """The OpenAI backend reads a reply body with the same reader: a transient 'malformed' error."""
    pytest.importorskip("openai")
    from bordir.errors import TransientError
    from bordir.generation.backend import get_backend
    from bordir.generation.types import GenerationRequest, Message

    from .loopback import Fault, LoopbackServer

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with LoopbackServer() as server:
        server.push(Fault("malformed", body=DEEP))
        backend = get_backend("openai-compatible/deep", base_url=server.openai_url, timeout=10.0)
        try:
            with pytest.raises(TransientError, match="malformed JSON response: nested too deeply"):
                backend.generate(
                    GenerationRequest(
                        model="openai-compatible/deep", messages=(Message("user", "q"),)
                    )
                )
        finally:
            backend.close()


def test_a_cohere_body_nested_too_deeply_is_a_malformed_reply(monkeypatch):
    pytest.importorskip("cohere")
    from bordir.errors import TransientError
    from bordir.generation.backend import get_backend
    from bordir.generation.types import GenerationRequest, Message

    from .loopback import Fault, LoopbackServer

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("CO_API_KEY", "co-test-key-0000")
    with LoopbackServer() as server:
        monkeypatch.setenv("CO_API_URL", server.url)
        server.push(Fault("malformed", body=DEEP))
        backend = get_backend("cohere/command-r-08-2024", timeout=10.0)
        try:
            with pytest.raises(TransientError, match="malformed response: nested too deeply"):
                backend.generate(
                    GenerationRequest(
                        model="cohere/command-r-08-2024", messages=(Message("user", "q"),)
                    )
                )
        finally:
            backend.close()


MODERATE = "[" * 600 + "]" * 600
"""Nested deep enough to break what reads the value after the parser (repr, json.dumps), not the parser."""


@pytest.mark.parametrize(
    "args", [("report", "{run}", "--no-plots"), ("runs", "{run}"), ("view", "{run}")]
)
def test_a_run_json_the_parser_reads_but_nothing_after_it_can(args, tmp_path):
    """600 levels: ``json.loads`` reads them, then ``repr`` of the value (``git_revision`` on the
    report page) exceeds the recursion limit; before: ``internal error: RecursionError``."""
    from .report.test_report import make_run_dir

    run = make_run_dir(tmp_path / "run")
    f = run / "run.json"
    info = json.loads(f.read_text(encoding="utf-8"))
    text = json.dumps(info, indent=1).replace(
        '"git_revision": ', f'"git_revision": {MODERATE}, "x": '
    )
    f.write_text(text, encoding="utf-8")
    rerecord(run)  # the record lists it as it is now: the readers get to parse it
    line = 1 + text[: text.index("[" * 10)].count("\n")
    res = invoke_cli(*(a.format(run=run) for a in args))
    err = res.stderr.strip()
    assert res.returncode == 2 and "internal error" not in err, err
    assert f"{f}:{line}: not valid JSON: nested too deeply" in err, err


def test_the_depth_bordir_reads():
    from bordir._io.json_read import MAX_DEPTH, loads

    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert loads(json.dumps(["[{" * 500, "\\" * 3 + '"[' * 300])) is not None  # brackets in strings
    for text in ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), '{"a": ' * 200 + "1" + "}" * 200):
        with pytest.raises(json.JSONDecodeError, match="nested too deeply"):
            loads(text)
        with pytest.raises(json.JSONDecodeError, match="nested too deeply"):
            loads(text.encode())


@pytest.mark.parametrize("where", ["config", "suite", "prices"])
def test_a_toml_integer_longer_than_python_converts(where, tmp_path):
    """``k = 1`` followed by a million zeros: tomllib's ``int()`` raised a plain ValueError
    (before: ``internal error: ValueError: Exceeds the limit (4300 digits)``)."""
    big = "1" + "0" * 1_000_000
    cfg = tmp_path / "exp.toml"
    cfg.write_text('dataset = "demo"\nmodels = ["mock/first"]\n', encoding="utf-8")
    env = None
    if where == "config":
        cfg.write_text(f'dataset = "demo"\nmodels = ["mock/first"]\nk = {big}\n', encoding="utf-8")
        bad, word = cfg, "invalid"
    elif where == "suite":
        cfg.write_text(f'dataset = "demo"\n[[runs]]\nname = "a"\nk = {big}\n', encoding="utf-8")
        bad, word = cfg, "invalid"
    else:
        bad, word = tmp_path / "prices.toml", "not valid"
        bad.write_text(f'[models."mock/*"]\ninput = {big}\noutput = 1\n', encoding="utf-8")
        env = {"BORDIR_PRICES": str(bad)}
    res = invoke_cli("run", str(cfg), "--out", str(tmp_path / "out"), "--dry-run", env=env)
    assert res.returncode == 2 and "internal error" not in res.stderr, res.stderr
    assert res.stderr.strip() == (
        f"bordir: error: {bad}: {word} TOML: a number with more than 4300 digits"
    ), res.stderr
