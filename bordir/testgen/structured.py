"""Reading a JSON object out of an LLM's answer (fenced, embedded in prose, or with trailing text).

Used by the LLM test generator and the judge. :func:`json_object` returns the
first JSON object in the text that parses and has at least one of the wanted
keys, or None: the caller turns None into an explicit ``unparsed`` outcome.
Keys are compared case-insensitively with spaces and hyphens read as ``_``.

**Linear time.** The text is read in one pass by a JSON scanner (:func:`_spans`):
each ``{`` outside the objects already read is a candidate; the scanner follows
it token by token and records every object that closes, until the candidate
closes or a token is out of place at some position *e*; then the next candidate
is the first ``{`` at or after *e* (the candidates opened before *e* and still
open would fail at *e* too), and a ``{`` inside a string of the failed candidate
(a reply cut off inside a string, then a whole object) is a candidate too, as
long as such candidates have read less than twice the text in all. The objects found are then decoded with
:meth:`json.JSONDecoder.raw_decode`, only the outermost ones (the nested ones
come out of the decoded value), so no character is read more than a few times,
however many unclosed ``{`` or unclosed strings an answer holds. An object
nested deeper than :data:`MAX_DEPTH` levels is not decoded as a whole (the
objects inside it are).

Example:
    >>> json_object('Sure!\\n```json\\n{"Question": "What?", "answer": "X"}\\n```', ("question",))
    {'question': 'What?', 'answer': 'X'}
    >>> json_object("no json here", ("question",)) is None
    True
    >>> json_object('{"a": {"b": 1}, "keyword match": "True"}', ("keyword_match",))["keyword_match"]
    'True'
    >>> json_object('{"scores": {"question": "Q?"}, "cut off', ("question",))
    {'question': 'Q?'}
    >>> json_object('{"a": "cut off {"question": "Q?"}', ("question",))
    {'question': 'Q?'}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

__all__ = ["json_object", "json_objects", "normalize_key", "DUPLICATE"]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_PLAIN = json.JSONDecoder()
MAX_DEPTH = 200
"""Objects nested deeper than this are not decoded as a whole (the decoder recurses per level)."""

# one token, after optional whitespace: a string's opening quote, punctuation, a number or a literal
_TOKEN = re.compile(
    r'[ \t\n\r]*(?:(")|([{}\[\]:,])|(-?Infinity|NaN|true|false|null'
    r"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?))"
)
# a string's body after its opening quote, as the strict decoder reads it (no control characters)
_STRING = re.compile(r'[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*')


def normalize_key(key: str) -> str:
    """``"Keyword match"`` → ``keyword_match``."""
    return re.sub(r"[\s\-]+", "_", str(key).strip()).casefold()


def _nested(value: Any) -> Iterator[dict[str, Any]]:
    """``value`` if it is a dict, then every dict inside it, in document order (no recursion)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            yield v
            stack.extend(reversed(list(v.values())))
        elif isinstance(v, list):
            stack.extend(reversed(v))


# what the scanner expects next
_KEY_OR_END, _KEY, _COLON, _VALUE, _VALUE_OR_END, _AFTER = range(6)


def _scan(text: str, pos: int, done: list[tuple[int, int]]) -> tuple[int, list[tuple[int, int]]]:
    """Follow the candidate ``{`` at ``pos``; append the objects that close to ``done``.

    Returns:
        Where the candidate ended (past its ``}``) or failed, and the spans of the strings read
        (on a failure, a ``{`` inside them is a candidate of its own).
    """
    n = len(text)
    strings: list[tuple[int, int]] = []
    stack: list[list[Any]] = [["{", pos, 0]]  # the open containers: [kind, start, height]
    expect = _KEY_OR_END
    at = pos + 1
    while stack:
        m = _TOKEN.match(text, at)
        if m is None:
            return at, strings
        quote, punct, scalar = m.groups()
        tok_at, at = m.start(1 if quote else 2 if punct else 3), m.end()
        if quote:
            body = _STRING.match(text, at)
            end = body.end() if body else at
            strings.append((at, end))
            if end >= n or text[end] != '"':
                return end, strings
            at = end + 1
            if expect in (_KEY_OR_END, _KEY):
                expect = _COLON
                continue
            scalar = '""'
        if scalar is not None:
            if expect not in (_VALUE, _VALUE_OR_END):
                return tok_at, strings
            expect = _AFTER
        elif punct in "{[":
            if expect not in (_VALUE, _VALUE_OR_END):
                return tok_at, strings
            stack.append([punct, tok_at, 0])
            expect = _KEY_OR_END if punct == "{" else _VALUE_OR_END
        elif punct == ":":
            if expect != _COLON:
                return tok_at, strings
            expect = _VALUE
        elif punct == ",":
            if expect != _AFTER:
                return tok_at, strings
            expect = _KEY if stack[-1][0] == "{" else _VALUE
        else:  # a closing bracket
            kind = stack[-1][0]
            if (punct == "}") != (kind == "{") or expect not in (
                _AFTER,
                _KEY_OR_END if kind == "{" else _VALUE_OR_END,
            ):
                return tok_at, strings
            _, start, height = stack.pop()
            if kind == "{" and height <= MAX_DEPTH:
                done.append((start, at))
            if stack:
                stack[-1][2] = max(stack[-1][2], height + 1)
            expect = _AFTER
    return at, []


@lru_cache(maxsize=8)  # the judge's reader asks json_object and json_objects of one reply
def _spans(text: str) -> tuple[tuple[int, int], ...]:
    """``(start, end)`` of the outermost decodable objects of ``text``, in order (module docs)."""
    done: list[tuple[int, int]] = []  # objects closed, nested at most MAX_DEPTH levels
    budget = 2 * len(text) + 4096  # characters the candidates inside strings may read in all
    tried: set[int] = set()
    pos = text.find("{")
    while pos != -1:
        at, strings = _scan(text, pos, done)
        # a failed candidate: a ``{`` inside one of its strings may start an object (a reply cut
        # off in a string, then a whole object), read while the budget lasts
        inner = [i for a, b in strings for i in _braces(text, a, b) if i not in tried]
        while inner and budget > 0:
            c = inner.pop()
            tried.add(c)
            end, more = _scan(text, c, done)
            budget -= end - c
            inner += [i for a, b in more for i in _braces(text, a, b) if i not in tried]
        pos = text.find("{", max(at, pos + 1))
    # the outermost of the objects found (sorted by start, one sweep)
    out: list[tuple[int, int]] = []
    reach = -1
    for start, end in sorted(set(done)):
        if start >= reach:
            out.append((start, end))
            reach = end
    return tuple(out)


def _braces(text: str, start: int, stop: int) -> Iterator[int]:
    """Positions of ``{`` in ``text[start:stop]``."""
    i = text.find("{", start, stop)
    while i != -1:
        yield i
        i = text.find("{", i + 1, stop)


def _decoded(text: str, decoder: json.JSONDecoder) -> Iterator[dict[str, Any]]:
    """Every JSON object of ``text`` in the order of their ``{`` (see the module docs)."""
    for start, _ in _spans(text):
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # pragma: no cover - the scanner read it as JSON
            continue
        yield from _nested(value)


def _candidates(text: str) -> list[str]:
    return [m.group(1) for m in _FENCE.finditer(text)] + [text]


def json_object(text: str, wanted: Sequence[str]) -> dict[str, Any] | None:
    """The first JSON object in ``text`` with one of the ``wanted`` keys (keys normalised), or None."""
    if not text:
        return None
    want = {normalize_key(w) for w in wanted}
    for blob in _candidates(text):
        for obj in _decoded(blob, _PLAIN):
            norm = {normalize_key(k): v for k, v in obj.items()}
            if want & set(norm):
                return norm
    return None


DUPLICATE = "__duplicate_keys__"
"""Key set by :func:`json_objects` on an object that gives one (normalised) key twice with different values."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    dup = []
    for k, v in pairs:
        n = normalize_key(k)
        if n in out and out[n] != v:
            dup.append(n)
        out[n] = v
    if dup:
        out[DUPLICATE] = sorted(set(dup))
    return out


_PAIRS = json.JSONDecoder(object_pairs_hook=_pairs)


def json_objects(text: str, wanted: Sequence[str]) -> list[dict[str, Any]]:
    """Every JSON object in ``text`` with one of the ``wanted`` keys (keys normalised), in order.

    An object giving one key twice with different values carries :data:`DUPLICATE` (the keys).

    >>> [o["a"] for o in json_objects('x {"a": 1} y {"a": 2}', ("a",))]
    [1, 2]
    >>> json_objects('{"a": 1, "A": 2}', ("a",))[0][DUPLICATE]
    ['a']
    """
    if not text:
        return []
    want = {normalize_key(w) for w in wanted}
    return [obj for blob in _candidates(text) for obj in _decoded(blob, _PAIRS) if want & set(obj)]
