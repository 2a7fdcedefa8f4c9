"""The summary a report of a testbed, a test run or an audit leads with, as HTML.

Each kind of output builds its own two lists — the findings that hold and what cannot be judged, and
why (:func:`bordir.testbeds.lead.summarize_testbed`, :func:`bordir.testgen.lead.summarize_test_run`,
:func:`bordir.audit.lead.summarize_audit`) — and, for a testbed, a headline table; :func:`lead_html`
renders them as the ``<section id="summary">`` the experiment report opens with
(:func:`bordir.report.summary.summary_html`), in its style. Every text is escaped.

Example:
    >>> print(lead_html({"findings": ["a <b>"], "cannot_judge": []}))  # doctest: +ELLIPSIS
    <section id="summary" class="summary"><h2 id="summary-findings">Summary</h2>...<li>a &lt;b&gt;</li>...
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["lead_html"]


def _ul(items: Sequence[str], cls: str) -> str:
    if not items:
        return '<p class="none">None.</p>'
    return f'<ul class="{cls}">' + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"


def lead_html(lead: Mapping[str, Any], *, headline_title: str = "Headline") -> str:
    """The summary section of ``lead`` (``findings``, ``cannot_judge``; ``headers`` / ``headline`` rows)."""
    e = html.escape
    parts = [
        '<section id="summary" class="summary"><h2 id="summary-findings">Summary</h2>',
        "<h3>Findings that hold</h3>",
        _ul(lead.get("findings") or [], "findings"),
    ]
    rows = lead.get("headline") or []
    if rows:
        heads = lead.get("headers") or []
        parts.append(f"<h3>{e(headline_title)}</h3>")
        parts.append(
            '<table class="data" id="table-lead"><thead><tr>'
            + "".join(f'<th class="t">{e(str(h))}</th>' for h in heads)
            + "</tr></thead><tbody>"
            + "".join(
                "<tr>" + "".join(f'<td class="t">{e(str(v))}</td>' for v in r) + "</tr>"
                for r in rows
            )
            + "</tbody></table>"
        )
    parts += [
        "<h3>What cannot be judged, and why</h3>",
        _ul(lead.get("cannot_judge") or [], "cannot"),
        "</section>",
    ]
    return "".join(parts)
