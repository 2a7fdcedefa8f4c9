"""The strict parse of a direct-format reply: a leading choice, a refusal, or the options named anywhere.

**Strict parsing order** (see ``docs/prompts.md``):

0. Empty or blank → ``unparsed``. The text is normalized (NFKC, invisible
   characters, markdown ``*``/backticks); a verbatim echo of the query text and of
   an ``Options:`` block is removed.
1. *Leading choice.* After stripping a leading answer label in any query
   language (``Answer:``, ``The answer is``, ``Ответ —``, ``答案是``,
   ``الإجابة هي``, ``Jibu ni`` …: :mod:`~bordir.generation.parse.labels`), quotes,
   and an "As a citizen of X," opening, the reply starts with an option letter
   in range: ``A)``, ``(A)``, ``[A]``, ``A.``, ``A:``, ``A。``, a bare ``A``,
   an option word and a letter (``Option A``, ``La opción A``, ``选项A``,
   ``विकल्प A``), a letter and a trailing copula or option word (``Aです``,
   ``A है``, ``A şıkkı``), fullwidth ``Ａ）`` (via NFKC), a lowercase ``a)``, or
   a letter of the query's script followed by ``)``
   (:mod:`~bordir.generation.parse.letters`), or standing alone (``Б``, ``أ``).
   After an answer label (or an option word) a letter followed by a comma,
   semicolon or line break counts too (``Ответ — Б, потому что``).
   The same check is repeated on the text after the last ``Answer:`` label;
   when the two leading choices differ → ``multiple``.
   The leading letter is *not* a clear choice when the reply lists two or more
   options at line starts (an echo of the options) or its label text contains
   another letter. When the name right after the letter is a different option
   (``A) Україна`` for A = Росія) → ``multiple``. Otherwise → ``answered``.
2. *Refusal* (:mod:`~bordir.generation.parse.refusal`) → ``refused``.
3. *Options named anywhere:* option letters followed by ``)`` anywhere, and
   option names (:mod:`~bordir.generation.parse.names`). Exactly one option →
   ``answered``; two or more → ``multiple``.
4. Otherwise ``unparsed``.

Example:
    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Crimea_ru")
    >>> parse_strict("Ответ — Б", q)
    ParsedAnswer(outcome='answered', choice=1, matched='Б', reference_pick=None)
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...records import Query
from .._textnorm import fold
from .labels import LABEL_ANYWHERE, OPTION_PREFIX, TRAILING_RE, clean, remove_query_echo, strip_lead
from .letters import (
    ANY_LATIN,
    LETTERS,
    LINE_START_LATIN,
    letter_hits,
    query_script,
    script_letter_res,
    script_letters,
)
from .names import name_hits
from .outcome import ParsedAnswer
from .refusal import refusal

__all__ = ["parse_strict", "explain_strict", "STRICT_RULES"]

_LEAD_LATIN = re.compile(
    r"""^(?:
        [(\[]\s*(?P<a>[A-Ha-h])\s*[)\]]             # (A)  [A]
      | (?P<b>[A-Ha-h])\s*\)                        # A)  a)
      | (?P<c>[A-H])(?:\s*[.:]|\s+[-])(?=\s|$)      # A.  A:  A -
      | (?P<d>[A-H])[.!。]?\s*$                     # a bare A, A。
      | (?P<f>[A-H])[ \t]*。                        # A。 followed by an explanation
    )""",
    re.X,
)
_LETTER_AFTER_WORD = re.compile(r"^[(\[]?(?P<e>[A-H])(?![A-Za-z0-9])[)\]]?")  # after an option word
_LETTER_TRAILING = re.compile(r"^(?P<g>[A-H])(?=[ \t]*['\-]?[^\W\d_])")  # then TRAILING_RE
_LETTER_LABELLED = re.compile(
    r"^(?P<l>[A-H])[ \t]*(?=[,;\n])"
)  # after a label: "Answer: B, because"
_LABEL_END = re.compile(r"[.,;:!?\n。，、؟،！？]| - ")
_LIST_NEXT = re.compile(
    r"[ \t]*[,;、،][ \t]*[(\[]?(?P<s>\S)(?![A-Za-z0-9\w])"
)  # "A, B …": a list, not a choice


def _letter_match(s: str, query: Query, labelled: bool) -> tuple[int, str, str] | None:
    """(option index, label text, rest) of a leading letter in ``s``, or None."""
    m = _LEAD_LATIN.match(s)
    if m:
        letter = next(g for g in m.groups() if g)
        return LETTERS.index(letter.upper()), m.group(0), s[m.end() :]
    om = OPTION_PREFIX.match(s)
    after = s[om.end() :] if om else s
    worded = om is not None
    if om is not None:
        m = _LETTER_AFTER_WORD.match(after)
        if m:
            return LETTERS.index(m.group("e")), s[: om.end() + m.end()], after[m.end() :]
    m = _LETTER_TRAILING.match(s)
    if m:
        t = TRAILING_RE.match(s, m.end())
        if t:
            return LETTERS.index(m.group("g")), s[: t.end()], s[t.end() :]
    if labelled:
        m = _LETTER_LABELLED.match(s)
        if m:
            return LETTERS.index(m.group("l")), m.group(0), s[m.end() :]
    script = query_script(query)
    table, lead, _ = script_letter_res(script)
    m = lead.match(after)
    if m and m.group("close") is None and m.group("s") not in script_letters(script):
        m = None  # a look-alike letter of another script counts only before ")"
    if m and (m.group("punct") is None or labelled or worded):
        start = om.end() if om else 0
        return table[m.group("s")], s[: start + m.end()], after[m.end() :]
    return None


def _leading(seg: str, query: Query) -> ParsedAnswer | None:
    """A clear leading-letter choice in ``seg``, a conflict (``multiple``), or None."""
    s, labelled = strip_lead(seg)
    found = _letter_match(s, query, labelled)
    if found is None:
        return None
    idx, label, rest = found
    if idx >= len(query.options):
        return None
    label = label.strip()
    # an echo of the option list: two or more different letters at line starts
    starts = {LETTERS.index(x) for x in LINE_START_LATIN.findall(s)}
    if len(starts | {idx}) >= 2:
        return None
    _, _, anywhere_script = script_letter_res(query_script(query))
    tail = label[-1:]
    nxt = _LIST_NEXT.match((tail + rest) if tail in ",;、،" else rest)
    if nxt and (nxt.group("s") in LETTERS or nxt.group("s") in script_letters(query_script(query))):
        return None
    rest = rest.lstrip(" \t-:")  # "B - (A) …": what follows the separator is still the label text
    cut = _LABEL_END.search(rest)
    label_text = rest[: cut.start()] if cut else rest
    if ANY_LATIN.search(label_text) or anywhere_script.search(label_text):
        return None
    named = {o for _, _, o, _ in name_hits(fold(label_text), query)}
    if named and named != {idx}:
        other = sorted(named - {idx})
        return ParsedAnswer("multiple", -1, f"{label} ≠ {query.options[other[0]]}")
    return ParsedAnswer("answered", idx, label)


def _segments(s: str) -> Iterator[str]:
    yield s
    last = None
    for last in LABEL_ANYWHERE.finditer(s):  # noqa: B007 (keeps the last match)
        pass
    if last is not None and last.end() < len(s):
        yield s[last.end() :]


STRICT_RULES: dict[str, str] = {
    "empty": "0: empty or blank reply (after removing an echo of the query and its options)",
    "leading": "1: leading choice (an option letter at the start, after an answer label)",
    "leading-conflict": "1: leading choices disagree, or the letter's name is another option",
    "refusal": "2: refusal phrase",
    "named-one": "3: exactly one option named anywhere (letter with ')' or option name)",
    "named-several": "3: two or more options named anywhere",
    "nothing": "4: nothing matched",
}
"""The rules of the strict parsing order (module docs) that can decide a reply, by id."""


def explain_strict(text: str, query: Query) -> tuple[ParsedAnswer, str]:
    """The strict parse of ``text`` and the id of the rule that decided it (:data:`STRICT_RULES`).

    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Crimea_ru")
    >>> explain_strict("Ответ — Б", q)[1], explain_strict("Не знаю, Россия или Украина", q)[1]
    ('leading', 'named-several')
    """
    if not text or not text.strip():
        return ParsedAnswer("unparsed", -1, ""), "empty"
    s = remove_query_echo(clean(text), query).strip()
    if not s:
        return ParsedAnswer("unparsed", -1, ""), "empty"
    leads = [lead for seg in _segments(s) if (lead := _leading(seg, query)) is not None]
    if leads:
        picks = {a.choice for a in leads if a.outcome == "answered"}
        if len(picks) > 1:  # "Answer: A …\nAnswer: B": two labelled choices that disagree
            return ParsedAnswer("multiple", -1, " | ".join(a.matched for a in leads)), (
                "leading-conflict"
            )
        first = leads[0]
        return first, "leading" if first.outcome == "answered" else "leading-conflict"
    folded = fold(s)
    why = refusal(folded)
    if why:
        return ParsedAnswer("refused", -1, why), "refusal"
    found: dict[int, str] = {}
    for idx, ev in letter_hits(s, query):
        found.setdefault(idx, ev)
    for _, _, idx, name in name_hits(folded, query):
        found.setdefault(idx, name)
    if len(found) == 1:
        ((idx, ev),) = found.items()
        return ParsedAnswer("answered", idx, ev), "named-one"
    if len(found) > 1:
        return ParsedAnswer("multiple", -1, " | ".join(found[i] for i in sorted(found))), (
            "named-several"
        )
    return ParsedAnswer("unparsed", -1, ""), "nothing"


def parse_strict(text: str, query: Query) -> ParsedAnswer:
    """The strict parse of ``text`` (the order in this module's docstring)."""
    return explain_strict(text, query)[0]
