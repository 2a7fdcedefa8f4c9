"""What CSS hides: an inline stylesheet's rules and the ``style`` attribute, as the HTML reader applies them.

:mod:`bordir.testgen.htmlread` keeps the text that a reader sees on the page
**and** a screen reader reads; text that only one of them gets is where a
prompt injection hides. This module decides, for one element, from the page's
``<style>`` sheets (:func:`parse_sheet`) and its ``style`` attribute, cascaded
by importance, specificity and order (:func:`element_style`):

* **the whole element is dropped** when it is not rendered or not on the screen:
  ``display: none``, ``content-visibility: hidden``, ``opacity`` or ``filter: opacity()``
  ≤ 0.05, moved off-screen (``left``/``top``/``right``/``bottom``/``margin-left``/``margin-top``
  ≤ −500 px or ≤ −100 %, ``text-indent`` ≤ −500 px, ``transform: translate…(−9999px)``),
  shrunk until its text is under 2 px (``transform: scale(0.01)``, ``scale: 0``, ``zoom: 1%``),
  clipped away (``clip: rect(…)`` of at most 1 px, ``clip-path: inset(50%)`` or ``circle(0)``),
  or a box of at most 1 px (``width``/``height``/``max-height``) with ``overflow: hidden``;
* **its text is dropped** (inherited, a child may undo it) when ``visibility:
  hidden`` / ``collapse``, a ``font-size`` below 2 px (``0``, ``0.01em``, the
  ``font: 0/0 a`` shorthand), a transparent ``color``, or a colour whose contrast
  with the background it stands on (the nearest background colour of it or an
  ancestor, white by default; unknown over a background image) is below 1.2
  (white on white, ``#fefefe`` on ``#fff``).

Values may come from custom properties (``color: var(--bg)``, inherited as browsers inherit
them) and from the presentational attributes a browser honours (``<font color>``, ``bgcolor``;
in SVG, ``opacity``, ``visibility``, ``display``, ``fill``, ``font-size``), below every rule.
The sheets (:mod:`bordir.testgen.csssheet`: nested rules, ``@media`` on a desktop screen,
``@supports``, ``@layer``, ``data:`` imports, escapes) and the selectors
(:mod:`bordir.testgen.cssselect`: every combinator, ``:not()``, ``:is()``, ``:nth-child()`` …;
``:hover`` never holds) are read as a browser reads them; external stylesheets are not fetched.

Example:
    >>> sheet = parse_sheet(".sr { position: absolute; left: -9999px } p.w { color: var(--w) } :root { --w: #fff }")
    >>> element_style(sheet, Node("span", {"class": "sr"}, Kids(), 1, 1, None), ROOT)[0]
    True
    >>> html = Node("html", {}, Kids(), 1, 1, None)
    >>> _, top = element_style(sheet, html, ROOT)
    >>> drop, style = element_style(sheet, Node("p", {"class": "w"}, Kids(), 1, 1, html), top)
    >>> drop, text_hidden(style)
    (False, True)
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .cssselect import Kids, Node, matches
from .csssheet import Sheet, declarations, media_applies, parse_sheet
from .htmlcolors import contrast, over, parse_color

__all__ = [
    "Style",
    "ROOT",
    "Sheet",
    "Node",
    "Kids",
    "parse_sheet",
    "element_style",
    "text_hidden",
    "media_applies",
    "presentational",
]

RGBA = tuple[float, float, float, float]


class Style(NamedTuple):
    """What an element passes to its text and its children."""

    font: float  # computed font size in px
    color: RGBA | None  # the text colour (None: unknown)
    backdrop: RGBA | None  # the background the text stands on (None: unknown, e.g. an image)
    invisible: bool  # visibility: hidden / collapse
    vars: tuple[tuple[str, str], ...] = ()  # the custom properties (--name: value) it inherits


ROOT = Style(16.0, (0.0, 0.0, 0.0, 1.0), (255.0, 255.0, 255.0, 1.0), False)

_LENGTH = re.compile(r"^(-?[\d.]+)(px|pt|pc|em|rem|ex|ch|%|vw|vh|cm|mm|in|q)?$")
_UNIT_PX = {
    "px": 1,
    "pt": 4 / 3,
    "pc": 16,
    "cm": 96 / 2.54,
    "mm": 96 / 25.4,
    "in": 96,
    "q": 96 / 101.6,
}
_SIZES = {
    "xx-small": 9,
    "x-small": 10,
    "small": 13,
    "medium": 16,
    "large": 18,
    "x-large": 24,
    "xx-large": 32,
}


def _px(value: str, font: float) -> tuple[float, str] | None:
    """A length in px (``%`` kept as a percentage), or None."""
    m = _LENGTH.match(value.strip())
    if m is None:
        return None
    try:
        num = float(m.group(1))
    except ValueError:
        return None
    unit = m.group(2) or "px"
    if unit == "%":
        return num, "%"
    if unit in ("em", "ex", "ch"):
        return num * font, "px"
    if unit == "rem":
        return num * 16, "px"
    if unit in ("vw", "vh"):
        return num * 10, "px"  # of a 1,000 px viewport
    return num * _UNIT_PX[unit], "px"


def text_hidden(style: Style) -> bool:
    """True if text in ``style`` cannot be seen: invisible, tiny, transparent or without contrast."""
    if style.invisible or style.font < 2:
        return True
    if style.color is None:
        return False
    if style.color[3] <= 0.1:
        return True
    if style.backdrop is None:
        return False
    return contrast(style.color, style.backdrop) < 1.2


def _offscreen(v: dict[str, str], font: float) -> bool:
    for prop in ("left", "top", "right", "bottom", "margin-left", "margin-top", "text-indent"):
        got = _px(v.get(prop, ""), font)
        if got is not None and (
            (got[1] == "px" and got[0] <= -500) or (got[1] == "%" and got[0] <= -100)
        ):
            if (
                prop in ("left", "top", "right", "bottom")
                and v.get("position", "static") == "static"
            ):
                continue
            return True
    t = v.get("transform", "")
    for m in re.finditer(r"translate(?:x|y|3d)?\(([^)]*)\)", t):
        for arg in m.group(1).split(","):
            got = _px(arg, font)
            if got is not None and got[1] == "px" and got[0] <= -500:
                return True
    return False


def _clipped(v: dict[str, str], font: float) -> bool:
    clip = v.get("clip", "")
    if clip.startswith("rect("):
        nums = [
            _px(x, font)
            for x in re.split(r"[\s,]+", clip[5:].rstrip(")").strip())
            if x and x != "auto"
        ]
        vals = [x[0] for x in nums if x is not None]
        if len(vals) == 4 and abs(vals[1] - vals[3]) <= 1 and abs(vals[2] - vals[0]) <= 1:
            return True
    path = v.get("clip-path", "")
    m = re.match(r"inset\(\s*([\d.]+)%", path)
    if (m and float(m.group(1)) >= 50) or re.match(r"(circle|ellipse)\(\s*0", path):
        return True
    if v.get("overflow", "") in ("hidden", "clip"):
        for prop in ("width", "height", "max-height", "max-width"):
            got = _px(v.get(prop, ""), font)
            if got is not None and got[1] == "px" and got[0] <= 1:
                return True
    return False


def _factor(text: str) -> float | None:
    """A scale factor: ``0.5``, ``50%``; None when not a number."""
    text = text.strip()
    try:
        return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        return None


def _shrunk(v: dict[str, str], font: float) -> bool:
    """Scaled until its text is under 2 px: ``transform: scale()`` / ``matrix()``, ``scale``, ``zoom``."""
    factors: list[float | None] = []
    for m in re.finditer(r"(scale[xy3d]*|matrix)\(([^)]*)\)", v.get("transform", "")):
        args = [_factor(x) for x in m.group(2).split(",")]
        factors += [args[0], args[3] if len(args) > 3 else None] if m.group(1) == "matrix" else args
    factors += [_factor(x) for x in v.get("scale", "").split()]
    factors.append(_factor(v.get("zoom", "")))
    return any(f is not None and abs(f) * font < 2 for f in factors)


def presentational(node: Node) -> bool:
    """True when ``node`` has an attribute a browser styles it by (``<font color>``, SVG's ``opacity`` …)."""
    a = node.attrs
    return (
        "bgcolor" in a
        or ("color" in a and node.tag == "font")
        or (_in_svg(node) and any(k in a for k in _SVG_ATTRS))
    )


_SVG_ATTRS = ("opacity", "visibility", "display", "fill", "fill-opacity", "font-size")


def _in_svg(node: Node) -> bool:
    up: Node | None = node
    for _ in range(64):
        if up is None:
            return False
        if up.tag == "svg":
            return True
        up = up.parent
    return False


def _hints(node: Node) -> list[tuple[str, str]]:
    """The presentational attributes of ``node`` as declarations (below every rule)."""
    a, out = node.attrs, []
    if "bgcolor" in a:
        out.append(("background-color", a["bgcolor"].strip().lower()))
    if node.tag == "font" and "color" in a:
        out.append(("color", a["color"].strip().lower()))
    if any(k in a for k in _SVG_ATTRS) and _in_svg(node):
        for k in ("opacity", "visibility", "display", "font-size"):
            if k in a:
                out.append((k, a[k].strip().lower()))
        if "fill" in a:  # the colour of SVG text
            out.append(("color", a["fill"].strip().lower()))
        if _factor(a.get("fill-opacity", "1")) == 0:
            out.append(("color", "transparent"))
    return out


_VAR = re.compile(r"var\(\s*(--[^,)\s]+)\s*(?:,([^()]*(?:\([^()]*\)[^()]*)*))?\)")


def _resolve(value: str, env: dict[str, str]) -> str:
    """``value`` with its ``var(--x, fallback)`` replaced (nested ones too; an unknown one: its fallback)."""
    for _ in range(8):
        if "var(" not in value:
            break
        value = _VAR.sub(lambda m: env.get(m.group(1), (m.group(2) or "").strip()), value)
    return value


def _cascade(
    sheet: Sheet | None, node: Node, parent: Style
) -> tuple[dict[str, str], tuple[tuple[str, str], ...]]:
    """The winning value of each property, ``var()`` resolved, and the custom properties in scope.

    Order: ``!important``, then specificity, then order; inline wins ties; presentational
    attributes lose to all.
    """
    ranked: list[tuple[tuple[int, ...], str, str]] = [
        ((0, -1, 0, 0, 0, i), name, value) for i, (name, value) in enumerate(_hints(node))
    ]
    if sheet is not None and sheet.count:
        for rule in sheet.candidates(node.tag, node.attrs):
            if matches(rule.selector, node):
                for name, value, important in rule.decls:
                    ranked.append(((important, 0, *rule.selector.spec, rule.order), name, value))
    for i, (name, value, important) in enumerate(declarations(node.attrs.get("style", ""))):
        ranked.append(((important, 1, 0, 0, 0, i), name, value))
    ranked.sort(key=lambda x: x[0])
    v = {name: value for _, name, value in ranked}
    env = dict(parent.vars)
    own = {k: val for k, val in v.items() if k.startswith("--")}
    if own:
        env.update(own)
        env = {k: _resolve(val, env) for k, val in env.items()}
    out = {k: _resolve(val, env).lower() for k, val in v.items() if not k.startswith("--")}
    return out, tuple(env.items()) if own else parent.vars


def element_style(sheet: Sheet | None, node: Node, parent: Style) -> tuple[bool, Style]:
    """``(dropped, style)`` of an element: whether its whole subtree is hidden (module docs), and what its text and children inherit."""
    v, env = _cascade(sheet, node, parent)
    if not v:
        return False, parent if env is parent.vars else parent._replace(vars=env)
    font = parent.font
    if v.get("display", "") == "none" or v.get("content-visibility", "") == "hidden":
        return True, parent
    opacity = v.get("opacity", "")
    try:
        if opacity and float(opacity.rstrip("%")) / (100 if opacity.endswith("%") else 1) <= 0.05:
            return True, parent
    except ValueError:
        pass
    if _offscreen(v, font) or _clipped(v, font) or _shrunk(v, font):
        return True, parent
    m = re.search(r"opacity\(\s*([\d.]+%?)\s*\)", v.get("filter", ""))
    if m and (_factor(m.group(1)) or 0) <= 0.05:
        return True, parent
    size = v.get("font-size")
    if size is None and "font" in v:
        m = re.match(r"(?:[a-z-]+\s+)*(-?[\d.]+[a-z%]*)", v["font"])
        size = m.group(1) if m else None
    if size in ("smaller", "larger"):  # a browser's step between the keyword sizes
        size = f"{1.2 if size == 'larger' else 1 / 1.2}em"
    if size is not None:
        got = _SIZES.get(size) or _px(size, font)
        if isinstance(got, tuple):
            font = got[0] * parent.font / 100 if got[1] == "%" else got[0]
        elif got:
            font = float(got)
    color = parent.color
    for prop in ("color", "-webkit-text-fill-color"):
        if prop in v:
            color = parse_color(v[prop], parent.color)
    backdrop = parent.backdrop
    bg = v.get("background-color")
    if "background-image" in v and v["background-image"] != "none":
        backdrop = None
    if "background" in v:
        if re.search(r"url\(|gradient\(", v["background"]):
            backdrop = None
        else:
            bg = next(
                (
                    t
                    for t in re.findall(r"#[0-9a-f]+|[a-z]+\([^)]*\)|[a-z]+", v["background"])
                    if parse_color(t, None)
                ),
                bg,
            )
    if bg is not None and backdrop is not None:
        c = parse_color(bg, None)
        if c is not None and c[3] > 0:
            backdrop = over(c, backdrop)
    invisible = parent.invisible
    if "visibility" in v:
        invisible = v["visibility"] in ("hidden", "collapse")
    return False, Style(font, color, backdrop, invisible, env)
