"""Load NoMIRACL (``miracl/nomiracl``): per language, queries whose judged passages are all non-relevant or not.

NoMIRACL (Thakur et al., EMNLP Findings 2024) has 18 languages, two splits
(``dev``, ``test``) and two subsets: ``non_relevant`` (every judged passage is
non-relevant: no passage answers) and ``relevant`` (at least one does). Three
layouts are read, per language:

* **NoMIRACL's files** (its ``NoMIRACLDataLoader(data_dir)``): ``corpus.jsonl``
  (``docid, title, text``; ``.jsonl.gz`` too), ``topics/{split}.{subset}.tsv``
  (``query_id<TAB>query``) and ``qrels/{split}.{subset}.tsv`` (``query_id<TAB>Q0<TAB>docid<TAB>relevance``),
  in ``PATH`` itself, in ``PATH/{lang}`` / ``PATH/{language}`` (``sw`` / ``swahili``) or in
  ``PATH/data/{language}`` (the hub repository);
* **the hub's rows** (the dataset viewer's parquet files, one per split and subset:
  ``PATH/{language}/{split}.{subset}-*.parquet`` or ``PATH/{language}/{subset}/{test|validation}-*.parquet``)
  with ``query_id, query, positive_passages, negative_passages`` (each passage ``docid, title, text``);
* **the hub** (no ``PATH``; the ``hub`` extra): the raw files of the first layout under
  ``data/{language}/`` of ``miracl/nomiracl`` (``corpus.jsonl.gz``), downloaded and cached by
  ``huggingface_hub``. The hub's loading script is not run (``datasets`` ≥ 4 cannot).

As in NoMIRACL's loader, a corpus text and title are stripped with newlines made
spaces, a query is kept only if it has judgments, and its passages are in the
order of its judgments (hub rows: positives first, as NoMIRACL's own hub loader
builds them). Languages map to bordir's registry codes (``zh`` → ``zhs``).

Example:
    >>> nomiracl_code("chinese"), nomiracl_code("zhs"), bordir_code("zh"), LANGUAGES["sw"]
    ('zh', 'zh', 'zhs', 'swahili')
    >>> nomiracl_code("el")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: NoMIRACL has no language 'el'; its languages: ar, bn, de, en, es, fa, fi, fr, hi, id, ja, ko, ru, sw, te, th, yo, zh
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._extras import require
from ..errors import ConfigError, DataError, UnknownLanguageError
from ..records import Passage
from .nomiracl_files import (
    check_subset,
    read_corpus,
    read_qrels,
    read_row,
    read_topics,
    some_ids,
)

__all__ = [
    "HUB_REPO",
    "LANGUAGES",
    "SPLITS",
    "SUBSETS",
    "NoMIRACLQuery",
    "NoMIRACL",
    "nomiracl_code",
    "bordir_code",
    "load_nomiracl",
]

HUB_REPO = "miracl/nomiracl"
LANGUAGES: dict[str, str] = {
    "ar": "arabic", "bn": "bengali", "de": "german", "en": "english", "es": "spanish",
    "fa": "persian", "fi": "finnish", "fr": "french", "hi": "hindi", "id": "indonesian",
    "ja": "japanese", "ko": "korean", "ru": "russian", "sw": "swahili", "te": "telugu",
    "th": "thai", "yo": "yoruba", "zh": "chinese",
}  # fmt: skip
"""NoMIRACL's language codes and the names of its hub configurations
(``repro_nomiracl_generation.py``'s ``language_code_map``)."""
SPLITS = ("dev", "test")
SUBSETS = ("non_relevant", "relevant")
_HUB_SPLIT = {"dev": "validation", "test": "test"}


def nomiracl_code(lang: str) -> str:
    """NoMIRACL's code for ``lang``: a NoMIRACL code, a configuration name or a bordir code."""
    key = str(lang).strip().casefold()
    if key in LANGUAGES:
        return key
    by_name = {v: k for k, v in LANGUAGES.items()}
    if key in by_name:
        return by_name[key]
    from ..languages import get as get_language

    try:
        code = get_language(key).code
    except UnknownLanguageError:
        code = ""
    for k in LANGUAGES:
        if bordir_code(k) == code:
            return k
    raise ConfigError(f"NoMIRACL has no language {lang!r}; its languages: {', '.join(LANGUAGES)}")


def bordir_code(code: str) -> str:
    """bordir's registry code of NoMIRACL language ``code`` (``zh`` is ``zhs``)."""
    from ..languages import get as get_language

    return get_language(code).code


@dataclass(frozen=True, slots=True)
class NoMIRACLQuery:
    """One query of one subset.

    Attributes:
        query_id: NoMIRACL's id (MIRACL's query id).
        text: the query.
        subset: ``non_relevant`` or ``relevant``.
        lang: bordir code of its language.
        judgments: ``(docid, relevance)`` in NoMIRACL's order (1: relevant, 0: not).
    """

    query_id: str
    text: str
    subset: str
    lang: str
    judgments: tuple[tuple[str, int], ...]

    @property
    def n_relevant(self) -> int:
        return sum(1 for _, r in self.judgments if r > 0)


@dataclass(frozen=True, eq=False)
class NoMIRACL:
    """NoMIRACL's queries of one language and split, with the passages they were judged on.

    Attributes:
        lang: bordir code (``zhs`` for NoMIRACL's ``zh``); ``code`` is NoMIRACL's.
        split: ``dev`` or ``test``.
        queries: every query, ``non_relevant`` first, each subset in NoMIRACL's order.
        corpus: docid → (title, text).
        source: where it was read from; ``layout``: ``files``, ``rows`` or ``hub``.
        warnings: what was dropped, with counts.
    """

    lang: str
    code: str
    split: str
    queries: tuple[NoMIRACLQuery, ...]
    corpus: Mapping[str, tuple[str, str]] = field(repr=False)
    source: str
    layout: str
    warnings: tuple[str, ...] = ()
    name: str = "nomiracl"

    def subset(self, name: str) -> tuple[NoMIRACLQuery, ...]:
        """The queries of subset ``name``."""
        if name not in SUBSETS:
            raise ConfigError(f"unknown NoMIRACL subset {name!r}; known: {', '.join(SUBSETS)}")
        return tuple(q for q in self.queries if q.subset == name)

    def passages(self, query: NoMIRACLQuery) -> list[Passage]:
        """The judged passages of ``query`` that are in the corpus, in order (``meta`` has ``relevance``)."""
        out = []
        for doc_id, rel in query.judgments:
            if doc_id in self.corpus:
                title, text = self.corpus[doc_id]
                out.append(Passage(doc_id, self.lang, text, title, meta=(("relevance", str(rel)),)))
        return out

    def missing(self, query: NoMIRACLQuery) -> tuple[str, ...]:
        """Judged docids of ``query`` that the corpus lacks."""
        return tuple(d for d, _ in query.judgments if d not in self.corpus)

    def content_hash(self) -> str:
        """SHA-256 over the language, split, queries, judgments and the judged passages' text."""
        h = hashlib.sha256(json.dumps([self.code, self.split]).encode() + b"\n")
        for q in self.queries:
            h.update(json.dumps([q.subset, q.query_id, q.text, q.judgments]).encode() + b"\n")
            for d, _ in q.judgments:
                h.update(json.dumps([d, *self.corpus.get(d, ("", ""))]).encode() + b"\n")
        return f"sha256-{h.hexdigest()[:16]}"

    def info(self) -> dict[str, Any]:
        """Counts per subset (``bordir data info``)."""
        return {
            "name": self.name,
            "lang": self.lang,
            "nomiracl_code": self.code,
            "split": self.split,
            "source": self.source,
            "layout": self.layout,
            **{f"queries_{s}": len(self.subset(s)) for s in SUBSETS},
            "passages": len(self.corpus),
            "warnings": list(self.warnings),
        }


# --- NoMIRACL's files -------------------------------------------------------------------------------


def _file_dir(root: Path, code: str) -> Path | None:
    """The directory of NoMIRACL's files for ``code`` under ``root`` (None: not this layout)."""
    for d in (root, root / code, root / LANGUAGES[code], root / "data" / LANGUAGES[code]):
        if (d / "topics").is_dir() or (d / "qrels").is_dir():
            return d
    return None


def _corpus_file(d: Path) -> Path:
    for name in ("corpus.jsonl", "corpus.jsonl.gz"):
        if (d / name).is_file():
            return d / name
    raise DataError(
        "no corpus.jsonl (or corpus.jsonl.gz) next to topics/ and qrels/", path=d, field="corpus"
    )


def _from_files(d: Path, code: str, split: str, source: str, layout: str) -> NoMIRACL:
    corpus = read_corpus(_corpus_file(d))
    queries: list[NoMIRACLQuery] = []
    warnings: list[str] = []
    lang = bordir_code(code)
    for subset in SUBSETS:
        topics_f, qrels_f = (
            d / "topics" / f"{split}.{subset}.tsv",
            d / "qrels" / f"{split}.{subset}.tsv",
        )
        for f in (topics_f, qrels_f):
            if not f.is_file():
                raise DataError(
                    f"file not found; NoMIRACL's layout has topics/{split}.{subset}.tsv and "
                    f"qrels/{split}.{subset}.tsv",
                    path=f,
                )
        topics, qrels = read_topics(topics_f), read_qrels(qrels_f)
        no_topic = [q for q in qrels if q not in topics]
        no_qrels = [q for q in topics if q not in qrels]
        if no_topic:
            warnings.append(
                f"{subset}: {len(no_topic)} judged query id(s) have no topic (left out): "
                f"{some_ids(no_topic)}"
            )
        if no_qrels:
            warnings.append(
                f"{subset}: {len(no_qrels)} topic(s) have no judgments (left out): "
                f"{some_ids(no_qrels)}"
            )
        judged = [
            NoMIRACLQuery(qid, topics[qid], subset, lang, tuple(j.items()))
            for qid, j in qrels.items()
            if qid in topics
        ]
        kept, why = check_subset(subset, judged, str(qrels_f))
        queries += kept
        warnings += why
    return _finish(code, split, queries, corpus, source, layout, warnings)


def _finish(
    code: str,
    split: str,
    queries: list[NoMIRACLQuery],
    corpus: dict[str, tuple[str, str]],
    source: str,
    layout: str,
    warnings: list[str],
) -> NoMIRACL:
    missing = sorted({d for q in queries for d, _ in q.judgments if d not in corpus})
    if missing:
        warnings.append(
            f"{len(missing)} judged passage(s) are not in the corpus: {some_ids(missing)} (their "
            "queries are asked without them)"
        )
    # a relevant query whose relevant passages are all missing would be asked without any: its
    # error rate would be computed on the wrong premise (as for judgments that are all 0)
    unmet = [
        q.query_id
        for q in queries
        if q.subset == "relevant" and not any(r > 0 and d in corpus for d, r in q.judgments)
    ]
    if unmet:
        gone = set(unmet)
        queries = [q for q in queries if not (q.subset == "relevant" and q.query_id in gone)]
        warnings.append(
            f"relevant: {len(unmet)} query(ies) have no passage judged relevant in the corpus, "
            f"which the relevant subset needs; left out: {some_ids(unmet)}"
        )
    subsets: dict[str, set[str]] = {}
    for q in queries:
        subsets.setdefault(q.query_id, set()).add(q.subset)
    both = [qid for qid, s in subsets.items() if len(s) > 1]
    if both:
        warnings.append(
            f"{len(both)} query id(s) are in both subsets (judged on other passages in each): "
            f"{some_ids(both)}"
        )
    return NoMIRACL(
        bordir_code(code), code, split, tuple(queries), corpus, source, layout, tuple(warnings)
    )


# --- the hub's rows ----------------------------------------------------------------------------------


def _row_files(root: Path, code: str, split: str, subset: str) -> list[Path]:
    for base in (root / LANGUAGES[code], root / code, root):
        hits = sorted(base.glob(f"{split}.{subset}-*.parquet")) or sorted(
            (base / subset).glob(f"{_HUB_SPLIT[split]}-*.parquet")
        )
        if hits:
            return hits
    return []


def _from_rows(root: Path, code: str, split: str) -> NoMIRACL | None:
    files = {s: _row_files(root, code, split, s) for s in SUBSETS}
    if not any(files.values()):
        return None
    import pyarrow.parquet as pq

    lang = bordir_code(code)
    corpus: dict[str, tuple[str, str]] = {}
    queries: list[NoMIRACLQuery] = []
    warnings: list[str] = []
    for subset in SUBSETS:
        if not files[subset]:
            raise DataError(
                f"no {split}.{subset}-*.parquet (nor {subset}/{_HUB_SPLIT[split]}-*.parquet) "
                f"beside the {split} rows of the other subset",
                path=root,
            )
        read: list[NoMIRACLQuery] = []
        texts: dict[str, tuple[str, int]] = {}
        for f in files[subset]:
            try:
                rows = pq.read_table(f).to_pylist()
            except Exception as exc:  # pyarrow's errors have no common base we can name
                raise DataError(f"not a readable parquet file: {exc}", path=f) from None
            for i, row in enumerate(rows, start=1):
                qid, query, judged = read_row(row, f, i, corpus, texts)
                read.append(NoMIRACLQuery(qid, query, subset, lang, tuple(judged.items())))
        source = files[subset][0] if len(files[subset]) == 1 else files[subset][0].parent
        kept, why = check_subset(subset, read, str(source))
        queries += kept
        warnings += why
    return _finish(code, split, queries, corpus, str(root), "rows", warnings)


# --- the hub ----------------------------------------------------------------------------------------


def _download(code: str, split: str, revision: str | None, endpoint: str | None, repo: str) -> Path:
    hub = require("huggingface_hub", "hub", purpose="downloading NoMIRACL")
    base = f"data/{LANGUAGES[code]}"
    names = [f"{base}/corpus.jsonl.gz"] + [
        f"{base}/{kind}/{split}.{s}.tsv" for kind in ("topics", "qrels") for s in SUBSETS
    ]
    local = ""
    for name in names:
        try:
            local = hub.hf_hub_download(
                repo_id=repo,
                filename=name,
                repo_type="dataset",
                revision=revision,
                endpoint=endpoint,
            )
        except Exception as exc:  # huggingface_hub's errors: offline, 404, connection
            raise DataError(
                f"could not download {name} from the hub ({type(exc).__name__}: {exc}); "
                "pass path= a local copy in NoMIRACL's layout, or load it once with network access",
                path=f"hub:{repo}",
            ) from None
    return Path(local).parents[1]


def load_nomiracl(
    path: str | os.PathLike[str] | None = None,
    *,
    lang: str = "en",
    split: str = "test",
    revision: str | None = None,
    endpoint: str | None = None,
    repo: str = HUB_REPO,
) -> NoMIRACL:
    """Load one language and split of NoMIRACL (see the module docs for the layouts).

    Args:
        path: a local directory in one of the layouts; None: the hub (needs ``bordir[hub]``).
        lang: NoMIRACL code (``sw``), configuration name (``swahili``) or bordir code (``zhs``).
        split: ``test`` or ``dev``.
        revision: hub revision (with no ``path``).
        endpoint: hub endpoint (default: ``huggingface_hub``'s, ``$HF_ENDPOINT``).
        repo: hub dataset id.

    Raises:
        ConfigError: an unknown language or split.
        DataError: a file is missing or malformed (file, line and field).
    """
    code = nomiracl_code(lang)
    if split not in SPLITS:
        raise ConfigError(f"NoMIRACL has splits {', '.join(SPLITS)}; got {split!r}")
    if path is None:
        d = _download(code, split, revision, endpoint, repo)
        return _from_files(
            d, code, split, f"hub:{repo}" + (f"@{revision}" if revision else ""), "hub"
        )
    root = Path(path)
    if not root.is_dir():
        raise DataError(
            "not a directory; expected NoMIRACL's files (corpus.jsonl, topics/, qrels/) or the hub's rows",
            path=root,
        )
    found = _file_dir(root, code)
    if found is not None:
        return _from_files(found, code, split, str(found), "files")
    rows = _from_rows(root, code, split)
    if rows is not None:
        return rows
    raise DataError(
        f"no NoMIRACL data for {code} ({LANGUAGES[code]}) {split}: expected corpus.jsonl, "
        f"topics/{split}.{{subset}}.tsv and qrels/{split}.{{subset}}.tsv (here, in {code}/, "
        f"{LANGUAGES[code]}/ or data/{LANGUAGES[code]}/) or {LANGUAGES[code]}/{split}.{{subset}}-*.parquet",
        path=root,
    )
