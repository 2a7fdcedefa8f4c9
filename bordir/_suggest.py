"""``did you mean``: the close names of an unknown one, for error messages (difflib).

Example:
    >>> did_you_mean("qlnag", ["no_ir", "qlang", "rel_langs"])
    "; did you mean 'qlang'?"
    >>> did_you_mean("zzz", ["no_ir", "qlang"])
    ''
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["close_names", "did_you_mean"]


def close_names(name: str, candidates: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The candidates closest to ``name`` (case-insensitive), best first."""
    cands = list(dict.fromkeys(str(c) for c in candidates))
    lower = {c.lower(): c for c in cands}
    found = difflib.get_close_matches(str(name).strip().lower(), list(lower), n=n, cutoff=cutoff)
    return [lower[f] for f in found]


def did_you_mean(name: str, candidates: Iterable[str], n: int = 3) -> str:
    """``"; did you mean 'x'?"`` (or ``'x' or 'y'``), or ``""`` when nothing is close."""
    close = close_names(name, candidates, n=n)
    if not close:
        return ""
    return f"; did you mean {' or '.join(repr(c) for c in close)}?"
