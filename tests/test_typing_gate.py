"""The type gate keeps its shape: mypy strict on bordir/, with a ratchet list that can only shrink.

``[tool.mypy]`` in pyproject.toml sets ``strict = true``. A module that cannot pass
strict yet would be listed in a ``[[tool.mypy.overrides]]`` table that turns strict
flags off for it; that list may never grow past :data:`MAX_NON_STRICT` (lower it
when a module leaves the list), and a module on it that already passes strict
fails the test, so the list cannot go stale. ``make lint`` runs mypy itself.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

MAX_NON_STRICT = 0
"""How many modules may be exempt from strict flags (it only goes down)."""

STRICT_FLAGS = frozenset(
    {
        "strict",
        "disallow_any_generics",
        "disallow_subclassing_any",
        "disallow_untyped_calls",
        "disallow_untyped_defs",
        "disallow_incomplete_defs",
        "check_untyped_defs",
        "disallow_untyped_decorators",
        "warn_redundant_casts",
        "warn_unused_ignores",
        "warn_return_any",
        "no_implicit_reexport",
        "strict_equality",
        "extra_checks",
    }
)


def _mypy_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def _non_strict(config: dict) -> list[str]:
    """The modules an override exempts from a strict flag (or an ignore_errors)."""
    out: list[str] = []
    for o in config.get("overrides", []):
        relaxed = any(o.get(flag) is False for flag in STRICT_FLAGS) or o.get("ignore_errors")
        if relaxed:
            mods = o["module"]
            out += [mods] if isinstance(mods, str) else list(mods)
    return sorted(out)


def test_mypy_is_strict_on_the_package():
    config = _mypy_config()
    assert config.get("strict") is True, "[tool.mypy] must set strict = true"
    assert config.get("packages") == ["bordir"]
    for flag in STRICT_FLAGS - {"strict"}:
        assert config.get(flag) is not False, f"[tool.mypy] turns {flag} off for every module"


def test_the_non_strict_list_only_shrinks():
    listed = _non_strict(_mypy_config())
    assert len(listed) <= MAX_NON_STRICT, (
        f"{len(listed)} modules are exempt from strict mypy (at most {MAX_NON_STRICT}): type the "
        f"new ones instead of listing them: {', '.join(listed)}"
    )


@pytest.mark.slow
def test_every_module_on_the_list_still_needs_it(tmp_path):
    """A listed module that passes strict leaves the list (and MAX_NON_STRICT goes down)."""
    listed = _non_strict(_mypy_config())
    if not listed:
        return
    pytest.importorskip("mypy")
    config = tmp_path / "strict.toml"
    config.write_text(
        '[tool.mypy]\npython_version = "3.11"\nignore_missing_imports = true\nstrict = true\n',
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--no-incremental"]
        + [a for m in listed for a in ("-m", m)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    failing = {
        line.split(":", 1)[0].removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        for line in out.splitlines()
        if ": error:" in line
    }
    passing = [m for m in listed if m not in failing]
    assert not passing, f"these modules pass strict mypy now; remove them from the list: {passing}"
