"""The links from the report's metric cells to the samples behind them (``view.html#…``).

Each function gives the link of one kind of cell: the explorer opens filtered
to exactly the rows the number was computed from and recomputes the number from
them (``expect`` is the value the cell shows, so the page says whether the rows
on screen give it). :func:`write_view_beside` writes the ``view.html`` the links
point to, next to ``report.html``.

Example:
    >>> cs_link("mock/first", "qlang", "kb_cs", 0.5)
    'view.html#metric=cs%3Akb_cs&expect=0.5&model=mock%2Ffirst&mode=qlang&order=given&role=control%20%28en%29'
"""

from __future__ import annotations

import os
from typing import Any

from ..view.links import view_link

__all__ = ["cs_link", "cmp_link", "pl_link", "cit_link", "tb_link", "minuend", "write_view_beside"]


def _num(x: Any) -> float | None:
    return None if x is None or x != x else float(x)


def minuend(a: str, b: str, value_a: Any, value_b: Any, diff: Any) -> tuple[str, str]:
    """``(x, y)`` with ``diff`` = value(x) − value(y): a comparison row's orientation, read off its numbers.

    >>> minuend("no_ir", "qlang", 0.625, 0.5, -0.125), minuend("qlang", "no_ir", 0.5, 0.625, -0.125)
    (('qlang', 'no_ir'), ('qlang', 'no_ir'))
    """
    va, vb, d = _num(value_a), _num(value_b), _num(diff)
    if va is not None and vb is not None and d is not None and abs(d - (vb - va)) < 1e-9 < abs(d):
        return b, a
    return a, b


def cs_link(model: str, mode: str, metric: str, value: float | None) -> str | None:
    """A CS metric of one (model, mode), mean over runs: its rows in the given option order (KB: the control rows)."""
    if value is None:
        return None
    role = "control (en)" if metric == "kb_cs" else None
    return view_link(
        model=model, mode=mode, order="given", role=role, metric=f"cs:{metric}", expect=_num(value)
    )


def cmp_link(model: str, metric: str, a: str, b: str, diff: float | None) -> str | None:
    """A paired comparison of modes ``a`` − ``b`` (runs pooled per territory, common territories)."""
    if diff is None:
        return None
    return view_link(
        model=model, mode=[a, b], order="given", metric=f"cmp:{metric}:{a}:{b}", expect=_num(diff)
    )


def pl_link(model: str, measure: str, a: str, b: str, lang: str, diff: float | None) -> str | None:
    """A per-language comparison row (the English control rows come along for ``en_agreement``)."""
    if _num(diff) is None:
        return None
    langs = [lang] if measure != "en_agreement" or lang == "en" else [lang, "en"]
    return view_link(
        model=model,
        mode=[a, b],
        lang=langs,
        order="given",
        metric=f"pl:{measure}:{a}:{b}:{lang}",
        expect=_num(diff),
    )


def cit_link(model: str, mode: str, doc_lang: str, what: str, value: float | None) -> str | None:
    """A citation cell (``what``: ``rate`` or ``ratio``) of one (model, mode), every query language and option order."""
    if _num(value) is None:
        return None
    return view_link(model=model, mode=mode, metric=f"cit:{doc_lang}:{what}", expect=_num(value))


def tb_link(group: dict[str, Any], metric: str, policy: str, value: float | None) -> str | None:
    """A testbed rate of one group (model × language × setting × noise rate)."""
    if _num(value) is None:
        return None
    return view_link(
        model=group["model"],
        lang=None if group["lang"] == "all" else group["lang"],
        setting=group["setting"],
        noise=f"{float(group['noise_rate']):g}",
        metric=f"tb:{metric}:{policy}",
        expect=_num(value),
    )


def write_view_beside(path: str | os.PathLike[str], out: str | os.PathLike[str]) -> str | None:
    """Write the ``view.html`` of ``path`` into ``out``; a note saying why when it cannot be.

    ``out`` is the folder the report is being written into; a run too large for a static page
    gets the note (serve it).
    """
    from pathlib import Path

    from ..errors import BordirError
    from ..view import write_view

    try:
        write_view(path, out=Path(out) / "view.html")
    except BordirError as exc:
        return f"view.html (the samples behind each number) was not written: {exc}"
    return None
