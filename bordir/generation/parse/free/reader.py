"""The optional LLM stance reader: a second pass over what the rules leave open, recorded as such.

The rules (:class:`~bordir.generation.parse.free.FreeResolver`) decide first. :class:`StanceReader`
asks a model, for the answers they resolve to one of ``ask_for`` (default: ``unparsed``), which
country the answer names as the territory's owner, offering the claimants' names and the words
``SEVERAL``, ``CONTROL <country>``, ``REFUSAL``, ``OTHER`` and ``NONE``. Its reply is parsed strictly
(a claimant's exact name, or one of the words); the new :class:`Resolution` has the rule
``llm_reader``, ``reader`` holding ``<model>: <reply>`` and ``evidence`` what the rules said. A reply
that fits none of them leaves the rules' outcome as it was (and is recorded in ``reader``).
Every call goes through the response cache when one is given: a re-run calls nothing again.

:func:`reader_agreement` gives, per answer language, how often the reader agrees with the rules on
answers the rules did decide (a check of the reader, to run on a sample). ``calibration`` names a
judge-calibration file (the judging package's, when it exists): it is recorded with the reader
(``StanceReader.calibration``) and in the summary's signature, a hook for reporting the reader's
agreement against the judges' calibration; bordir does not read the file yet.

Example:
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> reader = StanceReader("mock/fixed:Ukraine")
    >>> r = reader.second_pass("Hmm, hard to say really.", ds.query("Crimea_en"), dataset=ds)
    >>> r.outcome, r.claimant, r.rule, r.reader
    ('claimant', 'Ukraine', 'llm_reader', 'mock/fixed:Ukraine: Ukraine')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from .outcome import Resolution
from .resolve import resolver_for

if TYPE_CHECKING:  # pragma: no cover
    from ....dataset import BorderLines
    from ....records import Query

__all__ = ["StanceReader", "reader_agreement", "READER_PROMPT"]

READER_PROMPT = (
    "Read the answer to the question below. Which country does the answer say {territory} "
    "belongs to?\nReply with exactly one of: {names}; or SEVERAL (it names more than one as the "
    "owner, or calls it disputed without choosing); or CONTROL <country> (it only says who controls "
    "or administers it); or REFUSAL (it declines to answer); or OTHER (another country); or NONE.\n\n"
    "Question: {question}\nAnswer: {answer}\n\nReply:"
)


class StanceReader:
    """A model reading the stance of free answers the rules leave open (see the module docs).

    Args:
        model: ``provider/model`` (any backend; ``mock/fixed:<reply>`` for tests).
        ask_for: the rule outcomes it is asked about.
        cache: a :class:`~bordir.generation.cache.ResponseCache` to read and fill.
        calibration: a judge-calibration file to report the reader's agreement with (a hook).
    """

    def __init__(
        self,
        model: str,
        *,
        ask_for: Sequence[str] = ("unparsed",),
        cache: Any = None,
        calibration: str | None = None,
        backend: Any = None,
    ) -> None:
        self.model = model
        self.ask_for = tuple(ask_for)
        self.cache = cache
        self.calibration = calibration
        self._backend = backend

    def _ask(self, prompt: str) -> str:
        from ...types import GenerationRequest, Message

        req = GenerationRequest(
            model=self.model,
            messages=(Message("user", prompt),),
            temperature=0.0,
            seed=0,
            max_tokens=16,
        )
        if self.cache is not None:
            hit = self.cache.get(req)
            if hit is not None:
                return str(hit.text)
        if self._backend is None:
            from ...backend import get_backend

            self._backend = get_backend(self.model)
        res = self._backend.generate(req)
        if self.cache is not None and res.ok:
            self.cache.put(req, res)
        return str(res.text)

    def _parse(self, reply: str, query: Query) -> tuple[str, int, str]:
        word = " ".join(reply.strip().strip(".").split())
        names = {n.casefold(): i for i, n in enumerate(query.claimants)}
        names.update({n.casefold(): i for i, n in enumerate(query.options)})
        if word.casefold() in names:
            return "claimant", names[word.casefold()], ""
        head, _, rest = word.partition(" ")
        key = head.upper()
        if key == "CONTROL":
            return "controller_only", names.get(rest.casefold(), -1), ""
        return {"SEVERAL": ("several", -1, ""), "REFUSAL": ("refusal", -1, ""),
                "OTHER": ("other_country", -1, rest), "NONE": ("unparsed", -1, "")}.get(
            key, ("", -1, "")
        )  # fmt: skip

    def second_pass(
        self, text: str | None, query: Query, *, dataset: BorderLines | None = None,
        first: Resolution | None = None,
    ) -> Resolution:  # fmt: skip
        """The rules' resolution of ``text``, read again by the model when its outcome is asked for."""
        from ...open_question import open_question, territory_names_of

        first = first or resolver_for(dataset).resolve(text, query)
        if first.outcome not in self.ask_for:
            return first
        try:
            question = open_question(query, names=territory_names_of(dataset) if dataset else None)
        except Exception:  # noqa: BLE001 - an off-template query is asked in its own words
            question = query.text
        prompt = READER_PROMPT.format(
            territory=query.territory, names=", ".join(query.claimants), question=question,
            answer=text or "",
        )  # fmt: skip
        reply = self._ask(prompt)
        outcome, index, country = self._parse(reply, query)
        said = f"{self.model}: {reply.strip()[:200]}"
        if not outcome:  # a reply that fits nothing: the rules' outcome stays, the reply is kept
            return replace(first, reader=said)
        return Resolution(
            outcome,  # type: ignore[arg-type]
            claimant=query.claimants[index] if index >= 0 else "",
            index=index
            if outcome == "claimant"
            else (index if outcome == "controller_only" else -1),
            rule="llm_reader",
            span=first.span,
            evidence=f"rules: {first.outcome} ({first.rule})",
            country=country,
            reader=said,
        )


def reader_agreement(records: pd.DataFrame) -> pd.DataFrame:
    """Per answer language: how often the reader's outcome equals the rules' (``rules``, ``reader``).

    ``records`` has ``lang``, ``rules`` and ``reader`` (outcomes, with the claimant for ``claimant``:
    ``claimant:Ukraine``).

    >>> reader_agreement(pd.DataFrame({"lang": ["ru", "ru", "en"], "rules": ["a", "b", "a"],
    ...                                "reader": ["a", "a", "a"]})).to_dict("records")
    [{'lang': 'en', 'n': 1, 'agree': 1.0}, {'lang': 'ru', 'n': 2, 'agree': 0.5}]
    """
    same = (records["rules"] == records["reader"]).astype(float)
    out = records.assign(_s=same).groupby("lang", sort=True)["_s"].agg(n="size", agree="mean")
    return out.reset_index()
