"""The reference policy: BordIRLines' ``match_one_letter`` and its citation-format answer parse, as released.

``policy="reference"`` reproduces the reference code: the stripped reply goes
through :func:`match_one_letter` (the letter must be a valid option), else a
reply *equal* to a native option name gives it; anything else is ``unparsed``
with ``choice=-1`` and ``reference_pick=0``, because the reference response
table turns -1 into option A. In the citation format the text between the
*first* ``Chosen Option:`` and the following ``Explanation:`` is parsed (as
the reference does; the strict policy takes the model's own, final block).

Example:
    >>> from bordir.loaders import load_demo
    >>> reference_direct("Hmm.", load_demo().query("Crimea_uk"))
    ParsedAnswer(outcome='unparsed', choice=-1, matched='', reference_pick=0)
"""

from __future__ import annotations

from ...records import Query
from .letters import LETTERS_MC
from .outcome import ParsedAnswer

__all__ = ["match_one_letter", "reference_direct", "reference_chosen"]


def match_one_letter(text: str) -> int | None:
    """BordIRLines' ``match_one_letter``: the option index a reply's letter gives, or None.

    A one-character reply gets ``)`` appended; a reply starting with ``A)`` …
    ``H)`` gives that letter; otherwise, if exactly one of ``A)`` … ``H)``
    occurs anywhere (as a substring), that letter. The index is not checked
    against the number of options here.

    >>> match_one_letter("B"), match_one_letter("I pick C) x"), match_one_letter("A) x or B) y")
    (1, 2, 0)
    >>> match_one_letter("It is A) x, not B) y") is None
    True
    """
    if len(text) == 1:
        text += ")"
    for i, lab in enumerate(LETTERS_MC):
        if text.startswith(lab):
            return i
    present = [lab in text for lab in LETTERS_MC]
    if sum(present) == 1:
        return present.index(True)
    return None


def reference_direct(text: str, query: Query) -> ParsedAnswer:
    """A direct-format reply parsed as the reference does."""
    answer = (text or "").strip()
    idx = match_one_letter(answer)
    if idx is not None and idx < len(query.options):
        return ParsedAnswer("answered", idx, LETTERS_MC[idx], reference_pick=idx)
    if answer in query.options:
        i = query.options.index(answer)
        return ParsedAnswer("answered", i, answer, reference_pick=i)
    return ParsedAnswer("unparsed", -1, "", reference_pick=0)


def reference_chosen(text: str, query: Query) -> ParsedAnswer:
    """BordIRLines ``parse_citation_responses``: the answer part only."""
    raw = text or ""
    if not ("Chosen Option:" in raw and "Explanation:" in raw):
        return ParsedAnswer("unparsed", -1, "", reference_pick=0)
    _, rest = raw.split("Chosen Option:", 1)
    if "Explanation:" not in rest:  # the reference would crash here
        return ParsedAnswer("unparsed", -1, "", reference_pick=0)
    choice = rest.split("Explanation:", 1)[0].strip()
    labels = [query.option_label(i) for i in range(len(query.options))]
    for i, lab in enumerate(labels):
        if lab in choice:
            return ParsedAnswer("answered", i, lab, reference_pick=i)
    idx = match_one_letter(choice)
    if idx is not None and idx < len(query.options):
        return ParsedAnswer("answered", idx, LETTERS_MC[idx], reference_pick=idx)
    return ParsedAnswer("unparsed", -1, "", reference_pick=0)
