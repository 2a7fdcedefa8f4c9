"""Issue 51.4: the README's notebook block ends on a result, with the names and the rule of every comparison.

The block ran to a comparison that was NaN ("too few to judge": the default minimum was 30
territories and the demo has 12), while docs/quickstart.md's comparison of a CS metric gave a
p-value from the same 12 territories, under other column names (``low`` / ``high``, ``mode_a``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from bordir.metrics.perlang.compare import COMPARE_COLUMNS

README = Path(__file__).resolve().parents[2] / "README.md"

pytestmark = pytest.mark.slow  # a whole (mock) run


def _notebook_block() -> str:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return next(b for b in blocks if "bordir.run(" in b and '"corpus": "demo"' in b)


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory):
    """The README's offline block, run as written in a directory of its own."""
    import os

    work = tmp_path_factory.mktemp("readme")
    old = Path.cwd()
    os.chdir(work)
    try:
        ns: dict = {}
        block = _notebook_block()
        exec(compile(block, str(README), "exec"), ns)  # noqa: S102 - the documented code
        last = [line for line in block.splitlines() if line.strip()][-1].split("#")[0].strip()
        return ns, eval(last, ns)  # noqa: S307 - the block's last line, what a notebook shows
    finally:
        os.chdir(old)


def test_the_block_ends_on_a_judged_comparison(readme_run):
    _, table = readme_run
    assert list(table.columns) == list(COMPARE_COLUMNS)
    row = table.iloc[0]
    assert row["status"] == "judged" and 0 < row["p_value"] < 1 and not math.isnan(row["diff"])
    assert math.isnan(row["ci_low"]) and "needs 30" in row["ci_refused"]  # 10 territories


def test_the_numbers_the_readme_quotes_are_the_blocks(readme_run):
    _, table = readme_run
    row = table.iloc[0]
    text = " ".join(README.read_text(encoding="utf-8").split())
    said = re.search(
        r"moves ([+−-][\d.]+) points from `qlang` to `rel_langs`\), `p_value` ([\d.]+) from the "
        r"sign-flip test over the (\d+) territories paired",
        text,
    )
    assert said, "the README no longer says what the comparison gives"
    diff, p, n = float(said.group(1).replace("−", "-")), float(said.group(2)), int(said.group(3))
    assert (round(100 * row["diff"], 1), round(row["p_value"], 2), row["n_territories"]) == (
        diff,
        p,
        n,
    )


def test_a_cs_metric_gives_the_same_columns_and_rule(readme_run):
    ns, table = readme_run
    cs = ns["run"].compare("qlang", "rel_langs", metric="non_control_cs")
    assert list(cs.columns) == list(table.columns)
    assert cs.iloc[0]["status"] == "judged" and math.isnan(cs.iloc[0]["ci_high"])
    few = ns["run"].compare("qlang", "rel_langs", metric="cst_cs", min_territories=50)
    assert few.iloc[0]["status"] == "too few to judge" and math.isnan(few.iloc[0]["p_value"])
