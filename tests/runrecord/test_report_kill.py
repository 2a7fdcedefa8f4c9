"""``kill -9`` of a real ``bordir report`` at several points leaves a directory its readers can trust.

Before the output protocol, a report killed between its writes left a new ``metrics.json`` beside
an old ``report.html``, unmarked, and a ``.tmp`` file that was never removed. Now, wherever the
process dies: every derived output a reader accepts (:func:`~bordir.runrecord.outputs.check_output`)
comes from one finished report (the same seed in ``metrics.json`` and ``report.html``), every
other one is named by :func:`~bordir.runrecord.outputs.stale_outputs`, and the next report
removes what the killed one left.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bordir.errors import DataError
from bordir.runrecord import check_output, read_manifest, stale_outputs

from ..conftest import REPO, invoke_cli

pytestmark = pytest.mark.slow  # a run and about ten reports in subprocesses


def _report(d: Path, seed: int) -> subprocess.Popen:
    with open(d.parent / f"report-{seed}.err", "w") as err:  # the child keeps its own copy
        return subprocess.Popen(
            [sys.executable, "-m", "bordir", "report", str(d), "--resamples", "30", "--seed",
             str(seed)],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, "BORDIR_PROGRESS": "0"},
        )  # fmt: skip


def _seed_of_page(d: Path) -> str | None:
    m = re.search(r"seed:(\d+)", (d / "report.html").read_text(encoding="utf-8"))
    return m.group(1) if m else None


def _accepted(d: Path, name: str) -> bool:
    try:
        return check_output(d, name) is not None
    except DataError:
        return False


def _check(d: Path) -> None:
    """What a reader sees is one finished report, and the rest is named as stale."""
    outputs = ("metrics.json", "tables", "plots", "report.html", "view.html")
    accepted = [n for n in outputs if _accepted(d, n)]
    named = stale_outputs(d)
    for n in outputs:
        if (d / n).exists() and n not in accepted:
            assert any(line.startswith(n) for line in named), (n, named)
    if "metrics.json" in accepted and "report.html" in accepted:
        sig = json.loads((d / "metrics.json").read_text())["signature"]
        assert re.search(r"seed:(\d+)", sig).group(1) == _seed_of_page(d)
    entries = read_manifest(d)
    assert len({e["record"] for e in entries.values()}) <= 1


def test_kill_9_during_report_at_several_points(tmp_path):
    cfg = tmp_path / "exp.toml"
    cfg.write_text(
        'models = ["mock/first"]\nmodes = ["no_ir", "qlang"]\nruns = 2\nk = 2\n'
        f'langs = ["en", "ru", "uk"]\ncache = "{tmp_path / "c.sqlite3"}"\n'
    )
    d = tmp_path / "run"
    res = invoke_cli("run", str(cfg), "--out", str(d), "--no-progress")
    assert res.returncode == 0, res.stderr
    t0 = time.monotonic()
    first = _report(d, 1)
    assert first.wait(600) == 0, (tmp_path / "report-1.err").read_text()
    full = time.monotonic() - t0
    _check(d)
    killed_at = []
    for i, frac in enumerate((0.3, 0.6, 0.85, 0.95, 1.0), start=2):
        p = _report(d, i)
        deadline = time.monotonic() + frac * full
        while time.monotonic() < deadline and p.poll() is None:
            if any(x.name.startswith(".bordir-trash.") for x in d.iterdir()):
                break  # in the middle of the commit: kill now
            time.sleep(0.002)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            killed_at.append(frac)
        p.wait(60)
        time.sleep(0.2)  # a forked helper of the killed report may still be finishing
        _check(d)
    assert killed_at, "every report finished before it could be killed"
    done = _report(d, 99)
    assert done.wait(600) == 0, (tmp_path / "report-99.err").read_text()
    _check(d)
    assert all(_accepted(d, n) for n in ("metrics.json", "report.html", "view.html"))
    assert _seed_of_page(d) == "99"
    leftovers = [p.name for p in d.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []
