"""A real HTTP server on 127.0.0.1 speaking OpenAI's Files and Batch APIs (and chat completions), for tests.

Routes (the wire format of the OpenAI API, as the official ``openai`` SDK sends and reads it):

* ``POST /v1/files`` (multipart: ``purpose`` and ``file``) → a file object (``id``, ``bytes``, ``purpose`` …);
* ``GET /v1/files/{id}`` and ``GET /v1/files/{id}/content`` (the raw bytes);
* ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``) → a batch object;
* ``GET /v1/batches?limit=&after=`` → the batches, newest first (cursor pagination);
* ``GET /v1/batches/{id}`` → the batch; every retrieval advances it one step:
  ``validating`` → ``in_progress`` → ``finalizing`` → ``completed`` (or ``expired`` / ``failed``);
* ``POST /v1/batches/{id}/cancel`` → ``cancelling``, then ``cancelled`` on the next retrieval;
* ``POST /v1/chat/completions`` → the online answer, exactly as :mod:`tests.loopback` gives it.

When a batch finishes, each input line ``{"custom_id", "method", "url", "body"}`` is answered like an online
chat completion (same :class:`~tests.loopback.Reply`), written as an output line
``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error": null}``; requests
that fail go to the error file (``status_code`` 500, or the status ``fail`` returns, e.g. 429, with an
error body echoing the API key, so that tests can prove it is redacted), and on expiry the
unprocessed ones get ``{"response": null, "error": {"code": "batch_expired", ...}}``. As at OpenAI,
the lines of the output and error files are NOT in input order (they are shuffled, seeded by
``seed``: clients must match them by ``custom_id``), and ``request_counts`` grows while the batch is
``in_progress`` (``completed`` so far) before it reaches its final values.

Programming: ``after_create`` (a queue, one entry per batch creation: ``"drop"`` creates the
batch and closes the connection without answering, an HTTP status such as ``502`` creates it and
answers that error, as a proxy whose upstream answered too late; a 4xx status refuses without
creating), ``fail`` (on the request body: truthy answers that line with an error, HTTP 500 or the
int it returns), ``expire_after``
(process only that many lines, then expire), ``fail_validation`` (the batch goes to ``failed``
with ``errors``), ``steps`` (retrievals before the batch completes).

The routes themselves are in :mod:`tests._batch_http`, the HTTP plumbing in :mod:`tests.http_base`.
Neither file imports bordir.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ._batch_http import Handler, lines_of
from .http_base import LocalHTTPServer
from .loopback import Reply, chat_completion

__all__ = ["BatchServer"]

_STEPS = ("validating", "in_progress", "finalizing", "completed")


@dataclass
class _Batch:
    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    created_at: int
    status: str = "validating"
    step: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: dict | None = None
    counts: dict = field(default_factory=lambda: {"total": 0, "completed": 0, "failed": 0})
    times: dict = field(default_factory=dict)
    key: str = ""  # the API key of the request that created the batch (echoed in errors)

    def payload(self) -> dict:
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "errors": self.errors,
            "input_file_id": self.input_file_id,
            "completion_window": self.completion_window,
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "in_progress_at": self.times.get("in_progress"),
            "expires_at": self.created_at + 86400,
            "finalizing_at": self.times.get("finalizing"),
            "completed_at": self.times.get("completed"),
            "failed_at": self.times.get("failed"),
            "expired_at": self.times.get("expired"),
            "cancelling_at": self.times.get("cancelling"),
            "cancelled_at": self.times.get("cancelled"),
            "request_counts": dict(self.counts),
            "metadata": None,
        }


class BatchServer(LocalHTTPServer):
    """Files + batches + chat completions on 127.0.0.1 (random port); a context manager.

    Args:
        reply: how chat completions (online or in a batch) are answered.
        fail: ``fail(body) -> bool | int``: answer this batch line with an error in the error file
            (HTTP 500, or the status code returned, e.g. 429).
        expire_after: process this many lines of a batch, then let it expire (None: process all).
        fail_validation: the next batches fail validation (status ``failed``).
        steps: retrievals a batch takes from ``validating`` to ``completed`` (at least 1).
        seed: seeds the shuffling of the result files' lines.
    """

    handler = Handler
    name = "batch"

    def __init__(
        self,
        *,
        reply: Reply | None = None,
        fail: Callable[[dict], bool | int] | None = None,
        expire_after: int | None = None,
        fail_validation: bool = False,
        steps: int = 3,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.reply = reply or Reply()
        self.fail = fail
        self.expire_after = expire_after
        self.fail_validation = fail_validation
        self.steps = max(1, steps)
        self._rng = random.Random(seed)
        self.files: dict[str, dict] = {}
        self.batches: dict[str, _Batch] = {}
        self.log: list[tuple[str, str]] = []  # (method, path) of every request
        self.chat_calls = 0  # online chat completions answered
        self.batch_lines = 0  # batch lines answered (successfully or not)
        self.after_create: deque[str | int] = deque()  # lost answers to the next creations
        self._lock = threading.Lock()

    # -- addresses ---------------------------------------------------------------------------
    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    # -- inspection ------------------------------------------------------------------------
    def submitted_lines(self) -> list[dict]:
        """Every request line of every batch created so far, in order."""
        out = []
        for b in self.batches.values():
            out.extend(lines_of(self.files[b.input_file_id]["data"]))
        return out

    # -- the API ---------------------------------------------------------------------------
    def _new_file(self, data: bytes, purpose: str, filename: str) -> dict:
        fid = f"file-{uuid.uuid4().hex[:24]}"
        obj = {
            "id": fid,
            "object": "file",
            "bytes": len(data),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }
        self.files[fid] = {"meta": obj, "data": data}
        return obj

    def chat(self, body: dict) -> dict:
        return chat_completion(self.reply, body, f"chatcmpl-batch-{uuid.uuid4().hex[:12]}")

    def _advance(self, b: _Batch) -> None:
        now = int(time.time())
        if b.status == "cancelling":
            b.status = "cancelled"
            b.times["cancelled"] = now
            self._finish(b, limit=0, code="batch_cancelled")
            return
        if b.status in ("completed", "failed", "expired", "cancelled"):
            return
        if b.status == "validating":
            lines = lines_of(self.files[b.input_file_id]["data"])
            if self.fail_validation:
                b.status = "failed"
                b.times["failed"] = now
                b.errors = {
                    "object": "list",
                    "data": [
                        {"code": "invalid_request", "message": "validation failed", "line": 1}
                    ],
                }
                return
            b.counts["total"] = len(lines)
            b.status = "in_progress"
            b.times["in_progress"] = now
            b.step = 1
            if self.steps > 1:
                return
        b.step += 1
        if b.step < self.steps:
            # in progress: part of the lines done (counts only; the files come at the end)
            b.counts["completed"] = b.counts["total"] * b.step // self.steps
            return
        if self.expire_after is not None:
            b.status = "expired"
            b.times["expired"] = now
            self._finish(b, limit=self.expire_after, code="batch_expired")
            return
        b.status = "completed"
        b.times["finalizing"] = b.times["completed"] = now
        self._finish(b, limit=None, code="")

    def _finish(self, b: _Batch, *, limit: int | None, code: str) -> None:
        """Answer the batch's lines (the first ``limit`` of them; None: all) into output / error files."""
        out, err = [], []
        for n, line in enumerate(lines_of(self.files[b.input_file_id]["data"])):
            rid = f"batch_req_{uuid.uuid4().hex[:16]}"
            if limit is not None and n >= limit:
                message = {
                    "batch_expired": "This request could not be executed before the completion window expired.",
                    "batch_cancelled": "This request was cancelled.",
                }[code]
                err.append(
                    {
                        "id": rid,
                        "custom_id": line["custom_id"],
                        "response": None,
                        "error": {"code": code, "message": message},
                    }
                )
                continue
            self.batch_lines += 1
            body = line.get("body") or {}
            bad = self.fail(body) if self.fail is not None else False
            if bad:
                status = 500 if bad is True else int(bad)
                err.append(
                    {
                        "id": rid,
                        "custom_id": line["custom_id"],
                        "response": {
                            "status_code": status,
                            "request_id": rid,
                            "body": {
                                "error": {
                                    "message": f"error {status} serving key {b.key}",
                                    "type": "rate_limit_exceeded"
                                    if status == 429
                                    else "server_error",
                                    "param": None,
                                    "code": None,
                                }
                            },
                        },
                        "error": None,
                    }
                )
                continue
            out.append(
                {
                    "id": rid,
                    "custom_id": line["custom_id"],
                    "response": {"status_code": 200, "request_id": rid, "body": self.chat(body)},
                    "error": None,
                }
            )
        b.counts["completed"] = len(out)
        b.counts["failed"] = len(err)
        self._rng.shuffle(out)  # the real service does not keep the input order either
        self._rng.shuffle(err)
        if out:
            b.output_file_id = self._new_file(_jsonl(out), "batch_output", "output.jsonl")["id"]
        if err:
            b.error_file_id = self._new_file(_jsonl(err), "batch_output", "errors.jsonl")["id"]


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
