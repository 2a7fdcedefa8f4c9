"""Every field of an experiment config, described once: its type, range, choices, help and CLI option.

:data:`FIELDS` is the one description. From it come the checks of a config's values
(:func:`bordir.experiment.validate.check_values`), the options of ``bordir run`` that
override a field (:func:`cli_fields`, ``bordir/cli/run.py``) and the two tables of
``docs/experiments.md`` (``python docs/gen_cli.py`` writes them from it, and
``tests/cli/test_cli_docs.py`` checks they are up to date). The defaults are the dataclass
defaults of :class:`~bordir.experiment.config.Experiment` and
:class:`~bordir.experiment.config.Operational`.

Example:
    >>> FIELD["k"].kind, FIELD["k"].lo, FIELD["k"].cli
    ('int', 1, 'Documents per prompt.')
    >>> FIELD["temperature"].expected()
    'a finite number >= 0'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Field", "FIELDS", "FIELD", "RUNS", "MAX_K", "MAX_TEMPERATURE", "cli_fields"]

MAX_K = 1_000
"""Documents per prompt at most (BordIRLines uses up to 10)."""
MAX_TEMPERATURE = 2.0
"""Sampling temperature at most: OpenAI accepts [0, 2], Cohere [0, 1]."""


@dataclass(frozen=True)
class Field:
    """One config field.

    Attributes:
        name: the key (TOML, ``run.json``), also the attribute of the config.
        kind: how its value is checked: ``bool``, ``text`` (a non-empty string), ``path``
            (None or a non-empty string), ``int``, ``seconds`` (a positive number), ``number``,
            ``choice`` (one of :attr:`choices`), ``list`` (a list or a comma-separated string)
            or ``special`` (its own parser in :mod:`~bordir.experiment.validate`).
        doc: the meaning, as the docs table says it (Markdown).
        default: the default as the docs table says it (Markdown; None: the dataclass default).
        lo, hi: the range of an ``int`` (``hi`` None: no upper bound).
        choices: the values of a ``choice``: a tuple, or a function returning them (a registry).
        what: the expected value in a message, when it is not the kind's.
        cli: the help of the ``bordir run`` option overriding it (None: set in the file only).
        cli_type: the option's click type: ``int``, ``float``, ``file``, ``dir``, ``choice`` or
            ``str`` (None: from the kind).
        cli_doc: the option as the overrides table shows it (None: ``--name``).
        cli_key: the key as the overrides table shows it (None: the name).
    """

    name: str
    kind: str
    doc: str
    default: str | None = None
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] = ()
    what: str | None = None
    cli: str | None = None
    cli_type: str | None = None
    cli_doc: str | None = None
    cli_key: str | None = None

    def expected(self) -> str:
        """What a message says is expected."""
        if self.what:
            return self.what
        if self.kind == "int":
            if self.hi is not None:
                return f"an integer from {self.lo} to {self.hi:,}"
            return f"an integer >= {self.lo}"
        return {
            "bool": "true or false",
            "text": "a non-empty string",
            "path": "a non-empty string (a path)",
            "seconds": "a positive number of seconds",
            "number": "a finite number >= 0",
            "list": "a list",
        }.get(self.kind, "a valid value")

    def allowed(self) -> tuple[str, ...]:
        """The values of a ``choice``."""
        return self.choices() if callable(self.choices) else self.choices


def _fusions() -> tuple[str, ...]:
    from ..retrieval.fusion import FUSIONS

    return tuple(FUSIONS.names())


def _policies() -> tuple[str, ...]:
    from ..policies import PARSE_POLICIES

    return tuple(PARSE_POLICIES.names())


FIELDS: tuple[Field, ...] = (
    Field("dataset", "text", "`demo` (the bundled dataset) or `borderlines`"),
    Field("dataset_path", "path", "with `dataset = \"borderlines\"`: a directory in the BorderLines file layout ([Data](data.md#borderlines-files)). Without it, BorderLines is read from the hub (the `hub` extra and network access). Relative paths are relative to the current directory, not to the config file", default="none",
          cli="A local copy of the dataset's files (BorderLines: its repository's data files).", cli_type="dir", cli_doc="`--dataset-path DIR`"),
    Field("repair", "bool", "read Suriname from its corrupted `countries_info.json` key ([Concepts](concepts.md#data-defects-bordir-reports))"),
    Field("corpus", "path", "anything [`bordir.load_corpus`][bordir.corpus.load.load_corpus] reads ([Corpus](corpus.md)): `demo`, a corpus directory written by `bordir corpus fetch`, a passages `.jsonl`/`.parquet`/`.csv`/`.tsv`, a BordIRLines raw article directory. Pools are (territory, language), so every passage needs a `territory`", default='`"demo"`', what="'demo' or a path",
          cli="Corpus: demo, a corpus directory, a passages .jsonl/.parquet/.csv, all_docs.json.", cli_doc="`--corpus SPEC`"),
    Field("retriever", "text", "`bm25`, `e5-small`, `bge-m3`, `openai/<model>`, `cohere/<model>` ([Retrieval](retrieval.md))",
          cli="bm25, e5-small, bge-m3, openai/<model>, cohere/<model>.", cli_doc="`--retriever NAME`"),
    Field("fusion", "choice", "how scores of different document languages are made comparable: `raw`, `minmax` or `rrf`. BM25 defaults to `minmax`, the dense retrievers to `raw` ([Retrieval](retrieval.md#making-scores-comparable-across-languages-fusion))", default="the retriever's", choices=_fusions, what="raw, minmax or rrf"),
    Field("balanced", "bool", "give each language of a mode an equal share of the `k` slots instead of one pooled ranking"),
    Field("modes", "special", "a list (`[\"no_ir\", \"rel_langs\"]`), a comma-separated string (`\"no_ir,rel_langs\"`) or `\"all\"`. Aliases (`qlang_en`, `en`, `ablate_swap`) are accepted and stored under their canonical names. The order is the order of the tables and plots", default="all six",
          cli="'all' or comma-separated modes.", cli_doc="`--modes all` or `--modes qlang,rel_langs`"),
    Field("k", "int", "documents per prompt. The retrieval keeps `max(k, 50)` hits per (query, mode) in `hits.parquet`", lo=1, hi=MAX_K,
          cli="Documents per prompt.", cli_doc="`--k N`"),
    Field("models", "special", "the `provider/model` names to ask ([Generation](generation.md#backends)); at least one",
          cli="Comma-separated provider/model list (overrides the config).", cli_doc="`--models a,b`", cli_key="`models` (comma-separated)"),
    Field("response_format", "choice", "`direct` (answer with an option), `citation` (answer, cited documents and an explanation) or `open` (the question without options: a free answer, resolved to a claimant; [Free answers](free_answers.md)) ([Prompts](prompts.md#templates))", choices=("direct", "citation", "open"), what="'direct', 'citation' or 'open'",
          cli="", cli_type="choice", cli_doc="`--response-format direct\\|citation`"),
    Field("system", "text", "system prompt: `vanilla`, `un`, `nationalist` or `input_demo` ([Prompts](prompts.md#system-prompts))",
          cli="System prompt variant (vanilla, un, nationalist, input_demo).", cli_doc="`--system NAME`"),
    Field("instruction_lang", "text", "language of the direct-format instruction ([Prompts](prompts.md#instruction-languages))"),
    Field("seeds", "special", "one run per seed, in order", default="the 10 paper seeds"),
    Field("temperature", "number", "sampling temperature, ≥ 0 (BordIRLines used 0.5)",
          cli="", cli_type="float", cli_doc="`--temperature T`"),
    Field("max_tokens", "int", "output limit: 128 for `direct`, 512 for `citation`, the BordIRLines limits", default="128 or 512", lo=1, hi=1_000_000),
    Field("langs", "special", "query languages to keep (`[\"uk\", \"ru\", \"en\"]` or `\"uk,ru,en\"`). A list that matches no query is an error that names the languages present", default="`[]` (all)",
          cli="Comma-separated query languages to keep.", cli_doc="`--langs uk,ru`"),
    Field("limit", "int", "keep only the queries about the dataset's first *N* territories (a quick trial; in every signature as `limit:N`)", default="none (every territory)", lo=1,
          cli="Only the dataset's first N territories (a quick trial; recorded in the signature).", cli_doc="`--limit N`", cli_key="`limit` (the dataset's first N territories)"),
    Field("policy", "choice", "`strict` or `reference`: how answers are parsed ([Prompts](prompts.md#the-reference-policy)) and how `bordir report` scores them ([Metrics](metrics.md#scoring-policies))", choices=_policies, what="'strict' or 'reference'"),
    Field("relevance_filter", "special", "filter each (query, mode)'s ranked hits by their relevance labels, **then** take the top `k`, in the original order ([The relevance filter](#the-relevance-filter)): `all` (no filter, no labels needed), `relevant` (keeps hits labelled `relevant` **or** `partially_relevant`) or `non-relevant` (keeps `not_relevant`). Unlabelled hits are dropped by both filters. `non_relevant`, `nonrelevant`, `not-relevant` and `irrelevant` are accepted for `non-relevant`"),
    Field("labels", "path", "the relevance labels the filter uses: a label file (`.jsonl` or `.csv`, [Annotations](annotations.md#files-and-schema)) of **one** annotator, validated against the dataset and corpus; relative to the current directory. Without it, the shipped gold labels (`annotations/gold/demo.jsonl`) when `dataset` and `corpus` are both `demo`; any other data needs `labels`. Read only when `relevance_filter` is not `all`", default="the demo gold labels"),
    Field("option_orders", "special", "`given`, `reversed`, `cyclic` or `all` (comma-separated for a union): the option orders each query is asked in, the given order always first ([Methodology](methodology.md))"),
    Field("order_modes", "special", "the modes asked in the orders beyond the given one (a list or a comma-separated string)", default="`[]` (every mode)"),
    Field("calibrate", "bool", "rank classification: also score each query's options under a content-free query (contextual calibration, given order; column `cf_logprobs`)"),
    Field("concurrency", "int", "calls in flight at most; a backend's own limit caps it (1 for `local`)", lo=1, hi=10_000,
          cli="Calls in flight at most.", cli_doc="`--concurrency`"),
    Field("cache", "path", "the response cache file ([Generation](generation.md#the-response-cache)); `$BORDIR_CACHE` defaults to `~/.cache/bordir`. Always used; its path is in `run.json` (`cache.path`)", default="`$BORDIR_CACHE/responses.sqlite3`",
          cli="Response cache file.", cli_type="file", cli_doc="`--cache FILE`"),
    Field("timeout", "seconds", "seconds one attempt may take; a hung attempt is cut and retried, so one stalled answer does not fail its request", default="`60`",
          cli="Seconds one attempt may take (default 60); a hung attempt is retried.", cli_doc="`--timeout`"),
    Field("request_deadline", "seconds", "seconds one request may take over all its attempts and backoff waits; no retry starts past it", default="`300`",
          cli="Seconds one request may take over all its attempts and waits (default 300).", cli_doc="`--request-deadline`"),
    Field("max_retries", "int", "retries of a transient failure", default="`6`", lo=0, hi=100,
          cli="Retries of a transient failure.", cli_doc="`--max-retries`"),
    Field("deadline", "seconds", "seconds one (model, mode) batch may take in all; requests not answered by then fail with the reason", default="none",
          cli="Seconds one (model, mode) batch may take in all.", cli_doc="`--deadline`"),
    Field("max_consecutive_failures", "int", "stop a (model, mode) after this many failed requests, or timed-out attempts, in a row (a dead server costs that many, not all; with `timeout` and `concurrency = 8`, a dead provider fails the run within about two minutes)", default="`10`", lo=1,
          cli="Stop a (model, mode) after this many failures in a row.", cli_doc="`--max-consecutive-failures`"),
)  # fmt: skip
"""Every field, in the order of the docs table (``runs`` is not one: it sets ``seeds``)."""

FIELD = {f.name: f for f in FIELDS}
RUNS = Field("runs", "int", "not stored: shorthand for the first *n* paper seeds (below). Ignored when `seeds` is given", default="—", lo=1,
             cli="Number of runs (paper seeds first).", cli_doc="`--runs N`",
             cli_key="`seeds` := the first N paper seeds, **even when the file lists `seeds`**")  # fmt: skip
"""``runs``: a key of a config file and an option, not a field (it sets ``seeds``)."""


def cli_fields() -> tuple[Field, ...]:
    """The fields ``bordir run`` can override, in the order of its options (``runs`` among them)."""
    order = ("models", "modes", "k", "runs", "temperature", "langs", "limit", "retriever", "corpus",
             "response_format", "system", "dataset_path", "cache", "concurrency", "timeout",
             "request_deadline", "max_retries", "deadline", "max_consecutive_failures")  # fmt: skip
    by = {**FIELD, "runs": RUNS}
    return tuple(by[n] for n in order)
