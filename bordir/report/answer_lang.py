"""The report's answer-language section: is the answer in the query's language, and CS on those answers only.

For runs with free-text answers (generated direct or citation answers; rank
classification writes no text), :func:`answer_lang_section` detects every
answer's language (:mod:`bordir.metrics.answer_lang`), writes
``tables/answer_lang.{md,tex,csv}`` (per model × mode × query language: shares in
the query's language, English, other, and the mismatch rate) and
``tables/answer_lang_cs.csv`` (CS metrics on answers in the query's language), and
returns the JSON (key ``answer_lang``) and the HTML section.
"""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from .._io.json_write import jsonable
from ..citations.tables import pct
from ..experiment.rundir import RESPONSES_FILE, RunDir
from ..stats.rate import format_rate
from .orders import Section
from .tables import Table

__all__ = ["answer_lang_section"]

_SHOWN = ("kb_cs", "cst_cs", "delta_cs")


def answer_lang_section(run: RunDir, out: Path) -> Section:
    """Compute and write the answer-language section (see the module docs)."""
    from ..metrics.answer_lang import detect_answers, in_language_metrics, language_shares
    from ..metrics.order.items import given_order

    head = '<h2 id="answer-language">Answer language</h2>'
    resp = given_order(pd.read_parquet(run.path / RESPONSES_FILE))
    resp = resp[resp["model"].isin(run.models)]
    if "raw_text" not in resp.columns:
        return Section({"answer_lang": None}, head + "<p>The responses have no answer text.</p>")
    from ..errors import MissingExtraError

    try:
        det = detect_answers(resp)
    except MissingExtraError as exc:  # langdetect is in the audit / wiki extras, not in stats
        return Section(
            {"answer_lang": None}, head + f"<p>Not computed: {html.escape(str(exc))}</p>"
        )
    if (det["answer_lang_class"] == "n/a").all():
        return Section(
            {"answer_lang": None},
            head + "<p>Not applicable: every answer was chosen by rank "
            "classification (the model scored the options and wrote no text).</p>",
        )
    shares = language_shares(det)
    rows = tuple(
        (
            str(r.model),
            str(r.mode),
            str(r.query_lang),
            str(r.n_answers),
            pct(r.share_query),
            pct(r.share_en),
            pct(r.share_other),
            format_rate(
                r.mismatch_rate, r.mismatch_low, r.mismatch_high, too_few=r.mismatch_too_few
            ),
            str(r.n_short),
            str(r.n_und + r.n_unsupported),
        )
        for r in shares.itertuples()
    )
    table = Table(
        "answer_lang",
        "Language of the free-text answers (×100 of the answers whose language was "
        "checked): in the query's language, in English, in another language; mismatch = English + other, "
        "with its 95 % interval (continuity-corrected Wilson over territories; 'too few to judge' "
        "below 10). "
        "Too short: fewer letters than the script needs for a trusted detection (30 Latin, 25 "
        "Cyrillic or Devanagari, 20 Japanese, 8 Arabic or Han, 4 Greek or Hebrew: bordir.langid.short), "
        "not checked. Not checked: nothing to detect, or a query language langdetect has no profile for. Detector: "
        "bordir.langid.check.detect (seeded langdetect with script priors).",
        (
            "Model",
            "Mode",
            "Query lang",
            "Answers",
            "Query lang %",
            "English %",
            "Other %",
            "Mismatch % [95% CI]",
            "Too short",
            "Not checked",
        ),
        rows,
        shares.copy(),
        left=3,
    )
    files = list(table.write(out / "tables"))
    cs = in_language_metrics(det, run.dataset)
    p = out / "tables" / "answer_lang_cs.csv"
    cs.to_csv(p, index=False)
    files.append(p)
    pooled = shares[shares["query_lang"] == "*"]
    e = html.escape
    lead = "".join(
        f"<p><strong>{e(str(r.model))} {e(str(r.mode))}: "
        f"{e(format_rate(r.mismatch_rate, r.mismatch_low, r.mismatch_high, too_few=r.mismatch_too_few))}"
        " % of the answers are not in the query's language.</strong></p>"
        for r in pooled.itertuples()
    )
    wide = cs[cs["metric"].isin(_SHOWN)].pivot_table(
        index=["model", "mode"], columns="metric", values="value", aggfunc="first", dropna=False
    )
    cs_rows = tuple(
        (str(m), str(mode), *(pct(r.get(k)) for k in _SHOWN)) for (m, mode), r in wide.iterrows()
    )
    cs_table = Table(
        "answer_lang_cs",
        "CS ×100 counting only answers in the query's language (others missing, "
        "strict policy; mean over runs).",
        ("Model", "Mode", "KB CS", "Cst CS", "ΔCS"),
        cs_rows,
        cs,
    )
    if run.config.response_format == "citation":
        lead += (
            "<p>Note: the citation prompt asks for the explanation in English "
            "(<code>templates/citation.txt</code>), so English answers are what it asked for here.</p>"
        )
    return Section(
        {
            "answer_lang": {
                "shares": jsonable(shares.to_dict(orient="records")),
                "in_language_cs": jsonable(cs.to_dict(orient="records")),
            }
        },
        "\n".join([head, lead, table.to_html(), cs_table.to_html()]),
        tuple(files),
    )
