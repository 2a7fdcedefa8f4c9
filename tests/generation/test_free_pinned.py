"""Every answer of both hand-written sets keeps its exact outcome, claimant, rule and span.

The accuracy tests (``test_free_resolver.py``, ``test_free_heldout.py``) allow misses; this one
pins what the resolver says of each answer, so that a change meant to make it faster (or to tidy
it) cannot move one answer unnoticed. A change of the rules that moves answers on purpose
re-pins them: ``BORDIR_REPIN=1 pytest tests/generation/test_free_pinned.py`` rewrites
``free_answers/pinned.jsonl`` (review its diff: each moved answer is a line).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bordir.generation.parse.echo import PromptParts
from bordir.generation.parse.free import FreeResolver
from bordir.loaders import load_demo

HERE = Path(__file__).parent / "free_answers"
PINNED = HERE / "pinned.jsonl"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "borderlines"


def _rows() -> list[tuple[str, dict]]:
    out = []
    for name in ("answers", "heldout"):
        for line in (HERE / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line:
                out.append((name, json.loads(line)))
    return out


def _said(resolver: FreeResolver, row: dict) -> list:
    q = resolver.dataset.query(row["query_id"])
    prompt = None
    if row.get("documents"):
        base = resolver._prompt(q)
        prompt = PromptParts(system=base.system, user=base.user, documents=tuple(row["documents"]))
    r = resolver.resolve(row["text"], q, prompt=prompt)
    return [r.outcome, r.claimant, r.rule, list(r.span), r.evidence, r.country]


def test_every_answer_keeps_its_pinned_resolution():
    resolvers = {"demo": FreeResolver(load_demo())}
    if SHARED.is_dir():
        from bordir.loaders import load_borderlines

        resolvers["borderlines"] = FreeResolver(load_borderlines(SHARED))
    now = {}
    for name, row in _rows():
        ds = row.get("dataset", "demo")
        if ds in resolvers:
            now[f"{name}:{row['id']}"] = _said(resolvers[ds], row)
    if os.environ.get("BORDIR_REPIN") == "1":
        if "borderlines" not in resolvers:
            pytest.fail(f"re-pinning needs the BorderLines data at {SHARED}")
        PINNED.write_text(
            "".join(json.dumps([k, v], ensure_ascii=False) + "\n" for k, v in now.items()),
            encoding="utf-8",
        )
    pinned = dict(json.loads(line) for line in PINNED.read_text(encoding="utf-8").splitlines())
    assert set(now) <= set(pinned), f"answers without a pin: {sorted(set(now) - set(pinned))[:5]}"
    assert len(now) >= (len(pinned) if "borderlines" in resolvers else 300)
    moved = [(k, pinned[k], v) for k, v in now.items() if pinned[k] != v]
    assert not moved, (
        f"{len(moved)} answers moved (pinned, now): {moved[:5]}; if on purpose, re-pin with "
        "BORDIR_REPIN=1 (see the module docs)"
    )
