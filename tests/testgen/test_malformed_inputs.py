"""Malformed input: every case exits 2 with one line on stderr naming the file and the line or field.

Cases cover data files (BorderLines layout), corpora, experiment configs, label
files, audit logs, CLI options and output paths. Most run the real entry point
``bordir.cli.main`` in-process (it is what the console script calls: same
parsing, same error handling, same exit status); a few run ``python -m bordir``
in a subprocess to prove the two agree.

Each case builds its input from the bundled demo data (in the BorderLines file
layout) and breaks one thing.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from bordir.cli import main
from bordir.loaders.demo import demo_dir

from ..conftest import run_cli
from ..rundirs import record_by_hand, rerecord

# -- helpers -----------------------------------------------------------------------------------


def run_inproc(argv: list[str]) -> tuple[int, str]:
    """``bordir ARGV`` through the console script's entry point, in this process: (status, stderr)."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as exc:  # pragma: no cover - main returns; the console script exits
            code = exc.code if isinstance(exc.code, int) else 1
    return code, err.getvalue()


def bl_copy(tmp: Path) -> Path:
    """A copy of the demo dataset's BorderLines-layout files."""
    dst = tmp / "bl"
    shutil.copytree(
        demo_dir(), dst, ignore=shutil.ignore_patterns("corpus", "embeddings", "README.md")
    )
    return dst


def edit(path: Path, fn: Callable[[str], str]) -> None:
    path.write_text(fn(path.read_text(encoding="utf-8")), encoding="utf-8")


def edit_lines(path: Path, fn: Callable[[list[str]], list[str]]) -> None:
    edit(path, lambda t: "\n".join(fn(t.split("\n"))))


def csv_row(path: Path, i: int, col: int, value: str) -> None:
    """Set column ``col`` of data row ``i`` (0-based, after the header) of a simple CSV."""

    def fn(lines: list[str]) -> list[str]:
        cells = lines[i + 1].split(",")
        cells[col] = value
        lines[i + 1] = ",".join(cells)
        return lines

    edit_lines(path, fn)


def set_bytes(path: Path, data: bytes) -> None:
    path.write_bytes(data)


LATIN1 = "Territory,Claimants\nCr\u00e9mea,Russia;Ukraine\n".encode("latin-1")
BINARY = bytes(range(256)) * 8
UTF16 = "Territory,Claimants\nCrimea,Russia;Ukraine\n".encode("utf-16")


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable[[Path], list[str]]
    expect: tuple[str, ...]
    """Substrings of the error line: the file, and ``:LINE`` or ``field 'X'`` where there is one."""
    env: tuple[tuple[str, str], ...] = ()
    """Environment variables set for the case (``{tmp}`` is the case's directory)."""


CASES: list[Case] = []


def case(id: str, *expect: str):
    def deco(fn: Callable[[Path], list[str]]):
        CASES.append(Case(id, fn, expect))
        return fn

    return deco


def data_info(d: Path) -> list[str]:
    return ["data", "info", "borderlines", "--path", str(d)]


# -- BorderLines data files -------------------------------------------------------------------

T = "disputed_territories.csv"
C = "countries_info.json"


def _bl(id: str, mutate: Callable[[Path], object], *expect: str) -> None:
    def build(tmp: Path) -> list[str]:
        d = bl_copy(tmp)
        mutate(d)
        return data_info(d)

    CASES.append(Case(f"data-{id}", build, expect))


_bl(
    "csv-latin1",
    lambda d: (d / T).write_bytes(
        (d / T).read_bytes().replace(b"Crimea,", "Cr\u00e9mea,".encode("latin-1"))
    ),
    f"{T}:2",
    "UTF-8",
)
_bl("csv-utf16", lambda d: (d / T).write_bytes((d / T).read_text().encode("utf-16")), T, "UTF-16")
_bl("csv-gzip", lambda d: (d / T).write_bytes(gzip.compress((d / T).read_bytes())), T, "gzip")
_bl("csv-binary", lambda d: (d / T).write_bytes(BINARY), T)
_bl(
    "csv-missing-column",
    lambda d: edit(d / T, lambda t: t.replace("Controller,", "Ctrl,", 1)),
    f"{T}:1",
    "field 'Controller'",
)
_bl(
    "csv-too-few-fields",
    lambda d: edit_lines(d / T, lambda ls: [*ls[:3], ",".join(ls[3].split(",")[:4]), *ls[4:]]),
    f"{T}:4",
)
_bl(
    "csv-cut-mid-row", lambda d: (d / T).write_bytes((d / T).read_bytes().rstrip()[:-40]), f"{T}:13"
)
_bl(
    "csv-unterminated-quote",
    lambda d: csv_row(d / T, 4, 3, '"never closed'),
    f"{T}:6",
    "unexpected end of data",
)
_bl("csv-stray-quote", lambda d: csv_row(d / T, 2, 3, '"Asia"n'), f"{T}:4", "malformed CSV")
_bl("csv-truncated-rows", lambda d: edit_lines(d / T, lambda ls: ls[:10]), T, "truncated")
_bl(
    "csv-duplicate-row",
    lambda d: edit_lines(d / T, lambda ls: [*ls[:3], ls[2], *ls[3:]]),
    f"{T}:4",
    "field 'Territory'",
)
_bl(
    "csv-nul-in-name",
    lambda d: edit(d / T, lambda t: t.replace("Crimea,", "Cri\x00mea,", 1)),
    f"{T}:2",
    "NUL",
)
_bl("csv-population-inf", lambda d: csv_row(d / T, 0, 4, "inf"), f"{T}:2", "field 'Population'")
_bl("csv-population-nan", lambda d: csv_row(d / T, 1, 4, "nan"), f"{T}:3", "field 'Population'")
_bl("csv-population-word", lambda d: csv_row(d / T, 2, 4, "many"), f"{T}:4", "field 'Population'")
_bl("csv-population-negative", lambda d: csv_row(d / T, 0, 4, "-5"), f"{T}:2", "field 'Population'")
_bl("csv-population-1e400", lambda d: csv_row(d / T, 0, 4, "1e400"), f"{T}:2", "field 'Population'")
_bl(
    "csv-huge-field",
    lambda d: csv_row(d / T, 1, 3, '"' + "x" * 140_000 + '"'),
    f"{T}:3",
    "field larger",
)
_bl("csv-empty-territory", lambda d: csv_row(d / T, 0, 0, " "), f"{T}:2", "field 'Territory'")
_bl("csv-one-claimant", lambda d: csv_row(d / T, 0, 1, "Russia"), f"{T}:2", "field 'Claimants'")
_bl("csv-empty-controller", lambda d: csv_row(d / T, 0, 2, ""), f"{T}:2", "field 'Controller'")
_bl("csv-header-only", lambda d: edit_lines(d / T, lambda ls: ls[:1]), T, "no rows")
_bl("csv-empty-file", lambda d: (d / T).write_bytes(b""), T, "field 'Territory'")
_bl("csv-missing", lambda d: (d / T).unlink(), T, "not found")
_bl(
    "countries-latin1",
    lambda d: (d / C).write_bytes(
        (d / C).read_bytes().replace(b'"Russia"', '"R\u00fcssia"'.encode("latin-1"))
    ),
    f"{C}:2",
    "UTF-8",
)
_bl(
    "countries-utf16",
    lambda d: (d / C).write_bytes((d / C).read_text().encode("utf-16")),
    C,
    "UTF-16",
)
_bl(
    "countries-invalid-json",
    lambda d: edit(d / C, lambda t: t.replace('"ru",', '"ru",,', 1)),
    f"{C}:3",
)
_bl("countries-not-object", lambda d: (d / C).write_text("[1, 2]"), C, "object")
_bl(
    "countries-unknown-lang",
    lambda d: edit(d / C, lambda t: t.replace('"Lang_Code": "ru"', '"Lang_Code": "xx"')),
    C,
    "field 'Russia.Lang_Code'",
    "'xx'",
)
_bl(
    "countries-no-lang-code",
    lambda d: edit(d / C, lambda t: t.replace('"Lang_Code": "ru"', '"Lang": "ru"')),
    C,
    "field 'Russia.Lang_Code'",
)
_bl("countries-missing", lambda d: (d / C).unlink(), C, "not found")
_bl("countries-binary", lambda d: (d / C).write_bytes(BINARY), C)
_bl(
    "prompts-latin1",
    lambda d: (d / "prompts_mc_q/prompts.uk").write_bytes(
        "Чи є Крим \u00e9".encode("utf-8")[:-2] + b"\xe9"
    ),
    "prompts.uk:1",
    "UTF-8",
)
_bl(
    "prompts-nul",
    lambda d: edit(d / "prompts_mc_q/prompts.uk", lambda t: t.replace("Крим", "Кр\x00им", 1)),
    "prompts.uk:1",
    "NUL",
)
_bl("prompts-binary", lambda d: (d / "prompts_mc_q/prompts.ru").write_bytes(BINARY), "prompts.ru")
_bl(
    "prompts-utf16",
    lambda d: (d / "prompts_mc_q/prompts.ru").write_bytes(
        (d / "prompts_mc_q/prompts.ru").read_text().encode("utf-16")
    ),
    "prompts.ru",
    "UTF-16",
)
_bl(
    "prompts-extra-line",
    lambda d: edit(d / "prompts_mc_q/prompts.uk", lambda t: t + "\nAnother query?\n"),
    "prompts.uk",
    "equal",
)
_bl(
    "choices-latin1",
    lambda d: (d / "prompts_mc_q/choices.uk").write_bytes(b'["R\xe9ssia", "x"]\n'),
    "choices.uk:1",
    "UTF-8",
)
_bl(
    "choices-invalid-json",
    lambda d: (d / "prompts_mc_q/choices.uk").write_text('["a", "b"\n'),
    "choices.uk:1",
)
_bl(
    "choices-not-list",
    lambda d: (d / "prompts_mc_q/choices.uk").write_text('{"a": 1}\n'),
    "choices.uk:1",
)
_bl(
    "choices-three-options",
    lambda d: (d / "prompts_mc_q/choices.uk").write_text('["a", "b", "c"]\n'),
    "prompts.uk:1",
    "field 'choices'",
)
_bl(
    "choices-missing", lambda d: (d / "prompts_mc_q/choices.uk").unlink(), "choices.uk", "not found"
)
_bl(
    "line-inds-latin1",
    lambda d: (d / "terms/line_inds.uk.txt").write_bytes(b"[0] \xe9"),
    "line_inds.uk.txt:1",
    "UTF-8",
)
_bl(
    "line-inds-invalid",
    lambda d: (d / "terms/line_inds.uk.txt").write_text("[0,"),
    "line_inds.uk.txt:1",
)
_bl(
    "line-inds-strings",
    lambda d: (d / "terms/line_inds.uk.txt").write_text('["0"]'),
    "line_inds.uk.txt:1",
)
_bl(
    "line-inds-out-of-range",
    lambda d: (d / "terms/line_inds.uk.txt").write_text("[99]"),
    "prompts.uk:1",
    "field 'line_inds'",
)
_bl(
    "line-inds-missing",
    lambda d: (d / "terms/line_inds.uk.txt").unlink(),
    "line_inds.uk.txt",
    "not found",
)
_bl(
    "unknown-query-language",
    lambda d: [
        shutil.copy(d / "prompts_mc_q/prompts.uk", d / "prompts_mc_q/prompts.xx"),
        shutil.copy(d / "prompts_mc_q/choices.uk", d / "prompts_mc_q/choices.xx"),
        shutil.copy(d / "terms/line_inds.uk.txt", d / "terms/line_inds.xx.txt"),
    ],
    "prompts.xx:1",
    "'xx'",
)
_bl(
    "second-query-same-territory",
    lambda d: [
        edit(
            d / "prompts_mc_q/prompts.uk", lambda t: t.rstrip("\n") + "\n" + t.rstrip("\n") + "\n"
        ),
        edit(
            d / "prompts_mc_q/choices.uk", lambda t: t.rstrip("\n") + "\n" + t.rstrip("\n") + "\n"
        ),
        (d / "terms/line_inds.uk.txt").write_text("[0, 0]"),
    ],
    "prompts.uk:2",
    "second uk query",
)
_bl(
    "control-latin1",
    lambda d: (d / "prompts_q_mc.en-control.txt").write_bytes(
        (d / "prompts_q_mc.en-control.txt").read_bytes().replace(b"Crimea", b"Cr\xe9mea", 1)
    ),
    "prompts_q_mc.en-control.txt:1",
    "UTF-8",
)
_bl(
    "control-choices-invalid",
    lambda d: edit_lines(d / "choices.en-control.txt", lambda ls: [ls[0], "[broken", *ls[2:]]),
    "choices.en-control.txt:2",
)
_bl(
    "control-queries-short",
    lambda d: edit_lines(d / "prompts_q_mc.en-control.txt", lambda ls: ls[:-3]),
    "prompts_q_mc.en-control.txt",
    "control queries",
)
_bl(
    "control-both-short",
    lambda d: [
        edit_lines(d / "prompts_q_mc.en-control.txt", lambda ls: ls[:5]),
        edit_lines(d / "choices.en-control.txt", lambda ls: ls[:5]),
    ],
    "prompts_q_mc.en-control.txt",
    "truncated",
)
_bl("no-prompts-dir", lambda d: shutil.rmtree(d / "prompts_mc_q"), "prompts_mc_q", "not found")


@case("data-path-is-a-file", "not-a-dir", "is a file")
def _(tmp):
    (tmp / "not-a-dir").write_text("x")
    return data_info(tmp / "not-a-dir")


@case("data-unknown-dataset", "'nope'")
def _(tmp):
    return ["data", "info", "nope"]


# -- corpora -----------------------------------------------------------------------------------

P = "passages.jsonl"
GOOD_PASSAGE = {
    "doc_id": "d1",
    "lang": "en",
    "territory": "Crimea",
    "title": "Crimea",
    "text": "Crimea is a peninsula.",
}


def _corpus(id: str, content: bytes | None, *expect: str) -> None:
    def build(tmp: Path) -> list[str]:
        p = tmp / P
        if content is not None:
            p.write_bytes(content)
        return [
            "retrieve",
            "--corpus",
            str(p),
            "--modes",
            "qlang",
            "--k",
            "2",
            "--out",
            str(tmp / "hits.parquet"),
        ]

    CASES.append(Case(f"corpus-{id}", build, expect))


def _jl(*recs: object) -> bytes:
    return "".join(
        (r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in recs
    ).encode()


_corpus("missing", None, P)
_corpus(
    "latin1",
    _jl(GOOD_PASSAGE)
    + b'{"doc_id": "d2", "lang": "en", "territory": "Crimea", "text": "Cr\xe9mea"}\n',
    f"{P}:2",
    "UTF-8",
)
_corpus("binary", BINARY, P)
_corpus("gzip", gzip.compress(_jl(GOOD_PASSAGE)), P, "UTF-8")
_corpus("utf16", _jl(GOOD_PASSAGE).decode().encode("utf-16"), P, "UTF-8")
_corpus("invalid-json", _jl(GOOD_PASSAGE, GOOD_PASSAGE | {"doc_id": "d2"}, "{broken"), f"{P}:3")
_corpus("not-an-object", _jl(GOOD_PASSAGE, "[1, 2]"), f"{P}:2")
_corpus(
    "no-text",
    _jl(GOOD_PASSAGE, {"doc_id": "d2", "lang": "en", "territory": "Crimea"}),
    f"{P}:2",
    "text",
)
_corpus("no-doc-id", _jl({"lang": "en", "territory": "Crimea", "text": "x"}), f"{P}:1", "doc_id")
_corpus("empty", b"", P, "no passages")
_corpus("blank-lines-only", b"\n\n  \n", P, "no passages")
_corpus(
    "no-territory",
    _jl({"doc_id": "d1", "lang": "en", "title": "Crimea", "text": "Crimea is a peninsula."}),
    P,
    "territory",
)
_corpus("unknown-lang", _jl(GOOD_PASSAGE | {"lang": "xx"}), P, "'xx'")


@case("corpus-is-a-directory", "corpus")
def _(tmp):
    (tmp / "adir").mkdir()
    return ["retrieve", "--corpus", str(tmp / "adir"), "--out", str(tmp / "hits.parquet")]


@case("corpus-info-binary", "blob.bin")
def _(tmp):
    (tmp / "blob.bin").write_bytes(BINARY)
    return ["corpus", "info", str(tmp / "blob.bin")]


@case("corpus-info-latin1-jsonl", "p.jsonl:1", "UTF-8")
def _(tmp):
    (tmp / "p.jsonl").write_bytes(
        b'{"doc_id": "d", "lang": "en", "territory": "C", "text": "\xe9"}\n'
    )
    return ["corpus", "info", str(tmp / "p.jsonl")]


# -- corpus fetch (fails before any request) ---------------------------------------------------


def _fetch(id: str, setup: Callable[[Path], list[str]], *expect: str) -> None:
    def build(tmp: Path) -> list[str]:
        return [
            "corpus",
            "fetch",
            "--dataset",
            "demo",
            "--territories",
            "Crimea",
            "--no-progress",
            "--endpoint",
            "http://127.0.0.1:9/{edition}/api.php",
            "--max-retries",
            "0",
            *setup(tmp),
        ]

    CASES.append(Case(f"fetch-{id}", build, expect))


def _write(tmp: Path, name: str, data: bytes) -> Path:
    (tmp / name).write_bytes(data)
    return tmp / name


_fetch(
    "title-fixes-latin1",
    lambda t: [
        "--title-fixes",
        str(_write(t, "fixes.tsv", b"name\ttitle\nCrimea\t\xe9\n")),
        "--out",
        str(t / "c"),
    ],
    "fixes.tsv:2",
    "UTF-8",
)
_fetch(
    "title-fixes-no-header",
    lambda t: [
        "--title-fixes",
        str(_write(t, "fixes.tsv", b"no tab here\n")),
        "--out",
        str(t / "c"),
    ],
    "fixes.tsv:1",
    "column",
)
_fetch(
    "as-of-not-a-date",
    lambda t: ["--as-of", "yesterday", "--out", str(t / "c")],
    "--as-of",
    "yesterday",
)
_fetch("unknown-lang", lambda t: ["--langs", "xx", "--out", str(t / "c")], "--langs", "'xx'")
_fetch("out-blocked", lambda t: ["--out", str(_blocked(t))], "blocker")
_fetch("rpm-negative", lambda t: ["--rpm", "-5", "--out", str(t / "c")], "--rpm", "-5")
_fetch("rpm-nan", lambda t: ["--rpm", "nan", "--out", str(t / "c")], "--rpm", "finite")
_fetch("timeout-zero", lambda t: ["--timeout", "0", "--out", str(t / "c")], "--timeout", "x>0")
_fetch("timeout-inf", lambda t: ["--timeout", "inf", "--out", str(t / "c")], "--timeout", "finite")
_fetch(
    "max-retries-negative",
    lambda t: ["--max-retries", "-1", "--out", str(t / "c")],
    "--max-retries",
)


@case("fetch-unknown-territory", "'Atlantis'")
def _(tmp):
    return [
        "corpus",
        "fetch",
        "--dataset",
        "demo",
        "--territories",
        "Atlantis",
        "--out",
        str(tmp / "c"),
    ]


# -- experiment configs ------------------------------------------------------------------------


def _config(id: str, body: str | bytes, *expect: str, dry: bool = True) -> None:
    def build(tmp: Path) -> list[str]:
        p = tmp / "exp.toml"
        if isinstance(body, bytes):
            p.write_bytes(body)
        else:
            p.write_text(body, encoding="utf-8")
        return ["run", str(p), "--out", str(tmp / "run"), *(["--dry-run"] if dry else [])]

    CASES.append(Case(f"config-{id}", build, ("exp.toml", *expect)))


BASE = '[experiment]\nmodels = ["mock/first"]\n'
_config("latin1", b'[experiment]\nmodels = ["mock/first"]\nsystem = "\xe9"\n', "UTF-8")
_config("binary", BINARY)
_config("invalid-toml", BASE + "k = = 3\n", "TOML")
_config("models-int", "[experiment]\nmodels = [1]\n", "field 'models'")
_config("models-no-slash", '[experiment]\nmodels = ["gpt"]\n', "field 'models'")
_config("models-unknown-provider", '[experiment]\nmodels = ["zzz/model"]\n', "field 'models'")
_config("models-empty", "[experiment]\nmodels = []\n", "field 'models'")
_config("cache-int", BASE + "cache = 5\n", "field 'cache'")
_config("k-zero", BASE + "k = 0\n", "field 'k'")
_config("k-bool", BASE + "k = true\n", "field 'k'")
_config("k-string", BASE + 'k = "ten"\n', "field 'k'")
_config("temperature-nan", BASE + "temperature = nan\n", "field 'temperature'")
_config("temperature-negative", BASE + "temperature = -1\n", "field 'temperature'")
_config("temperature-inf", BASE + "temperature = inf\n", "field 'temperature'")
_config("seeds-empty", BASE + "seeds = []\n", "field 'seeds'")
_config("seeds-strings", BASE + 'seeds = ["a"]\n', "field 'seeds'")
_config("runs-zero", BASE + "runs = 0\n", "field 'runs'")
_config("runs-negative", BASE + "runs = -2\n", "field 'runs'")
_config("balanced-string", BASE + 'balanced = "no"\n', "field 'balanced'")
_config("unknown-field", BASE + "temprature = 0.5\n", "temprature")
_config("mode-unknown", BASE + 'modes = ["bogus"]\n', "field 'modes'")
_config("retriever-unknown", BASE + 'retriever = "bogus"\n', "field 'retriever'")
_config("dataset-unknown", BASE + 'dataset = "bogus"\n', "field 'dataset'")
_config("fusion-unknown", BASE + 'fusion = "bogus"\n', "field 'fusion'")
_config("langs-unknown", BASE + 'langs = ["xx"]\n', "field 'langs'")
_config("response-format-unknown", BASE + 'response_format = "essay"\n', "field 'response_format'")
_config("policy-unknown", BASE + 'policy = "lenient"\n', "field 'policy'")
_config("concurrency-zero", BASE + "concurrency = 0\n", "field 'concurrency'")
_config("max-tokens-zero", BASE + "max_tokens = 0\n", "field 'max_tokens'")
_config("system-unknown", BASE + 'system = "skeptic"\n', "field 'system'")
# found by the independent verifier (helper V1):
_config(
    "mock-behaviour-unknown",
    '[experiment]\nmodels = ["mock/frist"]\n',
    "field 'models'",
    "frist",
    dry=False,
)
_config("calibrate-string", BASE + 'calibrate = "yes"\n', "field 'calibrate'")
_config("empty-file", "", "no settings found")
_config("empty-experiment-table", "[experiment]\n", "no settings found")
_config("dataset-path-for-default-demo", BASE + 'dataset_path = "/tmp"\n', "field 'dataset_path'")


@case("config-missing-file", "nope.toml")
def _(tmp):
    return ["run", str(tmp / "nope.toml"), "--out", str(tmp / "run"), "--dry-run"]


# -- label files (bordir agreement) ------------------------------------------------------------

GOLD_LINE = {
    "query_id": "Crimea_en",
    "doc_lang": "ru",
    "doc_id": "crimea_ru_p0",
    "relevance": "relevant",
    "viewpoint": "Russia",
    "annotator": "a",
}


def _labels(id: str, content: bytes | None, *expect: str, name: str = "labels.jsonl") -> None:
    def build(tmp: Path) -> list[str]:
        (tmp / "ok.jsonl").write_bytes(_jl(GOLD_LINE | {"annotator": "b"}))
        p = tmp / name
        if content is not None:
            p.write_bytes(content)
        return ["agreement", str(tmp / "ok.jsonl"), str(p), "--dataset", "demo"]

    CASES.append(Case(f"labels-{id}", build, (name, *expect)))


_labels("latin1", _jl(GOLD_LINE) + b'{"query_id": "Crimea_en", "note": "\xe9"}\n', ":2", "UTF-8")
_labels("binary", BINARY)
_labels("empty", b"", "no labels")  # was an internal KeyError 'query_lang' (verifier V1)
_labels("utf16", _jl(GOLD_LINE).decode().encode("utf-16"), "UTF-16")
_labels("invalid-json", _jl(GOLD_LINE, "{nope"), ":2")
_labels(
    "missing-field",
    _jl({k: v for k, v in GOLD_LINE.items() if k != "relevance"}),
    ":1",
    "relevance",
)
_labels("bad-relevance", _jl(GOLD_LINE | {"relevance": "maybe"}), ":1", "relevance")
_labels("unknown-query", _jl(GOLD_LINE | {"query_id": "Atlantis_en"}), ":1", "query_id")
_labels("missing", None, "not found")
_labels(
    "csv-huge-field",
    b'query_id,doc_lang,doc_id,relevance,viewpoint,annotator\nCrimea_en,ru,crimea_ru_p0,relevant,"'
    + b"x" * 140_000
    + b'",a\n',
    "field larger",
    name="labels.csv",
)
_labels(
    "csv-latin1",
    b"query_id,doc_lang,doc_id,relevance,viewpoint,annotator\nCrimea_en,ru,crimea_ru_p0,relevant,R\xe9,a\n",
    ":2",
    "UTF-8",
    name="labels.csv",
)


# -- audit logs --------------------------------------------------------------------------------

REC = {
    "id": 1,
    "query": "Is Crimea Russian or Ukrainian?",
    "query_lang": "en",
    "response": "<doc0>",
    "response_lang": "en",
    "documents": [{"id": "a", "lang": "en"}],
    "citations": ["a"],
}


def _audit(
    id: str,
    content: bytes | None,
    *expect: str,
    name: str = "log.jsonl",
    extra: tuple[str, ...] = (),
) -> None:
    def build(tmp: Path) -> list[str]:
        p = tmp / name
        if content is not None:
            p.write_bytes(content)
        return [
            "audit",
            str(p),
            "--out",
            str(tmp / "audit"),
            "--no-plots",
            "--resamples",
            "50",
            *extra,
        ]

    CASES.append(Case(f"audit-{id}", build, (name, *expect)))


_audit("binary", BINARY, "no valid record")
_audit("gzip", gzip.compress(_jl(REC)), "gzip")
_audit("utf16", _jl(REC).decode().encode("utf-16"), "UTF-16")
_audit("empty", b"", "no valid record")
_audit("blank-lines", b"\n\n", "no valid record")
_audit("all-lines-bad", b'{nope\n[1]\n{"id": 1}\n', "no valid record")
_audit("missing", None, "not found")
_audit("parquet-garbage", b"PAR1 not really", "Parquet", name="log.parquet")
_audit(
    "cluster-by-absent-field",
    _jl(REC, REC | {"id": 2}),
    "cluster",
    "field 'session'",
    extra=("--cluster-by", "session"),
)
_audit("strict-bad-line", _jl(REC, "{nope"), ":2", extra=("--strict",))
_audit("latin1-strict", _jl(REC) + b'{"id": 2, "query": "\xe9"}\n', ":2", extra=("--strict",))


@case("audit-parquet-missing-columns", "log.parquet", "column")
def _(tmp):
    pd.DataFrame({"id": [1], "query": ["q"]}).to_parquet(tmp / "log.parquet")
    return ["audit", str(tmp / "log.parquet"), "--out", str(tmp / "audit"), "--no-plots"]


# -- CLI options -------------------------------------------------------------------------------


def _opt(id: str, argv: list[str], *expect: str) -> None:
    CASES.append(
        Case(f"option-{id}", lambda tmp: [a.replace("{tmp}", str(tmp)) for a in argv], expect)
    )


_opt("retrieve-k-zero", ["retrieve", "--k", "0", "--out", "{tmp}/h.parquet"], "k must be >= 1")
_opt("retrieve-mode-unknown", ["retrieve", "--modes", "bogus", "--out", "{tmp}/h.parquet"], "bogus")
_opt("retrieve-lang-unknown", ["retrieve", "--langs", "xx", "--out", "{tmp}/h.parquet"], "xx")
_opt(
    "retrieve-retriever-unknown",
    ["retrieve", "--retriever", "bogus", "--out", "{tmp}/h.parquet"],
    "bogus",
)
_opt(
    "retrieve-fusion-unknown",
    ["retrieve", "--fusion", "bogus", "--out", "{tmp}/h.parquet"],
    "--fusion",
)
_opt(
    "retrieve-dataset-unknown",
    ["retrieve", "--dataset", "bogus", "--out", "{tmp}/h.parquet"],
    "bogus",
)
_opt("retrieve-no-out", ["retrieve"], "--out")
_opt("run-unknown-option", ["run", "x.toml", "--out", "{tmp}/r", "--bogus"], "--bogus")
_opt("run-runs-not-int", ["run", "x.toml", "--out", "{tmp}/r", "--runs", "many"], "--runs")
_opt("audit-resamples-zero", ["audit", "x.jsonl", "--resamples", "0"], "--resamples")
_opt(
    "annotate-k-zero",
    ["annotate", "h.parquet", "--backend", "mock/first", "--out", "{tmp}/l.jsonl", "--k", "0"],
    "--k",
)
_opt("report-missing-dir", ["report", "{tmp}/no-such-run"], "no-such-run")
_opt("unknown-command", ["frobnicate"], "frobnicate")


@case("report-corrupt-run-json", "run.json")
def _(tmp):
    (tmp / "run").mkdir()
    (tmp / "run" / "run.json").write_text("{not json")
    pd.DataFrame({"query_id": ["Crimea_en"]}).to_parquet(tmp / "run" / "responses.parquet")
    record_by_hand(tmp / "run", "run", ("run.json", "responses.parquet"))
    return ["report", str(tmp / "run")]


@case("report-corrupt-responses", "responses.parquet")
def _(tmp):
    from bordir.experiment.config import ExperimentConfig
    from bordir.runner.run import run_experiment

    cfg = ExperimentConfig.from_dict(
        {
            "models": ["mock/first"],
            "modes": ["no_ir"],
            "runs": 1,
            "langs": ["uk"],
            "cache": str(tmp / "c.sqlite3"),
        }
    )
    run_experiment(cfg, tmp / "run", progress=False)
    (tmp / "run" / "responses.parquet").write_bytes(b"garbage")
    return ["report", str(tmp / "run")]


@case("annotate-hits-not-parquet", "hits.parquet")
def _(tmp):
    (tmp / "hits.parquet").write_text("query_id,doc_id\nCrimea_en,x\n")
    return [
        "annotate",
        str(tmp / "hits.parquet"),
        "--backend",
        "mock/first",
        "--out",
        str(tmp / "l.jsonl"),
    ]


@case("annotate-hits-missing", "hits.parquet")
def _(tmp):
    return [
        "annotate",
        str(tmp / "hits.parquet"),
        "--backend",
        "mock/first",
        "--out",
        str(tmp / "l.jsonl"),
    ]


@case("score-table-latin1", "response_table.csv")
def _(tmp):
    (tmp / "response_table.csv").write_bytes(b"Territory,Response\nCr\xe9mea,A\n")
    return ["score", "borderlines-table", str(tmp / "response_table.csv")]


# -- output paths (a parent that is a file: unwritable even for root) --------------------------


def _blocked(tmp: Path) -> Path:
    (tmp / "blocker").write_text("a file where a directory should be")
    return tmp / "blocker" / "sub"


@case("out-retrieve", "blocker")
def _(tmp):
    return [
        "retrieve",
        "--modes",
        "qlang",
        "--k",
        "2",
        "--out",
        str(_blocked(tmp) / "hits.parquet"),
    ]


@case("out-run", "blocker")
def _(tmp):
    (tmp / "exp.toml").write_text(BASE + 'modes = ["no_ir"]\nruns = 1\n')
    return ["run", str(tmp / "exp.toml"), "--out", str(_blocked(tmp))]


@case("out-audit", "blocker")
def _(tmp):
    (tmp / "log.jsonl").write_bytes(_jl(REC))
    return ["audit", str(tmp / "log.jsonl"), "--out", str(_blocked(tmp)), "--no-plots"]


@case("out-demo", "blocker")
def _(tmp):
    return ["demo", "--out", str(_blocked(tmp))]


@case("out-annotate", "blocker")
def _(tmp):
    from bordir.loaders import load_demo, load_demo_corpus
    from bordir.retrieval.run import retrieve

    ds = load_demo()
    retrieve(
        ds, load_demo_corpus(), "bm25", ["qlang"], k=2, queries=[ds.query("Crimea_uk")]
    ).to_parquet(tmp / "h.parquet")
    return [
        "annotate",
        str(tmp / "h.parquet"),
        "--backend",
        "mock/first",
        "--limit",
        "1",
        "--no-cache",
        "--out",
        str(_blocked(tmp) / "labels.jsonl"),
    ]


@case("out-corpus-cache", "blocker")
def _(tmp):
    (tmp / "exp.toml").write_text(
        BASE + f'modes = ["no_ir"]\nruns = 1\ncache = "{_blocked(tmp) / "c.sqlite3"}"\n'
    )
    return ["run", str(tmp / "exp.toml"), "--out", str(tmp / "run")]


# -- testgen, testrun, judge, testbeds, compare, batches, settings (issue 29) -----------------


def _suite_files(tmp: Path) -> Path:
    """A small generated suite (template generator on the demo's English chunks)."""
    from bordir.testgen.sources import load_chunks
    from bordir.testgen.suite import generate_suite
    from bordir.testgen.testcase import write_suite

    chunks = load_chunks(["demo"], langs=["en"])
    suite = generate_suite(chunks, strategies="coverage", n=3, seed=1)
    return write_suite(suite, tmp / "tests.jsonl")


def _answers_dir(tmp: Path) -> Path:
    """A testrun directory of the small suite, answered by mock/echo."""
    from bordir.testgen.execute import parse_config, run_suite
    from bordir.testgen.testcase import read_suite

    tests = _suite_files(tmp)
    run_suite(read_suite(tests), [parse_config("backend=mock/echo,k=1")], tmp / "run",
              suite_path=str(tests))  # fmt: skip
    return tmp / "run"


def _judge_argv(run: Path) -> list[str]:
    return ["judge", str(run), "--judge", "mock/echo", "--no-cache"]


@case("testrun-config-without-backend", "--config", "backend=")
def _(tmp):
    return ["testrun", str(_suite_files(tmp)), "--config", "retriever=bm25,mode=qlang,k=2",
            "--out", str(tmp / "r"), "--no-cache"]  # fmt: skip


@case("testrun-config-key-twice", "--config", "k= is given twice")
def _(tmp):
    return ["testrun", str(_suite_files(tmp)), "--config", "backend=mock/echo,k=3,k=5",
            "--out", str(tmp / "r"), "--no-cache"]  # fmt: skip


@case("testrun-empty-tests-file", "tests.jsonl", "no tests")
def _(tmp):
    tests = _suite_files(tmp)
    tests.write_text("")
    return ["testrun", str(tests), "--config", "backend=mock/echo", "--out", str(tmp / "r"),
            "--no-cache"]  # fmt: skip


@case("testrun-timeout-nan", "--timeout")
def _(tmp):
    return ["testrun", str(_suite_files(tmp)), "--config", "backend=mock/echo", "--out",
            str(tmp / "r"), "--no-cache", "--timeout", "nan"]  # fmt: skip


@case("judge-retrieved-a-string", "answers.jsonl:1", "field 'retrieved'")
def _(tmp):
    run = _answers_dir(tmp)
    rows = [json.loads(x) for x in (run / "answers.jsonl").read_text().splitlines()]
    rows[0]["retrieved"] = rows[0]["retrieved"][0]  # one chunk id, not a list of them
    (run / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return _judge_argv(run)


@case("judge-empty-answers", "answers.jsonl", "no answers")
def _(tmp):
    run = _answers_dir(tmp)
    (run / "answers.jsonl").write_text("")
    return _judge_argv(run)


@case("judge-run-json-an-array", "run.json", "JSON object")
def _(tmp):
    run = _answers_dir(tmp)
    (run / "run.json").write_text("[1, 2]\n")
    return _judge_argv(run)


@case("judge-twice", "judge 'mock/echo' is given twice")
def _(tmp):
    return [*_judge_argv(_answers_dir(tmp)), "--judge", "mock/echo"]


@case("judge-prompt-langs-twice", "prompt language 'en' is given twice")
def _(tmp):
    return [*_judge_argv(_answers_dir(tmp)), "--prompt-langs", "en,en"]


@case("judge-temperature-nan", "temperature", "nan")
def _(tmp):
    return [*_judge_argv(_answers_dir(tmp)), "--temperature", "nan"]


@case("testrun-same-config-twice", "is given twice")
def _(tmp):
    return ["testrun", str(_suite_files(tmp)), "--config", "backend=mock/echo,k=1", "--config",
            "k=1,backend=mock/echo", "--out", str(tmp / "r"), "--no-cache"]  # fmt: skip


@case("testbed-ratio-twice", "noise ratio 0.4 is given twice")
def _(tmp):
    return ["testbed", "noise", "--data", "demo", "--model", "mock/echo", "--ratios", "0.4,0.4",
            "--out", str(tmp / "tb"), "--limit", "1"]  # fmt: skip


@case("judge-max-retries-negative", "--max-retries")
def _(tmp):
    return [*_judge_argv(_answers_dir(tmp)), "--max-retries", "-1"]


@case("testgen-txt-with-nul", "notes.txt:2", "NUL")
def _(tmp):
    (tmp / "notes.txt").write_bytes(b"Crimea is a peninsula.\n\x00The Black Sea.\n")
    return ["testgen", str(tmp / "notes.txt"), "--lang", "en", "--out", str(tmp / "t.jsonl")]


@case("testgen-timeout-inf", "--timeout")
def _(tmp):
    return ["testgen", "demo", "--out", str(tmp / "t.jsonl"), "--timeout", "inf"]


_PRED = {"id": 0, "query": "Q", "ans": ["x"], "label": [1], "prediction": "x", "docs": [],
         "noise_rate": 0.4, "factlabel": 0}  # fmt: skip
_PRED_FILE = "prediction_en_m_temp0.7_noise0.4_passage5_correct0.0.json"


@case("testbed-score-duplicate-prediction", _PRED_FILE + ":2", "field 'id'")
def _(tmp):
    (tmp / _PRED_FILE).write_bytes(_jl(_PRED, _PRED))
    return ["testbed", "score", str(tmp / _PRED_FILE)]


@case("testbed-score-lang-unknown", "'xx'")
def _(tmp):
    (tmp / _PRED_FILE).write_bytes(_jl(_PRED))
    return ["testbed", "score", str(tmp / _PRED_FILE), "--lang", "xx"]


@case("testbed-noise-question-without-negatives", "en.json", "field 'negative'", "'q2'")
def _(tmp):
    q = {"id": "q1", "query": "Who?", "answer": ["Ann"], "positive": ["Ann did it."],
         "negative": ["Nothing here."]}  # fmt: skip
    (tmp / "en.json").write_bytes(_jl(q, {**q, "id": "q2", "negative": []}))
    return ["testbed", "noise", "--data", f"rgb:{tmp / 'en.json'}", "--model", "mock/echo",
            "--ratios", "0,0.4", "--out", str(tmp / "tb")]  # fmt: skip


@case("compare-modes-twice", "qlang")
def _(tmp):
    from bordir.experiment.config import ExperimentConfig
    from bordir.runner.run import run_experiment

    cfg = ExperimentConfig.from_dict(
        {
            "models": ["mock/first"],
            "modes": ["no_ir", "qlang"],
            "runs": 1,
            "k": 2,
            "cache": str(tmp / "c.sqlite3"),
        }  # fmt: skip
    )
    run_experiment(cfg, tmp / "run", progress=False)
    return ["compare", str(tmp / "run"), "--modes", "qlang,qlang"]


@case("report-query-id-not-in-dataset", "responses.parquet", "field 'query_id'", "Atlantis_en")
def _(tmp):
    from bordir.experiment.config import ExperimentConfig
    from bordir.runner.run import run_experiment

    cfg = ExperimentConfig.from_dict(
        {"models": ["mock/first"], "modes": ["no_ir"], "runs": 1, "cache": str(tmp / "c.sqlite3")}
    )
    run_experiment(cfg, tmp / "run", progress=False)
    df = pd.read_parquet(tmp / "run" / "responses.parquet")
    df.loc[0, "query_id"] = "Atlantis_en"
    df.to_parquet(tmp / "run" / "responses.parquet")
    rerecord(tmp / "run")  # as if the run had written it
    return ["report", str(tmp / "run")]


def _batch_state(id: str, blob: str) -> None:
    def build(tmp: Path) -> list[str]:
        (tmp / "exp.toml").write_text(BASE + 'modes = ["no_ir"]\nruns = 1\n')
        (tmp / "run" / "batch").mkdir(parents=True)
        (tmp / "run" / "batch" / "state.json").write_text(blob)
        return ["run", str(tmp / "exp.toml"), "--out", str(tmp / "run"), "--collect"]

    CASES.append(Case(f"batch-state-{id}", build, ("state.json",)))


_batch_state("an-array", "[]")
_batch_state("batches-an-object", '{"version": 1, "batches": {}}')
_batch_state("batch-id-a-number", '{"version": 1, "batches": [{"id": 5}]}')
_batch_state("upload-a-number", '{"version": 1, "batches": [], "uploads": [3]}')


def _poll(value: str) -> None:
    def build(tmp: Path) -> list[str]:
        (tmp / "exp.toml").write_text(BASE + 'modes = ["no_ir"]\nruns = 1\n')
        return ["run", str(tmp / "exp.toml"), "--out", str(tmp / "r"), "--collect", "--poll", value]

    CASES.append(Case(f"option-run-poll-{value}", build, ("--poll",)))


for _value in ("nan", "inf", "1e300", "-1"):
    _poll(_value)


def _env(id: str, name: str, value: str, *expect: str) -> None:
    def build(tmp: Path) -> list[str]:
        (tmp / "exp.toml").write_text(BASE + 'modes = ["no_ir"]\nruns = 1\n')
        (tmp / "p.toml").write_text('[models."openai/gpt-4o-mini"]\ninput = nan\noutput = 1\n')
        return ["run", str(tmp / "exp.toml"), "--out", str(tmp / "run"), "--dry-run"]

    named = () if name == "BORDIR_PRICES" else (name,)  # the price file is named, with its field
    CASES.append(Case(f"env-{id}", build, (*named, *expect), env=((name, value),)))


_env("prices-nan", "BORDIR_PRICES", "{tmp}/p.toml", "p.toml", "field 'models.")
_env("langdetect-engine-unknown", "BORDIR_LANGDETECT_ENGINE", "fasttext")
_env("progress-maybe", "BORDIR_PROGRESS", "maybe")
_env("seed-negative", "BORDIR_SEED", "-5")


# -- the tests ---------------------------------------------------------------------------------

SUBPROCESS = {
    "data-csv-latin1",
    "data-csv-population-inf",
    "corpus-missing",
    "config-models-int",
    "labels-latin1",
    "audit-empty",
    "audit-cluster-by-absent-field",
    "option-retrieve-k-zero",
    "out-retrieve",
    "annotate-hits-not-parquet",
    "data-countries-unknown-lang",
    "env-progress-maybe",
    "batch-state-an-array",
    "judge-run-json-an-array",
}


_PROGRESS = re.compile(
    r"^[^|]*\d+%\|"
)  # a tqdm progress-bar frame (before the error), not a message


def _check(code: int, stderr: str, c: Case) -> None:
    lines = [ln for ln in stderr.splitlines() if ln.strip() and not _PROGRESS.match(ln)]
    assert "Traceback" not in stderr, stderr
    assert code == 2, f"exit {code}; stderr: {stderr}"
    assert len(lines) == 1, f"{len(lines)} lines on stderr: {stderr}"
    line = lines[0]
    assert line.startswith("bordir: error: "), line
    for s in c.expect:
        assert s in line, f"{s!r} not in {line!r}"


@pytest.mark.parametrize("c", [c for c in CASES if c.id not in SUBPROCESS], ids=lambda c: c.id)
def test_malformed_input_in_process(c: Case, tmp_path, monkeypatch):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache"))
    for name, value in c.env:
        monkeypatch.setenv(name, value.replace("{tmp}", str(tmp_path)))
    monkeypatch.chdir(tmp_path)
    argv = c.build(tmp_path)
    code, stderr = run_inproc(argv)
    _check(code, stderr, c)


@pytest.mark.slow
@pytest.mark.parametrize("c", [c for c in CASES if c.id in SUBPROCESS], ids=lambda c: c.id)
def test_malformed_input_subprocess(c: Case, tmp_path):
    argv = c.build(tmp_path)
    env = {name: value.replace("{tmp}", str(tmp_path)) for name, value in c.env}
    proc = run_cli(*argv, env={"BORDIR_CACHE": str(tmp_path / "cache"), **env})
    _check(proc.returncode, proc.stderr, c)


def test_there_are_at_least_100_cases():
    assert len(CASES) >= 100 and len({c.id for c in CASES}) == len(CASES)
    assert SUBPROCESS <= {c.id for c in CASES}
