"""A calibration file: a judge's per-language agreement with human labels, with its signature, and the lookups judged runs make.

``bordir judge calibrate`` writes it (JSON, ``"kind": "bordir-judge-calibration"``): the
signature (task, judge model, prompt variant, prompt language, data set and its hash, items,
floor, resamples, seed, version), per language the agreement
(:mod:`~bordir.judging.agreement`), the prompt used, the human ceiling, the threshold, and the
``status``: ``calibrated`` when the lower bound of the balanced accuracy's interval reaches the
floor, ``uncalibrated`` otherwise (with the reason); and the per-item rows (ids, labels, the
judge's reading; no texts), from which the corrected rates resample the calibration.

Reading it back::

    cal = Calibration.load("calibration.json")
    cal.for_language("hi").balanced_accuracy     # {'value': …, 'low': …, 'high': …}
    cal.for_language("hi").calibrated            # False below the floor
    cal.check(judge="openai/gpt-4o-mini", task="testgen", prompts={"hi": "judge.en@sha256-…"})

A language the file does not have, or a file of another judge, task or prompt than the
run's, is refused (:meth:`Calibration.check`, :meth:`Calibration.for_language`), naming the
file and both signatures.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._io.json_write import write_json
from ..errors import ConfigError, DataError
from ..signature import Signature

__all__ = ["KIND", "FORMAT", "Calibration", "LanguageCalibration"]

KIND = "bordir-judge-calibration"
FORMAT = 1
_REQUIRED = ("signature", "judge", "task", "labels", "variant", "prompt_lang", "floor", "languages")


@dataclass(frozen=True)
class LanguageCalibration:
    """The calibration of one language (see the module docs).

    Attributes:
        lang: the language.
        status: ``calibrated`` or ``uncalibrated``.
        reason: why it is uncalibrated ("" otherwise).
        prompt: the identity of the prompt the judge was given.
        data: the language's entry of the file (agreement, counts, ceiling, threshold …).
    """

    lang: str
    status: str
    reason: str
    prompt: str
    data: Mapping[str, Any]

    @property
    def calibrated(self) -> bool:
        """True when the balanced accuracy's lower bound reaches the floor."""
        return self.status == "calibrated"

    def metric(self, name: str) -> dict[str, float | None]:
        """``{"value", "low", "high"}`` of a statistic (``balanced_accuracy``, ``kappa`` …)."""
        return dict(self.data["metrics"][name])

    @property
    def balanced_accuracy(self) -> dict[str, float | None]:
        return self.metric("balanced_accuracy")

    def describe(self) -> str:
        """One phrase for a table cell: the balanced accuracy and its interval, and the status.

        >>> LanguageCalibration("hi", "uncalibrated", "lower bound 0.55 < floor 0.70", "p",
        ...     {"metrics": {"balanced_accuracy": {"value": 0.6, "low": 0.55, "high": 0.66}}}).describe()
        'uncalibrated: judge balanced accuracy 0.600 [0.550, 0.660]'
        """
        ba = self.balanced_accuracy
        v = "-" if ba["value"] is None else f"{ba['value']:.3f}"
        ci = "" if ba["low"] is None else f" [{ba['low']:.3f}, {ba['high']:.3f}]"
        text = f"judge balanced accuracy {v}{ci}"
        return text if self.calibrated else f"uncalibrated: {text}"


class Calibration:
    """A calibration file in memory (see the module docs).

    Attributes:
        data: the file's JSON object.
        path: where it was read from ("" when built in memory).
    """

    def __init__(self, data: Mapping[str, Any], path: str = "") -> None:
        self.data = dict(data)
        self.path = path

    def __repr__(self) -> str:
        return (
            f"Calibration({self.judge!r}, task={self.task!r}, languages={list(self.languages)!r})"
        )

    # ------------------------------------------------------------------ reading
    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Calibration:
        """Read and check a calibration file.

        Raises:
            DataError: the file is missing, not JSON, not a calibration file, or lacks a field.
        """
        from .._io.json_read import read_json

        p = Path(path)
        data = read_json(p, missing="expected a calibration file (bordir judge calibrate --out)")
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise DataError(
                f'not a judge calibration file (expected "kind": "{KIND}"; write one with '
                "bordir judge calibrate)",
                path=p,
                field="kind",
            )
        if data.get("format") != FORMAT:
            raise DataError(
                f"calibration format {data.get('format')!r} is not {FORMAT}; re-run bordir judge "
                "calibrate with this bordir",
                path=p,
                field="format",
            )
        for key in _REQUIRED:
            if key not in data:
                raise DataError("missing; the file is damaged or hand-edited", path=p, field=key)
        langs = data["languages"]
        if not isinstance(langs, dict) or not langs:
            raise DataError("expected one entry per language", path=p, field="languages")
        for lang, entry in langs.items():
            for key in ("status", "prompt", "metrics", "counts"):
                if not isinstance(entry, dict) or key not in entry:
                    raise DataError("missing", path=p, field=f"languages.{lang}.{key}")
        return cls(data, str(p))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the file (strict JSON, atomically); returns its path."""
        out = write_json(self.data, path)
        self.path = str(out)
        return out

    @property
    def signature(self) -> Signature:
        return Signature.parse(self.data["signature"])

    @property
    def judge(self) -> str:
        return str(self.data["judge"])

    @property
    def task(self) -> str:
        return str(self.data["task"])

    @property
    def labels(self) -> tuple[str, str]:
        pos, neg = self.data["labels"]
        return str(pos), str(neg)

    @property
    def floor(self) -> float:
        return float(self.data["floor"]["value"])

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(sorted(self.data["languages"]))

    @property
    def items(self) -> list[dict[str, Any]]:
        """The per-item rows (``item_id``, ``lang``, ``cluster``, ``human``, ``judge``, ``outcome``, ``score``)."""
        return list(self.data.get("items") or [])

    def get(self, lang: str) -> LanguageCalibration | None:
        """The calibration of ``lang``, or None."""
        e = self.data["languages"].get(lang)
        if e is None:
            return None
        return LanguageCalibration(lang, e["status"], e.get("reason", ""), e["prompt"], e)

    def for_language(self, lang: str) -> LanguageCalibration:
        """The calibration of ``lang``.

        Raises:
            DataError: the file has no calibration in ``lang`` (the message names the file and
                the languages it has).
        """
        got = self.get(lang)
        if got is None:
            raise DataError(
                f"no calibration in {lang!r}; the file calibrates {', '.join(self.languages)}. "
                f"Calibrate the judge on labelled {lang!r} items, or leave out --calibration",
                path=self.path or None,
                field="languages",
            )
        return got

    def where(self) -> str:
        """The file, for messages."""
        return self.path or "the calibration"

    # ------------------------------------------------------------------ matching a run
    def check(
        self,
        *,
        judge: str,
        task: str,
        prompts: Mapping[str, str] | str | None = None,
        langs: Iterable[str] = (),
        run: str = "",
    ) -> None:
        """Refuse a calibration that is not of this run's judge.

        Args:
            judge: the run's judge model (``provider/model``).
            task: the run's judge task (``testgen``, ``relevance``, ``rgb_rejection`` …).
            prompts: the run's prompt identity per language (a language absent: not checked), or
                one identity for every language of ``langs``.
            langs: the run's languages: each must be in the file.
            run: the run's signature (named in the refusal).

        Raises:
            ConfigError: another judge model, task or prompt (both signatures named).
            DataError: a language of the run that the file does not calibrate.
        """
        sig = self.data["signature"]

        def refuse(mine: str, yours: str) -> ConfigError:
            return ConfigError(
                f"{self.where()} is the calibration of {mine} ({sig}); this run's judge is "
                f"{yours}" + (f" ({run})" if run else "") + "; calibrate this judge with "
                "bordir judge calibrate, or pass its calibration file"
            )

        if task != self.task:
            raise refuse(f"the {self.task} judge", f"the {task} judge")
        if judge != self.judge:
            raise refuse(f"judge {self.judge}", f"judge {judge}")
        langs = sorted(set(langs))
        for lang in langs:
            self.for_language(lang)
        per_lang = dict.fromkeys(langs, prompts) if isinstance(prompts, str) else prompts or {}
        for lang, prompt in sorted(per_lang.items()):
            got = self.get(lang)
            if got is not None and got.prompt != prompt:
                raise refuse(
                    f"prompt {got.prompt} in {lang!r}", f"given prompt {prompt} in {lang!r}"
                )
