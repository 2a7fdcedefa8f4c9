"""Every testbed runs through its Engine: RGB's built-ins too, and a plugin that brings none (issue 49.4).

The runner, the report and the viewer have one path: ``Testbed.run_engine``. RGB's testbeds run
with RGB's engine (``ENGINES["rgb"]``); a testbed registered without one runs with it as well; a
testbed with its own engine is run by it, every step (plan, request, items, rates, comparisons,
files, plot).
"""

from __future__ import annotations

import json

from bordir.testbeds.rgb_engine import ENGINE as RGB
from bordir.testbeds.runner import TestbedConfig, run_testbed
from bordir.testbeds.testbed import ENGINES, TESTBEDS, Testbed, get_testbed, register_testbed

from ..conftest import invoke_cli


def test_rgb_testbeds_run_with_rgb_engine_and_a_plugin_without_one_too():
    for name in ("noise", "rejection", "integration", "counterfactual"):
        assert get_testbed(name).run_engine is RGB is ENGINES.get("rgb")
    assert get_testbed("nomiracl").run_engine is not RGB
    bare = Testbed("bare", "a plugin", kind="noise", settings=("bare",), ratios=(0.0,),
                   questions=get_testbed("noise").questions, engine=None)  # fmt: skip
    assert bare.run_engine is RGB


class _Counting:
    """RGB's engine, counting what the runner asks of it."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.policies, self.default_policy = RGB.policies, RGB.default_policy

    def __getattr__(self, name):
        method = getattr(RGB, name)

        def counted(*a, **kw):
            self.calls.append(name)
            return method(*a, **kw)

        return counted


def test_a_testbed_with_its_own_engine_is_run_by_it_every_step(tmp_path):
    engine = _Counting()
    noise = get_testbed("noise")
    register_testbed(
        Testbed(
            "counted",
            "noise, run by a counting engine",
            kind="noise",
            settings=("counted",),
            ratios=(0.0, 0.5),
            questions=noise.questions,
            engine=engine,
        )  # fmt: skip
    )
    try:
        cfg = TestbedConfig(testbed="counted", data="demo", models=("mock/first",),
                            langs=("uk",), n_resamples=20, cache=str(tmp_path / "c.sqlite3"))  # fmt: skip
        out = run_testbed(cfg, tmp_path / "tb", progress=False)
        assert {
            "plan",
            "request",
            "instructions",
            "items",
            "summarize",
            "comparisons",
            "write",
        } <= set(engine.calls)
        assert json.loads((out / "record.json").read_text())["kind"] == "testbed"
        res = invoke_cli("report", str(out))
        assert res.returncode == 0, res.stderr
        assert "plot" in engine.calls  # the report draws with the testbed's engine
    finally:
        TESTBEDS.unregister("counted")
