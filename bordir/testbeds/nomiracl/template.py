"""NoMIRACL's vanilla prompt and its reading of a reply, ported line by line from NoMIRACL's code.

The reference is the NoMIRACL repository (``project-miracl/nomiracl``):

* ``nomiracl/prompts/template.py``, ``VanillaTemplate``: the prompt (10 passages,
  ``[i] passage`` joined by blank lines) and ``postprocess`` (a reply becomes
  ``"Yes, answer is present"``, ``"I don't know"`` or ``"Invalid"``);
* ``nomiracl/util.py``, ``count_word``, which ``postprocess`` calls;
* ``examples/repro_nomiracl_generation.py``: a passage is ``f"{title}: {text}"``
  and a query is prompted only when all 10 of its judged passages are in the corpus.

:func:`postprocess` keeps every quirk of the original, in its order:

1. newlines and tabs become spaces and the reply is lower-cased (``str.lower``);
2. a reply that contains **both** ``"i don't know"`` and ``"yes, answer is present"`` is
   ``Invalid``: the original then counts the phrase with ``count_word``, which compares
   whitespace-separated *words* with the whole *phrase*, so its counts are always 0 and
   both of its inner branches return ``Invalid``;
3. else ``"i don't know"`` (a plain ASCII apostrophe: ``I don’t know`` with a curly one is
   not matched) gives ``I don't know``; else ``"yes, answer is present"`` gives the answer;
4. else ``"answer is present"`` gives the answer, else ``"answer is not present"`` gives
   ``I don't know``;
5. else a reply shorter than 10 characters (after step 1) with a bracketed number
   (``[3]``) gives the answer; anything else (an empty reply too) is ``Invalid``.

Example:
    >>> [postprocess(r) for r in ("Yes, answer is present.", "I don't know", "I don’t know",
    ...                           "[4]", "", "No, answer is not present.",
    ...                           "I don't know. Yes, answer is present in [2].")]
    ['Yes, answer is present', "I don't know", 'Invalid', 'Yes, answer is present', 'Invalid', "I don't know", 'Invalid']
    >>> vanilla_prompt("Q?", [f"t{i}: p{i}" for i in range(1, 11)])[-36:]
    '\\n[9] t9: p9\\n\\n[10] t10: p10\\n\\nOUTPUT:\\n'

"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...errors import ConfigError

__all__ = [
    "ANSWER",
    "NO_ANSWER",
    "INVALID",
    "LABELS",
    "PASSAGES",
    "SEPARATOR",
    "TEMPLATE_NAME",
    "vanilla_template",
    "vanilla_prompt",
    "passage_text",
    "count_word",
    "postprocess",
]

ANSWER = "Yes, answer is present"
"""``VanillaTemplate.answer`` (template.py: ``self.answer``)."""
NO_ANSWER = "I don't know"
"""``VanillaTemplate.no_answer`` (template.py: ``self.no_answer``)."""
INVALID = "Invalid"
"""``VanillaTemplate.invalid_answer``."""
LABELS = (ANSWER, NO_ANSWER, INVALID)
PASSAGES = 10
"""``VanillaTemplate(count=10)``: the number of passages every prompt has."""
SEPARATOR = ": "
"""``repro_nomiracl_generation.py``: ``f"{title}{separator}{text}"``."""
TEMPLATE_NAME = "vanilla"
"""The ``template`` field of NoMIRACL's result files."""


def vanilla_template(count: int = PASSAGES) -> str:
    """``VanillaTemplate(count).template``: the prompt with ``{query}`` and ``{passage_i}`` fields.

    >>> vanilla_template(2).endswith("CONTEXTS:\\n[1] {passage_1}\\n\\n[2] {passage_2}\\n\\nOUTPUT:\\n")
    True
    """
    names = [f"passage_{i}" for i in range(1, count + 1)]
    return (
        "I will give you a question and several contexts containing information about the question."
        + f' Read the contexts carefully. If any of the contexts answers the question, respond as either "{ANSWER}" or "{NO_ANSWER}".'
        + "\n\nQUESTION:\n{query}\n\n"
        + "CONTEXTS:\n"
        + "\n\n".join("[{}] {}".format(i, "{" + name + "}") for i, name in enumerate(names, 1))
        + "\n\nOUTPUT:\n"
    )


def vanilla_prompt(query: str, passages: Sequence[str], count: int = PASSAGES) -> str:
    """``VanillaTemplate(count)(query, passages)``: the filled prompt (``str.format``, as the original).

    Raises:
        ConfigError: not exactly ``count`` passages (the original raises ``ValueError``).
    """
    if len(passages) != count:
        raise ConfigError(
            f"NoMIRACL's vanilla prompt takes exactly {count} passages, got {len(passages)}"
        )
    fields = {"query": query, **{f"passage_{i}": p for i, p in enumerate(passages, 1)}}
    return vanilla_template(count).format(**fields)


def passage_text(title: str, text: str) -> str:
    """One prompt passage: ``title: text`` (``repro_nomiracl_generation.py``)."""
    return f"{title}{SEPARATOR}{text}"


def count_word(sentence: str, word: str) -> int:
    """``nomiracl.util.count_word``: how many whitespace-separated words of ``sentence`` equal ``word``.

    A ``word`` with a space in it (every phrase ``postprocess`` counts) is never found:

    >>> count_word("yes, answer is present yes, answer is present", "yes, answer is present")
    0
    """
    return sum(1 for w in sentence.split() if w == word)


def postprocess(response: str, max_count: int = PASSAGES) -> str:
    """``VanillaTemplate.postprocess``: the label of one reply (see the module docs for its steps)."""
    # template.py: response.replace("\n", " ").replace("\t", " ").lower()
    response = response.replace("\n", " ").replace("\t", " ").lower()
    # template.py: re.findall(f"\[(\d+|{self.max_count})\]", response)
    regex = re.findall(rf"\[(\d+|{max_count})\]", response)
    no_answer = NO_ANSWER.lower()
    answer = ANSWER.lower()
    if no_answer in response and answer in response:
        # template.py: count_word(...) > 1 -> answer; == 1 and == 1 -> Invalid; else Invalid.
        # count_word compares words with a phrase that has spaces: always 0, so always Invalid.
        if count_word(response, answer) > 1:
            return ANSWER
        if count_word(response, no_answer) == 1 and count_word(response, answer) == 1:
            return INVALID
        return INVALID
    if no_answer in response:
        return NO_ANSWER
    if answer in response:
        return ANSWER
    # template.py: "edge cases"
    if "answer is present" in response:
        return ANSWER
    if "answer is not present" in response:
        return NO_ANSWER
    if len(regex) and len(response) < 10:
        return ANSWER
    return INVALID
