"""The vectorised CS engine: per-territory sufficient statistics of many territories at once.

:func:`territory_stats` (:mod:`~bordir.metrics.cs.territory`) defines one
territory's statistics with a Python loop over its answers. This module computes
the same columns for a whole long table of territories (every territory of every
(model, mode, run), or every row of a BorderLines response table) with numpy
group-bys over integer codes, so scoring a million responses is a few sorts and
``bincount`` calls instead of a million Python iterations.

The input is one row per **entry** (a ``Responses_d`` item after
:func:`~bordir.metrics.cs.territory.fix_responses_d`) and one row per
**segment** (a territory row). Answers are integer codes of their strings, so
``code == code`` is ``str == str``; a missing answer (strict policy) has any code
and ``missing`` set. :func:`entry_columns` and :func:`segment_columns` return the
columns of :data:`~bordir.metrics.cs.territory.ITEM_COLUMNS` and
:data:`~bordir.metrics.cs.territory.TERRITORY_COLUMNS` that depend on the answers.

Example (two territories: X controlled by ``A`` (code 0) with answers A, B, A in
its languages ``a`` (the controller's), ``b``, ``c``; Y with an Unknown controller)::

    >>> import numpy as np
    >>> seg = np.array([0, 0, 0, 1, 1])
    >>> cols = segment_columns(
    ...     n_segments=2, seg=seg, value=np.array([0, 1, 0, 2, 2]),
    ...     missing=np.zeros(5, bool), controller_lang=np.array([True, False, False, False, False]),
    ...     is_en=np.zeros(5, bool), known=np.array([True, False]), controller=np.array([0, 3]),
    ...     response_en=np.array([0, 2]), response_en_missing=np.array([False, False]))
    >>> {k: cols[k].tolist() for k in ("kb_num", "control_num", "nc_agree", "nc_n", "cst_agree", "cst_pairs", "rc_n")}
    {'kb_num': [1.0, 0.0], 'control_num': [1.0, 0.0], 'nc_agree': [1, 0], 'nc_n': [2, 0], 'cst_agree': [1, 1], 'cst_pairs': [3, 1], 'rc_n': [2, 1]}
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

__all__ = ["segment_columns", "entry_columns", "segment_starts"]


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` where ``den > 0``, else 0.0 (each quotient as Python's ``int / int``)."""
    out = np.zeros(len(num))
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


class _KeyCounts:
    """How often each ``(segment, value)`` key occurs, a key being ``segment · width + value + 1``.

    A small key space is counted with ``bincount`` into a dense array (a key's count is one
    lookup); a large one is sorted (``np.unique``) and looked up by binary search.
    """

    def __init__(self, keys: np.ndarray, space: int, *, lookup: bool = False) -> None:
        self.dense = space <= 4 * len(keys) + (1 << 20)
        self.counts: np.ndarray | None = None
        if self.dense:
            counts = np.bincount(keys, minlength=space)
            self.keys = np.flatnonzero(counts)
            self.multiplicity = counts[self.keys]
            self.counts = counts if lookup else None  # a dense array as long as the key space
        else:
            self.keys, self.multiplicity = np.unique(keys, return_counts=True)

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """Per key, whether it occurs (the dense counts are kept only with ``lookup=True``)."""
        if self.counts is not None:
            return cast("np.ndarray", self.counts[keys] > 0)
        idx = np.searchsorted(self.keys, keys)
        inside = idx < len(self.keys)
        out = np.zeros(len(keys), dtype=bool)
        out[inside] = self.keys[idx[inside]] == keys[inside]
        return out


def segment_starts(keys: np.ndarray) -> np.ndarray:
    """Positions where a sorted key array changes, with 0 first and ``len(keys)`` last.

    >>> segment_starts(np.array([3, 3, 5, 7, 7])).tolist()
    [0, 2, 3, 5]
    """
    if len(keys) == 0:
        return np.zeros(1, dtype=np.int64)
    change = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    return np.concatenate([[0], change, [len(keys)]]).astype(np.int64)


def segment_columns(
    *,
    n_segments: int,
    seg: np.ndarray,
    value: np.ndarray,
    missing: np.ndarray,
    controller_lang: np.ndarray,
    is_en: np.ndarray,
    known: np.ndarray,
    controller: np.ndarray,
    response_en: np.ndarray,
    response_en_missing: np.ndarray,
) -> dict[str, np.ndarray]:
    """The answer-dependent columns of the per-territory table, one value per segment.

    Args:
        n_segments: number of territory rows.
        seg: per entry, its segment (``0 … n_segments − 1``; any order).
        value: per entry, the answer's code (codes ≥ −1; equal codes are equal strings).
        missing: per entry, skipped as missing (strict policy).
        controller_lang: per entry, its language is the controller's (``Controller_Code``).
        is_en: per entry, its language is ``en``.
        known: per segment, the controller is not ``Unknown``.
        controller: per segment, the controller's code (same code space as ``value``).
        response_en: per segment, the control answer's code.
        response_en_missing: per segment, the control answer is missing.

    Returns:
        ``n_claimant``, ``n_missing``, ``kb_*``, ``control_*``, ``nc_*``, ``cst_*``,
        ``cst_unk_*``, ``rc_n``, ``rc_en_n`` (:data:`~bordir.metrics.cs.territory.TERRITORY_COLUMNS`).
    """
    n = n_segments
    seg = np.asarray(seg)
    if not np.issubdtype(seg.dtype, np.integer):
        seg = seg.astype(np.int64)
    valid = ~np.asarray(missing, dtype=bool)
    known = np.asarray(known, dtype=bool)
    known_e = known[seg]
    agree = valid & (value == controller[seg])
    ctl = known_e & controller_lang
    nc = known_e & ~controller_lang

    # every count per segment from one bincount: an entry's class is its role (other, control,
    # non-control) × valid × agree (agree implies valid), so column k of `by` counts class k
    kd: type[np.signedinteger[Any]] = np.int32 if n * 12 < 2**31 else np.int64
    cls = (ctl.astype(kd) + 2 * nc) * 4 + 2 * valid + agree
    by = np.bincount(seg.astype(kd, copy=False) * 12 + cls, minlength=n * 12).reshape(n, 12)
    del cls
    n_claimant = by.sum(axis=1)
    n_valid = by[:, 2::4].sum(axis=1) + by[:, 3::4].sum(axis=1)
    control_den = ((by[:, 6] + by[:, 7]) > 0).astype(float)
    nc_n = by[:, 10] + by[:, 11]
    nc_agree = by[:, 11].copy()

    width = int(max(value.max(initial=0), response_en.max(initial=0))) + 2
    kd = np.int32 if n * width < 2**31 else np.int64
    keys: np.ndarray = seg.astype(kd, copy=False) * width
    keys += value.astype(kd) + 1
    answers = _KeyCounts(keys[valid], n * width)
    pair_seg = answers.keys // width
    multiplicity = answers.multiplicity
    cst_agree = np.bincount(
        pair_seg, weights=multiplicity * (multiplicity - 1) // 2, minlength=n
    ).astype(np.int64)
    cst_pairs = n_valid * (n_valid - 1) // 2
    cst_num = _div(cst_agree, cst_pairs)
    cst_den = (cst_pairs > 0).astype(float)

    non_en = _KeyCounts(keys[valid & ~is_en], n * width, lookup=True)
    del keys
    rc_non_en = np.bincount(non_en.keys // width, minlength=n)
    en_key = np.arange(n, dtype=np.int64) * width + (response_en.astype(np.int64) + 1)
    en_new = ~response_en_missing & ~non_en.contains(en_key)

    ren_ok = known & ~response_en_missing
    return {
        "n_claimant": n_claimant,
        "n_missing": n_claimant - n_valid,
        "kb_num": (ren_ok & (response_en == controller)).astype(float),
        "kb_den": ren_ok.astype(float),
        "kb_skipped": (known & response_en_missing).astype(np.int64),
        "control_num": (by[:, 7] > 0).astype(float),
        "control_den": control_den,
        "control_skipped": by[:, 4].copy(),
        "nc_agree": nc_agree,
        "nc_n": nc_n,
        "nc_skipped": by[:, 8].copy(),
        "nc_num": _div(nc_agree, nc_n),
        "nc_den": (nc_n > 0).astype(float),
        "cst_agree": cst_agree,
        "cst_pairs": cst_pairs,
        "cst_skipped": n_claimant * (n_claimant - 1) // 2 - cst_pairs,
        "cst_num": cst_num,
        "cst_den": cst_den,
        "cst_unk_num": np.where(known, 0.0, cst_num),
        "cst_unk_den": np.where(known, 0.0, cst_den),
        "rc_n": np.bincount(pair_seg, minlength=n).astype(np.int64),
        "rc_en_n": (rc_non_en + en_new).astype(np.int64),
    }


_ROLES = np.array(["unknown", "control", "non_control"], dtype=object)


def entry_columns(
    *,
    seg: np.ndarray,
    value: np.ndarray,
    missing: np.ndarray,
    controller_lang: np.ndarray,
    known: np.ndarray,
    controller: np.ndarray,
    text: np.ndarray,
) -> dict[str, Any]:
    """The answer-dependent columns of the per-answer items: ``role``, ``answer``, ``missing``, ``agree``.

    ``text`` is each entry's answer as a string (object array; not read where
    ``missing``). ``agree`` is NaN for missing answers and Unknown controllers.
    """
    seg = np.asarray(seg, dtype=np.int64)
    missing = np.asarray(missing, dtype=bool)
    known_e = np.asarray(known, dtype=bool)[seg]
    role = _ROLES[np.where(known_e, np.where(controller_lang, 1, 2), 0)]
    agree = np.where(known_e & ~missing, (value == controller[seg]).astype(float), np.nan)
    answer = np.array(text, dtype=object, copy=True)
    answer[missing] = None
    return {"role": role, "answer": answer, "missing": missing, "agree": agree}
