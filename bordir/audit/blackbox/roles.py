"""The claimants of territorial answers as integer codes: one slot per answer × claimant, and the role of each cited URL.

An answer about a territory lists its claimant countries (and optionally their languages). Its
**slots** (:class:`Slots`) are its claimants in order, each marked ``own`` when it is a claimant
whose language is the query's (:func:`own_claimants`: the log's claimant languages, else the
country's official languages). A URL of such an answer is ``own_claimant`` (0),
``other_claimant`` (1), ``non_claimant`` (2) or ``unattributed`` (3, no country)
(:func:`url_roles`); a URL whose country fills several slots of its answer (a country listed
twice) is counted once per slot, as each slot is a row of the claimant tables.

Example:
    >>> import pyarrow as pa
    >>> answers = pa.table({"claimants": [["RU", "UA"], []], "claimant_langs": [["ru", "uk"], []],
    ...                     "query_lang": ["uk", "en"]})
    >>> s = claimant_slots(answers)
    >>> s.answer.tolist(), [s.countries[c] for c in s.country], s.own.tolist()
    ([0, 0], ['RU', 'UA'], [False, True])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .codes import as_array, factorize, list_lengths
from .countries import countries

__all__ = ["Slots", "claimant_slots", "own_claimants", "url_roles", "pair_lookup"]


def own_claimants(claimants: list[str], clangs: list[str], qlang: str) -> set[str]:
    """The claimants whose language is the query's (``clangs`` aligned, else the countries' official languages)."""
    if clangs and len(clangs) == len(claimants):
        return {c for c, lang in zip(claimants, clangs) if lang == qlang}
    table = countries()
    return {c for c in claimants if c in table and qlang in table[c].langs}


@dataclass(frozen=True)
class Slots:
    """Every answer × claimant: the answer's row, the country (a code into ``countries``), whether it is ``own``."""

    answer: np.ndarray
    country: np.ndarray
    own: np.ndarray
    countries: list[str]


def claimant_slots(answers: pa.Table) -> Slots:
    """The slots of every answer with claimants (see the module docs), in answer and claimant order."""
    claim = as_array(answers["claimants"])
    c_len = list_lengths(claim)
    s_answer = np.repeat(np.arange(answers.num_rows, dtype=np.int64), c_len)
    country, labels = factorize(pc.list_flatten(claim))
    if not len(s_answer):
        return Slots(s_answer, country, np.zeros(0, dtype=bool), labels)
    qcodes, qlangs = factorize(answers["query_lang"])
    clangs = as_array(answers["claimant_langs"])
    cl_len = list_lengths(clangs)
    given = (cl_len > 0) & (cl_len == c_len)  # the log's claimant languages, one per claimant
    s_given = given[s_answer]
    s_q = qcodes[s_answer]
    own = np.zeros(len(s_answer), dtype=bool)
    if s_given.any():
        flat = pc.list_flatten(clangs.filter(pa.array(given)))
        lang_of = {q: i for i, q in enumerate(qlangs)}
        lcodes = np.array(
            [lang_of.get(x, -2) if x is not None else -2 for x in flat.to_pylist()], dtype=np.int64
        )
        own[s_given] = lcodes == s_q[s_given]
    table = countries()
    pairs = np.flatnonzero(~s_given)
    if len(pairs):  # the official languages: each distinct (country, query language) once
        key = country[pairs] * (len(qlangs) + 1) + (s_q[pairs] + 1)
        uniq, inv = np.unique(key, return_inverse=True)

        def official(k: int) -> bool:
            c, q = labels[k // (len(qlangs) + 1)], k % (len(qlangs) + 1) - 1
            return c in table and q >= 0 and qlangs[q] in table[c].langs

        verdict = np.array([official(k) for k in uniq.tolist()], dtype=bool)
        own[pairs] = verdict[inv]
    # a country listed twice in one answer is own when either of its slots is
    key = s_answer * max(len(labels), 1) + country
    uniq, inv = np.unique(key, return_inverse=True)
    if len(uniq) < len(key):
        own = (np.bincount(inv, weights=own, minlength=len(uniq)) > 0)[inv]
    return Slots(s_answer, country, own, labels)


def pair_lookup(
    keys: np.ndarray, values: np.ndarray, query: np.ndarray, default: int
) -> np.ndarray:
    """``values`` at each of ``query`` among ``keys`` (sorted, distinct), ``default`` where absent."""
    if not len(keys):
        return np.full(len(query), default, dtype=np.int64)
    at = np.searchsorted(keys, query)
    at_c = np.minimum(at, len(keys) - 1)
    found = keys[at_c] == query
    return np.where(found, values[at_c], default)


def url_roles(
    slots: Slots,
    n_answers: int,
    url_answer: np.ndarray,
    url_country: np.ndarray,
    url_labels: list[str],
) -> tuple[np.ndarray, np.ndarray]:
    """``(url rows, role codes)`` of the URLs of answers with claimants; a URL once per slot its country fills."""
    if not len(slots.answer) or not len(url_answer):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    has = np.zeros(n_answers, dtype=bool)
    has[slots.answer] = True
    urows = np.flatnonzero(has[url_answer])
    index = {c: i for i, c in enumerate(slots.countries)}
    to_slot = np.array([index.get(c, -1) for c in url_labels] + [-1], dtype=np.int64)
    role = np.array([3 if c == "unattributed" else 2 for c in url_labels] + [2], dtype=np.int8)
    uc = url_country[urows]
    code = role[uc]  # unattributed, else a country that is no claimant ...
    sel = np.flatnonzero(to_slot[uc] >= 0)  # ... unless it is one of the answer's claimants
    width = max(len(slots.countries), 1)
    skey = slots.answer * width + slots.country
    uniq, first, counts = np.unique(skey, return_index=True, return_counts=True)
    ukey = url_answer[urows[sel]].astype(np.int64) * width + to_slot[uc[sel]]
    mult = pair_lookup(uniq, counts, ukey, 0)
    own = pair_lookup(uniq, slots.own[first].astype(np.int64), ukey, 0)
    code[sel] = np.where(mult == 0, 2, np.where(own > 0, 0, 1))
    if not (mult > 1).any():
        return urows, code
    times = np.ones(len(urows), dtype=np.int64)
    times[sel] = np.maximum(mult, 1)
    return np.repeat(urows, times), np.repeat(code, times)
