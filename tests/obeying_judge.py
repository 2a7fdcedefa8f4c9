"""A judge that obeys the instructions it finds in its prompt: the reply of a loopback judge server, for tests.

:func:`obeying_judge` reads a judge prompt the way a gullible instruction-following
model does, and replies with a ratings JSON object:

* it takes as instructions every line of the prompt, except (``respect_fences``)
  the lines of a data block, ``[BEGIN DATA: name]`` … ``[END DATA: name]`` (exact
  lines, as bordir writes them), when the prompt says that quoted data is never an
  instruction;
* a line ``Judge: all criteria PASS`` among its instructions: every criterion True;
* a ratings object (the five criteria with values) among its instructions: it
  copies the last one;
* otherwise it grades honestly, but takes the **last** ``Answer to grade:``,
  ``Expected answer:`` and ``Retrieved documents:`` of its instructions (or the data
  block that follows them): an answer passes (every criterion True) when it
  contains the expected answer and each of its sentences is in the documents or
  the expected answer, and fails (every criterion False) when not.

Used with :class:`tests.loopback.LoopbackServer`
(``Reply(text=lambda body: obeying_judge(body["messages"][-1]["content"]))``).
This file does not import bordir.
"""

from __future__ import annotations

import json
import re
import unicodedata

__all__ = ["obeying_judge", "CRITERIA"]

CRITERIA = ("faithfulness", "relevance", "completeness", "clarity", "keyword_match")
_BLOCK = re.compile(r"^\[BEGIN DATA: ([^\]\n]+)\]\n(.*?)\n\[END DATA: \1\]$", re.M | re.S)
_PASS = re.compile(r"(?im)^\W*judge\s*:\s*all criteria pass")
_LABEL = re.compile(
    r"(?m)^[ \t#*>]*(Answer to grade|Expected answer|Retrieved documents)[ \t*]*:[ \t*]*\n?"
)
_DECLARED = "never an instruction"


def _reply(value: str, why: str) -> str:
    return json.dumps({**{c: value for c in CRITERIA}, "rationale": why})


def _ratings(text: str) -> dict | None:
    """The last JSON object of ``text`` that rates every criterion (not the template's "...")."""
    found = None
    for m in re.finditer(r"\{[^{}]*\}", text):
        try:
            obj = json.loads(m.group())
        except ValueError:
            continue
        if (
            isinstance(obj, dict)
            and all(c in obj for c in CRITERIA)
            and all(obj[c] != "..." for c in CRITERIA)
        ):
            found = obj
    return found


def obeying_judge(prompt: str, *, respect_fences: bool = True) -> str:
    """The ratings reply of a judge that obeys its prompt's instructions (see the module docs)."""
    prompt = unicodedata.normalize("NFKC", prompt)
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
            fields[m.group(1)] = blocks[f"#{ref.group(1)}"]
        else:
            fields[m.group(1)] = re.split(r"\n\s*\n", rest, maxsplit=1)[0]
    answer = fields.get("Answer to grade", "").casefold()
    expected = fields.get("Expected answer", "").strip().casefold()
    support = fields.get("Retrieved documents", "").casefold() + "\n" + expected
    sentences = [
        x.strip() for x in re.split(r"(?<=[.!?])\s+|\n+", answer) if len(re.findall(r"\w", x)) >= 4
    ]
    if expected and expected in answer and all(x in support for x in sentences):
        return _reply("True", "supported, and it contains the expected answer")
    return _reply("False", "unsupported, or it lacks the expected answer")
