"""How much to trust the judge: repeat agreement, majority votes over repeats and judges, judge invariance.

Input: the judgment rows of :func:`~bordir.testgen.judge.judge_answers` (one
per config × test × judge × prompt language × repeat). A **unit** is one
(config, test): one answer.

* :func:`final_verdicts` — one verdict per unit from the primary prompt
  language: each judge's majority over its repeats, then the majority over
  judges. Outcomes: ``pass``, ``fail``, ``tie`` (as many passes as fails: no
  verdict), ``unparsed`` (no repeat of any judge parsed), ``failed`` (the judge
  calls failed), ``no_answer`` (the system gave none), ``echo`` (its answer copies its
  prompt, :mod:`~bordir.testgen.echoes`: not judged). Only ``pass`` and
  ``fail`` enter failure rates; the others are counted, never passes.
* :func:`repeat_agreement` — per judge and prompt language, agreement of the
  repeats on the verdict and on each criterion: Krippendorff's α (nominal;
  units = answers, coders = repeats, unparsed = missing) and, for two or more
  repeats, the mean pairwise Cohen's κ, both from :mod:`bordir.stats`.
* :func:`judge_agreement` — the same across judges (repeat 0, primary language).
* :func:`invariance` — the same answer judged with the judge prompt in several
  languages (judge by judge, repeat 0): the **disagreement rate** (share of
  answers whose verdicts differ between languages, among answers with a
  verdict in at least two languages) with a Wilson interval, per language pair,
  and α across languages.

Every result carries a :class:`~bordir.signature.Signature`.

Example:
    >>> rows = [{"config": "c", "test_id": t, "judge": "j", "prompt_lang": l, "repeat": 0, "verdict": v,
    ...          "outcome": "judged"} for t, l, v in [("a", "en", "pass"), ("a", "ru", "fail"),
    ...                                               ("b", "en", "fail"), ("b", "ru", "fail")]]
    >>> inv = invariance(rows)
    >>> inv["disagreement"], inv["units"], inv["pairs"]["en~ru"]["disagreement"]
    (0.5, 2, 0.5)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from .._version import __version__
from ..signature import Signature
from ..stats import ci_name, cohen_kappa, krippendorff_alpha, plurality, proportion_ci
from .oracle import CRITERIA

__all__ = ["majority", "final_verdicts", "repeat_agreement", "judge_agreement", "invariance"]

Unit = tuple[str, str]


def majority(verdicts: Sequence[str | None]) -> str | None:
    """``pass``/``fail`` by majority of the non-None verdicts; ``tie`` on a tie; None if there are none.

    >>> majority(["pass", "fail", "fail", None]), majority(["pass", "fail"]), majority([None])
    ('fail', 'tie', None)
    """
    winner, n = plurality([v for v in verdicts if v in ("pass", "fail")])
    if not n:
        return None
    return winner if winner is not None else "tie"


def _primary(rows: Sequence[dict[str, Any]], lang: str | None) -> str:
    return lang or (rows[0]["prompt_lang"] if rows else "en")


def final_verdicts(
    judgments: Sequence[dict[str, Any]], *, prompt_lang: str | None = None
) -> dict[Unit, dict[str, Any]]:
    """One verdict per (config, test) (see module docs): ``{"verdict", "votes", "outcomes"}``."""
    lang = _primary(judgments, prompt_lang)
    per: dict[Unit, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for r in judgments:
        if r["prompt_lang"] == lang:
            per[(r["config"], r["test_id"])][r["judge"]].append(r)
    out: dict[Unit, dict[str, Any]] = {}
    for unit, by_judge in per.items():
        judge_votes = {}
        outcomes: Counter[str] = Counter()
        for judge, rs in by_judge.items():
            outcomes.update(x["outcome"] for x in rs)
            judge_votes[judge] = majority([x.get("verdict") for x in rs])
        decided = [v for v in judge_votes.values() if v in ("pass", "fail")]
        final = majority(decided) if decided else None
        if final is None:
            if any(v == "tie" for v in judge_votes.values()):
                final = "tie"
            elif outcomes["echo"]:
                final = "echo"
            elif outcomes["no_answer"]:
                final = "no_answer"
            elif outcomes["unparsed"]:
                final = "unparsed"
            else:
                final = "failed"
        out[unit] = {"verdict": final, "votes": judge_votes, "outcomes": dict(outcomes)}
    return out


def _agreement(units: dict[Any, dict[Any, str | None]], coders: Sequence[Any]) -> dict[str, Any]:
    table = [[u.get(c) for c in coders] for u in units.values()]
    alpha = krippendorff_alpha(table) if table else None
    kappas = []
    for a, b in combinations(range(len(coders)), 2):
        pairs = [(row[a], row[b]) for row in table if row[a] is not None and row[b] is not None]
        if pairs:
            k = cohen_kappa([p[0] for p in pairs], [p[1] for p in pairs])
            if k is not None:
                kappas.append(k)
    full = sum(1 for row in table if all(v is not None for v in row))
    agree = sum(1 for row in table if all(v is not None for v in row) and len(set(row)) == 1)
    return {
        "alpha": alpha,
        "kappa_mean": sum(kappas) / len(kappas) if kappas else None,
        "units": len(table),
        "complete_units": full,
        "percent_agreement": agree / full if full else None,
    }


def repeat_agreement(judgments: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Agreement of repeats, per judge × prompt language × (verdict and each criterion)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in judgments:
        groups[(r["judge"], r["prompt_lang"])].append(r)
    out = []
    for (judge, lang), rs in sorted(groups.items()):
        repeats = sorted({r["repeat"] for r in rs})
        for what in ("verdict", *CRITERIA):
            units: dict[Unit, dict[int, str | None]] = defaultdict(dict)
            for r in rs:
                units[(r["config"], r["test_id"])][r["repeat"]] = r.get(what)
            res = _agreement(units, repeats)
            sig = Signature.build(
                "judge_repeat_agreement",
                judge=judge,
                prompt_lang=lang,
                of=what,
                repeats=len(repeats),
                stat="kalpha_nominal",
                version=__version__,
            )
            out.append(
                {
                    "judge": judge,
                    "prompt_lang": lang,
                    "of": what,
                    "repeats": len(repeats),
                    **res,
                    "signature": str(sig),
                }
            )
    return out


def judge_agreement(
    judgments: Sequence[dict[str, Any]], *, prompt_lang: str | None = None
) -> dict[str, Any]:
    """Agreement of different judges on the verdict (repeat 0, primary prompt language)."""
    lang = _primary(judgments, prompt_lang)
    judges = sorted({r["judge"] for r in judgments})
    units: dict[Unit, dict[str, str | None]] = defaultdict(dict)
    for r in judgments:
        if r["prompt_lang"] == lang and r["repeat"] == 0:
            units[(r["config"], r["test_id"])][r["judge"]] = r.get("verdict")
    res = (
        _agreement(units, judges)
        if len(judges) > 1
        else {"alpha": None, "kappa_mean": None, "units": len(units)}
    )
    sig = Signature.build(
        "judge_agreement",
        judges="+".join(judges),
        prompt_lang=lang,
        stat="kalpha_nominal",
        version=__version__,
    )
    return {"judges": judges, **res, "signature": str(sig)}


def invariance(judgments: Sequence[dict[str, Any]], *, conf: float = 0.95) -> dict[str, Any]:
    """Judge invariance across prompt languages (see module docs)."""
    langs = sorted({r["prompt_lang"] for r in judgments})
    units: dict[tuple[str, str, str], dict[str, str | None]] = defaultdict(dict)
    unparsed: Counter[str] = Counter()
    for r in judgments:
        if r.get("repeat", 0) != 0:
            continue
        units[(r["judge"], r["config"], r["test_id"])][r["prompt_lang"]] = r.get("verdict")
        unparsed[r["prompt_lang"]] += r.get("outcome") == "unparsed"
    decided = [u for u in units.values() if sum(v is not None for v in u.values()) >= 2]
    differ = sum(1 for u in decided if len({v for v in u.values() if v is not None}) > 1)
    lo, hi = proportion_ci(differ, len(decided), method="wilsoncc", conf=conf)
    pairs = {}
    for a, b in combinations(langs, 2):
        both = [u for u in units.values() if u.get(a) is not None and u.get(b) is not None]
        d = sum(1 for u in both if u[a] != u[b])
        plo, phi = proportion_ci(d, len(both), method="wilsoncc", conf=conf)
        pairs[f"{a}~{b}"] = {
            "disagreement": d / len(both) if both else None,
            "units": len(both),
            "ci": [plo, phi],
        }
    judges = sorted({r["judge"] for r in judgments})
    alpha = _agreement({k: v for k, v in units.items()}, langs)["alpha"] if len(langs) > 1 else None
    sig = Signature.build(
        "judge_invariance",
        judges="+".join(judges),
        langs="+".join(langs),
        ci=ci_name("wilsoncc", conf),
        stat="disagreement",
        version=__version__,
    )
    return {
        "langs": langs,
        "disagreement": differ / len(decided) if decided else None,
        "units": len(decided),
        "differing": differ,
        "ci": [lo, hi],
        "alpha": alpha,
        "pairs": pairs,
        "unparsed_by_lang": dict(unparsed),
        "signature": str(sig),
    }
