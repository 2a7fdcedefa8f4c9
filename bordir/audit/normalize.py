"""The normalized layout of audit records, and the vectorised work on it: arrow schemas, normalisation, the pre-check, citation matching.

:data:`NORMALIZED` is the layout of every block :mod:`~bordir.audit.reader`
yields; :func:`normalize` brings a parsed table into it, :func:`suspect_rows` picks
the rows that may break a rule, and :func:`match_citations` finds each
citation's document.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .schema import MONTH_RE, SchemaOptions

__all__ = ["DOC", "NORMALIZED", "match_citations", "normalize"]

DOC = pa.struct([("id", pa.string()), ("text", pa.string()), ("lang", pa.string())])
NORMALIZED = pa.schema(
    [
        ("line", pa.int64()),
        ("id", pa.string()),
        ("query", pa.string()),
        ("query_lang", pa.string()),
        ("documents", pa.list_(DOC)),
        ("response", pa.string()),
        ("response_lang", pa.string()),
        ("citations", pa.list_(pa.string())),
        ("timestamp", pa.string()),
        ("model", pa.string()),
        ("cluster", pa.string()),
    ]
)
"""The layout of every block's table."""


ID_TYPES = ((pa.string(), pa.string()), (pa.int64(), pa.string()), (pa.int64(), pa.int64()))
"""(record id, document and citation ids) types the vectorised reader tries, in order."""


def json_schema(rec_id: pa.DataType, doc_id: pa.DataType, cluster_by: str | None) -> pa.Schema:
    """The explicit schema the vectorised JSON reader tries, with these id types."""
    doc = pa.struct([("id", doc_id), ("text", pa.string()), ("lang", pa.string())])
    fields = [
        ("id", rec_id),
        ("query", pa.string()),
        ("query_lang", pa.string()),
        ("documents", pa.list_(doc)),
        ("response", pa.string()),
        ("response_lang", pa.string()),
        ("citations", pa.list_(doc_id)),
        ("timestamp", pa.string()),
        ("model", pa.string()),
    ]
    if cluster_by and cluster_by not in {f[0] for f in fields}:
        fields.append((cluster_by, pa.string()))
    return pa.schema(fields)


def _as_string(arr: pa.Array) -> pa.Array:
    t = arr.type
    if pa.types.is_string(t):
        return arr
    if (
        pa.types.is_null(t)
        or pa.types.is_large_string(t)
        or pa.types.is_integer(t)
        or pa.types.is_dictionary(t)
    ):
        return arr.cast(pa.string())
    raise TypeError(f"expected strings or integers, found {t}")


def _list_of(arr: pa.Array, convert: Callable[[pa.Array], pa.Array]) -> pa.Array:
    """Rebuild a list array with converted values (nulls and slicing preserved)."""
    if pa.types.is_null(arr.type):
        return arr
    if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)):
        raise TypeError(f"expected a list, found {arr.type}")
    lengths = pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False)
    offsets = np.zeros(len(arr) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    values = convert(pc.list_flatten(arr))
    mask = arr.is_null().to_numpy(zero_copy_only=False) if arr.null_count else None
    return pa.ListArray.from_arrays(
        pa.array(offsets), values, mask=pa.array(mask) if mask is not None else None
    )


def _docs(values: pa.Array) -> pa.Array:
    if pa.types.is_null(values.type):
        return pa.nulls(len(values), DOC)
    if not pa.types.is_struct(values.type):
        raise TypeError(f"expected objects, found {values.type}")
    names = [values.type.field(i).name for i in range(values.type.num_fields)]
    if "id" not in names:
        raise TypeError("the documents have no 'id'")
    n = len(values)
    children = [
        _as_string(pc.struct_field(values, "id")),
        _as_string(pc.struct_field(values, "text"))
        if "text" in names
        else pa.nulls(n, pa.string()),
        _as_string(pc.struct_field(values, "lang"))
        if "lang" in names
        else pa.nulls(n, pa.string()),
    ]
    mask = values.is_null() if values.null_count else None
    return pa.StructArray.from_arrays(children, fields=list(DOC), mask=mask)


def normalize(table: pa.Table, first_line: int, cluster_by: str | None) -> pa.Table:
    """A table of raw columns in :data:`NORMALIZED` layout; ``line`` numbers the rows from ``first_line``.

    Raises:
        TypeError: a column has a type that cannot hold the field.
    """
    n = table.num_rows
    cols: dict[str, pa.Array] = {
        "line": pa.array(np.arange(first_line, first_line + n, dtype=np.int64))
    }

    def col(name: str) -> pa.Array | None:
        if name not in table.column_names:
            return None
        return table[name].combine_chunks()

    for name in ("id", "query", "query_lang", "response", "response_lang", "timestamp", "model"):
        c = col(name)
        try:
            cols[name] = pa.nulls(n, pa.string()) if c is None else _as_string(c)
        except TypeError as exc:
            raise TypeError(f"column {name!r}: {exc}") from None
    d = col("documents")
    try:
        cols["documents"] = (
            pa.nulls(n, NORMALIZED.field("documents").type) if d is None else _list_of(d, _docs)
        )
    except TypeError as exc:
        raise TypeError(
            f"column 'documents': {exc}; expected a list of {{id, text, lang}}"
        ) from None
    ci = col("citations")
    try:
        cols["citations"] = (
            pa.nulls(n, NORMALIZED.field("citations").type)
            if ci is None
            else _list_of(ci, _as_string)
        )
    except TypeError as exc:
        raise TypeError(f"column 'citations': {exc}") from None
    cl = col(cluster_by) if cluster_by else None
    try:
        cols["cluster"] = pa.nulls(n, pa.string()) if cl is None else _as_string(cl)
    except TypeError as exc:
        raise TypeError(f"column {cluster_by!r}: {exc}") from None
    for name in ("query_lang", "response_lang"):  # "" means missing
        c = cols[name]
        cols[name] = pc.if_else(pc.equal(c, ""), pa.scalar(None, pa.string()), c)
    return pa.Table.from_arrays([cols[f.name].cast(f.type) for f in NORMALIZED], schema=NORMALIZED)


def suspect_rows(
    t: pa.Table, options: SchemaOptions
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """Rows that may break a rule (a superset of what :func:`validate_record` rejects, for typed rows)."""

    def bad(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
        return np.asarray(pc.fill_null(arr, True).to_numpy(zero_copy_only=False), dtype=bool)

    n = t.num_rows
    s = np.zeros(n, dtype=bool)
    rid = t["id"]
    s |= bad(pc.equal(rid, ""))
    for name in ("query", "documents", "response"):
        s |= t[name].is_null().to_numpy(zero_copy_only=False)
    docs = t["documents"].combine_chunks()
    if len(docs) and pc.sum(pc.fill_null(pc.list_value_length(docs), 0)).as_py():
        flat = pc.list_flatten(docs)
        parent = pc.list_parent_indices(docs).to_numpy()
        did = pc.struct_field(flat, "id")
        lang = pc.struct_field(flat, "lang")
        text = pc.struct_field(flat, "text")
        d_bad = flat.is_null().to_numpy(zero_copy_only=False) | bad(pc.equal(did, ""))
        no_lang = bad(pc.equal(lang, ""))  # null → True
        d_bad |= no_lang & text.is_null().to_numpy(zero_copy_only=False)
        if d_bad.any():
            s[np.unique(parent[d_bad])] = True
    cites = t["citations"].combine_chunks()
    matched = None
    if cites.null_count < len(cites):
        matched = match_citations(docs, cites)
        cparent, found = matched
        if (found < 0).any():
            s[np.unique(cparent[found < 0])] = True
    if options.check_month:
        ts = t["timestamp"]
        ok = pc.match_substring_regex(ts, MONTH_RE.pattern)
        s |= ~np.asarray(pc.fill_null(ok, True).to_numpy(zero_copy_only=False), dtype=bool)
    if options.cluster_by:
        s |= bad(pc.equal(t["cluster"], ""))
    return s, matched


def match_citations(docs: pa.Array, cites: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """For every citation id, the flat index of the first document of its record with that id (−1: none).

    Returns ``(citation parent record, flat document index)``.
    """
    flat_ids = pc.struct_field(pc.list_flatten(docs), "id")
    cflat = pc.list_flatten(cites)
    cparent = pc.list_parent_indices(cites).to_numpy().astype(np.int64)
    if len(cflat) == 0:
        return cparent, np.zeros(0, dtype=np.int64)
    enc = pa.concat_arrays(
        [flat_ids.cast(pa.string()), cflat.cast(pa.string())]
    ).dictionary_encode()
    codes = pc.fill_null(enc.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    nd = len(flat_ids)
    dcode, ccode = codes[:nd], codes[nd:]
    n_docs = (
        pc.fill_null(pc.list_value_length(docs), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    )
    if nd == 0:
        return cparent, np.full(len(ccode), -1, dtype=np.int64)
    max_docs = int(n_docs.max())
    if (
        max_docs <= 64
    ):  # few documents per record: compare each citation with its record's documents
        start = np.zeros(len(n_docs), dtype=np.int64)
        np.cumsum(n_docs[:-1], out=start[1:])
        cstart, clen = start[cparent], n_docs[cparent]
        found = np.full(len(ccode), -1, dtype=np.int64)
        for j in range(max_docs):
            cand = cstart + j
            hit = (found < 0) & (j < clen) & (ccode >= 0)
            hit[hit] = dcode[cand[hit]] == ccode[hit]
            found[hit] = cand[hit]
        return cparent, found
    dparent = pc.list_parent_indices(docs).to_numpy().astype(np.int64)
    width = np.int64(len(enc.dictionary) + 1)
    dkey = dparent * width + dcode
    ckey = cparent * width + ccode
    order = np.argsort(dkey, kind="stable")
    sk = dkey[order]
    pos = np.minimum(np.searchsorted(sk, ckey, side="left"), len(sk) - 1)
    ok = (sk[pos] == ckey) & (ccode >= 0)
    return cparent, np.where(ok, order[pos], -1).astype(np.int64)
