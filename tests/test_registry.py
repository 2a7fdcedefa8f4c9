"""Issue 12.2: one registry type; every CLI choice and `bordir list` line comes from it;
a backend, retriever, fusion or metric is one new file (a plugin module) away."""

from __future__ import annotations

import json
import sys
import textwrap

import pandas as pd
import pytest

from bordir.cli import main as cli_main
from bordir.errors import ConfigError
from bordir.registry import Registry

from .conftest import run_cli

PLUGIN = textwrap.dedent(
    '''
    """A plugin: one file that registers a backend, a retriever, a fusion and a metric."""
    import numpy as np

    from bordir.generation.backend import Backend, backend
    from bordir.generation.types import GenerationResult
    from bordir.metrics.registry import METRIC_REGISTRY
    from bordir.retrieval.base import Retriever, register
    from bordir.retrieval.fusion import FUSIONS


    @backend("shout", description="answers in capitals (a test plugin)")
    class Shout(Backend):
        provider = "shout"

        def generate(self, request):
            return GenerationResult(text=request.messages[-1].content.upper(), model=request.model)


    @register("doclen", description="longer passages first (a test plugin)")
    class DocLen(Retriever):
        name = "doclen"

        def fit(self, corpus):
            pass

        def score(self, query_text, query_lang, docs):
            return np.array([len(d.text) for d in docs], dtype=float)


    FUSIONS.register("negate", lambda s: -s.astype(float), description="scores negated (a test plugin)")


    def refusal_share(table):
        """Share of refused answers."""
        return float((table["outcome"] == "refused").mean())


    METRIC_REGISTRY.register(
        "refusal_share", refusal_share, kind="plugin", label="Refusal share", bounds=(0.0, 1.0)
    )
    '''
)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """The plugin module on sys.path (imported by the test), its registrations undone afterwards."""
    from bordir.generation.backend import BACKENDS
    from bordir.metrics.registry import METRIC_REGISTRY
    from bordir.retrieval.base import RETRIEVERS
    from bordir.retrieval.fusion import FUSIONS

    (tmp_path / "bordir_test_plugin.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("bordir_test_plugin", None)
    for reg, name in (
        (BACKENDS, "shout"),
        (RETRIEVERS, "doclen"),
        (FUSIONS, "negate"),
        (METRIC_REGISTRY, "refusal_share"),
    ):
        reg.unregister(name)


# --- the Registry type ---------------------------------------------------------------------------


def test_register_direct_decorator_and_metadata():
    reg: Registry = Registry("widget", hint="(see the widget docs)")

    @reg.register("b", bounds=(0, 1))
    class B:
        """The B widget."""

    reg.register("a", len, description="the A widget")
    assert reg.names() == ("b", "a")  # registration order
    assert reg.get("b") is B and reg["a"] is len and "a" in reg and "c" not in reg
    assert reg.entry("b").description == "The B widget."  # the docstring's first line
    assert reg.entry("b").meta["bounds"] == (0, 1)
    assert reg.describe() == [
        {"name": "b", "description": "The B widget.", "bounds": (0, 1)},
        {"name": "a", "description": "the A widget"},
    ]
    with pytest.raises(
        ConfigError, match=r"unknown widget 'c'; known: b, a \(see the widget docs\)"
    ):
        reg.get("c")
    with pytest.raises(KeyError):
        reg["c"]
    reg.unregister("a")
    assert reg.names() == ("b",)


def test_deferred_entry_keeps_its_declared_description_and_is_imported_on_first_use():
    reg: Registry = Registry("thing")
    reg.register("dumps", module="json:dumps", description="JSON text", kind="codec")
    assert reg.describe() == [{"name": "dumps", "description": "JSON text", "kind": "codec"}]
    assert not reg.entry("dumps", load=False).loaded  # describing imports nothing
    assert reg.get("dumps") is json.dumps
    assert reg.entry("dumps", load=False).loaded
    assert reg.entry("dumps").description == "JSON text"


def test_declared_description_survives_the_modules_decorator_and_vice_versa():
    from bordir.generation.backend import BACKENDS, get_backend

    get_backend("mock/first")  # imports the mock module: its @backend("mock") gives no description
    assert BACKENDS.entry("mock").description == "scripted answers for unit tests, never evidence"
    reg: Registry = Registry("thing")
    reg.register("x", len)
    reg.register("x", module="json:dumps", description="declared late")  # already loaded: kept
    assert reg.get("x") is len and reg.entry("x").description == "declared late"


def test_deferred_module_that_does_not_register_is_a_clear_error():
    reg: Registry = Registry("gadget")
    reg.register("x", module="json")  # importing json registers nothing here
    with pytest.raises(ConfigError, match="gadget 'x': importing json did not register it"):
        reg.get("x")


def test_builtins_are_deferred_until_used():
    """`bordir list` reads descriptions without importing any backend or retriever module."""
    code = (
        "import sys; from bordir.catalog import list_backends, list_retrievers; "
        "list_backends(); list_retrievers(); "
        "print([m for m in sys.modules if m.startswith(('bordir.generation.backends', "
        "'bordir.retrieval.bm25', 'bordir.retrieval.dense'))])"
    )
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_old_entry_points_still_work():
    from bordir.generation.backend import BACKENDS, available_backends, get_backend
    from bordir.retrieval.base import RETRIEVERS, available, get_retriever

    assert set(available_backends()) == set(BACKENDS.names())
    assert set(available()) == set(RETRIEVERS.names())
    assert get_backend("mock/first").name == "mock/first"
    assert get_retriever("bm25").name == "bm25"
    with pytest.raises(ConfigError, match="unknown backend provider 'nope' in 'nope/x'"):
        get_backend("nope/x")
    with pytest.raises(ConfigError, match="unknown retriever 'nope'"):
        get_retriever("nope")


# --- the CLI reads the registries ----------------------------------------------------------------


def test_choices_come_from_the_registries():
    from bordir.policies import PARSE_POLICIES, TESTBED_POLICIES
    from bordir.retrieval.fusion import FUSIONS

    r = run_cli("retrieve", "--help")
    assert f"[{'|'.join(FUSIONS.names())}]" in r.stdout
    r = run_cli("score", "borderlines-table", "--help")
    assert f"[{'|'.join(PARSE_POLICIES.names())}]" in r.stdout
    r = run_cli("testbed", "score", "--help")
    assert f"[{'|'.join(TESTBED_POLICIES.names())}]" in r.stdout


@pytest.mark.parametrize("what", ["fusions", "policies"])
def test_list_fusions_and_policies(capsys, what):
    from bordir.policies import PARSE_POLICIES, TESTBED_POLICIES
    from bordir.retrieval.fusion import FUSIONS

    assert cli_main(["list", what, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    expected = (
        list(FUSIONS.names())
        if what == "fusions"
        else [*PARSE_POLICIES.names(), *TESTBED_POLICIES.names()]
    )
    assert [r["name"] for r in rows] == expected and all(r["description"] for r in rows)
    assert cli_main(["list", what]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("name") and out.strip().endswith(f"{len(rows)} {what}")


def test_metric_labels_and_bounds_come_from_the_registry(capsys):
    from bordir.metrics.cs import METRIC_BOUNDS, METRICS
    from bordir.metrics.registry import METRIC_REGISTRY, metric_bounds, metric_label

    assert cli_main(["list", "metrics", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    for m in METRICS:
        assert METRIC_REGISTRY.entry(m).meta["kind"] == "cs"
        assert metric_bounds(m) == METRIC_BOUNDS[m]
        assert rows[m]["label"] == metric_label(m)
    assert metric_label("cst_cs", "paper_label") == "Cst CS all"  # the BorderLines table's column


# --- one new file: a plugin ----------------------------------------------------------------------


def test_plugin_module_registers_everything_in_process(plugin, capsys):
    import importlib

    importlib.import_module("bordir_test_plugin")
    from bordir.generation.backend import get_backend
    from bordir.generation.executor import execute
    from bordir.generation.types import GenerationRequest, Message
    from bordir.metrics.registry import METRIC_REGISTRY

    names = {}
    for what in ("backends", "retrievers", "fusions", "metrics"):
        assert cli_main(["list", what, "--json"]) == 0
        names[what] = {r["name"] for r in json.loads(capsys.readouterr().out)}
    assert "shout/<model>" in names["backends"] and "doclen" in names["retrievers"]
    assert "negate" in names["fusions"] and "refusal_share" in names["metrics"]

    # usable: the executor runs the plugin backend; the metric computes from its factory
    req = GenerationRequest(model="shout/x", messages=(Message("user", "hello"),))
    assert [r.text for r in execute(get_backend("shout/x"), [req], progress=False)] == ["HELLO"]
    table = pd.DataFrame({"outcome": ["answered", "refused", "refused", "answered"]})
    assert METRIC_REGISTRY.get("refusal_share")(table) == 0.5
    assert METRIC_REGISTRY.entry("refusal_share").meta["label"] == "Refusal share"


def test_plugin_module_named_in_env_is_usable_from_the_cli(plugin, tmp_path):
    env = {"PYTHONPATH": str(plugin), "BORDIR_PLUGINS": "bordir_test_plugin"}
    r = run_cli("list", "backends", env=env)
    assert r.returncode == 0 and "shout/<model>" in r.stdout, r.stderr
    out = tmp_path / "hits.parquet"
    r = run_cli(
        "retrieve", "--retriever", "doclen", "--fusion", "negate", "--modes", "qlang",
        "--langs", "en", "--k", "2", "--out", str(out), "--json", env=env,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "ret:doclen|fusion:negate" in json.loads(r.stdout)["signature"]
    hits = pd.read_parquet(out)
    # doclen scores a passage by its length; negate ranks the shortest of each query first
    first = hits[hits["rank"] == 1].set_index("query_id")["raw_score"]
    shortest = hits.groupby("query_id")["raw_score"].min()
    assert len(first) == 12 and (first == shortest.loc[first.index]).all()


def test_unknown_plugin_module_is_one_line():
    r = run_cli("list", "backends", env={"BORDIR_PLUGINS": "no_such_bordir_plugin"})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().startswith("bordir: error: BORDIR_PLUGINS: cannot import plugin module")
