"""No secret reaches any file or output: a canary key in the environment, servers that echo it.

A loopback server answers every chat call with the backend's key and another
secret environment value in the completion text; another answers 401 with the
key in the error body (chat and embeddings, OpenAI and Cohere protocols). A
run, its report, an audit of a log holding the key, and each error path run as
real ``bordir`` subprocesses; every file they write (run directory, response
cache, embedding cache, report, audit output) and everything they print are
grepped for the canaries.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from ..conftest import run_cli
from ..loopback import LoopbackServer, Reply

KEY = "sk-canary-F-7c1e9a0b2d4f6e8a1357"
TOKEN = "tok-canary-F-24680acegikmoqsu"
CO_KEY = "co-canary-F-97531zyxwvutsrqp"
CANARIES = (KEY, TOKEN, CO_KEY)


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CO_API_KEY", "OPENAI_BASE_URL", "CO_API_URL")
    }
    env.update(
        {
            "OPENAI_COMPATIBLE_API_KEY": KEY,
            "OPENAI_API_KEY": KEY,
            "COHERE_API_KEY": CO_KEY,
            "MY_SERVICE_TOKEN": TOKEN,
            "BORDIR_CACHE": str(tmp / "bordir-cache"),
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            **extra,
        }
    )
    return env


def _leaks(tmp: Path, outputs: list[str]) -> list[str]:
    found = []
    for p in sorted(tmp.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            for c in CANARIES:
                if c.encode() in data or c.encode("utf-16-le") in data:
                    found.append(f"{p.relative_to(tmp)} holds {c[:12]}…")
    for i, text in enumerate(outputs):
        for c in CANARIES:
            if c in text:
                found.append(f"output {i} holds {c[:12]}…")
    return found


def _toml(path: Path, **cfg) -> Path:
    path.write_text(
        "\n".join(["[experiment]"] + [f"{k} = {json.dumps(v)}" for k, v in cfg.items()]) + "\n"
    )
    return path


def _echoing(body: dict) -> str:
    return f"A) Росія. (debug: authorization Bearer {KEY}; service token {TOKEN})"


def _unauthorized(server, body):
    return (
        401,
        {
            "error": {
                "message": f"Incorrect API key provided: {KEY}. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        },
        {},
    )


def _cohere_unauthorized(server, body):
    return 401, {"message": f"invalid api token {CO_KEY}"}, {}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_no_canary_in_any_file_or_output(tmp_path):
    outputs: list[str] = []
    with LoopbackServer(reply=Reply(text=_echoing)) as echo, LoopbackServer() as refusing:
        refusing.route("POST", "/v1/chat/completions", _unauthorized)
        refusing.route("POST", "/v1/embeddings", _unauthorized)
        refusing.route("POST", "/v2/embed", _cohere_unauthorized)
        common = dict(
            models=["openai-compatible/echo"],
            modes=["no_ir", "qlang"],
            runs=1,
            k=2,
            langs=["uk", "ru"],
            concurrency=4,
            cache=str(tmp_path / "cache.sqlite3"),
            max_retries=0,
        )

        # 1. a run against a server that echoes the key in every completion, then its report
        cfg = _toml(tmp_path / "exp.toml", **common)
        run = run_cli(
            "run",
            str(cfg),
            "--out",
            str(tmp_path / "run"),
            env=_env(tmp_path, OPENAI_COMPATIBLE_BASE_URL=echo.openai_url),
        )
        outputs += [run.stdout, run.stderr]
        assert run.returncode == 0, run.stderr
        df = pd.read_parquet(tmp_path / "run" / "responses.parquet")
        assert len(df) == 3 * 2 and echo.count == 6
        text_col = "raw_text"
        assert df[text_col].str.contains("***", regex=False).all()  # masked, not dropped

        report = run_cli("report", str(tmp_path / "run"), "--resamples", "50", env=_env(tmp_path))
        outputs += [report.stdout, report.stderr]
        assert report.returncode == 0, report.stderr

        # 2. every call refused with the key in the error body
        # (no early stop: each of the 6 calls gets its 401 with the key, not only the first few)
        cfg2 = _toml(
            tmp_path / "exp2.toml",
            **{
                **common,
                "cache": str(tmp_path / "cache2.sqlite3"),
                "max_consecutive_failures": 100,
            },
        )
        failed = run_cli(
            "run",
            str(cfg2),
            "--out",
            str(tmp_path / "run-refused"),
            env=_env(tmp_path, OPENAI_COMPATIBLE_BASE_URL=refusing.openai_url),
        )
        outputs += [failed.stdout, failed.stderr]
        assert refusing.count >= 6, (refusing.count, failed.returncode, failed.stderr[-2000:])
        assert (
            "401" in failed.stderr + failed.stdout
            or (tmp_path / "run-refused" / "responses.parquet").is_file()
        )

        # 3. embedding retrievers whose provider echoes the key in a 401 (the CLI error line)
        for retriever, extra in (
            ("openai/text-embedding-3-small", {"OPENAI_BASE_URL": refusing.url + "/v1"}),
            ("cohere/embed-v4.0", {"CO_API_URL": refusing.url}),
        ):
            r = run_cli(
                "retrieve",
                "--retriever",
                retriever,
                "--modes",
                "qlang",
                "--langs",
                "uk",
                "--k",
                "2",
                "--out",
                str(tmp_path / "hits-refused.parquet"),
                env=_env(tmp_path, **extra),
            )
            outputs += [r.stdout, r.stderr]
            assert r.returncode == 2 and "401" in r.stderr, r.stderr
            assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
            if retriever.startswith("cohere"):
                assert (
                    "COHERE_API_KEY" in r.stderr
                )  # the variable the key came from, not CO_API_KEY

    # 4. an audit of a log that carries the key (in a response and in a bad citation)
    rec = {
        "id": 1,
        "query": "Чи є Крим територією Росії?",
        "query_lang": "uk",
        "response": f"<doc0> {KEY}",
        "response_lang": "uk",
        "documents": [{"id": "a", "lang": "uk"}, {"id": "b", "lang": "ru"}],
        "citations": ["a"],
    }
    lines = [json.dumps(rec | {"id": i}, ensure_ascii=False) for i in range(20)]
    lines.append(json.dumps(rec | {"id": 99, "citations": [KEY]}))
    lines.append(f'{{"id": 100, "query": "{TOKEN}"')
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    audit = run_cli(
        "audit",
        str(tmp_path / "log.jsonl"),
        "--out",
        str(tmp_path / "audit"),
        "--no-plots",
        "--resamples",
        "50",
        "--no-language-match",
        env=_env(tmp_path),
    )
    outputs += [audit.stdout, audit.stderr]
    assert audit.returncode == 0, audit.stderr
    assert (tmp_path / "audit" / "skipped.jsonl").is_file()

    (tmp_path / "log.jsonl").unlink()  # the input itself holds the key by construction
    for c in CANARIES:  # the configs hold no key: they never did
        assert c not in (tmp_path / "exp.toml").read_text()
    leaks = _leaks(tmp_path, outputs)
    assert leaks == [], leaks
