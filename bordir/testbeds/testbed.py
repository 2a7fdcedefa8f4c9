"""The testbed registry: each testbed is one object that holds everything the run needs to know about it.

A :class:`Testbed` carries its settings, the kind of RGB file it reads, its
default noise ratios, the questions it builds from the territorial data, the
metrics it adds, its headline metric (comparisons), the settings it compares
with each other and its LLM judge (:class:`Judge`). The planner, the runner,
the scorer, the comparisons, the CLI (one ``bordir testbed NAME`` command per
entry) and ``bordir list testbeds`` read it from :data:`TESTBEDS`, so adding a
testbed is one file that registers itself::

    from bordir.testbeds.testbed import Testbed, register_testbed

    register_testbed(Testbed("my-testbed", "…", kind="noise", settings=("my-testbed",),
                             ratios=(0.0, 0.5), questions=my_questions))

The built-ins are the modules of :mod:`bordir.testbeds.builtin` (one file per
testbed, named like it), found and imported on first use.

Two setting names mean the same in every testbed: :data:`NODOCS` (the
question without documents) and a ``-xling`` suffix (noise drawn from the
other languages, :func:`is_xling`).

Every testbed runs with an :class:`Engine`: its questions, its request, its per-item table,
its rates, comparisons, files and plot, and its scoring policies. RGB's testbeds (and any
testbed registered without one) use RGB's (:data:`ENGINES` ``rgb``:
:mod:`bordir.testbeds.rgb_engine`); a testbed whose data, prompt and scoring are not RGB's
(NoMIRACL) brings its own. The runner, the report and the viewer call
:attr:`Testbed.run_engine`, one path for every testbed
(:func:`bordir.testbeds.runner.run_testbed` uses the same response cache and executor).

Example:
    >>> tb = get_testbed("rejection")
    >>> tb.kind, tb.settings, tb.resolved_ratios((0.2,)), tb.headline
    ('noise', ('rejection', 'rejection-xling'), (1.0,), 'rejection_rate')
    >>> get_testbed("counterfactual").file_settings, get_testbed("noise").resolved_ratios(None)
    (('counterfactual', 'nodocs'), (0.0, 0.2, 0.4, 0.6, 0.8))
    >>> get_testbed("loud")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: unknown testbed 'loud'; known: counterfactual, integration, noise, nomiracl, rejection
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..registry import Registry

__all__ = [
    "NODOCS",
    "Engine",
    "ENGINES",
    "Option",
    "Judge",
    "QuestionBuilder",
    "Testbed",
    "TESTBEDS",
    "register_testbed",
    "get_testbed",
    "is_xling",
    "describe_testbeds",
]

NODOCS = "nodocs"
"""The setting without documents (the question alone): passage number 0, noise ratio 0."""

QuestionBuilder = Callable[..., tuple[list[Any], list[dict[str, str]]]]
"""``(pools, queries, *, seed, xling, max_negatives, source) -> (questions, left out)``
(:func:`bordir.testbeds.territorial.territorial_questions` calls it)."""


def is_xling(setting: str) -> bool:
    """True for a cross-lingual-noise setting (``noise-xling``, ``rejection-xling``).

    >>> is_xling("noise-xling"), is_xling("noise")
    (True, False)
    """
    return setting.endswith("-xling")


@dataclass(frozen=True)
class Judge:
    """An LLM judge of RGB (``reject_evalue.py``, ``fact_evalue.py``): its prompt and its test of the reply.

    Attributes:
        prompt: the few-shot prompt; ``{question}`` and ``{answer}`` are filled in (in that order).
        label: RGB's substring test of the judge's reply (True: rejected / error identified).
        metrics: the judged rates the testbed reports (``rejection_rate_judge`` …).
    """

    prompt: str
    label: Callable[[str], bool]
    metrics: tuple[str, ...]

    def render(self, question: str, answer: str) -> str:
        """The prompt for one prediction."""
        return self.prompt.replace("{question}", question).replace("{answer}", answer)


class Engine(Protocol):
    """What runs a testbed: its data, prompt and scoring (RGB's: :data:`ENGINES` ``rgb``).

    Attributes:
        policies: its scoring policies (``scores.json``'s ``policies``); ``default_policy``
            the headline one.
    """

    policies: tuple[str, ...]
    default_policy: str

    def plan(self, cfg: Any) -> tuple[list[Any], list[dict[str, str]], dict[str, Any]]:
        """``(instances, questions left out, data identity)`` of a run."""
        ...

    def request(
        self, instance: Any, *, model: str, temperature: float, seed: int | None, max_tokens: int
    ) -> Any:
        """The generation request of one instance (rebuilt by the viewer to verify cache keys)."""
        ...

    def instructions(self, instances: Sequence[Any]) -> dict[str, str]:
        """Per language, where its prompt comes from (``testbed.json``)."""
        ...

    def items(
        self, instances: Sequence[Any], results: Sequence[Mapping[str, Any]], judged: Any
    ) -> Any:
        """The per-item table (one row per model and instance, labelled under every policy)."""
        ...

    def summarize(
        self, items: Any, *, n_resamples: int, fields: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        """``scores.json``'s groups."""
        ...

    def comparisons(
        self, items: Any, policy: str, *, n_resamples: int, fields: Mapping[str, Any]
    ) -> list[dict[str, Any]]:
        """``scores.json``'s paired comparisons (Holm-adjusted)."""
        ...

    def write(self, out: Any, instances: Sequence[Any], items: Any, cfg: Any) -> None:
        """Its files beside the common ones (``predictions/`` …)."""
        ...

    def plot(self, groups: Sequence[Mapping[str, Any]], policy: str, out_dir: Any) -> Any:
        """Its plot for ``bordir report``: ``(png, svg, caption[, alt text])``, or None.

        Without an alt text, the page uses the file name.
        """
        ...


ENGINES: Registry[Engine] = Registry("testbed engine")
"""Engines by name; ``rgb`` (:mod:`bordir.testbeds.rgb_engine`) runs every testbed without its own."""
ENGINES.register("rgb", module="bordir.testbeds.rgb_engine:ENGINE", description="RGB's testbeds")


@dataclass(frozen=True)
class Option:
    """A command-line option of one testbed (``bordir testbed NAME --NAME VALUE``), kept in ``cfg.extra``."""

    name: str
    default: str
    help: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Testbed:
    """One testbed: its settings, data, ratios, questions, scoring and judging rules.

    Attributes:
        name: the canonical name (``bordir testbed NAME``).
        description: one line (the command's help and ``bordir list testbeds``).
        kind: the kind of RGB file it reads (``noise``, ``integration`` or ``fact``).
        settings: its settings on territorial data, in order; on an RGB file, those
            that are not cross-lingual (:attr:`file_settings`).
        ratios: the default noise ratios.
        questions: builds the questions from the territorial data (:data:`QuestionBuilder`).
        fixed_ratios: the ratios are part of the testbed (negative rejection: r = 1);
            ``--ratios`` does not change them.
        headline: the metric of its comparisons between settings and between models.
        metrics: metrics it adds to the common ones, on its settings with documents.
        compare: pairs of settings compared on accuracy (``counterfactual`` vs ``nodocs``).
        judge: its LLM judge (``--judge``), or None.
        engine: its planner, prompt and scoring: an :class:`Engine`, or the name of one in
            :data:`ENGINES` (default ``rgb``); :attr:`run_engine` is the engine itself.
        defaults: command-line defaults that differ from RGB's (``temperature``, ``max_tokens``,
            ``passage_num``).
        options: its own command-line options (:class:`Option`).
    """

    __test__ = False  # not a pytest test class

    name: str
    description: str
    kind: str
    settings: tuple[str, ...]
    ratios: tuple[float, ...]
    questions: QuestionBuilder = field(repr=False)
    fixed_ratios: bool = False
    headline: str = "accuracy"
    metrics: tuple[str, ...] = ()
    compare: tuple[tuple[str, str], ...] = ()
    judge: Judge | None = None
    engine: Engine | str | None = field(default="rgb", repr=False)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    options: tuple[Option, ...] = ()

    @property
    def run_engine(self) -> Engine:
        """The engine that runs this testbed (:attr:`engine`, looked up when it is a name)."""
        if self.engine is None or isinstance(self.engine, str):  # None: as registered before
            return ENGINES.get(self.engine or "rgb")
        return self.engine

    @property
    def file_settings(self) -> tuple[str, ...]:
        """The settings on an RGB file (no cross-lingual noise there)."""
        return tuple(s for s in self.settings if not is_xling(s))

    def settings_for(self, *, rgb_file: bool) -> tuple[str, ...]:
        """:attr:`file_settings` for an RGB file, else :attr:`settings`."""
        return self.file_settings if rgb_file else self.settings

    def resolved_ratios(self, ratios: Sequence[float] | None) -> tuple[float, ...]:
        """The noise ratios of a run: the given ones, else the defaults (fixed ones always)."""
        if self.fixed_ratios or not ratios:
            return self.ratios
        return tuple(ratios)

    def applies(self, metric: str, setting: str, *, judged: bool) -> bool:
        """True if ``metric`` is one this testbed adds (or judges) and applies in ``setting``."""
        if setting == NODOCS:
            return False
        if self.judge is not None and metric in self.judge.metrics:
            return judged
        return metric in self.metrics

    def row(self) -> dict[str, str]:
        """One ``bordir list testbeds`` row."""
        return {
            "name": self.name,
            "kind": self.kind,
            "settings": ", ".join(self.settings),
            "ratios": ", ".join(f"{r:g}" for r in self.ratios),
            "judge": ", ".join(self.judge.metrics) if self.judge else "",
            "description": self.description,
        }


TESTBEDS: Registry[Testbed] = Registry("testbed")
"""Every testbed by name: the built-ins (:mod:`bordir.testbeds.builtin`) and any a plugin registers."""


def register_testbed(testbed: Testbed) -> Testbed:
    """Register ``testbed`` under its name (a name is registered once); returns it."""
    TESTBEDS.register(testbed.name, testbed, description=testbed.description)
    return testbed


def _declare_builtins() -> None:
    from . import builtin

    for mod in sorted(pkgutil.iter_modules(builtin.__path__), key=lambda m: m.name):
        if not mod.name.startswith("_"):
            TESTBEDS.register(mod.name, module=f"{builtin.__name__}.{mod.name}")


_declare_builtins()


def get_testbed(name: str) -> Testbed:
    """The testbed ``name``.

    Raises:
        ConfigError: ``name`` is not a registered testbed (the message lists them).
    """
    return TESTBEDS.get(name)


def describe_testbeds() -> list[dict[str, str]]:
    """One row per testbed (``bordir list testbeds``): name, kind, settings, ratios, judge, description."""
    return [TESTBEDS.get(n).row() for n in TESTBEDS.names()]
