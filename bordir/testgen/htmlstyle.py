"""What CSS hides: an inline stylesheet's rules and the ``style`` attribute, as the HTML reader applies them.

:mod:`bordir.testgen.htmlread` keeps the text that a reader sees on the page
**and** a screen reader reads; text that only one of them gets is where a
prompt injection hides. This module decides, for one element, from the page's
``<style>`` sheets (:func:`parse_sheet`) and its ``style`` attribute, cascaded
by importance, specificity and order (:func:`element_style`):

* **the whole element is dropped** when it is not rendered or not on the screen:
  ``display: none``, ``content-visibility: hidden``, ``opacity`` ≤ 0.05, moved
  off-screen (``left``/``top``/``right``/``bottom``/``margin-left``/``margin-top``
  ≤ −500 px or ≤ −100 %, ``text-indent`` ≤ −500 px, ``transform: translate…(−9999px)``
  or ``scale(0)``), clipped away (``clip: rect(…)`` of at most 1 px, ``clip-path:
  inset(50%)`` or ``circle(0)``), or a box of at most 1 px (``width``/``height``/
  ``max-height``) with ``overflow: hidden``;
* **its text is dropped** (inherited, a child may undo it) when ``visibility:
  hidden`` / ``collapse``, a ``font-size`` below 2 px (``0``, ``0.01em``, the
  ``font: 0/0 a`` shorthand), a transparent ``color``, or a colour whose contrast
  with the background it stands on (the nearest background colour of it or an
  ancestor, white by default; unknown over a background image) is below 1.2
  (white on white, ``#fefefe`` on ``#fff``).

Selectors: type, ``*``, ``#id``, ``.class``, attribute selectors (``[a]``,
``[a=v]``, ``~=``, ``|=``, ``^=``, ``$=``, ``*=``) and the descendant and child
combinators; a selector with a pseudo-class or pseudo-element (``:hover``,
``::before``) or a sibling combinator (``+``, ``~``) is not applied (the reader
cannot tell when it holds). ``@media`` blocks apply when their query names only
``all``, ``screen`` or ``only screen`` (a width condition, ``print`` … is not
applied); ``@supports`` blocks apply; other at-rules are skipped. External
stylesheets (``<link rel=stylesheet>``) are not fetched.

Example:
    >>> sheet = parse_sheet(".sr { position: absolute; left: -9999px } p.w { color: #fff }")
    >>> element_style(sheet, "span", {"class": "sr"}, [], ROOT)[0]
    True
    >>> drop, style = element_style(sheet, "p", {"class": "w"}, [], ROOT)
    >>> drop, text_hidden(style)
    (False, True)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from .htmlcolors import contrast, over, parse_color

__all__ = ["Style", "ROOT", "Sheet", "parse_sheet", "element_style", "text_hidden", "media_applies"]

RGBA = tuple[float, float, float, float]


class Style(NamedTuple):
    """What an element passes to its text and its children."""

    font: float  # computed font size in px
    color: RGBA | None  # the text colour (None: unknown)
    backdrop: RGBA | None  # the background the text stands on (None: unknown, e.g. an image)
    invisible: bool  # visibility: hidden / collapse


ROOT = Style(16.0, (0.0, 0.0, 0.0, 1.0), (255.0, 255.0, 255.0, 1.0), False)

_PROPS = frozenset(
    "display visibility font-size font opacity color background background-color "
    "background-image position left top right bottom text-indent clip clip-path width height "
    "max-height max-width overflow transform margin-left margin-top content-visibility "
    "-webkit-text-fill-color".split()
)


class _Rule(NamedTuple):
    chain: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...]  # (combinator, simple parts)
    spec: tuple[int, int, int]
    order: int
    decls: tuple[tuple[str, str, bool], ...]  # (property, value, important)


class Sheet:
    """The rules of a page's stylesheets that can hide text, indexed by their rightmost id, class or tag."""

    def __init__(self) -> None:
        # key -> {(selector, declarations): rule}: a rule given again only moves to its new place
        # in the cascade (a page repeating one <style> per element does not grow the sheet)
        self.by_key: dict[str, dict[tuple[object, object], _Rule]] = {}
        self.count = 0

    def add(self, rule: _Rule) -> None:
        last = rule.chain[-1][1]
        key = next((f"#{v}" for k, _, v in last if k == "id"), None)
        key = key or next((f".{v}" for k, _, v in last if k == "class"), None)
        key = key or next((v for k, _, v in last if k == "tag"), "*")
        bucket = self.by_key.setdefault(key, {})
        bucket.pop((rule.chain, rule.decls), None)
        bucket[rule.chain, rule.decls] = rule
        self.count += 1

    def candidates(self, tag: str, attrs: dict[str, str]) -> list[_Rule]:
        keys = ["*", tag] + [f".{c}" for c in attrs.get("class", "").split()]
        if attrs.get("id"):
            keys.append(f"#{attrs['id']}")
        return [r for k in keys for r in self.by_key.get(k, {}).values()]


_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.S)
_SIMPLE = re.compile(
    r"""#(?P<id>[\w-]+)|\.(?P<cls>[\w-]+)|\[\s*(?P<attr>[\w:-]+)\s*(?:(?P<op>[~|^$*]?=)\s*"""
    r"""(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\]\s]*))\s*(?:[iIsS]\s*)?)?\]|(?P<tag>\*|[\w-]+)"""
)


def _selector(
    text: str,
) -> tuple[tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...], tuple[int, int, int]] | None:
    """A selector as compound parts with combinators, and its specificity; None if not applied."""
    text = text.strip()
    if (
        not text
        or ":" in re.sub(r"\[[^\]]*\]", "", text)
        or re.search(r"[+~](?![^\[]*\])", text.replace("~=", ""))
    ):
        return None
    chain = []
    ids = classes = tags = 0
    for combinator, compound in re.findall(r"(\s*>\s*|\s+|^)([^\s>]+)", text):
        parts = []
        pos = 0
        while pos < len(compound):
            m = _SIMPLE.match(compound, pos)
            if m is None or m.end() == pos:
                return None
            pos = m.end()
            if m.group("id"):
                parts.append(("id", "=", m.group("id")))
                ids += 1
            elif m.group("cls"):
                parts.append(("class", "~=", m.group("cls")))
                classes += 1
            elif m.group("attr"):
                value = next(
                    (v for v in (m.group("dq"), m.group("sq"), m.group("bare")) if v is not None),
                    "",
                )
                parts.append((f"[{m.group('attr').lower()}", m.group("op") or "", value))
                classes += 1
            elif m.group("tag") != "*":
                parts.append(("tag", "=", m.group("tag").lower()))
                tags += 1
        chain.append((">" if ">" in combinator else " ", tuple(parts)))
    return (tuple(chain), (ids, classes, tags)) if chain else None


def _declarations(body: str) -> tuple[tuple[str, str, bool], ...]:
    out = []
    for decl in body.split(";"):
        name, sep, value = decl.partition(":")
        name = name.strip().lower()
        if not sep or name not in _PROPS:
            continue
        value = value.strip()
        important = bool(re.search(r"!\s*important\s*$", value, re.I))
        value = re.sub(r"!\s*important\s*$", "", value, flags=re.I).strip().lower()
        out.append((name, value, important))
    return tuple(out)


def media_applies(query: str) -> bool:
    """True for a media query the reader honours: ``all``, ``screen``, ``only screen`` (or a list of them)."""
    words = query.strip().lower()
    return all(q.strip() in ("all", "screen", "only screen") for q in words.split(","))


def parse_sheet(css: str, sheet: Sheet | None = None) -> Sheet:
    """The rules of ``css`` that declare a property that can hide text (module docs), added to ``sheet``."""
    sheet = sheet or Sheet()
    css = _COMMENT.sub(" ", css)
    pos, n = 0, len(css)
    skip_depth = 0  # nesting inside an at-rule block that does not apply
    stack: list[bool] = []  # for each open at-rule block: does it apply
    brace = close = -2  # the next "{" and "}" at or after pos (-1: none), searched again only
    while pos < n:  # when pos passes them, so the sheet is read once
        if brace != -1 and brace < pos:
            brace = css.find("{", pos)
        if close != -1 and close < pos:
            close = css.find("}", pos)
        if close != -1 and (brace == -1 or close < brace):  # the end of an at-rule block
            if stack:
                skip_depth -= not stack.pop()
            pos = close + 1
            continue
        if brace == -1:
            break
        head = css[pos:brace].strip()
        if head.startswith("@"):
            name = head.split(None, 1)
            applies = name[0].lower() == "@supports" or (
                name[0].lower() == "@media" and len(name) > 1 and media_applies(name[1])
            )
            if name[0].lower() in ("@media", "@supports", "@layer", "@container", "@document"):
                stack.append(applies and name[0].lower() in ("@media", "@supports"))
                skip_depth += not stack[-1]
                pos = brace + 1
                continue
            end = close  # @font-face, @page …: skipped whole (close > brace here)
            pos = n if end == -1 else end + 1
            continue
        end = close
        body = css[brace + 1 : n if end == -1 else end]
        pos = n if end == -1 else end + 1
        if skip_depth:
            continue
        decls = _declarations(body)
        if not decls:
            continue
        for sel in head.split(","):
            parsed = _selector(sel)
            if parsed is not None:
                sheet.add(_Rule(parsed[0], parsed[1], sheet.count, decls))
    return sheet


def _part_matches(part: tuple[str, str, str], tag: str, attrs: dict[str, str]) -> bool:
    kind, op, want = part
    if kind == "tag":
        return tag == want
    if kind == "id":
        return attrs.get("id") == want
    if kind == "class":
        return want in attrs.get("class", "").split()
    name = kind[1:]
    if name not in attrs:
        return False
    have = attrs[name]
    return (
        op == ""
        or (op == "=" and have == want)
        or (op == "~=" and want in have.split())
        or (op == "|=" and (have == want or have.startswith(want + "-")))
        or (op == "^=" and bool(want) and have.startswith(want))
        or (op == "$=" and bool(want) and have.endswith(want))
        or (op == "*=" and bool(want) and want in have)
    )


_MAX_ANCESTORS = 128


def _matches(
    rule: _Rule, tag: str, attrs: dict[str, str], ancestors: Sequence[tuple[str, dict[str, str]]]
) -> bool:
    if not all(_part_matches(p, tag, attrs) for p in rule.chain[-1][1]):
        return False
    up = list(reversed(ancestors[-_MAX_ANCESTORS:]))

    def rest(i: int, at: int) -> bool:  # chain[:i] must match at or above ancestor ``at``
        if i == 0:
            return True
        combinator, parts = rule.chain[i]
        candidates = range(at, at + 1) if combinator == ">" else range(at, len(up))
        for j in candidates:
            if j < len(up) and all(_part_matches(p, *up[j]) for p in rule.chain[i - 1][1]):
                if rest(i - 1, j + 1):
                    return True
        return False

    return rest(len(rule.chain) - 1, 0)


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
    if re.search(r"scale[xy]?\(\s*0(?:\.0*)?\s*[,)]", t):
        return True
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


def _cascade(
    sheet: Sheet | None,
    tag: str,
    attrs: dict[str, str],
    ancestors: Sequence[tuple[str, dict[str, str]]],
) -> dict[str, str]:
    """The winning value of each property: !important, then specificity, then order; inline wins ties."""
    ranked: list[tuple[tuple[int, ...], str, str]] = []
    if sheet is not None and sheet.count:
        for rule in sheet.candidates(tag, attrs):
            if _matches(rule, tag, attrs, ancestors):
                for name, value, important in rule.decls:
                    ranked.append(((important, 0, *rule.spec, rule.order), name, value))
    for i, (name, value, important) in enumerate(_declarations(attrs.get("style", ""))):
        ranked.append(((important, 1, 0, 0, 0, i), name, value))
    ranked.sort(key=lambda x: x[0])
    return {name: value for _, name, value in ranked}


def element_style(
    sheet: Sheet | None,
    tag: str,
    attrs: dict[str, str],
    ancestors: Sequence[tuple[str, dict[str, str]]],
    parent: Style,
) -> tuple[bool, Style]:
    """``(dropped, style)`` of an element: whether its whole subtree is hidden (module docs), and what its text and children inherit."""
    v = _cascade(sheet, tag, attrs, ancestors)
    if not v:
        return False, parent
    font = parent.font
    if v.get("display", "") == "none" or v.get("content-visibility", "") == "hidden":
        return True, parent
    opacity = v.get("opacity", "")
    try:
        if opacity and float(opacity.rstrip("%")) / (100 if opacity.endswith("%") else 1) <= 0.05:
            return True, parent
    except ValueError:
        pass
    if _offscreen(v, font) or _clipped(v, font):
        return True, parent
    size = v.get("font-size")
    if size is None and "font" in v:
        m = re.match(r"(?:[a-z-]+\s+)*(-?[\d.]+[a-z%]*)", v["font"])
        size = m.group(1) if m else None
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
    return False, Style(font, color, backdrop, invisible)
