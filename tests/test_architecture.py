"""The package layout as ranked floors, and the one direction imports flow (docs/design/architecture.md).

Every module of ``bordir/`` is parsed with :mod:`ast` (nothing is imported) and
each ``import`` of a bordir module, at module level, inside a function (lazy)
or under ``TYPE_CHECKING``, is checked:

* every top-level part of ``bordir/`` (module or package) has a rank in
  :data:`RANKS` (a private ``bordir/_*.py`` helper is rank 0);
* an import goes from a part of rank r to a part of rank <= r, never up;
* the module import graph has no cycle, not even inside one package;
* nothing but ``bordir.__main__`` imports the CLI;
* no module uses another module's ``_private`` name (``from x import _name`` or
  ``x._name``): a shared helper is public inside its package, or lives in one place.

There is no exception list: a piece that needs something from a higher floor
moves to the floor it serves.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "bordir"

RANKS: dict[str, int] = {
    # 0 foundation: what every floor may use (and every private bordir/_*.py helper)
    "errors": 0,
    "records": 0,
    "languages": 0,
    "registry": 0,
    "policies": 0,
    "signature": 0,
    "settings": 0,
    "provenance": 0,
    "option_orders": 0,
    "langid": 0,
    "stats": 0,
    "runrecord": 0,
    # 1 the data model
    "dataset": 1,
    "modes": 1,
    # 2
    "corpus": 2,
    # 3 getting data: loaders (and the dataset catalog), Wikipedia
    "loaders": 3,
    "wiki": 3,
    # 4 .. 6 the pipeline
    "retrieval": 4,
    "generation": 5,
    "metrics": 6,
    "citations": 6,
    "annotations": 6,
    "judging": 6,
    # 7 what an experiment is and what it leaves on disk
    "experiment": 7,
    # 8 beside the pipeline
    "testbeds": 8,
    "testgen": 8,
    "audit": 8,
    # 9 rendering directories
    "report": 9,
    "view": 9,
    # 10 running an experiment
    "runner": 10,
    # 11 the top: listings, the CLI, the lazy package root
    "catalog": 11,
    "cli": 11,
    "__main__": 11,
    "__init__": 11,
}
"""Rank of every top-level part of ``bordir/``; imports go from a rank to the same or a lower one."""

CLI = "bordir.cli"


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


@lru_cache(maxsize=1)
def _modules() -> frozenset[str]:
    return frozenset(_module_name(p) for p in PACKAGE.rglob("*.py"))


def _resolve(name: str) -> str:
    """The bordir module an imported name lives in (``bordir.x.y.Name`` → ``bordir.x.y``)."""
    mods = _modules()
    while name not in mods and "." in name:
        name = name.rpartition(".")[0]
    return name


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
            names = [f"{full}.{a.name}" for a in node.names]  # a module, or a name in ``full``
        else:
            continue
        kind = "typing" if id(node) in typing else "lazy" if id(node) in lazy else "top"
        out += [
            Import(module, _resolve(n), node.lineno, kind)
            for n in names
            if n == "bordir" or n.startswith("bordir.")
        ]
    return out


@lru_cache(maxsize=1)
def _all_imports() -> tuple[Import, ...]:
    return tuple(i for p in sorted(PACKAGE.rglob("*.py")) for i in _imports(p))


def _part(module: str) -> str:
    """The top-level part of bordir a module belongs to (``bordir.report.tables`` → ``report``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _rank(module: str) -> int | None:
    part = _part(module)
    if part.startswith("_") and part not in RANKS:
        return 0  # bordir/_helpers.py
    return RANKS.get(part)


def test_every_part_of_the_package_has_a_rank():
    parts = {
        p.stem if p.is_file() else p.name
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))
    }
    missing = sorted(p for p in parts if _rank(f"bordir.{p}") is None)
    assert not missing, f"give {missing} a rank in RANKS (and in docs/design/architecture.md)"


def test_imports_flow_down():
    found = []
    for i in _all_imports():
        src, dst = _rank(i.importer), _rank(i.imported)
        if src is not None and dst is not None and dst > src:
            found.append(
                f"{i.importer}:{i.line} imports {i.imported} ({i.kind}): "
                f"{_part(i.importer)} (rank {src}) -> {_part(i.imported)} (rank {dst})"
            )
    assert not found, (
        "upward imports; move the piece to the floor it serves (docs/design/architecture.md):\n"
        + "\n".join(found)
    )


def test_every_import_of_a_bordir_module_names_one_that_exists():
    """mypy's ``ignore_missing_imports`` hides a moved module; a lazy import would fail at use."""
    from collections import Counter

    raw = Counter()
    for p in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        module = _module_name(p)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            if node.level:
                base = module.split(".")
                if p.name != "__init__.py":
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                full = ".".join([*base, node.module])
            else:
                full = node.module
            if (full == "bordir" or full.startswith("bordir.")) and full not in _modules():
                raw[f"{module}:{node.lineno} from {full}"] += 1
    root = PACKAGE.parent
    for sub in ("tests", "benchmarks", "docs"):  # their absolute imports of bordir (also lazy ones)
        for p in sorted((root / sub).rglob("*.py")):
            for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    full = node.module
                    if full.startswith("bordir.") and full not in _modules():
                        raw[f"{p.relative_to(root)}:{node.lineno} from {full}"] += 1
    assert not raw, sorted(raw)


def test_only_main_imports_the_cli():
    bad = [
        f"{i.importer}:{i.line} -> {i.imported}"
        for i in _all_imports()
        if (i.imported == CLI or i.imported.startswith(CLI + "."))
        and _part(i.importer) != "cli"
        and i.importer != "bordir.__main__"
    ]
    assert not bad, bad


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in _modules()}
    for i in _all_imports():
        if i.imported != i.importer and i.imported in graph:
            graph[i.importer].add(i.imported)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def test_cycle_finder_finds_cycles():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set(), "f": {"f"}}
    assert _cycles(g) == [["a", "b", "c"]]


def test_the_module_import_graph_has_no_cycle():
    graph = _graph()
    cycles = _cycles(graph)
    lines = []
    for comp in cycles:
        inside = set(comp)
        edges = sorted(
            {
                f"    {i.importer}:{i.line} -> {i.imported} ({i.kind})"
                for i in _all_imports()
                if i.importer in inside and i.imported in inside and i.imported != i.importer
            }
        )
        lines += [f"{len(comp)} modules: {', '.join(comp)}", *edges]
    assert not cycles, "import cycles (lazy and typing imports included):\n" + "\n".join(lines)


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _private_uses(path: Path, source: str | None = None) -> list[str]:
    """``from other import _name`` and ``other._name`` in ``path``, ``other`` a bordir module.

    ``other`` is any name bound to a bordir module: ``from bordir.x import y``,
    ``from . import y``, ``import bordir.x.y as y`` or a plain ``import bordir.x.y``
    (then ``bordir.x.y._name``). Importing a private *module* (``bordir._io.json_write``,
    ``from . import _calls``) is not a private name: a package's private modules
    serve that package.
    """
    module = _module_name(path)
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    mods = _modules()
    bound: dict[str, str] = {}  # local (dotted) name -> the bordir module it is
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if path.name != "__init__.py":
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                full = ".".join(base + ([node.module] if node.module else []))
            else:
                full = node.module or ""
            if full != "bordir" and not full.startswith("bordir."):
                continue
            for a in node.names:
                if f"{full}.{a.name}" in mods:
                    bound[a.asname or a.name] = f"{full}.{a.name}"
                elif a.name.startswith("_") and not a.name.startswith("__") and full != module:
                    out.append(f"{module}:{node.lineno} imports {a.name} from {full}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name != "bordir" and not a.name.startswith("bordir."):
                    continue
                if a.asname:
                    bound[a.asname] = a.name
                else:  # ``import bordir.x.y`` binds bordir, bordir.x and bordir.x.y
                    parts = a.name.split(".")
                    for n in range(1, len(parts) + 1):
                        bound[".".join(parts[:n])] = ".".join(parts[:n])
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        owner = _dotted(node.value)
        if (
            owner in bound
            and bound[owner] != module
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and f"{bound[owner]}.{node.attr}" not in mods
        ):
            out.append(f"{module}:{node.lineno} uses {owner}.{node.attr}")
    return out


def test_private_name_scan_finds_every_form():
    """The scan sees ``from x import _n``, ``x._n`` through every binding, and lets private modules be."""
    source = (
        "import bordir.stats.paired\n"
        "import bordir.stats as st\n"
        "from bordir.stats import paired\n"
        "from bordir.stats.paired import _a, b\n"
        "from . import paired as p\n"
        "from bordir import _io\n"
        "def f():\n"
        "    from ..stats.paired import _c\n"
        "    return bordir.stats.paired._d, st._e, paired._f, p._g, _io.atomic, st.paired\n"
    )
    found = _private_uses(PACKAGE / "stats" / "example.py", source)
    assert [f.split(" ", 1)[1] for f in found] == [
        "imports _a from bordir.stats.paired",
        "imports _c from bordir.stats.paired",
        "uses bordir.stats.paired._d",
        "uses st._e",
        "uses paired._f",
        "uses p._g",
    ]


def test_no_module_uses_another_modules_private_names():
    """A helper two modules share is public inside its package (no underscore), or lives in one place."""
    found = [u for p in sorted(PACKAGE.rglob("*.py")) for u in _private_uses(p)]
    assert not found, "private names used across modules:\n" + "\n".join(found)


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


def test_the_tests_mirror_the_package():
    """Each folder of tests/ is named after a part of bordir/ (issue 24: tests grouped as the package)."""
    tests = Path(__file__).resolve().parent
    folders = [d for d in tests.iterdir() if d.is_dir() and not d.name.startswith(("_", "."))]
    assert folders, "tests/ has no package folders"
    for d in folders:
        assert (PACKAGE / d.name / "__init__.py").is_file(), (
            f"tests/{d.name}/ mirrors no package of bordir/ (move its tests to the folder of the "
            "part they test, or to tests/ for tests of the whole)"
        )
        assert (d / "__init__.py").is_file(), f"tests/{d.name}/ needs an __init__.py"
