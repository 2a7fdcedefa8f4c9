"""Reading a JSON object out of an LLM's answer (fenced, embedded in prose, or with trailing text).

Used by the LLM test generator and the judge. :func:`json_object` returns the
first JSON object in the text that parses and has at least one of the wanted
keys, or None: the caller turns None into an explicit ``unparsed`` outcome.
Keys are compared case-insensitively with spaces and hyphens read as ``_``.

Example:
    >>> json_object('Sure!\\n```json\\n{"Question": "What?", "answer": "X"}\\n```', ("question",))
    {'question': 'What?', 'answer': 'X'}
    >>> json_object("no json here", ("question",)) is None
    True
    >>> json_object('{"a": {"b": 1}, "keyword match": "True"}', ("keyword_match",))["keyword_match"]
    'True'
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["json_object", "json_objects", "normalize_key", "DUPLICATE"]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)


def normalize_key(key: str) -> str:
    """``"Keyword match"`` → ``keyword_match``."""
    return re.sub(r"[\s\-]+", "_", str(key).strip()).casefold()


def _objects(text: str):
    """Every balanced ``{…}`` span of ``text`` (outermost first), braces inside strings respected."""
    starts = [i for i, ch in enumerate(text) if ch == "{"]
    for start in starts:
        depth, in_str, esc = 0, False, False
        for j in range(start, len(text)):
            ch = text[j]
            if in_str:
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    yield text[start : j + 1]
                    break


def json_object(text: str, wanted: Sequence[str]) -> dict[str, Any] | None:
    """The first JSON object in ``text`` with one of the ``wanted`` keys (keys normalised), or None."""
    if not text:
        return None
    want = {normalize_key(w) for w in wanted}
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for blob in candidates:
        for span in _objects(blob):
            try:
                obj = json.loads(span)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
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
    out: list[dict[str, Any]] = []
    for blob in [m.group(1) for m in _FENCE.finditer(text)] + [text]:
        for span in _objects(blob):
            try:
                obj = json.loads(span, object_pairs_hook=_pairs)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict) and want & set(obj):
                out.append(obj)
    return out
