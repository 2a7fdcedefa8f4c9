"""Progress in a log (issue 25.5): when stderr is not a terminal, plain lines at most every 5 % of
the work (or after a pause), none for short work."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .runner.test_grid_corpus_and_drops import _toml


@pytest.mark.slow
def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path):
    cfg = _toml(
        tmp_path / "exp.toml", models=["mock/first"], runs=3, cache=str(tmp_path / "c.sqlite3")
    )
    # a line at most every 5 % of the work once 0.05 s have passed, or after 0.3 s without 5 %
    env = {**os.environ, "BORDIR_PROGRESS_EVERY": "0.05"}
    env.pop("BORDIR_PROGRESS", None)
    r = subprocess.run(
        [sys.executable, "-m", "bordir", "run", str(cfg), "--out", str(tmp_path / "run")],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if "ETA" in l or "elapsed" in l]
    assert lines, r.stderr[-2000:]
    assert any("%" in l and "ETA" in l for l in lines)
    assert "\r" not in r.stderr  # plain lines, no terminal bar
    per_bar: dict[str, int] = {}
    for l in lines:
        per_bar[l.split(":")[0]] = per_bar.get(l.split(":")[0], 0) + 1
    # one every 5 % of the work and a last one (22), and one after each 0.3 s without 5 %: the
    # model's one bar over every mode (492 calls, about 0.5 s) leaves room for ten on a busy machine
    assert max(per_bar.values()) <= 32, per_bar


def test_short_work_in_a_log_prints_nothing(monkeypatch, capsys):
    from bordir._progress import LineProgress, progress_bar

    monkeypatch.delenv("BORDIR_PROGRESS", raising=False)
    bar = progress_bar(None, total=10, desc="short")
    assert isinstance(bar, LineProgress)
    for _ in range(10):
        bar.update(1)
    bar.close()
    assert capsys.readouterr().err == ""
