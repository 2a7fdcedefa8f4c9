"""What a PDF page shows: text a reader cannot see is taken out of the page before its text is read.

A PDF can draw text that no one sees and every text extractor reads — where a prompt injection
hides, as in HTML (:mod:`bordir.testgen.htmlstyle`). :func:`drop_invisible_text` walks a page's
content stream once, keeping the graphics state (``q``/``Q``, ``cm``, colours, the ``gs``
fill and stroke opacity, the text matrix, the clip) and the rectangles and images painted so
far, and removes each text-showing operator (``Tj``, ``TJ``, ``'``, ``"``) whose text is

* invisible: rendering mode 3 or 7 (``3 Tr``: the text layer of a scanned page is drawn so);
* transparent: a fill (or, to stroke it, stroke) opacity of at most 0.05;
* too small: under 1.5 pt once scaled by the text and page matrices (``0.5 Tf``, ``0.01 0 0 0.01 cm``,
  ``1 Tz``);
* off the page (its origin outside the crop box) or outside the clip (``0 0 0 0 re W n``);
* without contrast with what it stands on: the last rectangle painted under its origin, or the
  white page (white on white, ``#fefefe`` on white; white on a dark box stays, and so does
  any text over an image).

Text inside form XObjects is not looked into; what is removed is left out of the extracted text
only (the file is not changed).

Example:
    >>> ops = [([], b"BT"), (["/F1", 12], b"Tf"), ([1, 1, 1], b"rg"), (["hidden"], b"Tj"), ([], b"ET")]
    >>> [op for _, op in visible_operations(ops, (0, 0, 612, 792), {})]
    [b'BT', b'Tf', b'rg', b'ET']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from .htmlcolors import contrast

__all__ = ["drop_invisible_text", "visible_operations"]

Matrix = tuple[float, float, float, float, float, float]
RGB = tuple[float, float, float, float]
Box = tuple[float, float, float, float]
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_BLACK: RGB = (0.0, 0.0, 0.0, 1.0)
_WHITE: RGB = (255.0, 255.0, 255.0, 1.0)
_MIN_POINTS = 1.5
_MAX_BOXES = 2000
_SHOW = frozenset((b"Tj", b"TJ", b"'", b'"'))
_FILLS = frozenset((b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"))


class _State(NamedTuple):
    ctm: Matrix = _IDENTITY
    fill: RGB | None = _BLACK  # None: a pattern or a colour space the walk cannot read
    stroke: RGB | None = _BLACK
    fill_alpha: float = 1.0
    stroke_alpha: float = 1.0
    clip: Box | None = None  # None: no clip (the page)
    mode: int = 0  # text rendering mode
    size: float = 12.0
    scale: float = 100.0  # Tz
    leading: float = 0.0


def _mul(m: Matrix, n: Matrix) -> Matrix:
    return (
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    )


def _point(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5]


def _bbox(m: Matrix, x: float, y: float, w: float, h: float) -> Box:
    pts = [_point(m, x + dx, y + dy) for dx in (0, w) for dy in (0, h)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def _inside(box: Box, x: float, y: float, margin: float = 0.0) -> bool:
    return box[0] - margin <= x <= box[2] + margin and box[1] - margin <= y <= box[3] + margin


def _color(values: Sequence[Any]) -> RGB | None:
    """A colour from ``g`` / ``rg`` / ``k`` operands (by their count), on a 0–255 scale."""
    try:
        v = [float(x) for x in values]
    except (TypeError, ValueError):
        return None  # a pattern name
    if len(v) == 1:
        return (v[0] * 255, v[0] * 255, v[0] * 255, 1.0)
    if len(v) == 3:
        return (v[0] * 255, v[1] * 255, v[2] * 255, 1.0)
    if len(v) == 4:
        c, m, y, k = v
        return ((1 - c) * (1 - k) * 255, (1 - m) * (1 - k) * 255, (1 - y) * (1 - k) * 255, 1.0)
    return None


def _num(x: Any, default: float = 0.0) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return default


def visible_operations(
    ops: list[tuple[list[Any], bytes]], page: Box, ext_gstates: dict[str, tuple[float, float]]
) -> list[tuple[list[Any], bytes]]:
    """``ops`` without the text-showing operators whose text cannot be seen (module docs).

    Args:
        ops: the page's content stream as ``(operands, operator)`` pairs (pypdf's ``ContentStream.operations``).
        page: the crop box ``(x0, y0, x1, y1)``.
        ext_gstates: the page's graphics-state resources: name → (fill opacity, stroke opacity).
    """
    st, stack = _State(), []
    tm = tlm = _IDENTITY
    path: Box | None = None
    painted: list[tuple[Box, RGB | None]] = []  # rectangles and images, in painting order
    out: list[tuple[list[Any], bytes]] = []
    for operands, op in ops:
        if op == b"q":
            stack.append(st)
        elif op == b"Q":
            st = stack.pop() if stack else _State()
        elif op == b"cm" and len(operands) == 6:
            st = st._replace(ctm=_mul(tuple(_num(x) for x in operands), st.ctm))  # type: ignore[arg-type]
        elif op in (b"g", b"rg", b"k", b"sc", b"scn"):
            st = st._replace(fill=_color(operands))
        elif op in (b"G", b"RG", b"K", b"SC", b"SCN"):
            st = st._replace(stroke=_color(operands))
        elif op == b"cs":
            st = st._replace(fill=_BLACK)
        elif op == b"CS":
            st = st._replace(stroke=_BLACK)
        elif op == b"gs" and operands:
            fa, sa = ext_gstates.get(str(operands[0]), (st.fill_alpha, st.stroke_alpha))
            st = st._replace(fill_alpha=fa, stroke_alpha=sa)
        elif op == b"re" and len(operands) == 4:
            box = _bbox(st.ctm, *(_num(x) for x in operands))
            path = (
                box
                if path is None
                else (
                    min(path[0], box[0]),
                    min(path[1], box[1]),
                    max(path[2], box[2]),
                    max(path[3], box[3]),
                )
            )
        elif op in _FILLS:
            if path is not None and st.fill_alpha > 0.5:
                painted.append((path, st.fill))
            path = None
        elif op in (b"W", b"W*") and path is not None:
            c = st.clip
            clip = (
                path
                if c is None
                else (
                    max(c[0], path[0]),
                    max(c[1], path[1]),
                    min(c[2], path[2]),
                    min(c[3], path[3]),
                )
            )
            st = st._replace(clip=clip)
        elif op in (b"n", b"S", b"s"):
            path = None
        elif op == b"Do":
            painted.append(
                (_bbox(st.ctm, 0, 0, 1, 1), None)
            )  # an image (or a form): unknown colours
        elif op == b"BT":
            tm = tlm = _IDENTITY
        elif op == b"Tf" and len(operands) == 2:
            st = st._replace(size=_num(operands[1], 12.0))
        elif op == b"Tr" and operands:
            st = st._replace(mode=int(_num(operands[0])))
        elif op == b"Tz" and operands:
            st = st._replace(scale=_num(operands[0], 100.0))
        elif op == b"TL" and operands:
            st = st._replace(leading=_num(operands[0]))
        elif op in (b"Td", b"TD") and len(operands) == 2:
            tx, ty = _num(operands[0]), _num(operands[1])
            if op == b"TD":
                st = st._replace(leading=-ty)
            tm = tlm = _mul((1, 0, 0, 1, tx, ty), tlm)
        elif op == b"Tm" and len(operands) == 6:
            tm = tlm = tuple(_num(x) for x in operands)  # type: ignore[assignment]
        elif op == b"T*":
            tm = tlm = _mul((1, 0, 0, 1, 0, -st.leading), tlm)
        if op in (b"'", b'"'):
            tm = tlm = _mul((1, 0, 0, 1, 0, -st.leading), tlm)
        if op in _SHOW and not _seen(st, _mul(tm, st.ctm), page, painted):
            if op == b"'":
                out.append(([], b"T*"))
            elif op == b'"' and len(operands) == 3:
                out += [([operands[0]], b"Tw"), ([operands[1]], b"Tc"), ([], b"T*")]
            continue
        out.append((operands, op))
    return out


def _seen(st: _State, m: Matrix, page: Box, painted: list[tuple[Box, RGB | None]]) -> bool:
    """Whether text drawn now (text matrix times CTM ``m``) can be seen (module docs)."""
    if st.mode in (3, 7):
        return False
    scale = math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))
    if abs(st.size) * scale * min(1.0, abs(st.scale) / 100) < _MIN_POINTS:
        return False
    x, y = m[4], m[5]
    if not _inside(page, x, y, margin=2.0) or (
        st.clip is not None and not _inside(st.clip, x, y, 1.0)
    ):
        return False
    recent = painted[-_MAX_BOXES:]  # a page of many boxes: the last ones painted (bounded time)
    under = next((c for box, c in reversed(recent) if _inside(box, x, y)), _WHITE)
    inks = []
    if st.mode in (0, 2, 4, 6):
        inks.append((st.fill, st.fill_alpha))
    if st.mode in (1, 2, 5, 6):
        inks.append((st.stroke, st.stroke_alpha))
    for ink, alpha in inks:
        if alpha <= 0.05:
            continue
        if ink is None or under is None or contrast(ink, under) >= 1.2:
            return True
    return False


def drop_invisible_text(page: Any, reader: Any) -> None:
    """Take the text that cannot be seen out of ``page`` (a pypdf page) before its text is extracted."""
    from pypdf.generic import ContentStream, NameObject

    contents = page.get_contents()
    if contents is None:
        return
    cs = ContentStream(contents, reader)
    box = page.cropbox
    states: dict[str, tuple[float, float]] = {}
    resources = page.get("/Resources")
    gs = resources.get_object().get("/ExtGState") if resources is not None else None
    if gs is not None:
        for name, value in gs.get_object().items():
            v = value.get_object()
            states[str(name)] = (_num(v.get("/ca"), 1.0), _num(v.get("/CA"), 1.0))
    kept = visible_operations(
        cs.operations,
        (float(box.left), float(box.bottom), float(box.right), float(box.top)),
        states,
    )
    if len(kept) != len(cs.operations) or any(a is not b for a, b in zip(kept, cs.operations)):
        cs.operations = kept
    # set on the page object only (pypdf's replace_contents wants a writer): extract_text reads
    # it, and the operations parsed here, not the stream again
    page[NameObject("/Contents")] = cs
