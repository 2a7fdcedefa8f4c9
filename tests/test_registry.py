"""Issue 12.2: one registry type; every CLI choice and `bordir list` line comes from it;
a backend, retriever, fusion or metric is one new file (a plugin module) away."""

from __future__ import annotations

import json
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from bordir.cli import main as cli_main
from bordir.errors import ConfigError
from bordir.registry import Registry

from .conftest import invoke_cli, run_cli

PLUGIN = textwrap.dedent(
    '''
    """A plugin: one file that registers a backend, a retriever, a fusion and a CS metric."""
    import numpy as np

    from bordir.generation.backend import Backend, backend
    from bordir.generation.types import GenerationResult
    from bordir.metrics.registry import cs_metric
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


    @cs_metric("kb_miss", columns=("kb_num", "kb_den"), label="KB miss", bounds=(0.0, 1.0))
    def kb_miss(s):
        """Share of English control answers that do not name the controller."""
        return 1 - s["kb_num"] / s["kb_den"]
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
        (METRIC_REGISTRY, "kb_miss"),
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
    reg.register("x", module="json", description="declared", kind="codec")
    reg.register("x", json.dumps)  # json's own function: completes the declaration
    assert reg.get("x") is json.dumps and reg.entry("x").description == "declared"
    assert reg.entry("x").meta["kind"] == "codec"


def test_register_refuses_to_replace_an_entry():
    """Issue 24.3: a second registration of a name is an error naming the registry and the name."""
    reg: Registry = Registry("gizmo")
    reg.register("a", len)
    for again in (
        lambda: reg.register("a", len),  # even the same factory
        lambda: reg.register("a", str),
        lambda: reg.register("a")(str),  # the decorator
        lambda: reg.register("a", module="json:dumps"),  # a late declaration
    ):
        with pytest.raises(
            ConfigError, match=r"gizmo 'a' is already registered .*unregister\('a'\)"
        ):
            again()
    assert reg.get("a") is len
    reg.unregister("a")  # the way to swap an entry
    reg.register("a", str)
    assert reg.get("a") is str


def test_a_declared_builtin_is_completed_only_by_its_own_module():
    reg: Registry = Registry("gizmo")
    reg.register("d", module="json")
    with pytest.raises(
        ConfigError,
        match="gizmo 'd' is already registered .*declared by json, "
        "registered again by tests.test_registry",
    ):
        reg.register("d", lambda: 1)  # a plugin cannot take over a built-in's name
    reg.register("d", json.loads)  # json's decorator (here: its function) completes it
    assert reg.get("d") is json.loads
    reg.register("e", module="json:dumps")
    with pytest.raises(ConfigError, match="gizmo 'e' is already registered"):
        reg.register("e", json.dumps)  # pkg.mod:attr entries are completed by the import alone
    from bordir.generation.backend import BACKENDS

    with pytest.raises(ConfigError, match="backend provider 'openai' is already registered"):
        BACKENDS.register("openai", object)
    assert BACKENDS.get("openai").__module__ == "bordir.generation.backends.openai"


def test_deferred_module_that_does_not_register_is_a_clear_error():
    reg: Registry = Registry("gadget")
    reg.register("x", module="json")  # importing json registers nothing here
    with pytest.raises(ConfigError, match="gadget 'x': importing json did not register it"):
        reg.get("x")


@pytest.mark.slow
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


@pytest.mark.slow
def test_choices_come_from_the_registries():
    from bordir.policies import PARSE_POLICIES, TESTBED_POLICIES
    from bordir.retrieval.fusion import FUSIONS

    r = invoke_cli("retrieve", "--help")
    assert f"[{'|'.join(FUSIONS.names())}]" in r.stdout
    r = invoke_cli("score", "borderlines-table", "--help")
    assert f"[{'|'.join(PARSE_POLICIES.names())}]" in r.stdout
    r = invoke_cli("testbed", "score", "--help")
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
    from bordir.metrics.cs.aggregate import METRIC_BOUNDS, METRICS
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
    assert "negate" in names["fusions"] and "kb_miss" in names["metrics"]

    # usable: the executor runs the plugin backend; the metric computes from the columnar counts
    req = GenerationRequest(model="shout/x", messages=(Message("user", "hello"),))
    assert [r.text for r in execute(get_backend("shout/x"), [req], progress=False)] == ["HELLO"]
    from bordir.metrics.cs.aggregate import aggregate
    from bordir.metrics.registry import cs_metric_names, cs_metrics

    table = pd.DataFrame({"kb_num": [1.0, 0.0, 0.0, 1.0], "kb_den": [1.0, 1.0, 1.0, 0.0]})
    scores = aggregate(table, cs_metrics())
    assert (
        scores["kb_miss"].value == pytest.approx(1 - scores["kb_cs"].value) == pytest.approx(1 / 3)
    )
    assert (
        cs_metric_names()[-1] == "kb_miss"
        and METRIC_REGISTRY.entry("kb_miss").meta["label"] == "KB miss"
    )
    spec = METRIC_REGISTRY.get("kb_miss")
    w = np.array([[1, 1, 0, 0], [2, 0, 0, 0]])  # two bootstrap resamples: a value each
    assert spec.value(table, w).tolist() == [0.5, 0.0]


@pytest.mark.slow
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


def test_a_plugin_declared_as_an_entry_point_is_loaded_by_the_cli(plugin, tmp_path):
    """A distribution's ``bordir.plugins`` entry point is found (and only then is importlib.metadata read)."""
    from bordir import registry

    assert not registry._may_declare_plugins()  # nothing installed here declares one
    dist = tmp_path / "bordir_test_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: bordir-test-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        "[bordir.plugins]\nshout = bordir_test_plugin\n", encoding="utf-8"
    )
    assert registry._may_declare_plugins()  # tmp_path is on sys.path (the fixture)
    r = run_cli("list", "backends", env={"PYTHONPATH": str(plugin)})
    assert r.returncode == 0 and "shout/<model>" in r.stdout, r.stderr


# the BorderLines response table of test_metrics_legacy (KB CS 0/2, so KB miss is 1)
_TABLE = (
    "Territory,Claimants,Claimant_Codes,Controller,Controller_Code,Responses_d,Response_en,Response_Controller\n"
    "Isla,Spain;Morocco,es;ar,Spain,es,\"{'en': 'Morocco', 'es': 'Spain', 'ar': 'Spain'}\",Morocco,Spain\n"
    "Malvinas,Argentina;United Kingdom,es;en,United Kingdom,en,\"{'en': 'Argentina', 'es': 'United Kingdom'}\",None,Argentina\n"
    "Triland,Russia;Ukraine;Japan,ru;uk;ja,Unknown,,\"{'en': 'Russia', 'ru': 'Russia', 'uk': 'Russia', 'ja': 'Russia'}\",Russia,\n"
)


@pytest.mark.slow  # `bordir score` and `bordir report` of a run
def test_a_plugin_metric_is_computed_by_bordir_score_and_report(plugin, tmp_path, capsys):
    """Issue 24.3: a CS metric registered by a module outside bordir (BORDIR_PLUGINS) is computed
    and shown by `bordir score` and `bordir report`, next to the built-ins, which do not change."""
    env = {
        "PYTHONPATH": str(plugin),
        "BORDIR_PLUGINS": "bordir_test_plugin",
        "BORDIR_CACHE": str(tmp_path),
    }
    table = tmp_path / "run0.csv"
    table.write_text(_TABLE, encoding="utf-8")
    r = run_cli("score", "borderlines-table", str(table), str(table), "--json", env=env)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [run["kb_miss"] for run in out["runs"]] == [1.0, 1.0]
    assert out["summary"]["kb_miss"]["mean"] == 1.0 and out["runs"][0]["kb_cs"] == 0.0
    r = run_cli("score", "borderlines-table", str(table), env=env)
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if line.startswith("KB miss"))
    assert row.split()[2:4] == ["100.000", "100.000"]  # run 0 and the mean (x100)
    plain = run_cli("score", "borderlines-table", str(table), str(table), "--json")
    assert json.loads(plain.stdout)["summary"]["kb_cs"] == out["summary"]["kb_cs"]

    config = tmp_path / "exp.toml"
    config.write_text(
        'dataset = "demo"\ncorpus = "demo"\nmodels = ["mock/first"]\nmodes = ["no_ir", "qlang"]\n'
        "runs = 2\nk = 2\n",
        encoding="utf-8",
    )
    run_dir = tmp_path / "run"
    r = run_cli("run", str(config), "--out", str(run_dir), "--no-progress", env=env)
    assert r.returncode == 0, r.stderr
    r = run_cli(
        "report", str(run_dir), "--resamples", "50", "--seed", "1", "--json", "--no-plots", env=env
    )
    assert r.returncode == 0, r.stderr
    shown = json.loads(r.stdout)["results"]["mock/first"]["qlang"]
    assert shown["kb_miss"]["label"] == "KB miss"
    full = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
    cell = full["results"]["mock/first"]["qlang"]["metrics"]
    assert "kb_miss" in full["metrics"] and full["metrics"][: len(full["metrics"]) - 1] == [
        "kb_cs", "control_cs", "non_control_cs", "delta_cs_norm", "delta_cs", "cst_cs", "cst_cs_unknown",
    ]  # fmt: skip
    assert shown["kb_miss"]["mean"] == pytest.approx(1 - cell["kb_cs"]["mean"])
    assert [x["value"] for x in cell["kb_miss"]["runs"]] == pytest.approx(
        [1 - x["value"] for x in cell["kb_cs"]["runs"]]
    )
    low, high = shown["kb_miss"]["boot95"]
    assert 0.0 <= low <= shown["kb_miss"]["mean"] <= high <= 1.0
    import importlib

    from bordir.cli.report import print_summary

    importlib.import_module("bordir_test_plugin")  # the terminal summary, in this process
    print_summary(run_dir / "report.html")
    header = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("mode"))
    assert "KB miss" in header  # the summary's headline table


def test_unknown_plugin_module_is_one_line():
    r = run_cli("list", "backends", env={"BORDIR_PLUGINS": "no_such_bordir_plugin"})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().startswith("bordir: error: BORDIR_PLUGINS: cannot import plugin module")
