"""The matplotlib settings every bordir plot is drawn with: one style for reports, testbeds and citations.

``svg.hashsalt`` fixes the ids matplotlib writes into an SVG, so that the same
figure gives the same bytes on every run.

Example:
    >>> PLOT_RC["svg.hashsalt"], PLOT_RC["font.size"]
    ('bordir', 9)
"""

from __future__ import annotations

__all__ = ["PLOT_RC"]

PLOT_RC: dict[str, object] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "svg.hashsalt": "bordir",
    "axes.spines.top": False,
    "axes.spines.right": False,
}
"""``matplotlib.rc_context`` settings of every plot (a denser figure may lower ``font.size``)."""
