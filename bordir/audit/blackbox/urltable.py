"""The attributed URLs of a log as integer codes: a host id and language codes per URL, each host's attribution once.

Six million cited URLs come from some tens of thousands of hosts: the host's domain, country,
rule, kind, publisher and lists are stored once per host (:attr:`UrlTable.hosts`) and each URL
holds its host's id; its language and language rule are codes into two short vocabularies. Only
what is the URL's own is stored per URL: its answer, its place in the answer's list, the URL as
shown, its title and snippet. :meth:`UrlTable.table` writes the columns out as strings (the
layout of ``citations.parquet``: :data:`URL_SCHEMA`), for a slice at a time.

Example:
    >>> import numpy as np, pyarrow as pa
    >>> hosts = {"host": pa.array(["ria.ru", "en.wikipedia.org"]), "domain": pa.array(["ria.ru", "wikipedia.org"]),
    ...          "country": pa.array(["RU", None]), "country_rule": pa.array(["cctld:ru", "publisher:wikipedia.org"]),
    ...          "kind": pa.array(["", "encyclopedia"]), "publisher": pa.array([None, "Wikipedia"]),
    ...          "lists": pa.array([[], []], pa.list_(pa.string()))}
    >>> t = UrlTable.build([dict(answer=np.array([0, 0, 1]), pos=np.array([0, 1, 0]), host_id=np.array([1, 0, 1]),
    ...                          lang=np.array([0, 1, 0]), rule=np.array([0, 1, 0]), url=pa.array(["u1", "u2", "u3"]),
    ...                          title=None, snippet=None)], hosts, ["en", "und"], ["subdomain:en", "none"])
    >>> codes, labels = t.country_codes()
    >>> codes.tolist(), labels
    ([0, 1, 0], ['unattributed', 'RU'])
    >>> t.table()["country"].to_pylist(), t.table(1, 2)["lang_rule"].to_pylist()
    ([None, 'RU', None], ['none'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .codes import factorize, first_seen

__all__ = ["URL_SCHEMA", "UrlTable", "UNATTRIBUTED"]

UNATTRIBUTED = "unattributed"

URL_SCHEMA: tuple[tuple[str, pa.DataType], ...] = (
    ("answer", pa.int32()), ("pos", pa.int32()), ("url", pa.string()), ("host", pa.string()),
    ("domain", pa.string()), ("country", pa.string()), ("country_rule", pa.string()),
    ("kind", pa.string()), ("publisher", pa.string()), ("lists", pa.list_(pa.string())),
    ("lang", pa.string()), ("lang_rule", pa.string()), ("title", pa.string()), ("snippet", pa.string()),
)  # fmt: skip
"""The columns of the attributed URLs as strings (``citations.parquet``, before its answer columns)."""
HOST_COLUMNS = ("host", "domain", "country", "country_rule", "kind", "publisher", "lists")


def _chunks(parts: list[Any], n: list[int]) -> pa.ChunkedArray:
    """A string column of blocks, a block without it (None) as nulls."""
    return pa.chunked_array(
        [p if p is not None else pa.nulls(k, pa.string()) for p, k in zip(parts, n)], pa.string()
    )


@dataclass
class UrlTable:
    """The attributed URLs (see the module docs). Per URL: ``answer``, ``pos``, ``host_id``, ``lang``, ``rule``, ``url``."""

    answer: np.ndarray
    pos: np.ndarray
    host_id: np.ndarray
    lang: np.ndarray
    rule: np.ndarray
    url: pa.ChunkedArray
    title: pa.ChunkedArray
    snippet: pa.ChunkedArray
    hosts: dict[str, pa.Array]
    langs: list[str]
    rules: list[str]

    @classmethod
    def build(
        cls,
        parts: list[dict[str, Any]],
        hosts: dict[str, pa.Array],
        langs: list[str],
        rules: list[str],
    ) -> UrlTable:
        """From the blocks' parts (each: numpy ``answer``, ``pos``, ``host_id``, ``lang``, ``rule``; Arrow ``url``, ``title``, ``snippet`` or None)."""

        def cat(k: str, dtype: Any) -> np.ndarray:
            return (
                np.concatenate([np.asarray(p[k], dtype=dtype) for p in parts])
                if parts
                else np.zeros(0, dtype)
            )

        n = [len(p["answer"]) for p in parts]
        return cls(
            cat("answer", np.int32), cat("pos", np.int32), cat("host_id", np.int32), cat("lang", np.int32),
            cat("rule", np.int32), _chunks([p["url"] for p in parts], n), _chunks([p["title"] for p in parts], n),
            _chunks([p["snippet"] for p in parts], n), hosts, list(langs), list(rules),
        )  # fmt: skip

    @property
    def num_rows(self) -> int:
        """The number of attributed URLs."""
        return len(self.answer)

    def column(
        self, name: str, start: int = 0, stop: int | None = None
    ) -> pa.Array | pa.ChunkedArray:
        """One column of :data:`URL_SCHEMA` for the URLs ``start:stop``."""
        sl = slice(start, stop)
        if name in ("answer", "pos"):
            return pa.array(getattr(self, name)[sl], pa.int32())
        if name in HOST_COLUMNS:
            return self.hosts[name].take(pa.array(self.host_id[sl]))
        if name in ("lang", "lang_rule"):
            vocab, codes = (self.langs, self.lang) if name == "lang" else (self.rules, self.rule)
            return pa.array(vocab, pa.string()).take(pa.array(codes[sl]))
        col: pa.ChunkedArray = getattr(self, name)
        stop = self.num_rows if stop is None else stop
        return col.slice(start, stop - start)

    def table(self, start: int = 0, stop: int | None = None) -> pa.Table:
        """The URLs ``start:stop`` with every column of :data:`URL_SCHEMA` as written (strings)."""
        return pa.table({k: self.column(k, start, stop) for k, _ in URL_SCHEMA})

    def country_codes(self) -> tuple[np.ndarray, list[str]]:
        """Each URL's country as a code into the labels (``unattributed`` for none), in the order they first appear."""
        return self._coded(pc.fill_null(self.hosts["country"], UNATTRIBUTED), self.host_id)

    def lang_codes(self) -> tuple[np.ndarray, list[str]]:
        """Each URL's language as a code into the labels (``und`` is ``unattributed``), in the order they first appear."""
        vocab = pa.array([UNATTRIBUTED if x == "und" else x for x in self.langs], pa.string())
        return self._coded(vocab, self.lang)

    @staticmethod
    def _coded(values: pa.Array, index: np.ndarray) -> tuple[np.ndarray, list[str]]:
        vcodes, labels = factorize(values)
        per_url = vcodes.astype(np.int32)[index] if len(index) else np.zeros(0, np.int32)
        order = first_seen(per_url)
        seen = np.full(len(labels), -1, dtype=np.int64)
        seen[per_url] = order  # every URL of a label gives it the same new code
        kept = np.flatnonzero(seen >= 0)
        new = [""] * len(kept)
        for k in kept.tolist():
            new[seen[k]] = labels[k]
        return order, new
