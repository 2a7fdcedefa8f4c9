"""A page's stylesheets as the HTML reader applies them: the rules that can hide text, read in one pass.

:func:`parse_sheet` adds the rules of a stylesheet to a :class:`Sheet`, indexed by the id, class
or tag of their rightmost compound (:func:`bordir.testgen.cssselect.key_of`). It reads what a
browser reads: nested rules (``.a { & .b { … } }``), conditional blocks (``@media`` as a desktop
screen evaluates it, :func:`media_applies`; ``@supports``, ``@layer``), statement at-rules
(``@charset``, ``@import``, ``@layer a, b;``, which end at their ``;``), a ``@import`` of a
``data:`` stylesheet, CSS escapes in property names and values (``d\\69 splay``) and comments
anywhere. Other at-rule blocks (``@font-face``, ``@keyframes``, ``@container``) are skipped whole.
The braces and semicolons of the sheet are found in one pass of a regular expression (strings
skipped), and every rule is read once, so a sheet costs time in proportion to its length.

Example:
    >>> s = parse_sheet('@charset "utf-8"; @media (min-width: 0) { .a { & > p { display: none } } }')
    >>> [(r.selector.parts[-1], r.decls) for r in s.rules()]
    [(('>', (('tag', 'p'),)), (('display', 'none', False),))]
    >>> media_applies("screen and (min-width: 768px)"), media_applies("(max-width: 600px)"), media_applies("print")
    (True, False, False)
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import NamedTuple
from urllib.parse import unquote_to_bytes

from .cssselect import Selector, key_of, parse_selector, unescape

__all__ = ["Rule", "Sheet", "parse_sheet", "media_applies", "declarations", "data_css", "VIEWPORT"]

VIEWPORT = (1280, 800)
"""The screen the reader assumes (px): a desktop browser window, light scheme, a mouse."""

PROPS = frozenset(
    "display visibility font-size font opacity color background background-color "
    "background-image position left top right bottom text-indent clip clip-path width height "
    "max-height max-width overflow transform margin-left margin-top content-visibility "
    "-webkit-text-fill-color scale zoom filter".split()
)
"""The properties that can hide text (and the custom properties ``--*`` they may refer to)."""


class Rule(NamedTuple):
    """A rule of a sheet: its selector, its place in the cascade, its declarations."""

    selector: Selector
    order: int
    decls: tuple[tuple[str, str, bool], ...]  # (property, value, important)


class Sheet:
    """The rules of a page's stylesheets that can hide text, indexed by their rightmost id, class or tag."""

    def __init__(self) -> None:
        # key -> {(selector, declarations): rule}: a rule given again only moves to its new place
        # in the cascade (a page repeating one <style> per element does not grow the sheet)
        self.by_key: dict[str, dict[tuple[object, object], Rule]] = {}
        self.count = 0

    def add(self, selector: Selector, decls: tuple[tuple[str, str, bool], ...]) -> None:
        bucket = self.by_key.setdefault(key_of(selector), {})
        bucket.pop((selector.parts, decls), None)
        bucket[selector.parts, decls] = Rule(selector, self.count, decls)
        self.count += 1

    def candidates(self, tag: str, attrs: dict[str, str]) -> list[Rule]:
        keys = ["*", tag] + [f".{c}" for c in attrs.get("class", "").split()]
        if attrs.get("id"):
            keys.append(f"#{attrs['id']}")
        return [r for k in keys for r in self.by_key.get(k, {}).values()]

    def rules(self) -> Iterator[Rule]:
        """Every rule, in no particular order."""
        for bucket in self.by_key.values():
            yield from bucket.values()


_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.S)
_STRUCTURE = re.compile(r"""[{};]|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|\\.""", re.S)
_IMPORTANT = re.compile(r"!\s*important\s*$", re.I)
_MAX_NESTING = 32


def declarations(body: str) -> tuple[tuple[str, str, bool], ...]:
    """The declarations of ``body`` that can hide text (:data:`PROPS`, and custom properties).

    >>> declarations("d\\\\69 splay: /* x */ NONE !important; --Bg: #FFF; margin: 0")
    (('display', 'none', True), ('--Bg', '#FFF', False))
    """
    out = []
    for decl in _COMMENT.sub(" ", body).split(";"):
        name, sep, value = decl.partition(":")
        name = unescape(name.strip())
        custom = name.startswith("--")
        if not custom:
            name = name.lower()
        if not sep or not (custom or name in PROPS):
            continue
        value = unescape(value.strip())
        important = bool(_IMPORTANT.search(value))
        value = _IMPORTANT.sub("", value).strip()
        out.append((name, value if custom else value.lower(), important))
    return tuple(out)


def data_css(url: str) -> str | None:
    """The stylesheet of a ``data:text/css`` URL (percent-encoded or base64), None for any other URL.

    >>> data_css("data:text/css,.m%7Bdisplay:none%7D"), data_css("https://x/y.css")
    ('.m{display:none}', None)
    """
    url = url.strip()
    if not url.lower().startswith("data:"):
        return None
    head, sep, payload = url[5:].partition(",")
    if not sep or (head.split(";")[0].strip().lower() not in ("text/css", "")):
        return None
    try:
        raw = (
            base64.b64decode(unquote_to_bytes(payload))
            if head.lower().endswith(";base64")
            else unquote_to_bytes(payload)
        )
    except ValueError:
        return None
    return raw.decode("utf-8", "replace")


_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?["']?([^"')\s]+)["']?\s*\)?\s*(.*)$""", re.I | re.S)


def parse_sheet(css: str, sheet: Sheet | None = None, *, _imports: int = 0) -> Sheet:
    """The rules of ``css`` that declare a property that can hide text (module docs), added to ``sheet``."""
    sheet = sheet if sheet is not None else Sheet()
    css = _COMMENT.sub(" ", css)
    marks = [(m.start(), css[m.start()]) for m in _STRUCTURE.finditer(css) if m.group()[0] in "{};"]
    match = [len(marks)] * len(marks)  # for each "{", the index of its "}" (len: none)
    stack: list[int] = []
    for i, (_, c) in enumerate(marks):
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            match[stack.pop()] = i
    _Reader(css, marks, match, sheet, _imports).rules(0, len(marks), 0, len(css), None, 0)
    return sheet


class _Reader:
    def __init__(
        self, css: str, marks: list[tuple[int, str]], match: list[int], sheet: Sheet, imports: int
    ) -> None:
        self.css, self.marks, self.match, self.sheet, self.imports = (
            css,
            marks,
            match,
            sheet,
            imports,
        )

    def _end(self, j: int) -> int:
        return self.marks[j][0] if j < len(self.marks) else len(self.css)

    def rules(self, i: int, stop: int, pos: int, end: int, parents: str | None, depth: int) -> None:
        """The rules (or, in a style rule, ``parents``: its declarations) between marks ``i`` and ``stop``."""
        css, marks = self.css, self.marks
        decls: list[tuple[str, str, bool]] = []
        while i < stop:
            at, c = marks[i]
            head = css[pos:at].strip()
            if c == "}":  # a stray one: ignored
                i, pos = i + 1, at + 1
                continue
            if c == ";":
                if head.startswith("@"):
                    self._statement(head)
                elif parents is not None:
                    decls += declarations(head)
                i, pos = i + 1, at + 1
                continue
            close = self.match[i]
            if depth < _MAX_NESTING:
                self._block(head, i + 1, close, at + 1, self._end(close), parents, depth)
            i, pos = close + 1, self._end(close) + 1
        if parents is not None:
            decls += declarations(css[pos:end])
            if decls:
                for sel in parse_selector(parents):
                    self.sheet.add(sel, tuple(decls))

    def _block(
        self, head: str, i: int, stop: int, pos: int, end: int, parents: str | None, depth: int
    ) -> None:
        if head.startswith("@"):
            name, _, prelude = head.partition(" ")
            name = name.lower()
            if (name == "@media" and media_applies(prelude)) or name in ("@supports", "@layer"):
                self.rules(
                    i, stop, pos, end, parents, depth + 1
                )  # its rules, or the parent's decls
            return  # @font-face, @keyframes, @container, a @media that does not hold …
        if parents is not None:  # a nested rule: "&" is the parent, else a descendant of it
            head = ", ".join(
                s.replace("&", f":is({parents})") if "&" in s else f":is({parents}) {s.strip()}"
                for s in head.split(",")
            )
        self.rules(i, stop, pos, end, head, depth + 1)

    def _statement(self, head: str) -> None:
        """``@import`` of a ``data:`` stylesheet (others are not fetched); ``@charset``, ``@layer a;`` … say nothing."""
        m = _IMPORT.match(head)
        if m is None or self.imports >= 4:
            return
        css = data_css(m.group(1))
        if css is not None and media_applies(m.group(2).split(" layer")[0] or "all"):
            parse_sheet(css, self.sheet, _imports=self.imports + 1)


_FEATURE = re.compile(r"\(([^()]*)\)")
_MEDIA_LENGTH = re.compile(r"^(-?[\d.]+)(px|em|rem|)$")


def _length(text: str) -> float | None:
    m = _MEDIA_LENGTH.match(text.strip())
    if m is None:
        return None
    try:
        return float(m.group(1)) * (16 if m.group(2) in ("em", "rem") else 1)
    except ValueError:
        return None


_STATIC = {
    "orientation": "landscape",
    "prefers-color-scheme": "light",
    "hover": "hover",
    "any-hover": "hover",
    "pointer": "fine",
    "any-pointer": "fine",
    "prefers-reduced-motion": "no-preference",
    "prefers-contrast": "no-preference",
    "scripting": "enabled",
    "display-mode": "browser",
    "update": "fast",
    "color": None,  # (color): true
}


def _feature(text: str) -> bool | None:
    """One media feature on the :data:`VIEWPORT` screen (None: not understood)."""
    t = " ".join(text.lower().split())
    size = {"width": VIEWPORT[0], "height": VIEWPORT[1]}
    m = re.fullmatch(r"(min-|max-)?(width|height|device-width|device-height)\s*:\s*(.+)", t)
    if m:
        x = _length(m.group(3))
        have = size[m.group(2).replace("device-", "")]
        if x is None:
            return None
        return (
            have >= x if m.group(1) == "min-" else have <= x if m.group(1) == "max-" else have == x
        )
    m = re.fullmatch(
        r"(?:([\d.]+\w*)\s*(<=?|>=?)\s*)?(width|height)(?:\s*(<=?|>=?|=)\s*([\d.]+\w*))?", t
    )
    if m and (m.group(1) or m.group(5)):
        have = size[m.group(3)]
        ok = True
        if m.group(1):
            x = _length(m.group(1))
            ok = (
                x is not None
                and {"<": x < have, "<=": x <= have, ">": x > have, ">=": x >= have}[m.group(2)]
            )
        if ok and m.group(5):
            x = _length(m.group(5))
            ok = (
                x is not None
                and {
                    "<": have < x,
                    "<=": have <= x,
                    ">": have > x,
                    ">=": have >= x,
                    "=": have == x,
                }[m.group(4)]
            )
        return ok
    name, _, value = (p.strip() for p in t.partition(":"))
    if name in _STATIC:
        want = _STATIC[name]
        return True if not value or want is None else value == want
    if name in ("monochrome", "grid", "inverted-colors", "forced-colors"):
        return value in ("0", "none")  # a colour screen: (monochrome) alone does not hold
    return None


def media_applies(query: str) -> bool:
    """True when the media query list ``query`` holds on the reader's desktop screen (:data:`VIEWPORT`).

    Media types ``all`` and ``screen`` hold, ``print`` and the rest do not; ``not`` and ``only``,
    ``and`` / ``or`` / ``not`` between features, ``min-`` / ``max-`` and range forms of width and
    height, and the usual static features (``orientation``, ``prefers-color-scheme``, ``hover`` …).
    A query with a feature the reader does not know does not hold.
    """
    q = query.strip().lower()
    if not q:
        return True
    return any(_one(part.strip()) for part in q.split(","))


def _one(q: str) -> bool:
    negate = False
    m = re.match(r"(not|only)\s+(?=[a-z])", q)
    if m:
        negate, q = m.group(1) == "not", q[m.end() :]
    m = re.match(r"([a-z-]+)\s*(?:and\s+|$)", q)
    media_ok = True
    if m and m.group(1) not in ("not",):
        media_ok = m.group(1) in ("all", "screen")
        q = q[m.end() :]
    values: list[bool | None] = []

    def mark(f: re.Match[str]) -> str:
        values.append(_feature(f.group(1)))
        return f" _{len(values) - 1} "

    expr = _FEATURE.sub(mark, q)
    if any(v is None for v in values) or re.search(r"[^\s\w]|_(?!\d)", expr):
        return False
    words = expr.split()
    if any(w not in ("and", "or", "not") and not re.fullmatch(r"_\d+", w) for w in words):
        return False
    result = _logic([values[int(w[1:])] if w.startswith("_") else w for w in words])
    return result is not None and (media_ok and result) != negate


def _logic(words: list[bool | None | str]) -> bool | None:
    """``a and not b or c`` over booleans (``not`` binds tighter than ``and``, ``and`` than ``or``)."""
    if not words:
        return True
    alternatives: list[bool] = []
    for part in " ".join("1" if w is True else "0" if w is False else str(w) for w in words).split(
        " or "
    ):
        terms = part.split(" and ")
        ok = True
        for t in terms:
            t = t.strip()
            flip = t.startswith("not ")
            t = t[4:].strip() if flip else t
            if t not in ("0", "1"):
                return None
            ok = ok and ((t == "1") != flip)
        alternatives.append(ok)
    return any(alternatives)
