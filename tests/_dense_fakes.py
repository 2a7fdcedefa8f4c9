"""Test helpers for dense retrieval: a deterministic text embedding and a local
HTTP server speaking the OpenAI embeddings and Cohere v2 embed protocols."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

DEFAULT_DIMS = {
    "text-embedding-3-large": 3072,
    "text-embedding-3-small": 1536,
    "embed-multilingual-v3.0": 1024,
    "embed-multilingual-light-v3.0": 384,
}


def hash_embedding(text: str, dim: int = 64) -> list[float]:
    """Bag of lower-cased words, each hashed to a signed bucket; unit length (zero for no words)."""
    v = np.zeros(dim)
    for word in re.findall(r"\w+", text.lower()):
        h = hashlib.sha256(word.encode()).digest()
        v[int.from_bytes(h[:4], "little") % dim] += 1.0 if h[4] & 1 else -1.0
    n = np.linalg.norm(v)
    return (v / n if n else v).tolist()


def hash_matrix(texts: Sequence[str], dim: int = 64) -> np.ndarray:
    return np.array([hash_embedding(t, dim) for t in texts], dtype=np.float32)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: dict


@dataclass
class FakeAPI:
    """What the server saw and what it will do next."""

    url: str
    requests: list[Recorded] = field(default_factory=list)
    failures: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    """Responses to send before answering normally: (status, headers), consumed in order."""

    def bodies(self, path: str) -> list[dict]:
        return [r.body for r in self.requests if r.path == path]


def start_fake_api() -> tuple[FakeAPI, ThreadingHTTPServer]:
    state: FakeAPI

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            body = json.loads(raw or b"{}")
            state.requests.append(
                Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            if state.failures:
                status, headers = state.failures.pop(0)
                self._send(
                    status, {"error": {"message": "slow down", "type": "rate_limit"}}, headers
                )
                return
            if self.path == "/v1/embeddings":
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                dim = body.get("dimensions") or DEFAULT_DIMS.get(body["model"], 64)
                data = [
                    {"object": "embedding", "index": i, "embedding": hash_embedding(t, dim)}
                    for i, t in enumerate(inputs)
                ]
                data.reverse()  # the client must order by index, not by position
                n = sum(len(t.split()) for t in inputs)
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body["model"],
                        "usage": {"prompt_tokens": n, "total_tokens": n},
                    },
                )
            elif self.path == "/v2/embed":
                texts = body["texts"]
                dim = body.get("output_dimension") or DEFAULT_DIMS.get(body["model"], 64)
                self._send(
                    200,
                    {
                        "id": f"emb-{len(state.requests)}",
                        "embeddings": {"float": [hash_embedding(t, dim) for t in texts]},
                        "texts": texts,
                        "meta": {
                            "api_version": {"version": "2"},
                            "billed_units": {"input_tokens": sum(len(t.split()) for t in texts)},
                        },
                        "response_type": "embeddings_by_type",
                    },
                )
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state = FakeAPI(url=f"http://127.0.0.1:{server.server_address[1]}")
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return state, server
