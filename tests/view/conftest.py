"""Fixtures of the ``bordir view`` tests: one directory of each kind, built once per session with mock
backends through the CLI entry point, and a real headless Chromium driven by Playwright.

* ``mock_run``: the demo with ``mock/first`` and ``mock/planted:ru+uk``, every mode, 2 runs, k 3, the
  options also reversed in ``no_ir``; then ``bordir report`` (which writes ``view.html`` beside
  ``report.html``).
* ``cite_run``: the citation response format (a fixed reply citing documents 0 and 1).
* ``testbed_dir``, ``testgen_dir`` (``testgen`` + ``testrun`` + ``judge`` with 2 repeats), ``audit_dir``
  (a log with a planted over-citation, so one cell is flagged).

Browser tests skip, with the reason, when Playwright or the system Chromium is missing; they never
download a browser. ``BORDIR_SCREENSHOTS=DIR`` makes them save the documentation's screenshots there.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..conftest import invoke_cli

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def cli_ok(*args: str) -> str:
    res = invoke_cli(*args)
    assert res.returncode == 0, f"bordir {' '.join(args)}: {res.stderr}"
    return res.stdout


def _toml(path: Path, fields: dict[str, Any]) -> Path:
    path.write_text(
        "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items()), encoding="utf-8"
    )
    return path


@pytest.fixture(scope="session")
def view_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("view")


@pytest.fixture(scope="session")
def mock_run(view_root) -> Path:
    pytest.importorskip("matplotlib")
    cfg = _toml(
        view_root / "exp.toml",
        {
            "dataset": "demo",
            "corpus": "demo",
            "models": ["mock/first", "mock/planted:ru+uk"],
            "modes": ["no_ir", "qlang", "qlang+en", "en_only", "rel_langs", "swap_docs"],
            "runs": 2,
            "k": 3,
            "option_orders": "reversed",
            "order_modes": ["no_ir"],
            "cache": str(view_root / "cache.sqlite3"),
        },
    )
    out = view_root / "run"
    res = invoke_cli("run", str(cfg), "--out", str(out), "--no-progress")
    # mock/planted finds no dataset query behind a prompt whose options are reversed: those calls fail, and
    # the run says so with status 1; the failed rows are part of what the explorer shows
    assert res.returncode in (0, 1) and "wrote " in res.stdout, res.stderr
    cli_ok("report", str(out), "--resamples", "100", "--seed", "1")
    assert (out / "view.html").is_file()
    return out


@pytest.fixture(scope="session")
def cite_run(view_root) -> Path:
    pytest.importorskip("matplotlib")
    reply = "Cited Documents: 0, 1 Chosen Option: A Explanation: as <doc0> and <doc1> say."
    cfg = _toml(
        view_root / "cite.toml",
        {
            "dataset": "demo",
            "corpus": "demo",
            "models": [f"mock/fixed:{reply}"],
            "modes": ["qlang", "rel_langs"],
            "runs": 1,
            "k": 3,
            "response_format": "citation",
            "cache": str(view_root / "cache.sqlite3"),
        },
    )
    out = view_root / "cite"
    cli_ok("run", str(cfg), "--out", str(out), "--no-progress")
    cli_ok("report", str(out), "--resamples", "50", "--seed", "1")
    return out


@pytest.fixture(scope="session")
def testbed_dir(view_root) -> Path:
    out = view_root / "tb"
    cli_ok(
        "testbed", "noise", "--data", "demo", "--model", "mock/first", "--out", str(out), "--resamples", "50",
        "--no-progress", "--cache", str(view_root / "cache.sqlite3"),
    )  # fmt: skip
    cli_ok("report", str(out))  # report.html and, beside it, view.html
    return out


@pytest.fixture(scope="session")
def testgen_dir(view_root) -> Path:
    suite = view_root / "tests.jsonl"
    cache = str(view_root / "cache.sqlite3")
    cli_ok(
        "testgen",
        "demo",
        "--n",
        "9",
        "--generator",
        "template",
        "--out",
        str(suite),
        "--cache",
        cache,
    )
    out = view_root / "trun"
    cli_ok(
        "testrun",
        str(suite),
        "--config",
        "retriever=bm25,backend=mock/first",
        "--out",
        str(out),
        "--cache",
        cache,
    )
    cli_ok("judge", str(out), "--judge", "mock/first", "--repeats", "2", "--cache", cache)
    cli_ok("view", str(out))
    return out


@pytest.fixture(scope="session")
def audit_dir(view_root) -> Path:
    from ..test_audit_planted import make_records

    log = view_root / "log.jsonl"
    with log.open("w", encoding="utf-8") as f:
        for r in make_records(1200, seed=3, biased={"sw": "*"}):
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    out = view_root / "audit"
    cli_ok("audit", str(log), "--out", str(out), "--resamples", "100", "--seed", "1", "--no-plots")
    cli_ok("view", str(out))
    return out


# --- the browser ------------------------------------------------------------------------------------


def chromium_path() -> str | None:
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (the dev extra)"
    )
    exe = chromium_path()
    if exe is None:
        pytest.skip(
            "no chromium binary (apt-get install chromium); Playwright's own browsers are not used"
        )
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Page:
    """A browser page that records console errors and page errors (the tests assert there are none)."""

    def __init__(self, browser: Any, width: int = 1280, height: int = 860) -> None:
        self.browser = browser
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.errors: list[str] = []
        self.page.on(
            "console",
            lambda m: self.errors.append(f"{m.type}: {m.text}") if m.type == "error" else None,
        )
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))

    def open(self, url: str, ready: str = "body[data-ready='1']") -> Any:
        self.page.goto(url)
        self.page.wait_for_selector(ready, timeout=15000)
        return self.page


@pytest.fixture
def page(browser) -> Iterator[Page]:
    pg = Page(browser)
    yield pg
    errors = list(pg.errors)
    pg.page.close()
    assert not errors, errors


def screenshot(pg: Any, name: str, selector: str | None = None) -> None:
    """Save a documentation screenshot when ``BORDIR_SCREENSHOTS`` names a folder."""
    folder = os.environ.get("BORDIR_SCREENSHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    target = Path(folder) / f"{name}.png"
    if selector:
        pg.locator(selector).screenshot(path=str(target))
    else:
        pg.screenshot(path=str(target))
