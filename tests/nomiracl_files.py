"""Small NoMIRACL datasets written in NoMIRACL's layouts, and a local server in the hub's layout, for tests.

:func:`write_nomiracl` writes NoMIRACL's files for a few languages (``corpus.jsonl``,
``topics/{split}.{subset}.tsv``, ``qrels/{split}.{subset}.tsv``, as its
``NoMIRACLDataLoader(data_dir)`` reads them). Each subset has ``n`` queries with 10 judged
passages and one with 9 (NoMIRACL's generation leaves it out); in the relevant subset the
third passage of each query is the relevant one. :func:`write_rows` writes the same data as
the hub's parquet rows (``query_id, query, positive_passages, negative_passages``).

:class:`HubServer` serves a directory in the hub repository's layout
(``data/{language}/corpus.jsonl.gz``, ``topics/``, ``qrels/``) over HTTP on 127.0.0.1 the
way ``huggingface_hub`` downloads a file: ``HEAD`` and ``GET`` of
``/datasets/{repo}/resolve/{revision}/{path}`` with ``ETag``, ``X-Repo-Commit`` and
``Content-Length``; it records every path asked for.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bordir.loaders.nomiracl import LANGUAGES

QUERY = {"sw": "Swali {i} la {subset}?", "en": "Question {i} of {subset}?", "zh": "问题{i}？"}
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def records(code: str, split: str = "test", n: int = 3) -> dict[str, list[dict[str, Any]]]:
    """Per subset, the queries of one language: ``{query_id, query, passages: [(docid, title, text, rel)]}``."""
    out: dict[str, list[dict[str, Any]]] = {}
    for subset in ("non_relevant", "relevant"):
        qs = []
        for i in range(n + 1):
            qid = f"{code}{split[0]}{subset[0]}{i}"
            passages = [
                (
                    f"{qid}#{p}",
                    f"Title {p}",
                    f" Text {p} of {qid}\nsecond line ",
                    int(subset == "relevant" and p == 2),
                )
                for p in range(10 if i < n else 9)
            ]
            qs.append(
                {
                    "query_id": qid,
                    "query": QUERY.get(code, "Q{i} {subset}?").format(i=i, subset=subset),
                    "passages": passages,
                }
            )
        out[subset] = qs
    return out


def write_nomiracl(
    root: Path,
    codes: tuple[str, ...] = ("sw", "en"),
    *,
    n: int = 3,
    layout: str = "code",
    gz: bool = False,
) -> Path:
    """NoMIRACL's files under ``root/<code>`` (``layout="code"``), ``root/data/<language>`` (``"hub"``)."""
    for code in codes:
        d = root / code if layout == "code" else root / "data" / LANGUAGES[code]
        (d / "topics").mkdir(parents=True, exist_ok=True)
        (d / "qrels").mkdir(parents=True, exist_ok=True)
        corpus: dict[str, dict[str, str]] = {}
        for split in ("test", "dev"):
            for subset, qs in records(code, split, n).items():
                (d / "topics" / f"{split}.{subset}.tsv").write_text(
                    "".join(f"{q['query_id']}\t{q['query']}\n" for q in qs), encoding="utf-8"
                )
                (d / "qrels" / f"{split}.{subset}.tsv").write_text(
                    "".join(
                        f"{q['query_id']}\tQ0\t{doc}\t{rel}\n"
                        for q in qs
                        for doc, _, _, rel in q["passages"]
                    ),
                    encoding="utf-8",
                )
                for q in qs:
                    for doc, title, text, _ in q["passages"]:
                        corpus[doc] = {"docid": doc, "title": title, "text": text}
        blob = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in corpus.values()).encode()
        if gz:
            (d / "corpus.jsonl.gz").write_bytes(gzip.compress(blob, mtime=0))
        else:
            (d / "corpus.jsonl").write_bytes(blob)
    return root


def write_rows(root: Path, codes: tuple[str, ...] = ("sw",), *, n: int = 3) -> Path:
    """The same data as the hub's parquet rows: ``root/<language>/{split}.{subset}-00000-of-00001.parquet``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    passage = pa.struct([("docid", pa.string()), ("title", pa.string()), ("text", pa.string())])
    for code in codes:
        d = root / LANGUAGES[code]
        d.mkdir(parents=True, exist_ok=True)
        for split in ("test", "dev"):
            for subset, qs in records(code, split, n).items():

                def side(q: dict[str, Any], rel: int) -> list[dict[str, str]]:
                    return [
                        {"docid": doc, "title": t, "text": x}
                        for doc, t, x, r in q["passages"]
                        if r == rel
                    ]

                table = pa.table(
                    {
                        "query_id": [q["query_id"] for q in qs],
                        "query": [q["query"] for q in qs],
                        "positive_passages": pa.array([side(q, 1) for q in qs], pa.list_(passage)),
                        "negative_passages": pa.array([side(q, 0) for q in qs], pa.list_(passage)),
                    }
                )
                pq.write_table(table, d / f"{split}.{subset}-00000-of-00001.parquet")
    return root


class HubServer:
    """A directory in the hub's layout, served as ``huggingface_hub`` downloads files (see the module docs)."""

    def __init__(self, root: Path, repo: str = "miracl/nomiracl") -> None:
        self.root = Path(root)
        self.repo = repo
        self.asked: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _file(self) -> Path | None:
                prefix = f"/datasets/{server.repo}/resolve/"
                if not self.path.startswith(prefix):
                    return None
                _, _, rel = self.path[len(prefix) :].partition("/")  # drop the revision
                server.asked.append(rel)
                f = server.root / rel
                return f if f.is_file() else None

            def _head(self, f: Path | None) -> bytes | None:
                if f is None:
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                body = f.read_bytes()
                self.send_response(200)
                self.send_header("ETag", f'"{hashlib.sha1(body).hexdigest()}"')
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                return body

            def do_HEAD(self) -> None:  # noqa: N802 (http.server's name)
                self._head(self._file())

            def do_GET(self) -> None:  # noqa: N802
                body = self._head(self._file())
                if body is not None:
                    self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> HubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
