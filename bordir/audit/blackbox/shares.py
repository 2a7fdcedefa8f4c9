"""Who is cited, per model × query language (× month): shares of the cited sources by country, language, list and claimant.

Each distinct URL an answer cites counts once (a URL repeated in one answer is counted once,
and said so in ``n_dup``). For a cell and a category, the **share** is ``Σ a_g / Σ b_g`` over
the cell's clusters ``g`` (each answer, or each question group: the same question asked
several times or in several languages of a pooled cell is one cluster), ``a_g`` the
cluster's URLs in the category and ``b_g`` all its URLs; its interval is the cluster Wilson
score interval (:mod:`.wilson`; simulated coverage in ``docs/audit.md``). A cell with fewer
than ``min_clusters`` clusters citing anything gets no interval: ``too few to judge``.

The dimensions (:data:`DIMENSIONS`), each with the category ``unattributed`` for the URLs the
rules give nothing:

* ``country`` — the source's country (ISO code, ``intl``, ``EU``);
* ``lang`` — the source's language;
* ``relation`` — the source's language against the query's: ``own``, ``en`` (English, for a
  question not asked in English), ``other``;
* ``list`` — each user list's label (a URL may be on several; ``none``: on none);
* ``claimant`` — for questions about a territory with known claimants: a source from the
  claimant whose language is the query's (``own_claimant``), from another claimant
  (``other_claimant``), from a country that is no claimant (``non_claimant``).

Pooled rows (``query_lang`` ``*``) pool every query language of a model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from .countries import countries
from .wilson import wilson_from_sums

__all__ = [
    "DIMENSIONS",
    "UNATTRIBUTED",
    "ShareOptions",
    "url_categories",
    "cell_codes",
    "share_table",
    "answer_table",
    "cluster_keys",
]

DIMENSIONS: tuple[str, ...] = ("country", "lang", "relation", "list", "claimant")
UNATTRIBUTED = "unattributed"
ALWAYS: dict[str, tuple[str, ...]] = {
    "relation": ("own", "en", "other", UNATTRIBUTED),
    "claimant": ("own_claimant", "other_claimant", "non_claimant", UNATTRIBUTED),
}


@dataclass(frozen=True)
class ShareOptions:
    """How shares are computed: month cells, the cluster, the interval level, the smallest cell judged."""

    by_month: bool = False
    cluster: str = "answer"
    conf: float = 0.95
    min_clusters: int = 10


def _col(t: pa.Table, name: str) -> np.ndarray:
    return np.asarray(t[name].to_pylist(), dtype=object)


def url_categories(
    answers: pa.Table, urls: pa.Table, lists: tuple[str, ...] = ()
) -> dict[str, tuple[np.ndarray, np.ndarray, list[str]]]:
    """Per dimension: ``(url rows, category codes, category labels)``; a row may repeat (lists) or be absent (claimant)."""
    import pyarrow.compute as pc

    ans = urls["answer"].to_numpy().astype(np.int64)
    n = len(ans)
    rows = np.arange(n)
    out: dict[str, tuple[np.ndarray, np.ndarray, list[str]]] = {}
    country = (
        pc.fill_null(urls["country"], UNATTRIBUTED)
        .cast(pa.string())
        .combine_chunks()
        .dictionary_encode()
    )
    out["country"] = (
        rows,
        country.indices.to_numpy(zero_copy_only=False).astype(np.int64),
        country.dictionary.to_pylist(),
    )
    lang_col = pc.fill_null(urls["lang"], UNATTRIBUTED)
    lang_col = (
        pc.if_else(pc.equal(lang_col, "und"), UNATTRIBUTED, lang_col)
        .combine_chunks()
        .dictionary_encode()
    )
    out["lang"] = (
        rows,
        lang_col.indices.to_numpy(zero_copy_only=False).astype(np.int64),
        lang_col.dictionary.to_pylist(),
    )
    qlang = (
        pc.take(answers["query_lang"].combine_chunks(), pa.array(ans))
        if n
        else pa.array([], pa.string())
    )
    lang_full = pc.take(lang_col.dictionary, lang_col.indices)
    rel = np.select(
        [pc.equal(lang_full, UNATTRIBUTED).to_numpy(zero_copy_only=False), pc.fill_null(pc.equal(lang_full, qlang), False).to_numpy(zero_copy_only=False),
         pc.equal(lang_full, "en").to_numpy(zero_copy_only=False)],
        [3, 0, 1], 2,
    ) if n else np.zeros(0, dtype=np.int64)  # fmt: skip
    out["relation"] = (rows, rel.astype(np.int64), list(ALWAYS["relation"]))
    lcats = [*lists, "none"]
    lens = (
        pc.fill_null(pc.list_value_length(urls["lists"]), 0)
        .to_numpy(zero_copy_only=False)
        .astype(np.int64)
        if n
        else np.zeros(0, np.int64)
    )
    flat = pc.list_flatten(urls["lists"]).to_pylist() if n else []
    lrows = np.concatenate([np.repeat(rows, lens), rows[lens == 0]]) if n else np.zeros(0, np.int64)
    lcodes = np.concatenate([np.array([lcats.index(x) if x in lcats else len(lcats) - 1 for x in flat], dtype=np.int64),
                             np.full(int((lens == 0).sum()), len(lcats) - 1, dtype=np.int64)]) if n else np.zeros(0, np.int64)  # fmt: skip
    out["list"] = (lrows.astype(np.int64), lcodes, lcats)
    out["claimant"] = _claimant_categories(
        answers, ans, pc.fill_null(urls["country"], UNATTRIBUTED).to_numpy(zero_copy_only=False)
    )
    return out


def own_claimants(claimants: list[str], clangs: list[str], qlang: str) -> set[str]:
    """The claimants whose language is the query's (``clangs`` aligned, else the countries' official languages)."""
    if clangs and len(clangs) == len(claimants):
        return {c for c, lang in zip(claimants, clangs) if lang == qlang}
    table = countries()
    return {c for c in claimants if c in table and qlang in table[c].langs}


def claimant_roles(answers: pa.Table) -> pd.DataFrame:
    """One row per answer × claimant: ``answer``, ``country``, ``own`` (the claimant of the query's language)."""
    claim = answers["claimants"].to_pylist()
    clangs = answers["claimant_langs"].to_pylist()
    aq = answers["query_lang"].to_pylist()
    rows: list[tuple[int, str, bool]] = []
    for i, (c, cl, q) in enumerate(zip(claim, clangs, aq)):
        if c:
            own = own_claimants(c, cl or [], q)
            rows.extend((i, x, x in own) for x in c)
    return pd.DataFrame(rows, columns=["answer", "country", "own"])


def _claimant_categories(
    answers: pa.Table, ans: np.ndarray, country: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    cats = list(ALWAYS["claimant"])
    roles = claimant_roles(answers)
    if not len(roles) or not len(ans):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), cats
    has = np.zeros(answers.num_rows, dtype=bool)
    has[roles["answer"].to_numpy()] = True
    urows = np.flatnonzero(has[ans])
    u = pd.DataFrame({"row": urows, "answer": ans[urows], "country": country[urows]})
    m = u.merge(roles, on=["answer", "country"], how="left").sort_values("row", kind="stable")
    own = m["own"].astype("boolean").to_numpy(dtype=object, na_value=None)
    is_own = np.fromiter((v is True for v in own), dtype=bool, count=len(own))
    is_claimant = np.fromiter((v is not None for v in own), dtype=bool, count=len(own))
    unattr = m["country"].to_numpy() == UNATTRIBUTED
    code = np.where(unattr, 3, np.where(~is_claimant, 2, np.where(is_own, 0, 1)))
    return m["row"].to_numpy().astype(np.int64), code.astype(np.int64), cats


def cell_codes(answers: pa.Table, by_month: bool, pooled: bool) -> tuple[np.ndarray, pd.DataFrame]:
    """Each answer's cell code and the cells (``model``, ``query_lang`` [, ``month``]); ``pooled``: query_lang ``*``."""
    df = pd.DataFrame(
        {"model": answers["model"].to_pylist(), "query_lang": answers["query_lang"].to_pylist()}
    )
    if pooled:
        df["query_lang"] = "*"
    if by_month:
        df["month"] = [m or "unknown" for m in answers["month"].to_pylist()]
    keys = list(df.columns)
    codes, uniq = pd.factorize(pd.MultiIndex.from_frame(df[keys]), sort=True)
    cells = pd.DataFrame(list(uniq), columns=keys)
    return codes.astype(np.int64), cells


def cluster_keys(answers: pa.Table, cluster: str) -> np.ndarray:
    """Each answer's cluster code: the answer itself, or its question group (an answer without one is its own)."""
    n = answers.num_rows
    if cluster == "answer":
        return np.arange(n, dtype=np.int64)
    groups = answers["group"].to_pylist()
    keys = [g if g is not None else f"\x00answer:{i}" for i, g in enumerate(groups)]
    codes, _ = pd.factorize(pd.Series(keys, dtype=object))
    return np.asarray(codes, dtype=np.int64)


def share_table(
    answers: pa.Table,
    urls: pa.Table,
    cats: dict[str, tuple[np.ndarray, np.ndarray, list[str]]],
    options: ShareOptions,
    *,
    focus: dict[str, tuple[str, ...]] | None = None,
) -> pd.DataFrame:
    """One row per cell × dimension × category cited (plus ``unattributed`` and the ``focus`` categories, always)."""
    focus = focus or {}
    n_urls = answers["n_urls"].to_numpy().astype(float)
    has_claim = np.array([bool(c) for c in answers["claimants"].to_pylist()])
    url_ans = urls["answer"].to_numpy().astype(np.int64)
    clus = cluster_keys(answers, options.cluster)
    frames = []
    for pooled in (False, True):
        cell, cells = cell_codes(answers, options.by_month, pooled)
        cc_codes = np.unique(cell * (clus.max() + 1) + clus, return_inverse=True)[1]
        ncc = int(cc_codes.max()) + 1 if len(cc_codes) else 0
        cell_of_cc = np.zeros(ncc, dtype=np.int64)
        cell_of_cc[cc_codes] = cell
        ncell = len(cells)
        n_ans = np.bincount(cell, minlength=ncell)
        for dim, (rows, codes, labels) in cats.items():
            K = len(labels)
            w = n_urls * has_claim if dim == "claimant" else n_urls
            b = np.bincount(cc_codes, weights=w, minlength=ncc)
            n = np.bincount(cell_of_cc, weights=b, minlength=ncell)
            s2 = np.bincount(cell_of_cc, weights=b * b, minlength=ncell)
            g = np.bincount(cell_of_cc, weights=(b > 0).astype(float), minlength=ncell)
            ccu = cc_codes[url_ans[rows]]
            keys, a = np.unique(ccu * K + codes, return_counts=True)
            kcc, kk = keys // K, keys % K
            ck = cell_of_cc[kcc] * K + kk
            x = np.bincount(ck, weights=a, minlength=ncell * K)
            saa = np.bincount(ck, weights=a.astype(float) ** 2, minlength=ncell * K)
            sab = np.bincount(ck, weights=a * b[kcc], minlength=ncell * K)
            want = x > 0
            for extra in (*ALWAYS.get(dim, (UNATTRIBUTED,)), *focus.get(dim, ())):
                if extra in labels:
                    k = labels.index(extra)
                    want[np.arange(ncell) * K + k] = True
            idx = np.flatnonzero(want)
            idx = idx[n[idx // K] > 0]  # a cell citing nothing is in the answers table only
            ci, kk2 = idx // K, idx % K
            est, lo, hi = wilson_from_sums(
                x[idx], saa[idx], sab[idx], n[ci], s2[ci], g[ci], options.conf
            )
            few = g[ci] < options.min_clusters
            df = cells.iloc[ci].reset_index(drop=True)
            df["dimension"] = dim
            df["category"] = [labels[k] for k in kk2]
            df["n_answers"] = n_ans[ci]
            df["n_clusters"] = g[ci].astype(int)
            df["n_urls"] = n[ci].astype(int)
            df["count"] = x[idx].astype(int)
            df["share"] = est
            df["low"] = np.where(few, np.nan, lo)
            df["high"] = np.where(few, np.nan, hi)
            df["status"] = np.where(few, "too few to judge", "ok")
            frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(
        ["model", "query_lang", "dimension", "count"],
        ascending=[True, True, True, False],
        kind="stable",
    ).reset_index(drop=True)


def answer_table(answers: pa.Table, options: ShareOptions) -> pd.DataFrame:
    """Per cell: answers, the share citing ≥ 1 URL (cluster Wilson), citations per answer, repeats, bad URLs, detections."""
    n_urls = answers["n_urls"].to_numpy().astype(float)
    clus = cluster_keys(answers, options.cluster)
    cols = {
        c: answers[c].to_numpy(zero_copy_only=False).astype(float)
        for c in ("n_cited", "n_dup", "n_bad_urls")
    }
    detected = np.asarray(answers["qlang_detected"].to_pylist(), dtype=float)
    cost = np.asarray(
        [c if c is not None else 0.0 for c in answers["cost_usd"].to_pylist()], dtype=float
    )
    frames = []
    for pooled in (False, True):
        cell, cells = cell_codes(answers, options.by_month, pooled)
        ncell = len(cells)
        cc = np.unique(cell * (clus.max() + 1) + clus, return_inverse=True)[1]
        ncc = int(cc.max()) + 1
        cell_of_cc = np.zeros(ncc, dtype=np.int64)
        cell_of_cc[cc] = cell
        a = np.bincount(cc, weights=(n_urls > 0).astype(float), minlength=ncc)
        b = np.bincount(cc, minlength=ncc).astype(float)
        x = np.bincount(cell_of_cc, weights=a, minlength=ncell)
        n = np.bincount(cell_of_cc, weights=b, minlength=ncell)
        est, lo, hi = wilson_from_sums(
            x, np.bincount(cell_of_cc, weights=a * a, minlength=ncell), np.bincount(cell_of_cc, weights=a * b, minlength=ncell),
            n, np.bincount(cell_of_cc, weights=b * b, minlength=ncell), np.bincount(cell_of_cc, minlength=ncell), options.conf,
        )  # fmt: skip
        g = np.bincount(cell_of_cc, minlength=ncell)
        few = g < options.min_clusters
        df = cells.copy()
        df["n_answers"] = n.astype(int)
        df["n_clusters"] = g
        df["n_citing"] = x.astype(int)
        df["citing_share"] = est
        df["citing_low"] = np.where(few, np.nan, lo)
        df["citing_high"] = np.where(few, np.nan, hi)
        df["urls_per_answer"] = np.bincount(cell, weights=n_urls, minlength=ncell) / n
        df["cited_per_answer"] = np.bincount(cell, weights=cols["n_cited"], minlength=ncell) / n
        df["n_dup"] = np.bincount(cell, weights=cols["n_dup"], minlength=ncell).astype(int)
        df["n_bad_urls"] = np.bincount(cell, weights=cols["n_bad_urls"], minlength=ncell).astype(
            int
        )
        df["n_qlang_detected"] = np.bincount(cell, weights=detected, minlength=ncell).astype(int)
        df["cost_usd"] = np.bincount(cell, weights=cost, minlength=ncell)
        df["status"] = np.where(few, "too few to judge", "ok")
        frames.append(df)
    return pd.concat(frames, ignore_index=True)
