"""Calibrate a judge: run it on labelled items and measure, per language, its agreement with the humans.

:func:`calibrate_judge` builds one request per item (the task's prompt in the chosen variant
and prompt language), answers them through the executor (the response cache: a re-run or a
resumed run re-bills nothing; concurrency, retries, timeouts), reads every reply and returns a
:class:`~bordir.judging.calibration.Calibration`: per language the agreement with its
cluster-bootstrap intervals, the human ceiling where several annotators labelled the items,
a threshold on the judge's score (with ``split``), and whether the judge reaches the floor.
:func:`estimate_calibration` is the dry run: calls, tokens and the upper-bound cost per
language, nothing called; ``max_cost`` refuses a run whose estimate is above it (or whose
model has no price).

Items the humans did not judge (an abstention such as ``Challenging to determine``, a tie
among annotators) are left out of the agreement and counted per language; so are items whose
call failed (the run reports the failures, and a re-run retries exactly those).

Example:
    >>> from bordir.judging.items import ItemSet, JudgeItem
    >>> labels = ["Supported", "Not Supported", "Supported"]
    >>> items = ItemSet([JudgeItem(f"en/{i}", "en", "Q?", ("P.",), "A sentence.", l,
    ...                            (("gold", l),), f"q{i}") for i, l in enumerate(labels)],
    ...                 name="toy", ident="sha256-0")
    >>> cal = calibrate_judge(items, "mock/fixed:Supported", n_resamples=100, progress=False)
    >>> lc = cal.for_language("en")
    >>> lc.status, lc.data.get("counts").get("tp"), lc.reason
    ('uncalibrated', 2, 'no interval (none: 3 question(s), fewer than 10)')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..errors import ConfigError, DataError
from ..signature import Signature
from ..stats import resolve_seed
from .calibration import FORMAT, KIND, Calibration
from .data import load_items
from .items import ItemSet, JudgeItem
from .perlang import check_split, language_result
from .tasks import PROMPT_LANGS, JudgeTask, Reading, get_task

if TYPE_CHECKING:
    from ..generation.backend import Backend
    from ..generation.cache import ResponseCache
    from ..generation.estimate import Estimate
    from ..generation.types import GenerationRequest

__all__ = ["DEFAULT_FLOOR", "calibrate_judge", "estimate_calibration", "load_items"]

DEFAULT_FLOOR = 0.70
"""The agreement floor: the balanced accuracy's lower bound must reach it in a language."""

_MAX_TOKENS = {"zero_shot": 16, "guidelines": 16, "cot": 512, "guidelines_cot": 512}


def _rank(judge: str | Backend) -> tuple[str, bool]:
    """``(name, rank)`` of a judge, without building it (a dry run loads no model and needs no key)."""
    if not isinstance(judge, str):
        return judge.name, bool(getattr(judge, "supports_rank_classification", False))
    from ..generation.backend import BACKENDS

    provider, sep, name = judge.partition("/")
    if not sep or not name or provider not in BACKENDS:
        from ..generation.backend import get_backend

        get_backend(judge)  # raises the registry's error
    return judge, bool(getattr(BACKENDS.get(provider), "supports_rank_classification", False))


def _plan(
    items: ItemSet,
    task: JudgeTask,
    *,
    model: str,
    rank: bool,
    variant: str,
    prompt_lang: str,
    max_tokens: int | None,
) -> tuple[list[tuple[JudgeItem, int, int]], list[GenerationRequest], dict[str, str]]:
    """``(item, first request, count)`` per item, the requests, and the prompt per language."""
    if prompt_lang not in PROMPT_LANGS:
        raise ConfigError(
            f"--prompt-lang {prompt_lang!r}: expected en (the English rubric) or item (the item's "
            "own language)"
        )
    if variant not in task.variants:
        task.check(variant, "en")
    langs = items.langs
    want = {l: (l if prompt_lang == "item" else "en") for l in langs}
    missing = sorted(l for l, p in want.items() if p not in task.prompt_langs())
    if missing:
        raise ConfigError(
            f"the {task.name} judge has no prompt in {', '.join(missing)} (it has: "
            f"{', '.join(task.prompt_langs())}); use --prompt-lang en, or leave those languages out"
        )
    prompts = {l: task.prompt_id(variant, p) for l, p in want.items()}
    cap = max_tokens or _MAX_TOKENS.get(variant, 256)
    plan: list[tuple[JudgeItem, int, int]] = []
    requests: list[GenerationRequest] = []
    for it in items:
        missing_field = next((n for n in task.needs if it.get(n) in (None, "")), None)
        if missing_field:
            path, _, line = it.source.rpartition(":")
            raise DataError(
                f"the {task.name} judge needs {missing_field!r} for every item",
                path=path or None,
                line=int(line) if line.isdigit() else None,
                field=missing_field,
            )
        reqs = task.requests(
            it, model=model, variant=variant, lang=want[it.lang], rank=rank, max_tokens=cap
        )
        plan.append((it, len(requests), len(reqs)))
        requests += reqs
    return plan, requests, prompts


def estimate_calibration(
    data: str | ItemSet,
    judge: str | Backend,
    *,
    task: str | JudgeTask = "faithfulness",
    variant: str = "zero_shot",
    prompt_lang: str = "en",
    langs: Sequence[str] | None = None,
    limit: int | None = None,
    memerag_variant: str | None = None,
    max_tokens: int | None = None,
    cache: ResponseCache | None = None,
) -> Estimate:
    """The dry run of :func:`calibrate_judge`: calls, tokens and upper-bound cost per language; nothing is called."""
    from ..generation.estimate import estimate

    t = get_task(task)
    items = load_items(data, t, variant=memerag_variant).select(langs, limit)
    model, rank = _rank(judge)
    plan, requests, _ = _plan(
        items,
        t,
        model=model,
        rank=rank,
        variant=variant,
        prompt_lang=prompt_lang,
        max_tokens=max_tokens,
    )
    req_langs = [it.lang for it, _, n in plan for _ in range(n)]
    return estimate(requests, req_langs, cache=cache)


def _outcome(reading: Reading | None) -> str:
    return "failed" if reading is None else "judged" if reading.label is not None else "unparsed"


def _check_cost(est: Estimate, max_cost: float) -> None:
    cost = est.max_cost_usd
    if cost is None:
        missing = next(r.note for r in est.rows if r.max_cost_usd is None)
        raise ConfigError(f"--max-cost {max_cost:g} cannot be honoured: {missing}")
    if cost > max_cost:
        raise ConfigError(
            f"the calibration would cost up to ${cost:.4f} ({est.calls} calls not in the cache), "
            f"above --max-cost {max_cost:g}; raise it, or calibrate fewer items (--limit, --langs)"
        )


def calibrate_judge(
    data: str | ItemSet,
    judge: str | Backend,
    *,
    task: str | JudgeTask = "faithfulness",
    variant: str = "zero_shot",
    prompt_lang: str = "en",
    langs: Sequence[str] | None = None,
    limit: int | None = None,
    memerag_variant: str | None = None,
    split: float | None = None,
    floor: float = DEFAULT_FLOOR,
    n_resamples: int = 2000,
    seed: int | None = None,
    max_tokens: int | None = None,
    max_cost: float | None = None,
    cache: ResponseCache | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    progress: bool = True,
) -> Calibration:
    """Run ``judge`` on labelled items and measure its agreement with the humans per language.

    Args:
        data: ``memerag:PATH``, ``labels:PATH`` or an :class:`~bordir.judging.items.ItemSet`.
        judge: the judge, ``provider/model`` or a built backend.
        task: what the judge is asked (:data:`~bordir.judging.tasks.JUDGE_TASKS`).
        variant: ``zero_shot``, ``cot``, ``guidelines`` or ``guidelines_cot`` (the task's).
        prompt_lang: ``en`` (the English rubric) or ``item`` (the item's language).
        langs: only these languages (default: all in the data).
        limit: at most this many questions per language (their first ones, in file order).
        memerag_variant: ``memerag``, ``majority`` or ``ext`` for a MEMERAG directory.
        split: fit a threshold on the judge's score on this share of each language's questions
            and report it on the rest (None: no threshold).
        floor: the balanced accuracy's lower bound a language must reach to be ``calibrated``.
        n_resamples: cluster-bootstrap resamples (0: no intervals, so every language uncalibrated).
        seed: the bootstrap seed (default ``$BORDIR_SEED`` or 12345; in the signature).
        max_tokens: the judge's longest reply (default: 16 for a label, 512 with chain of thought).
        max_cost: refuse to start when the upper-bound cost of the calls not in the cache is
            above it (USD), or when the model has no price.
        cache: the response cache (None: none).
        concurrency: judge calls in flight at most.
        timeout: seconds one call may take over its attempts.
        max_retries: retries of a transient failure.
        progress: show a progress bar.

    Raises:
        ConfigError: an unknown task, variant or prompt language; a language without a prompt;
            a floor or split out of range; ``max_cost`` exceeded.
        DataError: malformed data, or an empty split (file, line and field named).
    """
    from ..generation.backend import get_backend
    from ..generation.call_limits import ExecutorOptions
    from ..generation.executor import execute
    from ..provenance import now_iso

    t = get_task(task)
    if not 0 < floor < 1:
        raise ConfigError(f"the floor must be a balanced accuracy in (0, 1), found {floor!r}")
    if split is not None and not 0 < split < 1:
        raise ConfigError(f"--split must be a share in (0, 1), found {split!r}")
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be >= 1 question per language, found {limit}")
    boot_seed = resolve_seed(seed)
    items = load_items(data, t, variant=memerag_variant).select(langs, limit)
    if not len(items):
        raise DataError("holds no items in the languages asked for", path=items.path or None)
    model, rank = _rank(judge)
    plan, requests, prompts = _plan(
        items,
        t,
        model=model,
        rank=rank,
        variant=variant,
        prompt_lang=prompt_lang,
        max_tokens=max_tokens,
    )
    if split is not None:
        check_split(list(items), t, split, items.path)
    if max_cost is not None:
        _check_cost(
            estimate_calibration(
                items,
                judge,
                task=t,
                variant=variant,
                prompt_lang=prompt_lang,
                max_tokens=max_tokens,
                cache=cache,
            ),
            max_cost,
        )
    backend = get_backend(judge) if isinstance(judge, str) else judge
    results = execute(
        backend,
        requests,
        cache=cache,
        options=ExecutorOptions.given(
            concurrency=concurrency, timeout=timeout, max_retries=max_retries
        ),
        progress=progress,
        desc=f"calibrate {backend.name}",
    )
    rows: list[dict[str, Any]] = []
    calls: dict[str, Any] = {"requests": len(requests), "cached": 0, "failed": 0, "first": None}
    for it, start, n in plan:
        res = results[start : start + n]
        calls["cached"] += sum(bool(r.cached) for r in res)
        bad = next((r for r in res if not r.ok), None)
        if bad is not None:
            calls["failed"] += 1
            calls["first"] = calls["first"] or bad.error
        reading = None if bad is not None else t.read(it, res, rank=rank)
        rows.append(
            {
                "item_id": it.item_id,
                "lang": it.lang,
                "cluster": it.cluster,
                "human": it.label,
                "judge": None if reading is None else reading.label,
                "outcome": _outcome(reading),
                "score": None if reading is None else reading.score,
                "note": bad.error if bad is not None else reading.note if reading else "",
                "reply": "" if bad is not None else res[0].text[:300],
            }
        )
    per_lang = {}
    for lang in items.langs:
        lang_rows = [r for r in rows if r["lang"] == lang]
        per_lang[lang] = {
            "prompt": prompts[lang],
            **language_result(
                lang,
                lang_rows,
                [i for i in items if i.lang == lang],
                t,
                floor=floor,
                split=split,
                n_resamples=n_resamples,
                seed=boot_seed,
                data_path=items.path,
            ),
        }
    sig = Signature.build(
        "judge_calibration",
        task=t.name,
        judge=backend.name,
        variant=variant,
        prompt_lang=prompt_lang,
        method="rank_classification" if rank else "generate",
        data=f"{items.name}@{items.ident}",
        items=len(items),
        floor=f"ba_low>={floor:g}",
        boot=n_resamples,
        seed=boot_seed,
        version=__version__,
    )
    return Calibration(
        {
            "kind": KIND,
            "format": FORMAT,
            "signature": str(sig),
            "judge": backend.name,
            "task": t.name,
            "labels": list(t.labels),
            "abstain": list(t.abstain),
            "variant": variant,
            "prompt_lang": prompt_lang,
            "method": "rank_classification" if rank else "generate",
            "data": {
                "name": items.name,
                "ident": items.ident,
                "path": items.path,
                "langs": list(items.langs),
                "limit": limit,
                "dropped": items.dropped,
                **items.meta,
            },
            "floor": {"statistic": "balanced_accuracy", "bound": "low", "value": floor},
            "n_resamples": n_resamples,
            "seed": boot_seed,
            "split": split,
            "calls": calls,
            "created": now_iso(),
            "bordir_version": __version__,
            "languages": per_lang,
            "items": rows,
        }
    )
