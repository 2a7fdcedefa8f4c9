"""How the parser read a reply: the rule that decided it, derived again at view time.

A run records each reply's outcome and choice but not which rule produced
them. :func:`explain_row` re-parses the raw reply with the run's policy and
format (the same functions the runner called) and names the rule; it also says
whether the re-parse gives the recorded outcome and choice, so a page never
shows a rule that did not decide the recorded answer without saying so.

* strict policy, direct format: :func:`bordir.generation.parse.strict.explain_strict`
  (leading choice, refusal, options named anywhere …);
* reference policy: BordIRLines' ``match_one_letter``, a reply equal to an option
  name, or unparsed (scored as option A by the reference table);
* citation format: the rule of the final ``Chosen Option:`` block;
* rank classification (``local/…``): the option log-likelihoods and the seeded
  softmax draw at the run's temperature (:func:`bordir.generation.choice.choose_option`);
* a failed call: its error;
* an echo (the reply copies its prompt or a document, :mod:`bordir.generation.parse.echo`): said so.

Example:
    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Crimea_ru")
    >>> explain_row(q, raw="Ответ — Б", outcome="answered", choice_position=1, policy="strict",
    ...             response_format="direct")
    ('strict 1: leading choice (an option letter at the start, after an answer label); matched «Б» → B', True)
    >>> explain_row(q, raw="", outcome="failed", choice_position=-1, policy="strict",
    ...             response_format="direct", error="HTTP 500")[0]
    'the call failed (no reply to parse): HTTP 500'
"""

from __future__ import annotations

from collections.abc import Sequence

from ..generation.parse import LETTERS
from ..generation.parse.strict import STRICT_RULES, explain_strict
from ..records import Query

__all__ = ["explain_row"]


def _letter(i: int) -> str:
    return LETTERS[i] if 0 <= i < len(LETTERS) else "?"


def _strict(text: str, query: Query) -> tuple[str, str, int]:
    parsed, rule = explain_strict(text, query)
    why = f"strict {STRICT_RULES[rule]}"
    if parsed.matched:
        why += f"; matched «{parsed.matched}»"
    if parsed.outcome == "answered":
        why += f" → {_letter(parsed.choice)}"
    return why, parsed.outcome, parsed.choice


def _reference(text: str, query: Query) -> tuple[str, str, int]:
    from ..generation.parse import match_one_letter

    answer = (text or "").strip()
    idx = match_one_letter(answer)
    if idx is not None and idx < len(query.options):
        return f"reference: match_one_letter → {_letter(idx)}", "answered", idx
    if answer in query.options:
        i = query.options.index(answer)
        return f"reference: the reply equals option {_letter(i)}'s name", "answered", i
    return (
        "reference: no letter and no exact option name → unparsed (the reference table scores it as A)",
        "unparsed",
        -1,
    )


def _citation(text: str, query: Query, policy: str, docs: Sequence[object]) -> tuple[str, str, int]:
    from ..generation.parse import parse_citation_response
    from ..generation.parse.citations import strip_prompt_echo
    from ..generation.parse.labels import clean
    from ..generation.parse.structured import response_fields

    parsed = parse_citation_response(text, query, len(docs), documents=docs, policy=policy)  # type: ignore[arg-type]
    a = parsed.answer
    if policy == "reference":
        why = "reference (citation format): the first 'Chosen Option:' up to 'Explanation:'"
    else:
        s = clean(strip_prompt_echo(text or "", docs) if docs else (text or ""))  # type: ignore[arg-type]
        fields = response_fields(s)
        if "chosen option" in fields:
            _, lo, hi = fields["chosen option"]
            inner, _, _ = _strict(s[lo:hi], query)
            why = f"citation format, final 'Chosen Option:' «{s[lo:hi].strip()[:80]}»: {inner}"
        else:
            inner, _, _ = _strict(s, query)
            why = f"citation format, no 'Chosen Option:' label, the text outside the explanation: {inner}"
    if parsed.cited:
        why += f"; cited documents {', '.join(map(str, parsed.cited))}"
    return why, a.outcome, a.choice


def explain_row(
    query: Query,
    *,
    raw: str,
    outcome: str,
    choice_position: int,
    policy: str,
    response_format: str,
    error: str | None = None,
    logprobs: Sequence[float] | None = None,
    temperature: float = 0.0,
    seed: int | None = None,
    documents: Sequence[object] = (),
) -> tuple[str, bool]:
    """The rule that decided one reply and whether re-deciding it gives the recorded answer.

    Args:
        query: the query as asked (permuted for a non-given option order).
        raw: the raw reply.
        outcome: the recorded outcome.
        choice_position: the recorded choice as a position in the asked order (-1 unless answered).
        policy: the run's parse policy.
        response_format: the run's response format.
        error: the call's error (failed rows).
        logprobs: rank classification: the option scores in the asked order.
        temperature: rank classification: the run's temperature.
        seed: rank classification: the row's seed.
        documents: the prompt's documents (citation format: echoes of them are removed first).

    Returns:
        ``(rule, agrees)``.
    """
    if outcome == "failed":
        return f"the call failed (no reply to parse): {error or 'no error recorded'}", True
    if outcome == "echo":  # decided with the whole prompt, which a view does not re-render
        return "echo: the reply is mostly a copy of its prompt or of a document (not parsed)", True
    if logprobs is not None:
        from ..generation.choice import choose_option

        lp = [float(x) for x in logprobs]
        pos = choose_option(lp, temperature, seed)
        scores = ", ".join(f"{_letter(i)} {x:.2f}" for i, x in enumerate(lp))
        how = (
            "argmax"
            if temperature <= 0
            else f"softmax draw at temperature {temperature:g}, seed {seed}"
        )
        return (
            f"rank classification: option log-likelihoods {scores} → {how} → {_letter(pos)}",
            outcome == "answered" and pos == choice_position,
        )
    if response_format == "citation":
        why, out, ch = _citation(raw, query, policy, documents)
    elif policy == "reference":
        why, out, ch = _reference(raw, query)
    else:
        why, out, ch = _strict(raw, query)
    return why, out == outcome and (out != "answered" or ch == choice_position)
