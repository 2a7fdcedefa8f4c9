"""``parse_answer``: a direct-format reply to its outcome and option, under the strict or the reference policy.

Example:
    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Crimea_uk")
    >>> parse_answer("B) Україна", q)
    ParsedAnswer(outcome='answered', choice=1, matched='B)', reference_pick=None)
    >>> parse_answer("Відповідь: україна", q).choice
    1
    >>> parse_answer("Росія контролює Крим, але Україна…", q).outcome
    'multiple'
    >>> parse_answer("Не можу відповісти на це питання.", q).outcome
    'refused'
    >>> parse_answer("Hmm.", q)
    ParsedAnswer(outcome='unparsed', choice=-1, matched='', reference_pick=None)
    >>> parse_answer("Hmm.", q, policy="reference")
    ParsedAnswer(outcome='unparsed', choice=-1, matched='', reference_pick=0)
    >>> doc = "Крим — півострів на півночі Чорного моря, з 2014 року під контролем Росії. " * 4
    >>> parse_answer(doc, q, prompt=PromptParts(documents=(doc,))).outcome
    'echo'
"""

from __future__ import annotations

from ...records import Query
from .echo import PromptParts, detect_echo
from .outcome import ParsedAnswer, Policy, check_policy
from .reference import reference_direct
from .strict import parse_strict

__all__ = ["parse_answer"]


def parse_answer(
    text: str | None,
    query: Query,
    *,
    policy: Policy = "strict",
    prompt: PromptParts | None = None,
) -> ParsedAnswer:
    """Parse a direct-format reply to ``query``.

    Args:
        text: the model's output (never the prompt).
        query: the query it answers (its ``options`` and ``claimants``, and its language's script).
        policy: ``strict`` (the order of :mod:`~bordir.generation.parse.strict`; no default option) or
            ``reference`` — the BorderLines/BordIRLines compatibility setting: the
            stripped reply goes through :func:`~bordir.generation.parse.reference.match_one_letter`
            (the letter must be a valid option), else a reply *equal* to a native option name gives
            it; anything else is ``unparsed`` with ``choice=-1`` and
            ``reference_pick=0``, because the reference response table turns -1
            into option A. Outcomes ``refused``/``multiple``/``echo`` never occur there.
        prompt: the prompt's parts (system prompt, user message, documents); when given, a
            reply that is mostly a copy of them is ``echo`` (strict policy;
            :func:`~bordir.generation.parse.echo.detect_echo`), whatever it names.

    Returns:
        A :class:`~bordir.generation.parse.outcome.ParsedAnswer`.
    """
    check_policy(policy)
    if policy == "reference":
        return reference_direct(text or "", query)
    if prompt is not None:
        echo = detect_echo(text, prompt)
        if echo:
            return ParsedAnswer("echo", -1, echo.evidence())
    return parse_strict(text or "", query)
