"""Prompt rendering: templates shipped as text files, rendered into chat messages.

The templates live in ``bordir/generation/templates/`` (plain text with ``str.format``
placeholders; the folder is not called ``prompts/`` because this module is):

* ``system/<name>.txt`` — system prompts, selected by ``system=``: ``vanilla``
  (a concise geopolitics expert), ``un`` (a UN peacekeeper following the
  internationally recognised status), ``nationalist`` (begins "As a citizen
  of {country},") and ``input_demo`` (BorderLines' "input demographics" role: the
  vanilla expert told each claimant's majority religion and language, from the
  countries table: ``{demographics}``).
* ``direct.txt`` with ``document_direct.txt`` — the BordIRLines direct format:
  documents numbered from 0, an instruction, ``Query:``, ``Options:``, ``Answer:``.
* ``citation.txt`` with ``document_citation.txt`` — the citation format
  (``Cited Documents:`` / ``Chosen Option:`` / ``Explanation:``).
* ``instructions/<lang>.txt`` — the direct-format instruction (with and without documents); ``en``
  is the source text, the others are machine translations, marked so in their header, unreviewed.
* ``open.txt`` with ``document_direct.txt``, ``open/instruction.txt`` and ``open/questions.tsv`` — the
  open format: the territory question without options (:mod:`~bordir.generation.open_question`).

Labels (``Document:``, ``Instruction:``, ``Query:``, ``Options:``, ``Answer:``) stay English in every
instruction language, as in BordIRLines; the query and option names are in the query's language.

Document text cannot forge a citation or a prompt field: each document goes through
:func:`~bordir.generation.neutralize.neutralize_document_text` first (its docs say what it rewrites).

Example:
    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Crimea_uk")
    >>> docs = as_documents(["Крим — півострів у Чорному морі."], lang="uk")
    >>> system, user = render(q, docs)
    >>> print(user.content)  # doctest: +ELLIPSIS
    Document: 0
    Text: Крим — півострів у Чорному морі.
    <BLANKLINE>
    Instruction: Answer the query by considering the provided documents and your prior knowledge. ...
    <BLANKLINE>
    Query: Чи є Крим територією A) Росія чи B) Україна?
    <BLANKLINE>
    Options:
    A) Росія
    B) Україна
    <BLANKLINE>
    Answer:
    >>> render(q, (), no_ir=True)[1].content.startswith("Instruction: Answer the query by considering only")
    True
    >>> render(q, docs, system="skeptic")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: unknown system prompt 'skeptic'; valid names: input_demo, nationalist, un, vanilla
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from ..errors import ConfigError
from ..records import Country, Passage, Query
from .neutralize import neutralize_document_text
from .types import Document, GenerationRequest, Message, ResponseFormat

__all__ = [
    "render",
    "build_request",
    "as_documents",
    "system_prompts",
    "instruction_languages",
    "nationalist_country",
    "demographics",
    "prompt_id",
    "template_text",
    "neutralize_document_text",
]

RESPONSE_FORMATS: tuple[str, ...] = ("direct", "citation", "open")
DEFAULT_MAX_TOKENS = {"direct": 128, "citation": 512, "open": 256}
"""BordIRLines limits: 128 new tokens for a direct answer, 512 for a cited explanation. ``open``: 256,
bordir's (BorderLines' free-text runs allowed 128 / 512): a verdict and a short justification."""


# --- template files -----------------------------------------------------------
def _templates() -> Traversable:
    return resources.files(__package__).joinpath("templates")


@cache
def template_text(name: str) -> str:
    """The text of template ``name`` (``"direct.txt"``, ``"system/un.txt"`` …), one trailing newline removed."""
    path = _templates().joinpath(*name.split("/"))
    if not path.is_file():
        raise ConfigError(
            f"prompt template {name!r} is missing from {_templates()}; reinstall bordir"
        )
    text = path.read_text(encoding="utf-8")
    return text[:-1] if text.endswith("\n") else text


@cache  # the shipped templates do not change while bordir runs (listing them was 0.14 ms a request)
def _names(folder: str) -> tuple[str, ...]:
    return tuple(
        sorted(
            p.name[:-4] for p in _templates().joinpath(folder).iterdir() if p.name.endswith(".txt")
        )
    )


def system_prompts() -> tuple[str, ...]:
    """Names of the shipped system prompts (``input_demo``, ``nationalist``, ``un``, ``vanilla``)."""
    return _names("system")


def instruction_languages() -> tuple[str, ...]:
    """Language codes with an instruction file (``en`` plus the machine-translated ones)."""
    return _names("instructions")


@cache
def _instruction(lang: str, name: str = "") -> dict[str, str]:
    """``{"documents": …, "no_ir": …}`` from ``instructions/<lang>.txt`` or ``name`` (``#`` header lines skipped)."""
    name = name or f"instructions/{lang}.txt"
    text = template_text(name)
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        if line.startswith("#") and current is None:
            continue
        if line.startswith("[") and line.rstrip().endswith("]"):
            current = line.strip()[1:-1]
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    out = {k: "\n".join(v).strip() for k, v in sections.items()}
    missing = [k for k in ("documents", "no_ir") if not out.get(k)]
    if missing:
        raise ConfigError(f"{name} has no [{'] / ['.join(missing)}] section")
    return out


# --- inputs -------------------------------------------------------------------
def as_documents(
    items: Iterable[Passage | Document | str], *, lang: str = ""
) -> tuple[Document, ...]:
    """Number prompt documents 0, 1, 2 … in order.

    ``items`` may be :class:`~bordir.records.Passage` records, existing
    :class:`Document` records (renumbered) or plain strings (``doc_id`` = the
    position, language ``lang``).

    >>> as_documents(["a", "b"], lang="en")[1]
    Document(index=1, doc_id='1', lang='en', text='b')
    """
    out: list[Document] = []
    for i, item in enumerate(items):
        if isinstance(item, Document):
            out.append(Document(i, item.doc_id, item.lang, item.text))
        elif isinstance(item, Passage):
            out.append(Document(i, item.doc_id, item.lang, item.text))
        elif isinstance(item, str):
            out.append(Document(i, str(i), lang, item))
        else:
            raise ConfigError(
                f"document {i}: expected a Passage, Document or str, found {type(item).__name__}"
            )
    return tuple(out)


def _check_documents(
    documents: Sequence[Document], *, no_ir: bool, response_format: str
) -> tuple[Document, ...]:
    docs = tuple(documents)
    if no_ir:
        if docs:
            raise ConfigError(
                f"no_ir=True renders a prompt without documents, but {len(docs)} documents were given"
            )
        if response_format == "citation":
            raise ConfigError(
                "the citation format needs documents; use response_format='direct' with no_ir=True"
            )
        return docs
    if not docs:
        raise ConfigError(
            "no documents given; pass no_ir=True for the prompt that relies on prior knowledge only"
        )
    for pos, d in enumerate(docs):
        if not isinstance(d, Document):
            raise ConfigError(
                f"document {pos}: expected bordir.generation.types.Document, found {type(d).__name__}; "
                "convert with as_documents()"
            )
        if d.index != pos:
            raise ConfigError(
                f"documents must be numbered 0..{len(docs) - 1} in prompt order; found index {d.index} "
                f"at position {pos}; renumber with as_documents()"
            )
    return docs


def _lookup(name: str, valid: tuple[str, ...], what: str) -> str:
    key = name.casefold() if isinstance(name, str) else name
    if key not in valid:
        raise ConfigError(f"unknown {what} {name!r}; valid names: {', '.join(valid)}")
    return key


def nationalist_country(query: Query, countries: Mapping[str, Country | str]) -> str:
    """The country a nationalist system prompt speaks for, for ``query``.

    The first claimant (in option order) whose language is the query's
    language. When no claimant speaks it — the English control query of a
    territory without an English-speaking claimant — the first claimant
    (option A). ``countries`` maps English country names to
    :class:`~bordir.records.Country` records (``dataset.countries``) or to
    language codes.

    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> nationalist_country(ds.query("Crimea_uk"), ds.countries)
    'Ukraine'
    >>> nationalist_country(ds.query("Falkland_Islands_en"), ds.countries)
    'United Kingdom'
    >>> nationalist_country(ds.query("Crimea_en"), ds.countries)
    'Russia'
    """
    for claimant in query.claimants:
        c = countries.get(claimant)
        lang = c.lang if isinstance(c, Country) else c
        if lang == query.lang:
            return claimant
    return query.claimants[0]


def demographics(query: Query, countries: Mapping[str, Country | str]) -> str:
    """The ``input_demo`` system prompt's line: each claimant's majority religion and language.

    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> demographics(ds.query("Crimea_uk"), ds.countries)  # doctest: +ELLIPSIS
    'Russia (majority religion: ..., language: Russian); Ukraine (majority religion: ..., language: Ukrainian)'
    """
    parts = []
    for claimant in query.claimants:
        c = countries.get(claimant)
        if isinstance(c, Country):
            religion, language = c.religion or "unknown", c.lang_name or c.lang or "unknown"
        else:
            religion, language = "unknown", c or "unknown"
        parts.append(f"{claimant} (majority religion: {religion}, language: {language})")
    return "; ".join(parts)


def _system_text(
    query: Query,
    system: str,
    country: str | None,
    countries: Mapping[str, Country | str] | None,
) -> str:
    name = _lookup(system, system_prompts(), "system prompt")
    text = template_text(f"system/{name}.txt")
    if "{demographics}" in text:
        if countries is None:
            raise ConfigError(
                f"system prompt {name!r} describes the claimants: pass countries=dataset.countries "
                f"(query {query.query_id})"
            )
        text = text.replace("{demographics}", demographics(query, countries))
    if "{country}" not in text:
        return text
    if country is None:
        if countries is None:
            raise ConfigError(
                f"system prompt {name!r} names a country: pass country='…' or countries=dataset.countries "
                f"(query {query.query_id})"
            )
        country = nationalist_country(query, countries)
    return text.format(country=country)


# --- rendering ----------------------------------------------------------------
def _user_text(
    query: Query,
    docs: tuple[Document, ...],
    response_format: str,
    instruction_lang: str,
    no_ir: bool,
    territory_names: Mapping[str, str] | None = None,
) -> str:
    options = "\n".join(query.option_label(i) for i in range(len(query.options)))
    text = query.text
    if response_format == "direct":
        block = template_text("document_direct.txt")
        lang = _lookup(instruction_lang, instruction_languages(), "instruction language")
        instruction = _instruction(lang)["no_ir" if no_ir else "documents"]
        main = template_text("direct.txt")
    else:
        if instruction_lang.casefold() != "en":
            raise ConfigError(
                f"instruction_lang={instruction_lang!r} is available for response_format='direct' only; "
                f"the {response_format} format's instruction is English"
            )
        block = template_text(
            f"document_{'direct' if response_format == 'open' else 'citation'}.txt"
        )
        instruction = ""
        main = template_text(f"{response_format}.txt")
        if response_format == "open":  # the question without its options (open_question.py)
            from .open_question import open_question

            instruction = _instruction("en", "open/instruction.txt")[
                "no_ir" if no_ir else "documents"
            ]
            text, options = open_question(query, names=territory_names), ""
    documents = "".join(
        block.format(index=d.index, text=neutralize_document_text(d.text)) + "\n\n" for d in docs
    )
    return main.format(documents=documents, instruction=instruction, query=text, options=options)


def render(
    query: Query,
    documents: Sequence[Document],
    *,
    response_format: ResponseFormat = "direct",
    system: str = "vanilla",
    instruction_lang: str = "en",
    no_ir: bool = False,
    country: str | None = None,
    countries: Mapping[str, Country | str] | None = None,
    territory_names: Mapping[str, str] | None = None,
) -> tuple[Message, ...]:
    """Render the system and user messages for ``query``.

    Args:
        query: the multiple-choice query (its text and native option names are used as they are).
        documents: the prompt documents, numbered 0..n-1 (see :func:`as_documents`); empty for ``no_ir``.
        response_format: ``direct`` (answer with one option), ``citation``
            (cited documents, chosen option, explanation) or ``open`` (the territory question
            without options, :mod:`~bordir.generation.open_question`; a free answer).
        system: a name from :func:`system_prompts`.
        instruction_lang: ``en`` or a code from :func:`instruction_languages`
            (machine-translated, direct format only).
        no_ir: the prior-knowledge-only prompt (no documents).
        country: for ``system="nationalist"``: the country to speak for.
        countries: for ``system="nationalist"`` without ``country``: English name →
            :class:`~bordir.records.Country` (``dataset.countries``); see :func:`nationalist_country`.
        territory_names: for ``open``: native territory names by query id for queries whose text does
            not follow BorderLines' template (:func:`~bordir.generation.open_question.territory_names_of`).

    Returns:
        ``(Message("system", …), Message("user", …))``.

    Raises:
        ConfigError: unknown system prompt, format or instruction language;
            documents given with ``no_ir`` or missing without it; documents not numbered 0..n-1.
    """
    fmt = _lookup(response_format, RESPONSE_FORMATS, "response_format")
    docs = _check_documents(documents, no_ir=no_ir, response_format=fmt)
    system_text = _system_text(query, system, country, countries)
    user_text = _user_text(query, docs, fmt, instruction_lang, no_ir, territory_names)
    return (Message("system", system_text), Message("user", user_text))


def prompt_id(
    *,
    response_format: str = "direct",
    system: str = "vanilla",
    instruction_lang: str = "en",
    no_ir: bool = False,
) -> str:
    """Canonical name of a prompt configuration, with a hash of the template files it uses.

    >>> prompt_id().startswith("fmt:direct|sys:vanilla|ilang:en|ir:yes|tmpl:sha256-")
    True
    """
    fmt = _lookup(response_format, RESPONSE_FORMATS, "response_format")
    sys_name = _lookup(system, system_prompts(), "system prompt")
    files = [f"system/{sys_name}.txt"]
    if fmt == "direct":
        lang = _lookup(instruction_lang, instruction_languages(), "instruction language")
        files += ["direct.txt", "document_direct.txt", f"instructions/{lang}.txt"]
    elif fmt == "open":
        lang = "en"
        files += ["open.txt", "document_direct.txt", "open/instruction.txt", "open/questions.tsv"]
    else:
        lang = "en"
        files += ["citation.txt", "document_citation.txt"]
    h = hashlib.sha256()
    for f in files:
        h.update(f.encode() + b"\0" + template_text(f).encode("utf-8") + b"\0")
    return f"fmt:{fmt}|sys:{sys_name}|ilang:{lang}|ir:{'no' if no_ir else 'yes'}|tmpl:sha256-{h.hexdigest()[:12]}"


def build_request(
    query: Query,
    documents: Sequence[Document],
    *,
    model: str,
    temperature: float = 0.0,
    seed: int | None = None,
    max_tokens: int | None = None,
    response_format: ResponseFormat = "direct",
    system: str = "vanilla",
    instruction_lang: str = "en",
    no_ir: bool = False,
    country: str | None = None,
    countries: Mapping[str, Country | str] | None = None,
    extra: Mapping[str, Any] | None = None,
    territory_names: Mapping[str, str] | None = None,
) -> GenerationRequest:
    """A :class:`GenerationRequest` for ``query``: rendered messages, option labels, documents.

    ``max_tokens`` defaults to 128 (direct) or 512 (citation), as in BordIRLines, and to 256 for
    ``open`` (:data:`DEFAULT_MAX_TOKENS`). An ``open`` request has no option labels: every backend
    answers it with free text (the local model generates; it does not rank options).
    ``extra`` holds further result-changing backend parameters (stored as sorted string pairs).

    >>> from bordir.loaders import load_demo
    >>> r = build_request(load_demo().query("Crimea_ru"), (), model="mock/first", no_ir=True, seed=4321)
    >>> r.options, r.max_tokens, r.documents
    (('A) Россия', 'B) Украина'), 128, ())
    """
    messages = render(
        query,
        documents,
        response_format=response_format,
        system=system,
        instruction_lang=instruction_lang,
        no_ir=no_ir,
        country=country,
        countries=countries,
        territory_names=territory_names,
    )
    fmt = response_format.casefold()
    shown = () if fmt == "open" else tuple(query.option_label(i) for i in range(len(query.options)))
    return GenerationRequest(
        model=model,
        messages=messages,
        temperature=temperature,
        seed=seed,
        max_tokens=DEFAULT_MAX_TOKENS[fmt] if max_tokens is None else max_tokens,
        response_format=fmt,  # type: ignore[arg-type]
        options=shown,
        documents=tuple(documents),
        extra=tuple(sorted((str(k), str(v)) for k, v in (extra or {}).items())),
    )
