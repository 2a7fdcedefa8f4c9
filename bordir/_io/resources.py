"""Locate the data directories that ship with bordir (``languages/``, ``annotations/``).

In a built wheel they live inside the package (``bordir/_resources/<name>``);
in a source checkout or editable install they are top-level folders of the
repository. Both are looked up, in that order.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent  # bordir/


def resource_dir(name: str) -> Path:
    """Return the directory of the shipped resource ``name`` (e.g. ``"languages"``)."""
    for candidate in (_PKG / "_resources" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"bordir's {name}/ directory is missing (looked in {_PKG / '_resources' / name} "
        f"and {_PKG.parent / name}); reinstall bordir"
    )


def package_data(*parts: str) -> Path:
    """Path of a data file inside the package (e.g. ``package_data("data", "demo")``)."""
    return _PKG.joinpath(*parts)
