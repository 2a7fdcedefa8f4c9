"""Parse model answers (direct format) and cited answers (citation format).

An answer has one of five **outcomes**: ``answered`` (``choice`` is an option
index), ``refused``, ``multiple`` (two or more different options named, none
clearly chosen), ``echo`` (mostly a copy of the prompt or a document; only when
the prompt's parts are given) or ``unparsed``; ``choice`` is -1 unless answered. The strict
policy (default) never falls back to option A; ``policy="reference"``
reproduces BordIRLines' ``match_one_letter`` and sets ``reference_pick`` to
the option the reference response table would score (option A when unparsed).

The package, one concept per module:

* :mod:`~bordir.generation.parse.outcome` — outcomes, policies, :class:`ParsedAnswer`;
* :mod:`~bordir.generation.parse.answer` — :func:`parse_answer`;
* :mod:`~bordir.generation.parse.strict` — the strict parsing order;
* :mod:`~bordir.generation.parse.labels` — answer labels and option words in the query languages;
* :mod:`~bordir.generation.parse.letters` — option letters of every script;
* :mod:`~bordir.generation.parse.names` — option names (linear-time matching);
* :mod:`~bordir.generation.parse.refusal` — refusal phrases;
* :mod:`~bordir.generation.parse.echo` — echoes of the prompt or a document (:func:`detect_echo`);
* :mod:`~bordir.generation.parse.reference` — the BordIRLines reference parse;
* :mod:`~bordir.generation.parse.citations` — the citation parser (standalone; the audit uses it);
* :mod:`~bordir.generation.parse.structured` — the citation-format response (final block wins).

Example:
    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Senkaku_Islands_zhs")
    >>> parse_answer("答案是C", q).choice
    2
    >>> extract_citations("because <doc1,3>")
    (1, 3)
"""

from __future__ import annotations

from .answer import parse_answer
from .citations import extract_citations, strip_prompt_echo
from .echo import Echo, PromptParts, detect_echo
from .letters import LETTERS, LETTERS_MC
from .outcome import OUTCOMES, POLICIES, Outcome, ParsedAnswer, Policy
from .reference import match_one_letter
from .structured import ParsedCitation, parse_citation_response

__all__ = [
    "Outcome",
    "Policy",
    "OUTCOMES",
    "POLICIES",
    "LETTERS",
    "LETTERS_MC",
    "ParsedAnswer",
    "ParsedCitation",
    "PromptParts",
    "Echo",
    "detect_echo",
    "parse_answer",
    "parse_citation_response",
    "strip_prompt_echo",
    "extract_citations",
    "match_one_letter",
]
