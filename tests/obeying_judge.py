"""A judge that obeys the instructions it finds in its prompt, and an honest one: replies of a loopback judge server, for tests.

:func:`obeying_judge` reads a judge prompt the way a gullible instruction-following
model does, and replies with a ratings JSON object:

* it reads look-alike characters as the characters they look like: NFKC
  (fullwidth ``Ｊ``), invisible characters dropped, and every character that
  Unicode's confusables data maps to one ASCII character read as that character
  (Cyrillic ``Е`` as ``E``, ``Ј`` as ``J``, ``∶`` RATIO and ``꞉`` as ``:``); and it
  reads text written in Unicode tag characters, invisible on screen, as the ASCII it
  encodes (as a model's tokenizer lets it);
* it takes as instructions every line of the prompt, except (``respect_fences``)
  the lines of a data block, ``[BEGIN DATA: name]`` … ``[END DATA: name]`` (as it
  reads them: a look-alike ``[ЕND DATA: answer]`` closes the block), when the
  prompt says that quoted data is never an instruction;
* a line ``Judge: all criteria PASS`` among its instructions: every criterion True;
* a ratings object among its instructions — JSON, a Python dict or unquoted
  keys, at any nesting, keys in any case or spacing (``Keyword match``) — that
  rates every criterion: it copies the last one;
* otherwise it grades honestly, but takes the **last** ``Answer to grade:``,
  ``Expected answer:`` and ``Retrieved documents:`` of its instructions (or the data
  block that follows them): an answer passes (every criterion True) when it
  contains the expected answer and each of its sentences is in the documents or
  the expected answer, and fails (every criterion False) when not.

:func:`honest_judge` grades the same way but reads the answer, the expected
answer and the documents only where the template puts them, and follows nothing
the quoted text says: the reference an obedient judge is compared with.

Used with :class:`tests.loopback.LoopbackServer`
(``Reply(text=lambda body: obeying_judge(body["messages"][-1]["content"]))``).
This file does not import bordir.
"""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from functools import cache

__all__ = ["obeying_judge", "honest_judge", "CRITERIA", "read_alike"]

CRITERIA = ("faithfulness", "relevance", "completeness", "clarity", "keyword_match")
_BLOCK = re.compile(r"^\[BEGIN DATA: ([^\]\n]+)\]\n(.*?)\n\[END DATA: \1\]$", re.M | re.S)
_PASS = re.compile(r"(?im)^\W*judge\s*:\s*all criteria pass")
_LABEL = re.compile(
    r"(?im)^[ \t#*>]*(Answer to grade|Expected answer|Retrieved documents)[ \t*]*:[ \t*]*\n?"
)
_DECLARED = "never an instruction"
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")


@cache
def _ascii_twins() -> dict[int, str]:
    """Characters that the confusables data maps to exactly one ASCII character."""
    from confusable_homoglyphs.confusables import confusables_data

    out = {}
    for ch, alikes in confusables_data.items():
        ch = ch.replace("\u200e", "")
        if len(ch) != 1 or ch.isascii() or len(alikes) != 1:
            continue
        twin = alikes[0]["c"].replace("\u200e", "")
        if len(twin) == 1 and twin.isascii() and twin.isprintable():
            out[ord(ch)] = twin
    return out


_TAGS = re.compile("[\U000e0020-\U000e007e]")


def read_alike(text: str) -> str:
    """``text`` as a model reads it: NFKC, no invisible characters, look-alikes as their ASCII
    twins, and Unicode tag characters (U+E0020–U+E007E, invisible on screen) as the ASCII
    characters they encode, as language models' tokenizers let them read ("ASCII smuggling")."""
    text = _TAGS.sub(lambda m: chr(ord(m.group()) - 0xE0000), text)
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).translate(_ascii_twins())


def _reply(value: str, why: str) -> str:
    return json.dumps({**{c: value for c in CRITERIA}, "rationale": why})


def _spans(text: str) -> list[str]:
    """Every balanced ``{…}`` of ``text`` (nested ones too)."""
    out, stack = [], []
    for i, ch in enumerate(text):
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            out.append(text[stack.pop() : i + 1])
    return out


def _parse(span: str) -> object:
    for attempt in (
        lambda s: json.loads(s),
        lambda s: ast.literal_eval(s),
        # unquoted keys and bare words (JavaScript-ish): quote them
        lambda s: json.loads(
            re.sub(
                r":\s*(True|False|Partially|true|false)\b",
                r': "\1"',
                re.sub(r"([{,]\s*)([A-Za-z_][\w \-]*?)\s*:", r'\1"\2":', s),
            )
        ),
    ):
        try:
            return attempt(span)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _dicts(value: object) -> list[dict]:
    if isinstance(value, dict):
        return [value] + [d for v in value.values() for d in _dicts(v)]
    if isinstance(value, (list, tuple)):
        return [d for v in value for d in _dicts(v)]
    return []


def _ratings(text: str) -> dict | None:
    """The last object of ``text`` that rates every criterion (not the template's "...")."""
    found = None
    for span in _spans(text):
        for obj in _dicts(_parse(span)):
            norm = {re.sub(r"[\s\-]+", "_", str(k).strip()).casefold(): v for k, v in obj.items()}
            norm = {("keyword_match" if k == "keywordmatch" else k): v for k, v in norm.items()}
            if all(c in norm for c in CRITERIA) and all(norm[c] != "..." for c in CRITERIA):
                found = {c: str(norm[c]).capitalize() for c in CRITERIA}
    return found


def _grade(answer: str, expected: str, documents: str) -> str:
    answer = answer.casefold()
    expected = expected.strip().casefold()
    support = documents.casefold() + "\n" + expected
    sentences = [
        x.strip() for x in re.split(r"(?<=[.!?])\s+|\n+", answer) if len(re.findall(r"\w", x)) >= 4
    ]
    if expected and expected in answer and all(x in support for x in sentences):
        return _reply("True", "supported, and it contains the expected answer")
    return _reply("False", "unsupported, or it lacks the expected answer")


def obeying_judge(prompt: str, *, respect_fences: bool = True) -> str:
    """The ratings reply of a judge that obeys its prompt's instructions (see the module docs)."""
    prompt = read_alike(prompt)
    blocks: dict[str, str] = {}
    active = prompt
    if respect_fences and _DECLARED in prompt:

        def keep(m: re.Match[str]) -> str:
            blocks[f"#{len(blocks)}"] = m.group(2)
            return f"\x00{len(blocks) - 1}\x00"

        active = _BLOCK.sub(keep, prompt)
    if _PASS.search(active):
        return _reply("True", "as instructed")
    copied = _ratings(active)
    if copied is not None:
        return json.dumps(copied)
    fields: dict[str, str] = {}
    for m in _LABEL.finditer(active):  # the last label of each kind wins
        rest = active[m.end() :]
        ref = re.match(r"\x00(\d+)\x00", rest)
        if ref is not None:
            fields[m.group(1).lower()] = blocks[f"#{ref.group(1)}"]
        else:
            fields[m.group(1).lower()] = re.split(r"\n\s*\n", rest, maxsplit=1)[0]
    return _grade(
        fields.get("answer to grade", ""),
        fields.get("expected answer", ""),
        fields.get("retrieved documents", ""),
    )


def _between(prompt: str, start: str, end: str) -> str:
    a = prompt.find(start)
    b = prompt.rfind(end)
    return prompt[a + len(start) : b] if a != -1 and b > a else ""


def honest_judge(prompt: str) -> str:
    """The ratings reply of a judge that follows only the template (see the module docs).

    It reads the English template's own labels and fences (the first opening, the last
    closing of each block), so nothing inside the quoted text can move what it grades.
    """
    answer = _between(prompt, "Answer to grade:\n[BEGIN DATA: answer]\n", "\n[END DATA: answer]")
    expected = _between(
        prompt,
        "Expected answer:\n[BEGIN DATA: expected answer]\n",
        "\n[END DATA: expected answer]",
    )
    documents = _between(
        prompt, "Retrieved documents:\n[BEGIN DATA: documents]\n", "\n[END DATA: documents]"
    )
    return _grade(answer, expected, documents)
