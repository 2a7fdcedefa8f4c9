"""The LLM annotator: label (query, document) pairs with any backend.

Requests go through the generation machinery
(:func:`~bordir.generation.executor.execute`): the same response cache,
concurrency limit, rate limits and retries as generation, so a re-run is free
and an interrupted run loses only the calls in flight.

The prompt is ``annotations/prompts/relevance_viewpoint.txt`` (placeholders
``{territory}``, ``{claimants}``, ``{query}``, ``{doc_lang}``, ``{document}``,
``{claimant_names}``, ``{viewpoint_values}``), one user message; its hash is in
the run's signature.

* **Generating backends** (``openai/…``, ``cohere/…``, ``openai-compatible/…``)
  answer in text, which :func:`parse_label` reads: two labelled lines
  (``Relevance: …`` / ``Viewpoint: …``) or a JSON object with the keys
  ``relevance`` and ``viewpoint``.
* **Rank-classification backends** (``local/gemma-3-270m``) score every valid
  (relevance, viewpoint) pair of the territory, written as those two lines,
  and return the best one. The small local model is here for tests and the
  offline demo: its labels are **poor** (near chance; see ``docs/annotations.md``).

Outcomes are explicit: ``labelled``; ``unparsed`` (the answer names no valid
label, or a relevant document without a viewpoint); ``failed`` (the call failed
after its retries; the error is in ``note``). A not-relevant answer with a
claimant viewpoint is kept as not relevant with viewpoint ``not_applicable``
(viewpoint is only asked of relevant documents), and ``note`` says so.

Example:
    >>> p = parse_label("Relevance: Partially relevant\\nViewpoint: supports Ukraine", ("Russia", "Ukraine"))
    >>> p.outcome, p.relevance, p.viewpoint
    ('labelled', 'partially_relevant', 'Ukraine')
    >>> parse_label('{"relevance": "relevant", "viewpoint": "neutral"}', ("Russia", "Ukraine")).viewpoint
    'neutral'
    >>> parse_label("I am not sure.", ("Russia", "Ukraine")).outcome
    'unparsed'
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._io.json_read import loads
from .._version import __version__
from ..corpus import Corpus
from ..dataset import BorderLines
from ..errors import ConfigError, DataError
from ..records import Passage, Query
from ..signature import Signature
from .labelset import LabelSet
from .schema import (
    NEUTRAL,
    NOT_APPLICABLE,
    RELEVANCE,
    Label,
    annotations_dir,
    label_options,
    normalize_relevance,
    normalize_viewpoint,
)

if TYPE_CHECKING:
    from ..generation.backend import Backend
    from ..generation.cache import ResponseCache
    from ..generation.types import GenerationRequest

__all__ = [
    "TEMPLATE",
    "ParsedLabel",
    "AnnotationRun",
    "template_text",
    "prompt_id",
    "annotation_pairs",
    "render_prompt",
    "option_text",
    "build_annotation_request",
    "parse_label",
    "annotate",
]

TEMPLATE = "relevance_viewpoint"
"""The default prompt template (``annotations/prompts/relevance_viewpoint.txt``)."""
MAX_TOKENS = 64
Pair = tuple[str, str, str]


@cache
def template_text(name: str = TEMPLATE) -> str:
    """The text of ``annotations/prompts/<name>.txt`` (one trailing newline removed)."""
    folder = annotations_dir() / "prompts"
    path = folder / f"{name}.txt"
    if not path.is_file():
        known = sorted(p.stem for p in folder.glob("*.txt"))
        raise ConfigError(
            f"no annotation prompt {name!r} in {folder}; available: {', '.join(known) or 'none'}"
        )
    text = path.read_text(encoding="utf-8")
    return text[:-1] if text.endswith("\n") else text


def prompt_id(name: str = TEMPLATE) -> str:
    """``<name>@sha256-…``: the template's identity in signatures.

    >>> prompt_id().startswith("relevance_viewpoint@sha256-")
    True
    """
    return f"{name}@sha256-{hashlib.sha256(template_text(name).encode('utf-8')).hexdigest()[:12]}"


def annotation_pairs(
    hits: pd.DataFrame, *, k: int | None = 3, modes: Iterable[str] | None = None
) -> list[Pair]:
    """The distinct ``(query_id, doc_lang, doc_id)`` pairs in the first ``k`` hits of each (query, mode).

    Args:
        hits: a hits table (:func:`~bordir.retrieval.run.retrieve`, ``bordir retrieve``).
        k: hits per (query, mode); None: all.
        modes: keep only these modes (default: all in the table).
    """
    missing = [
        c for c in ("query_id", "mode", "rank", "doc_id", "doc_lang") if c not in hits.columns
    ]
    if missing:
        raise DataError(f"the hits table lacks column(s) {', '.join(missing)}")
    h = hits
    if modes is not None:
        wanted = set(modes)
        unknown = wanted - set(h["mode"])
        if unknown:
            raise ConfigError(
                f"mode(s) {', '.join(sorted(unknown))} not in the hits; present: "
                f"{', '.join(sorted(set(h['mode'])))}"
            )
        h = h[h["mode"].isin(wanted)]
    if k is not None:
        if k < 1:
            raise ConfigError(f"k must be >= 1, got {k}")
        h = h[h["rank"] <= k]
    h = h.sort_values(["query_id", "mode", "rank"], kind="stable")
    return list(dict.fromkeys(zip(h["query_id"], h["doc_lang"], h["doc_id"])))


def render_prompt(query: Query, passage: Passage, *, template: str = TEMPLATE) -> str:
    """The annotation prompt for one pair."""
    names = " | ".join(query.claimants)
    return template_text(template).format(
        territory=query.territory,
        claimants="; ".join(query.claimants),
        query=query.text,
        doc_lang=passage.lang,
        document=passage.text,
        claimant_names=names,
        viewpoint_values=f"{names} | {NEUTRAL} | {NOT_APPLICABLE}",
    )


def option_text(relevance: str, viewpoint: str) -> str:
    """A (relevance, viewpoint) pair written as the two answer lines."""
    return f"Relevance: {relevance}\nViewpoint: {viewpoint}"


def build_annotation_request(
    query: Query,
    passage: Passage,
    *,
    model: str,
    rank_classification: bool = False,
    template: str = TEMPLATE,
    max_tokens: int = MAX_TOKENS,
) -> GenerationRequest:
    """The :class:`~bordir.generation.types.GenerationRequest` for one pair (temperature 0).

    With ``rank_classification`` the request lists every valid label pair of the
    territory as ``options`` (for backends that score options).
    """
    from ..generation.types import GenerationRequest, Message

    options = (
        tuple(option_text(r, v) for r, v in label_options(query.claimants))
        if rank_classification
        else ()
    )
    return GenerationRequest(
        model=model,
        messages=(Message("user", render_prompt(query, passage, template=template)),),
        temperature=0.0,
        seed=None,
        max_tokens=max_tokens,
        response_format="direct",
        options=options,
        extra=(("task", f"annotate:{template}"),),
    )


@dataclass(frozen=True, slots=True)
class ParsedLabel:
    """A parsed annotator answer: ``outcome`` is ``labelled`` or ``unparsed``; ``note`` explains repairs and failures."""

    outcome: str
    relevance: str | None = None
    viewpoint: str | None = None
    note: str = ""


_JSON_OBJECT = re.compile(r"\{[^{}]*\}", re.S)
_LINE = {
    "relevance": re.compile(r"(?im)^[\s*#>`-]*(?:relevance|relevant\?)\s*[:=：]\s*(.+?)\s*$"),
    "viewpoint": re.compile(
        r"(?im)^[\s*#>`-]*(?:viewpoint|stance|view ?point|supports)\s*[:=：]\s*(.+?)\s*$"
    ),
}


def _fields(text: str) -> dict[str, str]:
    for m in _JSON_OBJECT.finditer(text):
        try:
            obj = loads(m.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            low = {str(k).strip().casefold(): v for k, v in obj.items()}
            got = {f: str(low[f]) for f in ("relevance", "viewpoint") if low.get(f) is not None}
            if "viewpoint" not in got and low.get("stance") is not None:
                got["viewpoint"] = str(low["stance"])
            if got:
                return got
    out = {}
    for f, rx in _LINE.items():
        line = rx.search(text)
        if line:
            out[f] = line.group(1).strip().strip("*`").strip()
    return out


def parse_label(text: str, claimants: Sequence[str]) -> ParsedLabel:
    """Read a relevance and a viewpoint from an annotator's answer (see module docs)."""
    if not text or not text.strip():
        return ParsedLabel("unparsed", note="empty answer")
    got = _fields(text)
    if "relevance" not in got:
        return ParsedLabel("unparsed", note="no 'Relevance:' line or JSON key")
    relevance = normalize_relevance(got["relevance"])
    if relevance is None:
        return ParsedLabel(
            "unparsed", note=f"relevance {got['relevance']!r} is not one of {', '.join(RELEVANCE)}"
        )
    raw_vp = got.get("viewpoint")
    viewpoint = normalize_viewpoint(raw_vp, claimants) if raw_vp is not None else None
    if relevance == "not_relevant":
        note = ""
        if viewpoint not in (None, NOT_APPLICABLE):
            note = f"viewpoint {raw_vp!r} ignored: the document was judged not relevant"
        return ParsedLabel("labelled", relevance, NOT_APPLICABLE, note)
    if viewpoint is None:
        what = (
            "missing"
            if raw_vp is None
            else f"{raw_vp!r} is not a claimant, neutral or not_applicable"
        )
        return ParsedLabel("unparsed", relevance=None, note=f"viewpoint {what}")
    if viewpoint == NOT_APPLICABLE:
        return ParsedLabel(
            "unparsed",
            note=f"relevance {relevance!r} with viewpoint 'not_applicable' (inconsistent)",
        )
    return ParsedLabel("labelled", relevance, viewpoint)


@dataclass
class AnnotationRun:
    """The labels an annotator produced, with how.

    Attributes:
        labels: one label per pair, in pair order (outcomes ``labelled``, ``unparsed``, ``failed``).
        signature: ``annotate|gen:…|prompt:…|method:…|pairs:…|version:…``.
        calls: ``requests``, ``cached`` and ``failed`` counts.
    """

    labels: LabelSet
    signature: Signature
    calls: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {
            "signature": str(self.signature),
            "calls": self.calls,
            "outcomes": self.labels.outcome_counts(),
            "pairs": len(self.labels),
        }


def annotate(
    pairs: Sequence[Pair],
    *,
    dataset: BorderLines,
    corpus: Corpus,
    model: str | Backend,
    annotator: str | None = None,
    cache: ResponseCache | None = None,
    concurrency: int | None = None,
    max_retries: int = 6,
    timeout: float | None = None,
    progress: bool = True,
    template: str = TEMPLATE,
) -> AnnotationRun:
    """Label ``pairs`` with an LLM.

    Args:
        pairs: ``(query_id, doc_lang, doc_id)`` triples (see :func:`annotation_pairs`).
        dataset: the queries (text, territory, claimants).
        corpus: the documents.
        model: ``provider/model`` or a built backend.
        annotator: the labels' ``annotator`` (default: the model name).
        cache: response cache (None: no cache).
        concurrency: as :func:`~bordir.generation.executor.execute`.
        max_retries: as :class:`~bordir.generation.call_limits.ExecutorOptions`.
        timeout: as :class:`~bordir.generation.call_limits.ExecutorOptions`.
        progress: as :func:`~bordir.generation.executor.execute`.
        template: prompt template name in ``annotations/prompts/``.

    Raises:
        ConfigError: an unknown query or document in ``pairs``.
    """
    from ..generation.backend import get_backend
    from ..generation.call_limits import ExecutorOptions
    from ..generation.executor import execute

    backend = get_backend(model) if isinstance(model, str) else model
    rank = bool(getattr(backend, "supports_rank_classification", False))
    requests = []
    queries = []
    for qid, lang, doc_id in pairs:
        q = dataset.find_query(qid)
        if q is None:
            raise ConfigError(
                f"pair ({qid}, {lang}, {doc_id}): query {qid!r} is not in dataset {dataset.name!r}"
            )
        passage = corpus.get(lang, doc_id)
        queries.append(q)
        requests.append(
            build_annotation_request(
                q, passage, model=backend.name, rank_classification=rank, template=template
            )
        )
    results = execute(
        backend,
        requests,
        cache=cache,
        options=ExecutorOptions(concurrency=concurrency, max_retries=max_retries, timeout=timeout),
        progress=progress,
        desc=f"annotate {backend.name}",
    )
    who = annotator or backend.name
    labels: list[Label] = []
    calls = {"requests": len(requests), "cached": 0, "failed": 0}
    for (qid, lang, doc_id), q, res in zip(pairs, queries, results):
        calls["cached"] += bool(res.cached)
        if not res.ok:
            calls["failed"] += 1
            labels.append(
                Label(qid, lang, doc_id, None, None, who, "failed", note=res.error or "call failed")
            )
            continue
        p = parse_label(res.text, q.claimants)
        labels.append(
            Label(
                qid,
                lang,
                doc_id,
                p.relevance,
                p.viewpoint,
                who,
                p.outcome,
                note=p.note,
                raw=res.text,
            )
        )
    sig = Signature.build(
        "annotate",
        gen=backend.name,
        prompt=prompt_id(template),
        method="rank_classification" if rank else "generate",
        temp=0.0,
        pairs=len(pairs),
        data=dataset.name,
        version=__version__,
    )
    return AnnotationRun(
        LabelSet(labels, name=who, source=f"annotate {backend.name}", dataset=dataset), sig, calls
    )
