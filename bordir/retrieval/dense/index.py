"""An on-disk approximate index over corpus embeddings: FAISS IVF-PQ, one index per document language.

What a large corpus needs at query time is a small, bounded amount of memory.
:class:`IVFPQIndex` keeps nothing proportional to the corpus in the Python heap:

* per document language, a FAISS ``IndexIVFPQ`` (inner product over
  L2-normalised vectors, so scores are cosines) whose inverted lists (the PQ
  codes and ids) live in a ``.ivfdata`` file read through
  ``faiss.OnDiskInvertedLists`` (memory-mapped; only the probed lists are
  paged in);
* the full-precision vectors in one ``vectors.npy``, used to re-rank the
  ``refine × k`` best PQ candidates exactly and to score a given pool of
  documents exactly: only those rows are read (``os.pread`` of each run of
  consecutive rows, so no page of the file is mapped into the process).

Languages with fewer than ``min_ivf`` vectors get no IVF index: they are
scanned exactly from the vectors file (at most ``min_ivf`` rows). Per-language indexes make a language restriction exact: a mode
that searches ``{qlang, en}`` asks those two indexes and merges by cosine
(one scale), with no post-filtering loss.

Layout of an index directory::

    meta.json          format, parameters, per-language sizes and kinds, faiss version, source
    keys.npz           the (lang, doc_id) of every row
    vectors.npy        (n, d) float32, L2-normalised, row i = key i
    <lang>.faiss       the trained IVF-PQ index of one language (ids are global rows)
    <lang>.ivfdata     its inverted lists, memory-mapped at query time

Install with ``pip install 'bordir[index]'``.

Example:
    >>> import numpy as np, tempfile
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal((600, 16)).astype(np.float32)
    >>> keys = [("en", f"d{i}") for i in range(600)]
    >>> params = IndexParams(nlist=4, m=4, nprobe=4, min_ivf=100)
    >>> d = tempfile.mkdtemp()
    >>> index = IVFPQIndex.build(x, keys, d, params)
    >>> index.kinds()
    {'en': 'ivfpq'}
    >>> q = x[7] / np.linalg.norm(x[7])
    >>> [int(r) for r in index.search(q, 1)[0]]   # the vector itself, re-ranked exactly
    [7]
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..._extras import require
from ..._io.atomic import atomic_replace_dir, atomic_write_text
from ..._io.json_read import loads
from ...errors import ConfigError, DataError
from ..bm25_store import lang_stem
from .store import l2_normalise

__all__ = ["INDEX_FORMAT", "IndexParams", "IVFPQIndex", "faiss_module"]

_PREAD = hasattr(os, "pread")

INDEX_FORMAT = 1
"""Version of the index directory layout; an index of another format is rebuilt."""


def faiss_module() -> Any:
    """``faiss``, or :class:`~bordir.errors.MissingExtraError` naming ``bordir[index]``."""
    return require("faiss", "index", purpose="the IVF-PQ index")


@dataclass(frozen=True)
class IndexParams:
    """Parameters of an :class:`IVFPQIndex`.

    Attributes:
        nlist: inverted lists (k-means cells) per language (fewer for a small language:
            at most one per 39 vectors, FAISS's minimum training size).
        m: PQ sub-quantizers (must divide the dimension); each vector's code is ``m × nbits`` bits.
        nbits: bits per sub-quantizer code (fewer for a language of under ``2**nbits`` vectors).
        nprobe: lists visited per query (``nprobe = nlist`` visits all: only PQ error remains).
        refine: the ``refine × k`` best PQ candidates are re-ranked with the exact vectors.
        min_ivf: languages with fewer vectors are scanned exactly instead.
        train_size: at most this many vectors (a seeded sample) train each language's quantizers.
        seed: the training sample's seed.
    """

    nlist: int = 1024
    m: int = 16
    nbits: int = 8
    nprobe: int = 16
    refine: int = 25
    min_ivf: int = 1000
    train_size: int = 65536
    seed: int = 0

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            low = 0 if name in ("seed", "min_ivf") else 1
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(
                    f"index parameter {name} must be an integer >= {low}, found {value!r}"
                )
        if self.nbits > 16:
            raise ConfigError(f"index parameter nbits must be at most 16, found {self.nbits}")

    def build_key(self) -> dict[str, int]:
        """The parameters that change the built files (not ``nprobe``/``refine``, which are query-time)."""
        return {k: v for k, v in asdict(self).items() if k not in ("nprobe", "refine")}


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence FAISS's C-level chatter on file descriptors 1 and 2 (``resizing …``, k-means warnings)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
    except (OSError, ValueError):  # pragma: no cover - no real stdout/stderr
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
    finally:
        for fd in saved:
            os.close(fd)


def _lang_file(lang: str) -> str:
    return lang_stem(lang)


class IVFPQIndex:
    """An opened index directory (see the module docs); build one with :meth:`build`.

    Attributes:
        path: the index directory.
        params: the parameters it was built with (``nprobe``/``refine`` may be changed per query).
        meta: the contents of ``meta.json``.
        vectors: the ``(n, d)`` vectors, memory-mapped (opened on first use; searching reads rows
            with ``os.pread`` instead).
    """

    def __init__(self, path: str | os.PathLike[str], params: IndexParams | None = None) -> None:
        self.path = Path(path)
        meta_path = self.path / "meta.json"
        try:
            self.meta: dict[str, Any] = loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataError(f"not a readable index directory: {exc}", path=meta_path) from None
        built = IndexParams(**self.meta["params"])
        self.params = params if params is not None else built
        with np.load(self.path / "keys.npz", allow_pickle=False) as z:
            self._langs, self._ids = z["langs"], z["doc_ids"]
        self._keys: tuple[tuple[str, str], ...] | None = None
        self._row: dict[tuple[str, str], int] | None = None
        self._vectors_path = self.path / "vectors.npy"
        with open(self._vectors_path, "rb") as f:
            major, _ = np.lib.format.read_magic(f)
            read_header = (
                np.lib.format.read_array_header_1_0
                if major == 1
                else np.lib.format.read_array_header_2_0
            )
            shape, fortran, dtype = read_header(f)
            self._offset = f.tell()
        if fortran or np.dtype(dtype) != np.dtype("<f4") or len(shape) != 2:
            raise DataError(
                f"expected a C-ordered float32 (n, d) matrix, found {dtype} {shape}",
                path=self._vectors_path,
            )
        self.dims = int(shape[1])
        self._row_bytes = 4 * self.dims
        # opened now, not on first read: an opened index keeps reading its own files when
        # another process replaces the directory
        self._fd: int | None = os.open(self._vectors_path, os.O_RDONLY) if _PREAD else None
        self._memmap: np.ndarray | None = None
        names, inverse = np.unique(self._langs, return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[order], np.arange(len(names) + 1))
        self._lang_rows: dict[str, np.ndarray] = {
            str(lang): order[bounds[i] : bounds[i + 1]].astype(np.int64)
            for i, lang in enumerate(names)
        }
        self._faiss: dict[str, Any] = {}
        langs_meta = self.meta["langs"]
        if any(info["kind"] == "ivfpq" for info in langs_meta.values()):
            faiss = faiss_module()
            flags = faiss.IO_FLAG_ONDISK_SAME_DIR | faiss.IO_FLAG_READ_ONLY
            with _quiet():
                for lang, info in langs_meta.items():
                    if info["kind"] == "ivfpq":
                        self._faiss[lang] = faiss.read_index(str(self.path / info["file"]), flags)

    # -- building ----------------------------------------------------------------

    @classmethod
    def build(
        cls,
        matrix: np.ndarray,
        keys: Sequence[tuple[str, str]],
        path: str | os.PathLike[str],
        params: IndexParams,
        *,
        source: dict[str, Any] | None = None,
        normalise: bool = True,
    ) -> IVFPQIndex:
        """Build the index of ``matrix`` (row ``i`` = ``keys[i]``) into directory ``path`` (replaced).

        The directory is written next to itself (``path.tmp-<pid>``) and renamed into place, so an
        interrupted build leaves no half index. ``source`` is recorded in ``meta.json`` (what the
        vectors came from, so a changed source is detected). ``normalise=False`` stores rows that
        are already unit length (an embedding store's matrix) bit for bit: normalising them again
        moves some values by one ulp, which reorders near-ties against the exact retriever.

        Raises:
            ConfigError: ``m`` does not divide the dimension, or the shapes disagree.
        """
        matrix = np.asarray(matrix)
        if matrix.ndim != 2 or matrix.shape[0] != len(keys):
            raise ConfigError(f"index build: {matrix.shape} matrix for {len(keys)} keys")
        dims = int(matrix.shape[1])
        if dims % params.m:
            raise ConfigError(
                f"index parameter m={params.m} must divide the vector size {dims}; "
                f"choose one of {', '.join(str(m) for m in range(1, dims + 1) if dims % m == 0 and m <= 64)}"
            )
        path = Path(path)
        tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        vectors = np.lib.format.open_memmap(
            tmp / "vectors.npy", mode="w+", dtype=np.float32, shape=matrix.shape
        )
        for start in range(0, len(matrix), 65536):
            chunk = matrix[start : start + 65536]
            vectors[start : start + 65536] = l2_normalise(chunk) if normalise else chunk
        vectors.flush()
        langs = np.array([k[0] for k in keys], dtype=str)
        np.savez(tmp / "keys.npz", langs=langs, doc_ids=np.array([k[1] for k in keys], dtype=str))
        by_lang: dict[str, list[int]] = {}
        for i, (lang, _) in enumerate(keys):
            by_lang.setdefault(lang, []).append(i)
        langs_meta: dict[str, dict[str, Any]] = {}
        from ..._progress import progress_bar

        bar = progress_bar(None, total=len(by_lang), desc="ivfpq index", unit="lang")
        for lang, rows_list in sorted(by_lang.items()):
            if bar is not None:
                bar.set_postfix(lang=lang, refresh=False)
                bar.update(1)
            rows = np.asarray(rows_list, dtype=np.int64)
            if len(rows) < max(2, params.min_ivf):
                langs_meta[lang] = {"n": len(rows), "kind": "flat"}
                continue
            langs_meta[lang] = _build_lang(vectors, rows, tmp, _lang_file(lang), params)
        if bar is not None:
            bar.close()
        meta = {
            "format": INDEX_FORMAT,
            "kind": "ivfpq",
            "params": asdict(params),
            "dims": dims,
            "passages": len(keys),
            "langs": langs_meta,
            "faiss": _faiss_version(),
            "source": source or {},
        }
        atomic_write_text(tmp / "meta.json", json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
        del vectors
        atomic_replace_dir(tmp, path)
        return cls(path, params)

    # -- querying ----------------------------------------------------------------

    def kinds(self) -> dict[str, str]:
        """Each language's index kind: ``ivfpq`` or ``flat`` (exact scan, under ``min_ivf`` vectors)."""
        return {lang: info["kind"] for lang, info in self.meta["langs"].items()}

    @property
    def langs(self) -> tuple[str, ...]:
        return tuple(sorted(self._lang_rows))

    def __len__(self) -> int:
        return len(self._langs)

    @property
    def keys(self) -> tuple[tuple[str, str], ...]:
        """The ``(lang, doc_id)`` of every row (built on first use: a large index searched by row needs none)."""
        if self._keys is None:
            self._keys = tuple(zip(self._langs.tolist(), self._ids.tolist()))
        return self._keys

    def key(self, row: int) -> tuple[str, str]:
        """The ``(lang, doc_id)`` of one row."""
        return (str(self._langs[row]), str(self._ids[row]))

    def row(self, key: tuple[str, str]) -> int | None:
        """The row of ``(lang, doc_id)``, or None."""
        if self._row is None:
            self._row = {k: i for i, k in enumerate(self.keys)}
        return self._row.get(key)

    @property
    def vectors(self) -> np.ndarray:
        if self._memmap is None:
            self._memmap = np.load(self._vectors_path, mmap_mode="r")
        return self._memmap

    def read_rows(self, rows: np.ndarray) -> np.ndarray:
        """The vectors of ``rows`` (any order, repeats allowed), read from the file, not mapped."""
        rows = np.asarray(rows, dtype=np.int64)
        uniq, inverse = np.unique(rows, return_inverse=True)
        out = np.empty((len(uniq), self.dims), dtype=np.float32)
        if len(uniq) and (uniq[0] < 0 or uniq[-1] >= len(self)):
            raise ConfigError(f"row out of range 0..{len(self) - 1}")
        if not _PREAD:  # pragma: no cover - Windows
            out[:] = self.vectors[uniq]
            return out[inverse]
        if self._fd is None:
            self._fd = os.open(self._vectors_path, os.O_RDONLY)
        breaks = np.flatnonzero(np.diff(uniq) != 1) + 1
        starts = np.concatenate(([0], breaks)).tolist()
        ends = np.concatenate((breaks, [len(uniq)])).tolist()
        for s, e in zip(starts, ends):  # one read per run of consecutive rows
            size = (e - s) * self._row_bytes
            buf = os.pread(self._fd, size, self._offset + int(uniq[s]) * self._row_bytes)
            out[s:e] = np.frombuffer(buf, dtype="<f4").reshape(e - s, self.dims)
        return out[inverse]

    def score_rows(self, query: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Exact cosine of ``query`` (unit) to the given rows (read from the vectors file)."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) == 0:
            return np.zeros(0, dtype=np.float32)
        return self.read_rows(rows) @ np.asarray(query, dtype=np.float32)

    def close(self) -> None:
        """Close the vectors file (reopened on the next read)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def search(
        self, query: np.ndarray, k: int = 10, langs: Sequence[str] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Approximate top-``k`` rows for a unit ``query`` over ``langs`` (default: all), best first.

        Each language's IVF-PQ index yields its ``refine × k`` best candidates (``nprobe`` lists
        visited), which are re-scored exactly; small languages are scanned exactly. The merged
        candidates are ranked by exact cosine (ties by row).
        """
        q = np.asarray(query, dtype=np.float32).reshape(1, -1)
        chosen = (
            self.langs
            if langs is None
            else [l for l in dict.fromkeys(langs) if l in self._lang_rows]
        )
        k = max(0, int(k))
        cands: list[np.ndarray] = []
        for lang in chosen:
            index = self._faiss.get(lang)
            if index is None:
                cands.append(self._lang_rows[lang])
                continue
            index.nprobe = min(self.params.nprobe, index.nlist)
            want = min(len(self._lang_rows[lang]), max(k, k * self.params.refine))
            _, ids = index.search(q, want)
            cands.append(ids[0][ids[0] >= 0])
        if not cands or k == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        rows = np.unique(np.concatenate(cands))
        scores = self.score_rows(q[0], rows)
        order = np.lexsort((rows, -scores))[:k]
        return rows[order], scores[order]


def _faiss_version() -> str:
    return str(getattr(faiss_module(), "__version__", "unknown"))


def _build_lang(
    vectors: np.ndarray, rows: np.ndarray, out: Path, stem: str, params: IndexParams
) -> dict[str, Any]:
    """Train and fill the IVF-PQ index of one language; its lists go to ``<stem>.ivfdata``."""
    faiss = faiss_module()
    n, dims = len(rows), int(vectors.shape[1])
    nlist = max(1, min(params.nlist, n // 39))
    nbits = max(1, min(params.nbits, int(np.log2(n))))
    rng = np.random.default_rng(params.seed)
    sample = np.sort(rng.choice(n, size=min(n, params.train_size), replace=False))
    train = np.ascontiguousarray(vectors[rows[sample]], dtype=np.float32)
    quantizer = faiss.IndexFlatIP(dims)
    index = faiss.IndexIVFPQ(quantizer, dims, nlist, params.m, nbits, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = params.seed
    index.pq.cp.seed = params.seed
    with _quiet():
        index.train(train)
        for start in range(0, n, 65536):
            chunk = rows[start : start + 65536]
            index.add_with_ids(np.ascontiguousarray(vectors[chunk], dtype=np.float32), chunk)
        # move the (in-memory) lists to one on-disk file, memory-mapped when the index is read
        lists = faiss.OnDiskInvertedLists(nlist, index.code_size, str(out / f"{stem}.ivfdata"))
        ptrs = faiss.InvertedListsPtrVector()
        ptrs.push_back(index.invlists)
        total = lists.merge_from_multiple(ptrs.data(), ptrs.size(), False, False)
        index.replace_invlists(lists, False)
        index.ntotal = total
        faiss.write_index(index, str(out / f"{stem}.faiss"))
    del index  # does not own ``lists``: delete the index first, then the lists
    del lists
    return {"n": n, "kind": "ivfpq", "nlist": nlist, "nbits": nbits, "file": f"{stem}.faiss"}
