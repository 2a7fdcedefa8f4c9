"""The explorer's section for an open run: every free answer, the span that decided it, and its forced twin.

:func:`free_section` renders one table row per free answer of the run (up to :data:`MAX_ROWS`):
the query, mode and run; the resolver's outcome, claimant and rule; the answer text with the
deciding span marked (``<mark>``); and the forced (direct-format) answer to the same question
from the run's forced twin (``forced/``), with whether the two name the same country. The page is
static: the section is plain HTML after the explorer's own sections, every value escaped.

Example:
    >>> html = _answer_html("Crimea is Ukrainian <b>territory</b>.", (10, 38))
    >>> html
    'Crimea is <mark>Ukrainian &lt;b&gt;territory&lt;/b&gt;.</mark>'
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pandas as pd

from ..experiment.rundir import read_run_dir
from ..experiment.twin import twin_dir

__all__ = ["free_section", "MAX_ROWS"]

MAX_ROWS = 5_000
"""The most free answers the static section lists (a larger run: ``bordir score free`` on its answers)."""
_KEYS = ["model", "mode", "query_id", "run"]


def _answer_html(text: str, span: tuple[int, int]) -> str:
    a, b = span
    if not text:
        return '<span class="muted">(empty)</span>'
    if b <= a:
        return html.escape(text)
    return f"{html.escape(text[:a])}<mark>{html.escape(text[a:b])}</mark>{html.escape(text[b:])}"


def _as_recorded(resolver: Any, r: Any, q: Any) -> tuple[str, str, str, tuple[int, int], int]:
    """``(outcome, claimant, rule, span, index)`` of a row as the run counted it.

    The run resolved each answer with its prompt and documents (an answer that copies them is
    ``echo``); the page re-resolves the text alone to find the deciding span, and shows it only
    when it agrees with what the run recorded — else the recorded outcome, without a span.
    """
    res = resolver.resolve(r.raw_text, q)
    recorded = "claimant" if r.outcome == "answered" else str(r.outcome)
    choice = int(r.choice) if r.choice is not None and r.choice == r.choice else -1
    if res.outcome == recorded and (recorded != "claimant" or res.index == choice):
        return res.outcome, res.claimant, res.rule, res.span, res.index
    claimant = (
        q.claimants[choice] if recorded == "claimant" and 0 <= choice < len(q.claimants) else ""
    )
    rule = "echo of the prompt or its documents" if recorded == "echo" else "as the run recorded it"
    return recorded, claimant, rule, (-1, -1), choice


def free_section(run_dir: str | Path) -> str:
    """The HTML section of the open run in ``run_dir`` (see the module docs)."""
    from ..generation.parse.free import resolver_for

    path = Path(run_dir)
    run = read_run_dir(path)
    cols = [*_KEYS, "query_lang", "outcome", "choice", "raw_text"]
    free = pd.read_parquet(path / "responses.parquet", columns=cols)
    twin = twin_dir(path)
    forced = None
    if twin is not None:
        forced = pd.read_parquet(
            twin / "responses.parquet", columns=[*_KEYS, "outcome", "choice", "raw_text"]
        )
        forced = forced.rename(
            columns={"outcome": "f_outcome", "choice": "f_choice", "raw_text": "f_text"}
        )
        free = free.merge(forced, on=_KEYS, how="left")
    shown = free.head(MAX_ROWS)
    resolver = resolver_for(run.dataset)
    e = html.escape
    rows = []
    for r in shown.itertuples(index=False):
        q = run.dataset.query(r.query_id)
        outcome, claimant, rule, span, index = _as_recorded(resolver, r, q)
        twin_cell, same = "–", "–"
        if forced is not None and isinstance(getattr(r, "f_outcome", None), str):
            f_choice = int(r.f_choice)
            named = (
                q.claimants[f_choice]
                if r.f_outcome == "answered" and f_choice >= 0
                else r.f_outcome
            )
            twin_cell = (
                f'{e(str(named))} <span class="muted">({e(str(r.f_text or "")[:80])})</span>'
            )
            if outcome == "claimant" and r.f_outcome == "answered" and f_choice >= 0:
                same = "same" if index == f_choice else "switch"
        rows.append(
            "<tr>"
            f"<td>{e(r.query_id)}</td><td>{e(str(r.query_lang))}</td><td>{e(str(r.mode))}</td>"
            f"<td>{e(str(r.run))}</td><td>{e(outcome)}</td><td>{e(claimant)}</td>"
            f'<td>{e(rule)}</td><td class="free-answer">{_answer_html(r.raw_text or "", span)}</td>'
            f"<td>{twin_cell}</td><td>{e(same)}</td>"
            "</tr>"
        )
    more = (
        f'<p class="muted">The first {MAX_ROWS:,} of {len(free):,} answers.</p>'
        if len(free) > MAX_ROWS
        else ""
    )
    no_twin = (
        ""
        if forced is not None
        else '<p class="muted">No forced twin (forced/) beside this run.</p>'
    )
    return (
        '<section id="sec-free"><h2>Free answers and their forced twins</h2>'
        '<p class="muted">Each free answer with the span that decided its outcome marked, and the '
        "forced (multiple-choice) answer to the same question, documents and seed.</p>"
        f"{no_twin}{more}"
        '<table id="free-answers"><thead><tr><th>query</th><th>lang</th><th>mode</th><th>run</th>'
        "<th>outcome</th><th>claimant</th><th>rule</th><th>free answer</th><th>forced twin</th>"
        "<th>same?</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table></section>"
    )
