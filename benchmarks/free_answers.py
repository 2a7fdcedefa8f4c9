"""The free-answer resolver on the hand-written set: accuracy per language (≥ 95 %), every miss listed.

``tests/generation/free_answers/answers.jsonl`` holds free answers to the demo's queries, written by
hand as speakers of each language would answer the open question (hedges, both sides, de-facto-only
answers, negations, quotations of one side's claim, refusals, answers in another language, long
answers whose decisive sentence is last), each with the outcome (and claimant) it must resolve to.
This script resolves every one and prints the accuracy per answer language and per kind of answer,
then every miss: the answer, what was expected, what came out, with the rule and the evidence.

    python benchmarks/free_answers.py            # the table and the misses
    python benchmarks/free_answers.py --figures f.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _figures import Figure, add_options, report  # noqa: E402

SET = HERE.parent / "tests" / "generation" / "free_answers" / "answers.jsonl"
TARGET = 0.95


def load_set(path: Path = SET) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def evaluate(rows: list[dict[str, str]]) -> tuple[list[tuple[dict[str, str], object]], list[bool]]:
    """Resolve every row against the demo dataset; return (row, resolution) pairs and hits."""
    from bordir.generation.parse.free import FreeResolver
    from bordir.loaders import load_demo

    ds = load_demo()
    resolver = FreeResolver(ds)
    out, ok = [], []
    for row in rows:
        res = resolver.resolve(row["text"], ds.query(row["query_id"]))
        hit = res.outcome == row["expected"] and (
            row["expected"] not in ("claimant",) or res.claimant == row["claimant"]
        )
        out.append((row, res))
        ok.append(hit)
    return out, ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(ap)
    args = ap.parse_args()
    rows = load_set()
    results, ok = evaluate(rows)
    by_lang: dict[str, list[bool]] = defaultdict(list)
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for (row, _), hit in zip(results, ok):
        by_lang[row["answer_lang"]].append(hit)
        by_kind[row["kind"]].append(hit)
    print(f"{len(rows)} answers in {len(by_lang)} languages; accuracy per answer language:")
    for lang, hits in sorted(by_lang.items()):
        print(f"  {lang:4s} {sum(hits):3d}/{len(hits):3d}  {sum(hits) / len(hits):6.1%}")
    print("per kind of answer:")
    for kind, hits in sorted(by_kind.items()):
        print(f"  {kind:18s} {sum(hits):3d}/{len(hits):3d}  {sum(hits) / len(hits):6.1%}")
    misses = [(row, res) for (row, res), hit in zip(results, ok) if not hit]
    print(f"misses ({len(misses)}):")
    for row, res in misses:
        want = row["expected"] + (f" {row['claimant']}" if row["claimant"] else "")
        got = f"{res.outcome} {res.claimant}".strip()  # type: ignore[attr-defined]
        print(
            f"  {row['id']} [{row['kind']}] expected {want}, got {got} "
            f"(rule {res.rule}; {res.evidence}): {row['text'][:160]}"
        )  # type: ignore[attr-defined]
    figs = [
        Figure(
            f"resolver accuracy, {lang} ({len(hits)} answers)",
            sum(hits) / len(hits),
            "share",
            target=f"≥ {TARGET:.0%}",
            holds=sum(hits) / len(hits) >= TARGET,
        )
        for lang, hits in sorted(by_lang.items())
    ]
    figs.append(
        Figure(
            f"resolver accuracy, all ({len(rows)} answers)",
            sum(ok) / len(ok),
            "share",
            target=f"≥ {TARGET:.0%}",
            holds=sum(ok) / len(ok) >= TARGET,
        )
    )
    report("free_answers", figs, args)


if __name__ == "__main__":
    main()
