"""Load BorderLines from the Hugging Face hub (``manestay/borderlines``) with ``datasets``.

The hub dataset has three configurations:

* ``territories`` (split ``train``): the territories table, ``Claimants`` as a list;
* ``countries`` (split ``train``): one row per country with ``Lang_Code`` etc. and the
  country name in a ``Country`` column (``Name``/``name``/``index`` are accepted too);
* ``queries``: one split per language with ``Query_Native``, ``Claimants_Native``
  (a list, or a JSON list in a string), ``Index_Territory`` and ``QueryID``.
  A ``control`` split, if present, holds the English control queries; otherwise
  the ``Query`` column of ``territories`` is used.

``repo`` may also be a local directory laid out like the hub repository (a
``README.md`` whose YAML ``configs`` name the data files): ``datasets`` treats
both the same way, which is how the tests run this loader offline.
Requires the ``hub`` extra.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

from .._extras import require
from .._io.json_read import loads
from ..dataset import BorderLines
from ..errors import DataError
from ..records import Territory
from ._assemble import RawQuery, assemble
from .borderlines_files import parse_countries

__all__ = ["load_borderlines_hub", "HUB_REPO"]

HUB_REPO = "manestay/borderlines"
_NAME_COLUMNS = ("Country", "country", "Name", "name", "index", "__index_level_0__")


def _endpoint_reachable(endpoint: str, timeout: float = 3.0) -> bool:
    """Whether a TCP connection to the hub's host opens within ``timeout`` seconds."""
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    port = parts.port or (80 if parts.scheme == "http" else 443)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def _offline(datasets: Any) -> Iterator[None]:
    """Hub offline mode for one call: ``datasets`` and ``huggingface_hub`` read it at import time."""
    from huggingface_hub import constants

    saved = (constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE)
    constants.HF_HUB_OFFLINE = datasets.config.HF_HUB_OFFLINE = True
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE = saved


def _load(repo: str, config: str, revision: str | None, split: str | None = None) -> Any:
    datasets = require("datasets", "hub", purpose="loading BorderLines from the hub")
    try:
        if os.path.isdir(repo):
            # datasets caches a local directory under its folder name (not its path or content), so an
            # edited or another same-named directory would be read stale: build it afresh, in memory.
            with tempfile.TemporaryDirectory(prefix="bordir-hub-") as cache:
                return datasets.load_dataset(
                    repo, config, split=split, cache_dir=cache, keep_in_memory=True
                )
        from huggingface_hub import constants

        proxied = any(
            os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
        )  # through a proxy a direct connection says nothing: let huggingface_hub try
        if (
            not constants.HF_HUB_OFFLINE
            and not proxied
            and not _endpoint_reachable(constants.ENDPOINT)
        ):
            # huggingface_hub would retry five times with backoff (about 25 s of log lines) before
            # failing: use a cached copy if there is one, else say at once what to do.
            try:
                with _offline(datasets):
                    return datasets.load_dataset(repo, config, split=split, revision=revision)
            except Exception:
                raise DataError(
                    f"cannot reach the Hugging Face hub ({constants.ENDPOINT}) and no cached copy of "
                    f"{repo!r} (configuration {config!r}) exists; pass dataset_path = a directory "
                    "with the BorderLines files (or a local hub-layout directory), or load it once "
                    "with network access",
                    path=repo,
                ) from None
        return datasets.load_dataset(repo, config, split=split, revision=revision)
    except DataError:
        raise
    except (FileNotFoundError, ValueError, ConnectionError) as exc:
        raise DataError(
            f"could not load configuration {config!r}: {exc}; check the repository id or pass a local directory",
            path=repo,
        ) from None


def _need(columns: Sequence[str], wanted: Sequence[str], where: str) -> None:
    for c in wanted:
        if c not in columns:
            raise DataError(
                f"missing column {c!r}; found {', '.join(columns)}", path=where, field=c
            )


def _options(value: Any, where: str, line: int) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            value = loads(value)
        except json.JSONDecodeError:
            raise DataError(
                "expected a JSON list of option names",
                path=where,
                line=line,
                field="Claimants_Native",
            ) from None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise DataError(
            "expected a list of option names", path=where, line=line, field="Claimants_Native"
        )
    return tuple(value)


def load_borderlines_hub(
    repo: str = HUB_REPO,
    *,
    revision: str | None = None,
    repair: bool = False,
    name: str = "borderlines",
) -> BorderLines:
    """Load BorderLines through ``datasets.load_dataset`` (hub id or local hub-layout directory).

    Args:
        repo: hub dataset id or a local directory in the same layout.
        revision: hub commit / tag to pin.
        repair: as in :func:`~bordir.loaders.load_borderlines_files`.
        name: the dataset's name (``BorderLines.name``, recorded in signatures).
    """
    where = f"{repo}/territories"
    tds = _load(repo, "territories", revision, split="train")
    _need(tds.column_names, ("Territory", "Claimants", "Controller"), where)
    territories: list[Territory] = []
    texts: list[str] = []
    for i, row in enumerate(tds):
        claimants = row["Claimants"]
        if isinstance(claimants, str):
            claimants = [c.strip() for c in claimants.split(";")]
        if not isinstance(claimants, (list, tuple)) or len(claimants) < 2:
            raise DataError(
                "expected a list of at least two claimants",
                path=where,
                line=i + 1,
                field="Claimants",
            )
        pop = row.get("Population")
        territories.append(
            Territory(
                name=row["Territory"],
                claimants=tuple(claimants),
                controller=row["Controller"],
                region=row.get("Region") or "",
                population=int(pop) if pop is not None else None,
                index=i,
            )
        )
        texts.append(row.get("Query") or "")

    cwhere = f"{repo}/countries"
    cds = _load(repo, "countries", revision, split="train")
    name_col = next((c for c in _NAME_COLUMNS if c in cds.column_names), None)
    if name_col is None:
        raise DataError(
            f"no country-name column (one of {', '.join(_NAME_COLUMNS)})",
            path=cwhere,
            field="Country",
        )
    _need(cds.column_names, ("Lang_Code",), cwhere)
    raw = {row[name_col]: {k: v for k, v in row.items() if k != name_col} for row in cds}
    countries, warnings, repairs = parse_countries(raw, path=cwhere, repair=repair)

    qdd = _load(repo, "queries", revision)
    control: list[RawQuery] = []
    lang_queries: list[RawQuery] = []
    for split in sorted(qdd):
        qwhere = f"{repo}/queries/{split}"
        ds = qdd[split]
        _need(ds.column_names, ("Query_Native", "Claimants_Native", "Index_Territory"), qwhere)
        lang = "en" if split == "control" else split
        for i, row in enumerate(ds):
            for c in ("Query_Native", "Claimants_Native", "Index_Territory"):
                if (
                    row[c] is None
                ):  # datasets fills a column missing from one split's file with nulls
                    raise DataError(
                        "missing value (is the column absent from this split?)",
                        path=qwhere,
                        line=i + 1,
                        field=c,
                    )
            rq = RawQuery(
                lang,
                int(row["Index_Territory"]),
                row["Query_Native"],
                _options(row["Claimants_Native"], qwhere, i + 1),
                qwhere,
                i + 1,
            )
            (control if split == "control" else lang_queries).append(rq)
    if not control:
        control = [
            RawQuery("en", t.index, text, t.claimants, where, t.index + 1)
            for t, text in zip(territories, texts)
        ]
    return assemble(
        name=name,
        source=f"hub:{repo}" + (f"@{revision}" if revision else ""),
        territories=territories,
        countries=countries,
        control=control,
        lang_queries=lang_queries,
        warnings=warnings,
        repairs=repairs,
    )
