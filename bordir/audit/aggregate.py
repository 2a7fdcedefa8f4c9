"""Accumulate per-cluster citation statistics from blocks of audit records, in bounded memory.

Each record is reduced, vectorised per block, to integer counts: documents and
citations per document language, plus a few per-record values
(:data:`EXTRAS`). Then:

* clusters = records (the default): identical records are merged into
  *profiles* with a count (cell, counts…) → n, so memory grows with the number
  of distinct profiles, not of records;
* clusters = a field (``--cluster-by conversation_id``): the derived
  statistics are summed per (cell, cluster), so memory grows with the number
  of clusters.

A cell is (group, query language); every group also gets the cell
(group, ``*``) with all query languages pooled. :meth:`Accumulator.cells`
returns a :class:`~bordir.citations.rates.CellStats` per cell.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..citations.rates import LANG_STATS, CellStats, answer_statistics
from ..citations.tables import ALL_LANGS
from ..errors import ConfigError
from ..languages import registry
from ..stats.clusters import cluster_sums
from .answers import echo_mask, short_mask
from .detect import UNDETERMINED, LanguageDetector
from .normalize import match_citations

__all__ = ["Accumulator", "EXTRAS", "GROUP_BY"]

EXTRAS: tuple[str, ...] = (
    "out_of_range",
    "with_out_of_range",
    "lang_checked",
    "lang_match",
    "qlang_detected",
    "docs_detected",
    "resp_detected",
    "echo",
    "lang_short",
)
"""Per-record values summed per cluster besides the citation counts (``echo``, ``lang_short``:
:mod:`bordir.audit.answers`)."""
GROUP_BY: tuple[str, ...] = ("model", "month")
_CONSOLIDATE = 1_000_000


def canonical(code: str) -> str:
    """A language code as the registry spells it (``he`` → ``iw``), for comparing languages."""
    reg = registry()
    if code in reg:
        return code
    lang = reg.from_langdetect(code)
    return lang.code if lang is not None else code


def _canonical_codes(arr: pa.Array) -> np.ndarray:
    """Canonical language codes of a string array, as a numpy array of str."""
    enc = arr.dictionary_encode()
    canon = np.array([canonical(x) for x in enc.dictionary.to_pylist()] or [""], dtype=object)
    return cast("np.ndarray", canon[enc.indices.to_numpy(zero_copy_only=False)])


def _unique_rows(
    rows: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a non-negative int matrix and their (weighted) counts.

    One int64 key per row (mixed radix) when the ranges allow it, else :func:`numpy.unique` on rows.
    """
    if len(rows) == 0:
        return rows, np.zeros(0, dtype=np.int64)
    span = rows.max(axis=0).astype(object) + 1
    total = 1
    for x in span:
        total *= int(x)
    if total < 2**62 and rows.min() >= 0:
        stride = np.ones(rows.shape[1], dtype=np.int64)
        for j in range(rows.shape[1] - 2, -1, -1):
            stride[j] = stride[j + 1] * int(span[j + 1])
        keys = rows.astype(np.int64) @ stride
        uk, first, inv = np.unique(keys, return_index=True, return_inverse=True)
        uniq = rows[first]
    else:
        uniq, inv = np.unique(rows, axis=0, return_inverse=True)
    counts = np.bincount(inv.reshape(-1), weights=weights, minlength=len(uniq))
    return uniq, (
        counts.astype(np.int64)
        if weights is None or np.issubdtype(weights.dtype, np.integer)
        else counts
    )


class Accumulator:
    """Collects blocks (:meth:`add`) and returns the cells' statistics (:meth:`cells`).

    Args:
        group_by: ``model``, ``month`` or None (one group, ``all``).
        cluster_by: None (each record is a cluster) or the name of the cluster field.
        language_match: check whether each response's language is the query's.
        citation_base: the number of the first document when citations are parsed from text (0 or 1).
        detector: the language detector (created when first needed).
    """

    def __init__(
        self,
        *,
        group_by: str | None = None,
        cluster_by: str | None = None,
        language_match: bool = True,
        citation_base: int = 0,
        detector: LanguageDetector | None = None,
    ) -> None:
        if group_by is not None and group_by not in GROUP_BY:
            raise ConfigError(f"unknown --group-by {group_by!r}; use one of {', '.join(GROUP_BY)}")
        if citation_base not in (0, 1):
            raise ConfigError(f"citation_base must be 0 or 1, found {citation_base}")
        self.group_by = group_by
        self.cluster_by = cluster_by
        self.language_match = language_match
        self.citation_base = citation_base
        self.detector = detector or LanguageDetector()
        self.langs: list[str] = []
        self._lang_id: dict[str, int] = {}
        self.cell_keys: list[tuple[str, str]] = []
        self._cell_id: dict[tuple[str, str], int] = {}
        self._cluster_id: dict[str, int] = {}
        self._parts: list[
            tuple[int, np.ndarray, np.ndarray]
        ] = []  # (n_langs, rows, counts or keys)
        self._rows = 0
        self.counts: Counter[str] = Counter()

    # -- ids ---------------------------------------------------------------------------
    def _lang_ids(self, values: list[str]) -> np.ndarray:
        out = np.empty(len(values), dtype=np.int64)
        for i, v in enumerate(values):
            j = self._lang_id.get(v)
            if j is None:
                j = self._lang_id[v] = len(self.langs)
                self.langs.append(v)
            out[i] = j
        return out

    def _encode_langs(self, arr: pa.Array) -> np.ndarray:
        enc = arr.dictionary_encode()
        return cast(
            "np.ndarray",
            self._lang_ids(enc.dictionary.to_pylist())[enc.indices.to_numpy(zero_copy_only=False)],
        )

    def _cell_ids(self, groups: pa.Array, qlangs: pa.Array) -> np.ndarray:
        key = pc.binary_join_element_wise(groups, qlangs, "\x1f").dictionary_encode()
        ids = np.empty(len(key.dictionary), dtype=np.int64)
        for i, k in enumerate(key.dictionary.to_pylist()):
            g, q = k.split("\x1f", 1)
            c = self._cell_id.get((g, q))
            if c is None:
                c = self._cell_id[(g, q)] = len(self.cell_keys)
                self.cell_keys.append((g, q))
            ids[i] = c
        return cast("np.ndarray", ids[key.indices.to_numpy(zero_copy_only=False)])

    # -- one block -----------------------------------------------------------------------
    def _detect_fill(
        self, arr: pa.Array, texts: pa.Array, what: str
    ) -> tuple[pa.Array, np.ndarray]:
        """``arr`` with its nulls replaced by the detected language of ``texts``; and the detected mask."""
        missing = arr.is_null().to_numpy(zero_copy_only=False)
        if not missing.any():
            return arr, missing
        idx = np.flatnonzero(missing)
        found = self.detector.detect_many(texts.take(pa.array(idx)).to_pylist())
        self.counts[f"detected_{what}"] += len(idx)
        vals = arr.to_numpy(zero_copy_only=False).astype(object)
        vals[idx] = found
        return pa.array(vals, type=pa.string()), missing

    def _groups(self, t: pa.Table) -> pa.Array:
        n = t.num_rows
        if self.group_by == "model":
            return pc.fill_null(t["model"].combine_chunks(), "unknown")
        if self.group_by == "month":
            return pc.fill_null(
                pc.utf8_slice_codeunits(t["timestamp"].combine_chunks(), 0, 7), "unknown"
            )
        return pa.array(["all"] * n, type=pa.string())

    def _parsed_citations(
        self, t: pa.Table, rows: np.ndarray, doc_start: np.ndarray, n_docs: np.ndarray
    ) -> tuple[list[int], list[int], np.ndarray]:
        from ..generation.parse.citations import extract_citations, strip_prompt_echo
        from ..generation.types import Document

        rec_out, flat_out = [], []
        oor = np.zeros(len(rows), dtype=np.int64)
        responses = t["response"].take(pa.array(rows)).to_pylist()
        docs_py = t["documents"].take(pa.array(rows)).to_pylist()
        for k, (r, text, docs) in enumerate(zip(rows, responses, docs_py)):
            with_text = [
                Document(i, d["id"], d["lang"] or "", d["text"])
                for i, d in enumerate(docs)
                if d["text"]
            ]
            if with_text:
                text = strip_prompt_echo(text, with_text)
            for num in extract_citations(text):
                pos = num - self.citation_base
                if 0 <= pos < n_docs[r]:
                    rec_out.append(int(r))
                    flat_out.append(int(doc_start[r] + pos))
                else:
                    oor[k] += 1
        return rec_out, flat_out, oor

    def add(self, t: pa.Table, *, citations: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Add a block of valid normalized records (:data:`~bordir.audit.normalize.NORMALIZED`).

        ``citations``: :func:`~bordir.audit.normalize.match_citations` of ``t`` when already computed.
        """
        n = t.num_rows
        if n == 0:
            return
        self.counts["records"] += n
        groups = self._groups(t)
        qlang, q_det = self._detect_fill(
            t["query_lang"].combine_chunks(), t["query"].combine_chunks(), "query_lang"
        )
        cell = self._cell_ids(groups, qlang)

        docs = t["documents"].combine_chunks()
        n_docs = (
            pc.fill_null(pc.list_value_length(docs), 0)
            .to_numpy(zero_copy_only=False)
            .astype(np.int64)
        )
        doc_start = np.zeros(n, dtype=np.int64)
        np.cumsum(n_docs[:-1], out=doc_start[1:])
        flat = pc.list_flatten(docs)
        dparent = pc.list_parent_indices(docs).to_numpy().astype(np.int64)
        dlang, d_det = self._detect_fill(
            pc.struct_field(flat, "lang"), pc.struct_field(flat, "text"), "doc_lang"
        )
        dlang_id = self._encode_langs(dlang) if len(dlang) else np.zeros(0, dtype=np.int64)
        L = len(self.langs)
        incl = np.bincount(dparent * L + dlang_id, minlength=n * L).reshape(n, L)

        cites = t["citations"].combine_chunks()
        given = cites.is_valid().to_numpy(zero_copy_only=False)
        self.counts["citations_given"] += int(given.sum())
        self.counts["citations_parsed"] += int(n - given.sum())
        crec_parts, cflat_parts = [], []
        oor = np.zeros(n, dtype=np.int64)
        if given.any():
            cparent, found = citations if citations is not None else match_citations(docs, cites)
            keep = found >= 0  # validated: every given citation is found
            crec_parts.append(cparent[keep])
            cflat_parts.append(found[keep])
        if not given.all():
            rows = np.flatnonzero(~given)
            r_rec, r_flat, r_oor = self._parsed_citations(t, rows, doc_start, n_docs)
            crec_parts.append(np.asarray(r_rec, dtype=np.int64))
            cflat_parts.append(np.asarray(r_flat, dtype=np.int64))
            oor[rows] = r_oor
        crec = np.concatenate(crec_parts) if crec_parts else np.zeros(0, np.int64)
        cflat = np.concatenate(cflat_parts) if cflat_parts else np.zeros(0, np.int64)
        cite = np.bincount(crec * L + dlang_id[cflat], minlength=n * L).reshape(n, L)
        echo = echo_mask(
            t
        )  # an echo leaves the citation and inclusion rates and the language match
        incl[echo], cite[echo], oor[echo] = 0, 0, 0

        extras = np.zeros((n, len(EXTRAS)), dtype=np.int64)
        extras[:, 7] = echo
        extras[:, 0] = oor
        extras[:, 1] = oor > 0
        extras[:, 4] = q_det
        if len(d_det):
            extras[:, 5] = np.bincount(dparent, weights=d_det.astype(float), minlength=n).astype(
                np.int64
            )
        if self.language_match:
            rlang, r_det = self._detect_fill(
                t["response_lang"].combine_chunks(), t["response"].combine_chunks(), "response_lang"
            )
            extras[:, 6] = r_det
            qc, rc = _canonical_codes(qlang), _canonical_codes(rlang)
            short = short_mask(t["response"], r_det & ~echo)  # detected on too few letters
            checked = (qc != UNDETERMINED) & (rc != UNDETERMINED) & ~short & ~echo
            extras[:, 8] = short
            extras[:, 2] = checked
            extras[:, 3] = checked & (qc == rc)

        if self.cluster_by is None:
            prof = np.hstack([cell[:, None], incl, cite, extras])
            uniq, counts = _unique_rows(prof)
            self._parts.append((L, uniq, counts))
            self._rows += len(uniq)
        else:
            cl = t["cluster"].combine_chunks()
            enc = cl.dictionary_encode()
            gid = np.empty(len(enc.dictionary), dtype=np.int64)
            for i, k in enumerate(enc.dictionary.to_pylist()):
                j = self._cluster_id.get(k)
                if j is None:
                    j = self._cluster_id[k] = len(self._cluster_id)
                gid[i] = j
            cluster = gid[enc.indices.to_numpy(zero_copy_only=False)]
            stats = self._derived(incl, cite, extras)
            keys, sums = cluster_sums((cell << 32) | cluster, stats)
            self._parts.append((L, keys[:, None], sums))
            self._rows += len(keys)
        if self._rows > _CONSOLIDATE:
            self._consolidate()

    @staticmethod
    def _derived(incl: np.ndarray, cite: np.ndarray, extras: np.ndarray) -> np.ndarray:
        per_lang, scal = answer_statistics(incl, cite)
        return np.hstack(
            [per_lang[k] for k in LANG_STATS] + [scal[k][:, None] for k in scal] + [extras]
        )

    # -- merging -------------------------------------------------------------------------
    def _padded(self) -> tuple[np.ndarray, np.ndarray]:
        L = len(self.langs)
        mats, vals = [], []
        for lb, rows, v in self._parts:
            if self.cluster_by is None:
                pad = np.zeros((len(rows), L - lb), dtype=rows.dtype)
                mats.append(
                    np.hstack(
                        [
                            rows[:, : 1 + lb],
                            pad,
                            rows[:, 1 + lb : 1 + 2 * lb],
                            pad,
                            rows[:, 1 + 2 * lb :],
                        ]
                    )
                )
                vals.append(v)
            else:
                blocks = [v[:, i * lb : (i + 1) * lb] for i in range(len(LANG_STATS))]
                pad = np.zeros((len(v), L - lb))
                mats.append(rows)
                vals.append(
                    np.hstack(
                        [x for b in blocks for x in (b, pad)] + [v[:, len(LANG_STATS) * lb :]]
                    )
                )
        if not mats:
            width = 1 + 2 * L + len(EXTRAS)
            return np.zeros((0, width if self.cluster_by is None else 1), np.int64), np.zeros(0)
        return np.vstack(mats), (
            np.concatenate(vals) if self.cluster_by is None else np.vstack(vals)
        )

    def _consolidate(self) -> None:
        rows, vals = self._padded()
        L = len(self.langs)
        if self.cluster_by is None:
            uniq, counts = _unique_rows(rows, vals.astype(np.int64))
            self._parts = [(L, uniq, counts.astype(np.int64))]
            self._rows = len(uniq)
        else:
            keys, sums = cluster_sums(rows[:, 0], vals)
            self._parts = [(L, keys[:, None], sums)]
            self._rows = len(keys)

    def cells(self) -> dict[tuple[str, str], CellStats]:
        """``{(group, query_lang): CellStats}``, plus ``(group, "*")`` per group; sorted by key."""
        self._consolidate()
        L = len(self.langs)
        _, rows, vals = (
            self._parts[0]
            if self._parts
            else (L, np.zeros((0, 1 + 2 * L + len(EXTRAS)), np.int64), np.zeros(0))
        )
        if self.cluster_by is None:
            cell = rows[:, 0] if len(rows) else np.zeros(0, np.int64)
            stats = self._derived(
                rows[:, 1 : 1 + L], rows[:, 1 + L : 1 + 2 * L], rows[:, 1 + 2 * L :]
            )
            weight = vals.astype(np.float64)
            cluster_key = None
        else:
            keys = rows[:, 0] if len(rows) else np.zeros(0, np.int64)
            cell = keys >> 32
            cluster_key = keys & 0xFFFFFFFF
            stats = vals
            weight = np.ones(len(stats))
        groups = sorted({g for g, _ in self.cell_keys})
        group_of = np.array([groups.index(g) for g, _ in self.cell_keys], dtype=np.int64)
        out: dict[tuple[str, str], CellStats] = {}
        for cid, key in sorted(enumerate(self.cell_keys), key=lambda kv: kv[1]):
            sel = cell == cid
            out[key] = self._cell(stats[sel], weight[sel])
        for gi, g in enumerate(groups):
            sel = group_of[cell] == gi if len(cell) else np.zeros(0, bool)
            s, w = stats[sel], weight[sel]
            if (
                cluster_key is not None
            ):  # a cluster spanning query languages is one cluster of the pooled cell
                _, s = cluster_sums(cluster_key[sel], s)
                w = np.ones(len(s))
            out[(g, ALL_LANGS)] = self._cell(s, w)
        return out

    def _cell(self, stats: np.ndarray, weight: np.ndarray) -> CellStats:
        L = len(self.langs)
        per_lang = {k: stats[:, i * L : (i + 1) * L] for i, k in enumerate(LANG_STATS)}
        base = ("answers", "with_docs", "citing", "docs_total", "docs_citing_total", "cites_total")
        off = len(LANG_STATS) * L
        scal = {k: stats[:, off + j] for j, k in enumerate((*base, *EXTRAS))}
        present = (
            np.flatnonzero((weight @ per_lang["docs"]) > 0) if len(weight) else np.zeros(0, int)
        )
        present = np.array(
            sorted(present, key=lambda j: self.langs[j]), dtype=int
        )  # not first-seen order
        langs = [self.langs[j] for j in present]
        return CellStats.from_cluster_sums(
            langs, {k: v[:, present] for k, v in per_lang.items()}, scal, weight
        )

    def summary(self) -> dict[str, Any]:
        """Counters: records, citations given / parsed, detected languages, and the detector's rate."""
        out: dict[str, Any] = {k: int(v) for k, v in sorted(self.counts.items())}
        out["clusters"] = len(self._cluster_id) if self.cluster_by else out.get("records", 0)
        out["detection"] = self.detector.stats()
        return out
