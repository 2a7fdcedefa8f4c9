"""Issue 12.5: the public surface is pinned (``bordir.__all__`` against a literal list) and the
version tests compare with is the package's own."""

from __future__ import annotations

import tomllib
from pathlib import Path

import bordir

REPO = Path(__file__).resolve().parents[1]

PUBLIC = """
__version__
languages errors
BordirError ConfigError DataError MissingExtraError UnknownLanguageError
Territory Country Query Passage Hit
BorderLines Corpus Mode BordIRLines
load_borderlines load_borderlines_files load_borderlines_hub load_bordirlines load_demo load_demo_corpus load_dataset
load_corpus retrieve get_backend
Experiment ExperimentConfig run load_run Run
calibrate_judge Calibration
""".split()
"""The public API, written out: adding or removing a name is a decision this test records."""


def test_all_is_pinned():
    assert list(bordir.__all__) == PUBLIC
    assert len(set(PUBLIC)) == len(PUBLIC)


def test_every_public_name_resolves_to_what_it_says():
    import importlib

    for name in PUBLIC:
        value = getattr(bordir, name)
        if name == "__version__":
            continue
        module, attr = bordir._LAZY[name]
        target = importlib.import_module(module)
        assert value is (target if attr is None else getattr(target, attr)), name


def test_version_is_the_packages():
    """Signatures end with ``version:<bordir.__version__>``; that version is pyproject's (via hatch)."""
    text = (REPO / "bordir" / "_version.py").read_text(encoding="utf-8")
    assert f'__version__ = "{bordir.__version__}"' in text
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in meta["project"]["dynamic"]
    assert meta["tool"]["hatch"]["version"]["path"] == "bordir/_version.py"
    from bordir.signature import Signature

    assert str(Signature.build("kb_cs")).endswith(f"|version:{bordir.__version__}")
