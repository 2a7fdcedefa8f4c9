"""A testbed run's settings: :class:`TestbedConfig` (testbed, data, models, noise or counterfactual ratios, seed, policy) and its defaults."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import ConfigError
from ..stats import DEFAULT_RESAMPLES, resolve_seed
from .construct import RGB_SEED
from .prompt import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE
from .testbed import Testbed, get_testbed

__all__ = ["TestbedConfig", "TESTBED_JSON"]


TESTBED_JSON = "testbed.json"


@dataclass(frozen=True)
class TestbedConfig:
    """One testbed run (keyword-only; see ``bordir testbed --help``).

    Attributes:
        testbed: a name of :data:`~bordir.testbeds.testbed.TESTBEDS` (``noise``,
            ``rejection``, ``integration``, ``counterfactual`` …).
        data: ``rgb:FILE``, ``demo`` or a corpus spec.
        models: ``provider/model`` strings.
        langs: query languages to keep (territorial data); RGB files: the file's language.
        ratios: noise rates (default: the testbed's; rejection is always 1).
        passage_num: documents per prompt (RGB: 5).
        seed: instance seed (default ``$BORDIR_SEED`` or 12345; RGB uses 2333).
        seeding: ``bordir`` (seed per question) or ``rgb`` (``random.seed(seed)`` before every instance).
        temperature, max_tokens: generation settings (RGB's temperature default: 0.7).
        limit: at most this many questions per language (None: all).
        dataset: for a corpus spec: ``demo`` or ``borderlines:PATH``.
        policy: the policy of the headline numbers and comparisons (default ``rgb``
            for RGB files, ``bordir`` for territorial data, ``nomiracl`` for NoMIRACL);
            every policy of the testbed is always computed.
        cache: response-cache file (default: bordir's).
        concurrency: calls in flight.
        n_resamples: bootstrap resamples and permutations.
        correct_rate: counterfactual: share of correct positives (RGB ``--correct_rate``).
        max_negatives: territorial: negatives kept per question.
        judge: ``provider/model`` of an LLM judge for RGB's Rej* (rejection) and
            ED* / CR* (counterfactual); None: no judge.
        extra: the testbed's own options (:attr:`~bordir.testbeds.testbed.Testbed.options`:
            NoMIRACL's ``split`` and ``settings``).
        calibration: a calibration file of the judge (``bordir judge calibrate --task
            rgb_rejection`` / ``rgb_counterfactual``): its balanced accuracy beside each
            language's judged rate (``scores.json``'s ``judge_calibration``); checked before any call.
        correct: with ``calibration``: also the Rogan–Gladen corrected judged rates.
    """

    __test__ = False  # not a pytest test class

    testbed: str
    data: str
    models: tuple[str, ...]
    langs: tuple[str, ...] = ()
    ratios: tuple[float, ...] | None = None
    passage_num: int = 5
    seed: int | None = None
    seeding: str = "bordir"
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    limit: int | None = None
    dataset: str = "demo"
    policy: str | None = None
    cache: str | None = None
    concurrency: int | None = None
    n_resamples: int = DEFAULT_RESAMPLES
    correct_rate: float = 0.0
    max_negatives: int = 20
    judge: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    calibration: str | None = None
    correct: bool = False

    def __post_init__(self) -> None:
        get_testbed(self.testbed)  # a ConfigError naming the known testbeds
        if not self.models:
            raise ConfigError("give at least one model (--model provider/name)")
        if self.seeding not in ("bordir", "rgb"):
            raise ConfigError(f"seeding must be 'bordir' or 'rgb', got {self.seeding!r}")
        for r in self.ratios or ():
            if not 0 <= r <= 1:
                raise ConfigError(f"noise ratio {r} is outside [0, 1]")
        ratios = list(self.ratios or ())
        twice = sorted({r for r in ratios if ratios.count(r) > 1})
        if twice:
            raise ConfigError(
                f"noise ratio {twice[0]:g} is given twice (its items would count twice); "
                "give each ratio once"
            )
        if self.correct and not self.calibration:
            raise ConfigError("--correct needs --calibration FILE (the judge's known errors)")
        if self.policy is not None and self.policy not in self.policies:
            raise ConfigError(
                f"the {self.testbed} testbed has the policies {', '.join(self.policies)}; "
                f"got --policy {self.policy}"
            )

    @property
    def is_rgb(self) -> bool:
        return self.data.startswith("rgb:")

    @property
    def resolved_seed(self) -> int:
        return (
            resolve_seed(self.seed)
            if not (self.seeding == "rgb" and self.seed is None)
            else RGB_SEED
        )

    @property
    def spec(self) -> Testbed:
        """The testbed's registry entry (:class:`~bordir.testbeds.testbed.Testbed`)."""
        return get_testbed(self.testbed)

    @property
    def resolved_ratios(self) -> tuple[float, ...]:
        return self.spec.resolved_ratios(self.ratios)

    @property
    def policies(self) -> tuple[str, ...]:
        """The testbed's scoring policies (RGB's testbeds: ``rgb`` and ``bordir``)."""
        return tuple(self.spec.run_engine.policies)

    @property
    def resolved_policy(self) -> str:
        if self.policy:
            return self.policy
        if self.is_rgb and "rgb" in self.policies:  # an RGB file: RGB's own scoring
            return "rgb"
        return self.spec.run_engine.default_policy

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(
            seed=self.resolved_seed,
            ratios=list(self.resolved_ratios),
            policy=self.resolved_policy,
            models=list(self.models),
            langs=list(self.langs),
        )
        return d
