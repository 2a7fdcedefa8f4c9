"""The one way bordir writes a fraction as a percentage in text, tables, reports and the terminal.

Every figure bordir prints as a percentage goes through :func:`pct` (and an interval through
:func:`pct_interval`): one rounding, one sign convention, one marker for an undefined value
(None, NaN, ``pd.NA``), which each page chooses once (``n/a`` in sentences, ``–`` or ``-`` in
table cells).

Example:
    >>> pct(0.1234), pct(-0.05, True), pct(None), pct(float("nan"), missing="–")
    ('12.3', '-5.0', 'n/a', '–')
    >>> pct(0.000123, digits=3), pct_interval(0.1, 0.25), pct_interval(None, 0.2, missing="-")
    ('0.012', '[10.0, 25.0]', '-')
    >>> pct(0.05, True), pct_interval(-0.1, 0.2, True)
    ('+5.0', '[-10.0, +20.0]')
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["is_missing", "pct", "pct_interval"]


def is_missing(x: Any) -> bool:
    """None, NaN or ``pd.NA`` (a value with no number to print)."""
    if x is None:
        return True
    try:
        return bool(math.isnan(float(x)))
    except (TypeError, ValueError):
        return True  # pd.NA and other non-numbers


def pct(x: Any, signed: bool = False, *, digits: int = 1, missing: str = "n/a") -> str:
    """``x`` × 100 with ``digits`` decimals (``+`` before a positive one when ``signed``), else ``missing``."""
    if is_missing(x):
        return missing
    v = 100 * float(x)
    return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"


def pct_interval(
    lo: Any, hi: Any, signed: bool = False, *, digits: int = 1, missing: str = "–"
) -> str:
    """``[lo, hi]`` × 100 (``∞`` for an infinite upper bound), else ``missing``."""
    if is_missing(lo) or hi is None:
        return missing
    top = "∞" if isinstance(hi, float) and math.isinf(hi) else pct(hi, signed, digits=digits)
    return f"[{pct(lo, signed, digits=digits)}, {top}]"
