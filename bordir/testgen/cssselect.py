"""CSS selectors as the HTML reader applies them: parsed once, matched against an element in one pass.

:func:`parse_selector` reads a selector list (``div.box > p:not(.on), h6 + p``) into compiled
selectors with their specificity; :func:`matches` tells whether one applies to an element, given
the elements open above it and the element siblings before each of them (the reader reads the
page once, front to back, so that is all it knows: :class:`Node`).

Understood: type, ``*``, ``#id``, ``.class``, attribute selectors (``[a]``, ``=``, ``~=``, ``|=``,
``^=``, ``$=``, ``*=``, with the ``i`` flag), the four combinators (descendant, ``>``, ``+``,
``~``), ``:is()`` / ``:where()`` / ``:matches()`` / ``:not()`` with selector lists, ``:root``,
``:first-child``, ``:nth-child(an+b)``, ``:first-of-type``, ``:nth-of-type()``, ``:link`` /
``:any-link``, and CSS escapes in names (``#\\31 a``, ``.md\\:hidden``).
What only a person's action makes true (``:hover``, ``:focus``, ``:checked``, ``:target`` …) and
pseudo-elements (``::before``) never match: such a rule styles the page only now and then, or
what the page generates. What needs the rest of the page (``:last-child``, ``:only-child``,
``:nth-last-child()``, ``:empty``, ``:has()``) or is not understood (``:lang()``) is taken to
match: a rule that hides with it hides (a page may hide an injection behind any selector; a
rule the reader cannot judge errs toward dropping text).

Example:
    >>> sel = parse_selector("div.box > p:not(.on), h6 + p")
    >>> [s.spec for s in sel]
    [(0, 2, 2), (0, 0, 2)]
    >>> box = Node("div", {"class": "box"}, Kids(), 1, 1, None)
    >>> kids = Kids()
    >>> h6 = kids.add(Node("h6", {}, kids, 1, 1, box))
    >>> p = kids.add(Node("p", {}, kids, 2, 1, box))
    >>> matches(sel[0], p), matches(sel[1], p), matches(sel[1], h6)
    (True, True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

__all__ = ["Kids", "Node", "Selector", "parse_selector", "matches", "key_of", "unescape"]


_REACH = 256
"""How far a combinator looks: ancestors up, siblings back (a page is read in linear time)."""


class Kids:
    """The element children of one parent as read so far, the last :data:`_REACH` or more of them kept.

    >>> k = Kids(); [k.add(Node(str(i), {}, k, i + 1, 1, None)) for i in range(600)][-1].position
    600
    >>> len(k.nodes) < 600, [n.tag for n in k.nodes[-1].before(2)]
    (True, ['597', '598'])
    """

    __slots__ = ("nodes", "start", "types")

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.start = 1  # the index of nodes[0]
        self.types: dict[str, int] = {}  # how many children of each tag so far

    def add(self, node: Node) -> Node:
        self.nodes.append(node)
        if len(self.nodes) > 2 * _REACH:  # the older ones are beyond any combinator's reach
            del self.nodes[:_REACH]
            self.start += _REACH
        return node

    def next_of(self, tag: str) -> tuple[int, int]:
        """``(position, type_position)`` of a child with ``tag`` added next."""
        n = self.types[tag] = self.types.get(tag, 0) + 1
        return self.start + len(self.nodes), n


class Node(NamedTuple):
    """An element as the reader knows it: its tag and attributes, its place among its siblings, its parent.

    ``siblings`` are the parent's children as read so far (:class:`Kids`, shared and growing);
    ``position`` counts from 1, and ``type_position`` among the siblings with this tag.
    """

    tag: str
    attrs: dict[str, str]
    siblings: Kids
    position: int
    type_position: int
    parent: Node | None

    def before(self, most: int = _REACH) -> Sequence[Node]:
        """The element siblings before this one, nearest last (at most ``most`` of them)."""
        k = self.siblings
        end = self.position - k.start
        return k.nodes[max(0, end - most) : max(0, end)]


class Selector(NamedTuple):
    """One complex selector: compounds from left to right, each after its combinator."""

    parts: tuple[tuple[str, tuple[Any, ...]], ...]  # (combinator, simple selectors)
    spec: tuple[int, int, int]


_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\n\f]?|(.))", re.S)
_IDENT = r"(?:[\w\-\u00a0-\U0010ffff]|\\[0-9a-fA-F]{1,6}[ \t\n\f]?|\\[^\n0-9a-fA-F])+"
_TOKEN = re.compile(
    rf"""(?P<comb>\s*[>+~]\s*|\s+)|\#(?P<id>{_IDENT})|\.(?P<cls>{_IDENT})|(?P<tag>\*|{_IDENT})"""
    rf"""|\[\s*(?P<attr>{_IDENT})\s*(?:(?P<op>[~|^$*]?=)\s*(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>(?:[^'\\]|\\.)*)'"""
    rf"""|(?P<bare>{_IDENT}))\s*(?P<flag>[iIsS])?\s*)?\]|(?P<pe>::?{_IDENT})(?P<args>\()?""",
    re.S,
)
_NEVER = frozenset(
    "hover active focus focus-within focus-visible target target-within visited checked "
    "indeterminate default placeholder-shown autofill user-invalid user-valid open modal "
    "popover-open fullscreen picture-in-picture playing paused defined".split()
)
_LISTS = frozenset(("is", "where", "matches", "-webkit-any", "-moz-any", "not"))


def unescape(text: str) -> str:
    """CSS escapes read: ``\\31 a`` is ``1a``, ``\\:`` is ``:``.

    >>> unescape(r"d\\69 splay"), unescape(r"md\\:hidden")
    ('display', 'md:hidden')
    """
    if "\\" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        if m.group(1):
            code = int(m.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
        return m.group(2)

    return _ESCAPE.sub(one, text)


def _structure(text: str, at: int = 0) -> Iterator[tuple[int, str]]:
    """``(index, character)`` of the characters of ``text`` from ``at`` that are neither escaped nor quoted."""
    quote, i = "", at
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        else:
            yield i, c
        i += 1


def _split(text: str) -> list[str]:
    """``text`` split at its top-level commas (not in parentheses, brackets or quotes)."""
    out, depth, start = [], 0, 0
    for i, c in _structure(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    return [*out, text[start:]]


def _closing(text: str, at: int) -> int:
    """The index of the ``)`` that closes the parenthesis opened just before ``at`` (-1: none)."""
    depth = 1
    for i, c in _structure(text, at):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _nth(arg: str) -> tuple[int, int] | None:
    """``an+b`` (``odd``, ``even``, ``3``, ``-n+2`` …) as ``(a, b)``; None when not understood."""
    t = arg.split(" of ")[0].replace(" ", "").lower()
    if t in ("odd", "even"):
        return (2, 1) if t == "odd" else (2, 0)
    m = re.fullmatch(r"([+-]?\d*)n([+-]\d+)?|([+-]?\d+)", t)
    if m is None:
        return None
    if m.group(3) is not None:
        return 0, int(m.group(3))
    a = m.group(1)
    return (int(a + "1") if a in ("", "+", "-") else int(a)), int(m.group(2) or 0)


def _pseudo(name: str, arg: str | None) -> tuple[tuple[Any, ...], tuple[int, int, int]] | None:
    """A pseudo-class as a simple selector and its specificity (None: the selector is invalid)."""
    if name in _LISTS and arg is not None:
        inner = parse_selector(arg)
        if not inner:
            return None
        spec = (0, 0, 0) if name == "where" else max(s.spec for s in inner)
        return ("not" if name == "not" else "is", tuple(inner)), spec
    if name == "has" and arg is not None:
        return ("maybe",), max((s.spec for s in parse_selector(arg)), default=(0, 0, 0))
    if name in ("nth-child", "nth-of-type") and arg is not None:
        ab = _nth(arg)
        return (("nth", *ab, name == "nth-of-type") if ab else ("maybe",)), (0, 1, 0)
    if arg is None and name in ("first-child", "first-of-type"):
        return ("nth", 0, 1, name == "first-of-type"), (0, 1, 0)
    if arg is None and name == "root":
        return ("root",), (0, 1, 0)
    if arg is None and name in ("link", "any-link"):
        return ("attr", "href", "", "", False), (0, 1, 0)
    if name in _NEVER:
        return ("never",), (0, 1, 0)
    return ("maybe",), (0, 1, 0)  # :last-child, :empty, :lang() …: the rest of the page decides


def parse_selector(text: str) -> list[Selector]:
    """The selectors of a selector list; a selector that is not valid CSS (or not understood) is left out."""
    out = []
    for one in _split(text):
        sel = _complex(one.strip())
        if sel is not None:
            out.append(sel)
    return out


def _complex(text: str) -> Selector | None:
    if not text:
        return None
    parts: list[tuple[str, tuple[Any, ...]]] = []
    simple: list[Any] = []
    comb, ids, classes, tags = " ", 0, 0, 0
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return None
        pos = m.end()
        if m.group("comb") is not None:
            if not simple:
                return None
            parts.append((comb, tuple(simple)))
            simple, comb = [], (m.group("comb").strip() or " ")
            continue
        if m.group("id"):
            simple.append(("id", unescape(m.group("id"))))
            ids += 1
        elif m.group("cls"):
            simple.append(("class", unescape(m.group("cls"))))
            classes += 1
        elif m.group("attr"):
            raw = next((v for v in (m.group("dq"), m.group("sq"), m.group("bare")) if v), "")
            flag = (m.group("flag") or "").lower() == "i"
            simple.append(
                (
                    "attr",
                    unescape(m.group("attr")).lower(),
                    m.group("op") or "",
                    unescape(raw),
                    flag,
                )
            )
            classes += 1
        elif m.group("pe"):
            name = unescape(m.group("pe")).lower()
            arg = None
            if m.group("args"):
                end = _closing(text, pos)
                if end == -1:
                    return None
                arg, pos = text[pos:end], end + 1
            if name.startswith("::") or name in (
                ":before",
                ":after",
                ":first-line",
                ":first-letter",
            ):
                simple.append(("never",))  # a pseudo-element: what the page generates
                tags += 1
                continue
            got = _pseudo(name[1:], arg)
            if got is None:
                return None
            simple.append(got[0])
            ids, classes, tags = ids + got[1][0], classes + got[1][1], tags + got[1][2]
        elif m.group("tag") != "*":
            simple.append(("tag", unescape(m.group("tag")).lower()))
            tags += 1
        else:
            simple.append(("any",))
    if not simple:
        return None
    parts.append((comb, tuple(simple)))
    return Selector(tuple(parts), (ids, classes, tags))


def key_of(sel: Selector) -> str:
    """The index key of ``sel``: its rightmost compound's first id, else class, else tag, else ``*``."""
    last = sel.parts[-1][1]
    for kind, prefix in (("id", "#"), ("class", "."), ("tag", "")):
        for s in last:
            if s[0] == kind:
                return prefix + str(s[1])
    return "*"


def _attr(s: tuple[Any, ...], attrs: dict[str, str]) -> bool:
    _, name, op, want, ci = s
    if name not in attrs:
        return False
    have = attrs[name]
    if ci:
        have, want = have.lower(), want.lower()
    return (
        op == ""
        or (op == "=" and have == want)
        or (op == "~=" and want in have.split())
        or (op == "|=" and (have == want or have.startswith(want + "-")))
        or (op == "^=" and bool(want) and have.startswith(want))
        or (op == "$=" and bool(want) and have.endswith(want))
        or (op == "*=" and bool(want) and want in have)
    )


def _simple(s: tuple[Any, ...], node: Node) -> bool:
    kind = s[0]
    if kind == "tag":
        return bool(node.tag == s[1])
    if kind == "class":
        return s[1] in node.attrs.get("class", "").split()
    if kind == "id":
        return bool(node.attrs.get("id") == s[1])
    if kind == "attr":
        return _attr(s, node.attrs)
    if kind == "is":
        return any(matches(x, node) for x in s[1])
    if kind == "not":  # a list that may match (a "maybe" inside) leaves the element unexcluded
        return not any(matches(x, node) and not _maybe(x) for x in s[1])
    if kind == "nth":
        _, a, b, of_type = s
        i = node.type_position if of_type else node.position
        return bool(i == b if a == 0 else (i - b) % a == 0 and (i - b) // a >= 0)
    if kind == "root":
        return node.parent is None and node.tag == "html"
    return kind in ("any", "maybe")  # "never": False


def _maybe(sel: Selector) -> bool:
    return any(s[0] == "maybe" for _, simple in sel.parts for s in simple)


def _compound(simple: tuple[Any, ...], node: Node) -> bool:
    return all(_simple(s, node) for s in simple)


def matches(sel: Selector, node: Node) -> bool:
    """True when ``sel`` applies to ``node`` (a ``maybe`` part counts as a match: module docs)."""
    return _compound(sel.parts[-1][1], node) and _left(sel, len(sel.parts) - 1, node)


def _left(sel: Selector, i: int, node: Node) -> bool:
    """The compounds before ``sel.parts[i]`` match around ``node`` (which matched ``parts[i]``)."""
    if i == 0:
        return True
    comb, want = sel.parts[i][0], sel.parts[i - 1][1]
    if comb in (">", " "):
        up, hops = node.parent, 0
        while up is not None and hops < _REACH:
            if _compound(want, up) and _left(sel, i - 1, up):
                return True
            if comb == ">":
                return False
            up, hops = up.parent, hops + 1
        return False
    before = node.before(1 if comb == "+" else _REACH)
    return any(_compound(want, x) and _left(sel, i - 1, x) for x in reversed(before))
