"""Links from a number to the samples behind it: ``view.html#key=value&…``.

The keys are the page's filter keys (the facets: ``territory``, ``lang``,
``mode``, ``model``, ``run``, ``order``, ``outcome``, ``answer``, ``agree``,
``role``, ``cited`` for a run; the testbed facets for a testbed) and the
page state: ``metric`` (which number to recompute from the rows on screen)
and ``expect`` (the value the report shows, so the page can say whether the
rows on screen give it). A value list is joined by commas, each value
percent-encoded.

Metric specs: ``cs:<metric>`` (a CS metric of one model and mode, mean over
runs), ``cmp:<metric>:<a>:<b>`` (a paired mode comparison), ``pl:<measure>:<a>:<b>:<lang>``
(a per-language comparison), ``cit:<doc_lang>:rate|ratio`` (a citation cell),
``tb:<metric>:<policy>`` (a testbed rate).

Example:
    >>> view_link(model="m/x", lang="ru", metric="cs:kb_cs", expect=0.5, target="../run/view.html")
    '../run/view.html#metric=cs%3Akb_cs&expect=0.5&model=m%2Fx&lang=ru'
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

__all__ = ["view_link", "STATE_KEYS"]

STATE_KEYS: tuple[str, ...] = ("tab", "metric", "expect")
"""Page-state keys a link may set (besides the facets)."""


def _q(v: object) -> str:
    return quote(str(v), safe="")


def view_link(
    *,
    target: str = "view.html",
    metric: str | None = None,
    expect: float | None = None,
    tab: str | None = None,
    **filters: str | int | float | Sequence[str] | None,
) -> str:
    """The link to ``target`` filtered by ``filters`` (facet key → value or values; None: no filter)."""
    parts = []
    if tab:
        parts.append(f"tab={_q(tab)}")
    if metric:
        parts.append(f"metric={_q(metric)}")
    if expect is not None and expect == expect:  # NaN: the report shows n/a
        parts.append(f"expect={_q(repr(float(expect)))}")
    for key, value in filters.items():
        if value is None:
            continue
        values = [value] if isinstance(value, (str, int, float)) else list(value)
        parts.append(f"{key}=" + ",".join(_q(v) for v in values))
    return f"{target}#" + "&".join(parts)
