"""Testbed instructions per language: the system prompt, the user template, and the refusal and error phrases.

RGB prompts with a system message that tells the model to answer from the
documents, to say "I can not answer the question because of the insufficient
information in documents." when they do not contain the answer, and "There are
factual errors in the provided documents." when they contradict the facts;
the user message is ``Document:\\n{DOCS} \\n\\nQuestion:\\n{QUERY}``. Its scripts
detect a rejection by the phrase ``insufficient information`` (Chinese
``信息不足``) and an error detection by ``factual errors`` (``事实性错误``).

``instructions.jsonl`` (next to this file) holds one record per language of
the registry (55): ``en`` and ``zhs`` are RGB's own strings (its
``config/instruction.yaml``, English and Chinese), ``source: rgb``; every other
language was machine-translated for bordir from the English (``zht`` from the
Chinese) and is marked ``source: machine-translated``. Each record's phrases are
substrings of its sentences, and its sentences appear in its system prompt.

Example:
    >>> ins = get_instruction("zhs")
    >>> ins.source, ins.refusal_phrase, ins.error_phrase
    ('rgb', '信息不足', '事实性错误')
    >>> get_instruction("fr").source
    'machine-translated'
    >>> print(get_instruction("en").user_text("Who?", ["doc one", "doc two"]))  # doctest: +NORMALIZE_WHITESPACE
    Document:
    doc one
    doc two
    <BLANKLINE>
    Question:
    Who?
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .._io.json_read import iter_json_objects
from ..errors import ConfigError, DataError

__all__ = [
    "Instruction",
    "get_instruction",
    "instructions",
    "instruction_languages",
    "RGB_LANG_ALIASES",
    "INSTRUCTIONS_FILE",
]

INSTRUCTIONS_FILE = Path(__file__).with_name("instructions.jsonl")
RGB_LANG_ALIASES = {"zh": "zhs"}
"""RGB's language names that differ from bordir's codes."""


@dataclass(frozen=True, slots=True)
class Instruction:
    """The testbed prompt of one language.

    Attributes:
        lang: bordir language code.
        source: ``rgb`` (RGB's own strings) or ``machine-translated``.
        system: the system prompt.
        template: the user message, with ``{DOCS}`` and ``{QUERY}``.
        refusal, refusal_phrase: the instructed refusal sentence and the phrase that detects it.
        error, error_phrase: the instructed error-detection sentence and its phrase.
    """

    lang: str
    source: str
    system: str
    template: str
    refusal: str
    refusal_phrase: str
    error: str
    error_phrase: str

    def user_text(self, query: str, docs: Sequence[str]) -> str:
        """The user message: RGB joins the documents with newlines (empty when there are none)."""
        return self.template.replace("{DOCS}", "\n".join(docs)).replace("{QUERY}", query)


@lru_cache(maxsize=1)
def instructions() -> dict[str, Instruction]:
    """Every shipped instruction, by language code."""
    out: dict[str, Instruction] = {}
    for lineno, rec in iter_json_objects(INSTRUCTIONS_FILE):
        try:
            ins = Instruction(**rec)
        except TypeError as exc:
            raise DataError(
                f"not an instruction record: {exc}", path=INSTRUCTIONS_FILE, line=lineno
            ) from None
        for phrase, sentence, name in (
            (ins.refusal_phrase, ins.refusal, "refusal_phrase"),
            (ins.error_phrase, ins.error, "error_phrase"),
        ):
            if not phrase or phrase not in sentence:
                raise DataError(
                    "must be a non-empty substring of its sentence",
                    path=INSTRUCTIONS_FILE,
                    line=lineno,
                    field=name,
                )
        out[ins.lang] = ins
    return out


def instruction_languages() -> tuple[str, ...]:
    """Codes with a shipped instruction."""
    return tuple(sorted(instructions()))


def get_instruction(lang: str) -> Instruction:
    """The instruction of ``lang`` (RGB's ``zh`` is ``zhs``).

    Raises:
        ConfigError: no instruction is shipped for ``lang``.
    """
    code = RGB_LANG_ALIASES.get(lang, lang)
    try:
        return instructions()[code]
    except KeyError:
        raise ConfigError(
            f"no testbed instruction for language {lang!r}; available: "
            f"{', '.join(instruction_languages())}"
        ) from None
