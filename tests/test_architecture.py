"""The package layout as pipeline stages, and the one direction imports flow (docs/design/architecture.md).

Every module of ``bordir/`` is parsed with :mod:`ast` (nothing is imported) and
each ``import`` of a bordir module, at module level, inside a function (lazy)
or under ``TYPE_CHECKING``, is checked against the layering:

* the foundation (errors, records, languages, registries, private helpers,
  :mod:`bordir.metrics.signature`) imports only the foundation;
* a stage imports only stages below it (or its own): data → corpus →
  retrieval → generation → metrics → experiment → report;
* the packages beside the pipeline (testbeds, testgen, audit) may use any
  stage; no stage imports them, except the report, which renders their
  output directories;
* the catalog (the index of every registry) imports stages only lazily;
* nothing but ``bordir.__main__`` imports the CLI.

The few upward imports that exist are listed in :data:`EXCEPTIONS`, each with
its reason; a new one fails here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "bordir"

FOUNDATION = frozenset(
    {
        "_atomic",
        "_columns",
        "_extras",
        "_json",
        "_jsonl",
        "_progress",
        "_ratelimit",
        "_resources",
        "_retry",
        "_version",
        "errors",
        "records",
        "languages",
        "registry",
        "policies",
    }
)
"""Top-level modules every stage may import (with every private ``bordir/_*.py``)."""
FOUNDATION_MODULES = ("bordir.metrics.signature",)
"""Modules inside a stage that belong to the foundation: the Signature every stage stamps."""

STAGES: dict[str, int] = {
    "dataset": 1,  # data: queries, territories, controllers
    "corpus": 2,  # corpus: passages, stores, readers
    "loaders": 2,  # bundled / published datasets assembled with their corpora
    "wiki": 2,  # fetching a corpus from Wikipedia
    "retrieval": 3,
    "generation": 4,
    "metrics": 5,
    "citations": 5,  # citation rates: metrics of cited documents
    "annotations": 5,  # relevance labels and their agreement statistics
    "experiment": 6,  # the runner: retrieval + generation + scoring over a grid
    "report": 7,
}
"""Rank of every stage package; imports go from a higher rank to a lower (or the same)."""
BESIDE = frozenset({"testbeds", "testgen", "audit"})
"""Packages beside the pipeline: they may use any stage, and no stage uses them."""
TOP = frozenset({"cli", "__main__"})

EXCEPTIONS: dict[tuple[str, str], str] = {
    # experiment -> report: conveniences of the in-memory Run
    ("bordir.experiment.numbers", "bordir.report.metrics"): "Run.summary reuses build_metrics",
    ("bordir.experiment.run", "bordir.report"): "Run.report() writes the report (convenience)",
    # generation.batch -> experiment: a batch job is submitted and collected as a run
    ("bordir.generation.batch.collect", "bordir.experiment.record"): "writes the run directory",
    ("bordir.generation.batch.collect", "bordir.experiment.run"): "returns the collected Run",
    ("bordir.generation.batch.submit", "bordir.experiment.runner"): "plans the grid to submit",
    ("bordir.generation.batch.submit", "bordir.experiment.record"): "writes the run directory",
    # loaders -> retrieval: BordIRLines ships its hits per retrieval mode
    ("bordir.loaders.bordirlines", "bordir.retrieval.modes"): "the published hits are per Mode",
    # metrics -> experiment: option orders are defined where the queries are asked
    ("bordir.metrics.order_items", "bordir.experiment.orders"): "option order permutations",
    # retrieval -> generation: the embedding APIs share the LLM APIs' HTTP client helpers
    ("bordir.retrieval.dense.cohere", "bordir.generation.backends._common"): "API client helpers",
    ("bordir.retrieval.dense.openai", "bordir.generation.backends._common"): "API client helpers",
    # retrieval -> experiment: dense embedding on Ray uses the experiment's Ray executor
    ("bordir.retrieval.dense.ray_embed", "bordir.experiment.ray_executor"): "Ray cluster setup",
}
"""Upward imports that exist, each with its reason (docs/design/architecture.md, "Exceptions")."""


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    kind: str  # "top", "lazy" (inside a function) or "typing" (under TYPE_CHECKING)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> list[Import]:
    module = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    lazy: set[int] = set()
    typing: set[int] = set()
    for node in ast.walk(tree):
        inner = {id(n) for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))}
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lazy |= inner
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing |= inner
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if path.name != "__init__.py":
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                full = ".".join(base + ([node.module] if node.module else []))
            else:
                full = node.module or ""
            names = [full] if node.module else [f"{full}.{a.name}" for a in node.names]
        else:
            continue
        kind = "typing" if id(node) in typing else "lazy" if id(node) in lazy else "top"
        out += [
            Import(module, n, node.lineno, kind)
            for n in names
            if n == "bordir" or n.startswith("bordir.")
        ]
    return out


@lru_cache(maxsize=1)
def _all_imports() -> tuple[Import, ...]:
    return tuple(i for p in sorted(PACKAGE.rglob("*.py")) for i in _imports(p))


def _part(name: str) -> str:
    """The top-level part of bordir a module belongs to (``bordir.report.tables`` → ``report``)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "bordir"


def _is_foundation(name: str) -> bool:
    part = _part(name)
    private = part.startswith("_") and part not in TOP  # bordir/_helpers.py
    return part in FOUNDATION or private or name.startswith(FOUNDATION_MODULES)


def _problem(imp: Import) -> str | None:
    """Why ``imp`` breaks the layering, or None."""
    src, dst = _part(imp.importer), _part(imp.imported)
    if src == dst or src in TOP or src == "bordir":
        return None  # within a part; the CLI and the lazy package root may use anything
    if dst in TOP:
        return "only bordir.__main__ imports the CLI"
    if _is_foundation(imp.imported):
        return None
    if _is_foundation(imp.importer):
        return "the foundation imports only the foundation"
    if dst == "catalog":
        return None  # the index of registries: anyone may consult it
    if src == "catalog":
        return None if imp.kind != "top" else "the catalog imports stages only lazily"
    if dst == "bordir":
        return None if imp.kind != "top" else "import the module itself, not the bordir facade"
    if src in BESIDE:
        return None
    if dst in BESIDE:
        return None if src == "report" else f"no stage imports {dst} (it is beside the pipeline)"
    if src not in STAGES or dst not in STAGES:
        return f"{src if src not in STAGES else dst} has no place in the layering (add it)"
    if STAGES[dst] > STAGES[src]:
        return f"{src} (stage {STAGES[src]}) imports the later stage {dst} ({STAGES[dst]})"
    return None


def _excepted(imp: Import) -> bool:
    return (imp.importer, imp.imported) in EXCEPTIONS


def test_every_part_of_the_package_has_a_place_in_the_layering():
    parts = {
        p.stem if p.is_file() else p.name
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))
    }
    placed = FOUNDATION | set(STAGES) | BESIDE | TOP | {"__init__", "catalog"}
    parts = {p for p in parts if not _is_foundation(f"bordir.{p}")}
    assert parts <= placed, f"add {sorted(parts - placed)} to the layering (and the docs)"


def test_imports_flow_one_way():
    found = [
        f"{i.importer}:{i.line} imports {i.imported} ({i.kind}): {why}"
        for i in _all_imports()
        if (why := _problem(i)) is not None and not _excepted(i)
    ]
    assert not found, "upward imports (see docs/design/architecture.md):\n" + "\n".join(found)


def test_every_exception_is_an_upward_import():
    imports = _all_imports()
    for (a, b), reason in EXCEPTIONS.items():
        assert reason
        matching = [i for i in imports if (i.importer, i.imported) == (a, b)]
        if matching:  # an exception that no longer exists can simply be deleted
            assert all(_problem(i) is not None for i in matching), (a, b)


def test_wiki_never_imports_generation():
    bad = [
        f"{i.importer}:{i.line} -> {i.imported}"
        for i in _all_imports()
        if _part(i.importer) == "wiki" and _part(i.imported) == "generation"
    ]
    assert not bad, bad


HEAVY = ("pandas", "numpy", "pyarrow", "torch", "httpx", "scipy", "click", "transformers")


def test_import_bordir_stays_lazy():
    """``import bordir`` loads no other bordir module and none of the heavy dependencies."""
    code = (
        "import sys, bordir, json; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{HEAVY!r} or m.startswith('bordir'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    import json

    assert json.loads(out) == ["bordir", "bordir._version"]
