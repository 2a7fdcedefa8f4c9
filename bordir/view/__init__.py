"""``bordir view``: a per-sample explorer of runs, testbeds, test runs and audits, in the browser.

:func:`write_view` writes ``DIR/view.html``, one self-contained page (CSS,
JavaScript and data inline: it opens from ``file://``, offline) for

* a run directory (``bordir run``): the **territory matrix** (per territory,
  query languages × modes, each cell the answer chosen, coloured per claimant,
  the controller marked, k of n agreement over runs and option orders; a model
  selector and a second model as a diff), the **sample table** (facets, full-text
  search over replies, sorting, counts that follow the filters, the state in the
  URL) and the **sample panel** (the prompt as sent, the documents with language,
  title, revision, rank and score, the cited ones marked, the raw reply, the
  parser's rule, the option order, the cache key, tokens, cost, latency and
  signature), with the numbers recomputed from exactly the rows on screen;
* a testbed directory (``bordir testbed``): items per setting and noise rate with
  their labels under both policies;
* a test run (``bordir testrun`` + ``bordir judge``): generated tests with their
  source chunk, the answer, the judge's verdicts and repeat disagreement;
* an audit output (``bordir audit``): the cells, flagged first, with the records
  behind the flagged cells and their citations by language.

Which page a directory gets is the kind its record names (:data:`~bordir.view.dispatch.VIEWS`).
A run larger than :data:`STATIC_MAX_ROWS` rows is served instead
(:func:`serve_view`, ``bordir view DIR --serve``): the same page, paged through
the run's Parquet files on 127.0.0.1. :func:`view_link` builds the links the
report's metric cells carry.

Example:
    >>> view_link(model="mock/first", mode=["qlang", "no_ir"], metric="cs:kb_cs")
    'view.html#metric=cs%3Akb_cs&model=mock%2Ffirst&mode=qlang,no_ir'
"""

from __future__ import annotations

from .dispatch import VIEWS, ViewKind, view_of
from .links import view_link
from .notebook import show
from .server import ViewServer, serve_view
from .write import STATIC_MAX_ROWS, VIEW_FILE, view_rows, write_view

__all__ = [
    "STATIC_MAX_ROWS",
    "VIEW_FILE",
    "VIEWS",
    "ViewKind",
    "ViewServer",
    "serve_view",
    "show",
    "view_link",
    "view_of",
    "view_rows",
    "write_view",
]
