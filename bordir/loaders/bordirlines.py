"""Load BordIRLines retrieval results from its raw files (hub ``borderlines/bordirlines``).

The hub dataset's loading script needs ``trust_remote_code`` and an old
``datasets``; bordir reads the raw files instead, from a local directory or
(with the ``hub`` extra) downloaded by ``huggingface_hub``::

    data/queries.tsv                                   query_id, query_text, territory, language
    data/{lang}/{system}/{mode}/{lang}_query_hits.tsv  query_id, territory, rank, score, doc_id, doc_lang
    data/all_docs.json                                 {lang: {doc_id: text}}

Systems are ``openai`` and ``m3``; modes ``qlang``, ``qlang_en``, ``en``,
``rel_langs``. The hit files keep the top 50; ``n_hits`` (default 10, as the
hub builder) keeps the best ``n_hits`` per (query, system, mode).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .._extras import require
from ..errors import ConfigError, DataError
from ..modes import Mode
from ..records import Hit, Passage

__all__ = ["BordIRLines", "load_bordirlines", "HUB_REPO", "SYSTEMS", "HUB_MODES"]

HUB_REPO = "borderlines/bordirlines"
SYSTEMS = ("openai", "m3")
HUB_MODES = ("qlang", "qlang_en", "en", "rel_langs")
QUERY_COLUMNS = ("query_id", "query_text", "territory", "language")
HIT_COLUMNS = ("query_id", "territory", "rank", "score", "doc_id", "doc_lang")


@dataclass(frozen=True, eq=False)
class BordIRLines:
    """BordIRLines retrieval results.

    Attributes:
        queries: one row per query (``query_id, query_text, territory, language``).
        hits: one row per retrieved document: ``query_id, territory, query_lang,
            system, mode`` (canonical bordir mode name), ``rank, score, doc_id, doc_lang``.
        docs: ``{lang: {doc_id: text}}``.
        warnings: problems found (e.g. hits whose document text is missing), with counts.
    """

    queries: pd.DataFrame
    hits: pd.DataFrame
    docs: dict[str, dict[str, str]]
    n_hits: int
    source: str
    warnings: tuple[str, ...] = field(default=())

    def iter_hits(self) -> Iterator[Hit]:
        """The hits as :class:`~bordir.records.Hit` records (``system`` filled in)."""
        for r in self.hits.itertuples(index=False):
            yield Hit(
                r.query_id,
                r.mode,
                int(r.rank),
                r.doc_id,
                r.doc_lang,
                float(r.score),
                r.territory,
                r.system,
            )

    def iter_passages(self) -> Iterator[Passage]:
        """Every document of ``all_docs.json`` as a :class:`~bordir.records.Passage`."""
        for lang, docs in self.docs.items():
            for doc_id, text in docs.items():
                yield Passage(doc_id=doc_id, lang=lang, text=text)

    def doc_text(self, lang: str, doc_id: str) -> str:
        try:
            return self.docs[lang][doc_id]
        except KeyError:
            raise ConfigError(
                f"BordIRLines has no document {doc_id!r} in language {lang!r}"
            ) from None


def _read_tsv(path: Path, columns: Sequence[str]) -> pd.DataFrame:
    if not path.is_file():
        raise DataError("file not found", path=path)
    try:
        df = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
    except pd.errors.ParserError as exc:
        raise DataError(f"not a valid TSV: {exc}", path=path) from None
    for c in columns:
        if c not in df.columns:
            raise DataError(
                f"missing column {c!r}; expected {', '.join(columns)}, found {', '.join(map(str, df.columns))}",
                path=path,
                line=1,
                field=c,
            )
    return df


def _numeric(df: pd.DataFrame, col: str, path: Path, kind: str) -> pd.Series:
    vals = pd.to_numeric(df[col], errors="coerce")
    bad = vals.isna()
    if bad.any():
        i = int(bad.to_numpy().argmax())
        raise DataError(
            f"expected {kind}, found {df[col].iloc[i]!r}", path=path, line=i + 2, field=col
        )
    return vals


def _fetch(
    repo: str,
    revision: str | None,
    langs: Sequence[str] | None,
    systems: Sequence[str],
    modes: Sequence[str],
) -> Path:
    hub = require("huggingface_hub", "hub", purpose="downloading BordIRLines")
    patterns = ["data/queries.tsv", "data/all_docs.json"]
    for lang in langs or ["*"]:
        for s in systems:
            for m in modes:
                patterns.append(f"data/{lang}/{s}/{m}/*_query_hits.tsv")
    return Path(
        hub.snapshot_download(
            repo_id=repo, repo_type="dataset", revision=revision, allow_patterns=patterns
        )
    )


def load_bordirlines(
    path: str | Path | None = None,
    *,
    repo: str = HUB_REPO,
    revision: str | None = None,
    systems: Sequence[str] = SYSTEMS,
    modes: Sequence[str] = HUB_MODES,
    langs: Sequence[str] | None = None,
    n_hits: int = 10,
) -> BordIRLines:
    """Read BordIRLines raw files from ``path`` (the repository root) or download them.

    Args:
        path: local copy of the hub repository (the folder that holds ``data/``).
        repo: hub id, used when ``path`` is None.
        revision: hub commit, used when ``path`` is None.
        systems: retrieval systems to read (``openai``, ``m3``).
        modes: retrieval modes, hub or bordir spelling.
        langs: query languages to read; default all found.
        n_hits: keep the top ``n_hits`` per (query, system, mode); ``None`` keeps all.
    """
    bad_sys = [s for s in systems if s not in SYSTEMS]
    if bad_sys:
        raise ConfigError(f"unknown BordIRLines system(s) {bad_sys}; valid: {', '.join(SYSTEMS)}")
    parsed = [Mode.parse(m) for m in modes]
    bad_modes = [m for m in parsed if m.hub_name not in HUB_MODES]
    if bad_modes:
        raise ConfigError(
            f"BordIRLines has no hits for mode(s) {', '.join(map(str, bad_modes))}; it stores {', '.join(HUB_MODES)}"
        )
    if n_hits is not None and n_hits < 1:
        raise ConfigError(f"n_hits must be >= 1, got {n_hits}")
    root = (
        Path(path)
        if path is not None
        else _fetch(repo, revision, langs, systems, [m.hub_name for m in parsed])
    )
    data = root / "data"
    if not data.is_dir():
        raise DataError(
            "no data/ directory (expected the BordIRLines repository layout)", path=root
        )

    queries = _read_tsv(data / "queries.tsv", QUERY_COLUMNS)
    from ..corpus.readers.all_docs import read_all_docs_json

    docs = read_all_docs_json(data / "all_docs.json")

    wanted = set(langs) if langs else None
    frames: list[pd.DataFrame] = []
    for lang_dir in sorted(p for p in data.iterdir() if p.is_dir()):
        lang = lang_dir.name
        if wanted is not None and lang not in wanted:
            continue
        for system in systems:
            for mode in parsed:
                f = lang_dir / system / mode.hub_name / f"{lang}_query_hits.tsv"
                if not f.is_file():
                    continue
                df = _read_tsv(f, HIT_COLUMNS)
                df["rank"] = _numeric(df, "rank", f, "an integer rank").astype(int)
                df["score"] = _numeric(df, "score", f, "a numeric score").astype(float)
                df = df[list(HIT_COLUMNS)]
                df.insert(2, "query_lang", lang)
                df.insert(3, "system", system)
                df.insert(4, "mode", mode.value)
                frames.append(df)
    if wanted is not None:
        missing = sorted(wanted - {f["query_lang"].iat[0] for f in frames if len(f)})
        if missing:
            raise DataError(f"no hit files for language(s) {', '.join(missing)}", path=data)
    cols = ["query_id", "territory", "query_lang", "system", "mode", *HIT_COLUMNS[2:]]
    hits = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)
    hits = hits.sort_values(["query_lang", "system", "mode", "query_id", "rank"], kind="stable")
    if n_hits is not None:
        hits = hits.groupby(["query_id", "system", "mode"], sort=False).head(n_hits)
    hits = hits.reset_index(drop=True)[cols]

    warnings: list[str] = []
    known_q = set(queries["query_id"])
    unknown_q = sorted(set(hits["query_id"]) - known_q)
    if unknown_q:
        warnings.append(
            f"{len(unknown_q)} hit query ids are not in queries.tsv (e.g. {unknown_q[0]!r})"
        )
    missing_docs = sum(
        1 for lang, d in zip(hits["doc_lang"], hits["doc_id"]) if d not in docs.get(lang, {})
    )
    if missing_docs:
        warnings.append(
            f"{missing_docs} hits point to documents missing from all_docs.json (kept; text unavailable)"
        )
    return BordIRLines(
        queries=queries,
        hits=hits,
        docs=docs,
        n_hits=n_hits,
        source=str(root),
        warnings=tuple(warnings),
    )
