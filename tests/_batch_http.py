"""The HTTP side of :mod:`tests.batch_server`: routes of OpenAI's Files and Batch APIs onto a BatchServer.

``POST /v1/files`` (multipart), ``GET /v1/files/{id}[/content]``, ``POST /v1/batches``,
``GET /v1/batches`` (the list, newest first), ``GET /v1/batches/{id}``,
(a creation whose answer is lost: :attr:`BatchServer.after_create`),
``POST /v1/batches/{id}/cancel`` and ``POST /v1/chat/completions``.
The HTTP plumbing is :mod:`tests.http_base`. This file does not import bordir.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from email.parser import BytesParser
from email.policy import HTTP
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from .http_base import JSONHandler

if TYPE_CHECKING:
    from .batch_server import BatchServer

__all__ = ["Handler", "lines_of"]


def lines_of(data: bytes) -> list[dict]:
    """The JSON objects of a JSONL file."""
    return [json.loads(s) for s in data.decode("utf-8").splitlines() if s.strip()]


def _multipart(content_type: str, raw: bytes) -> dict[str, tuple[str, bytes]]:
    """``{field: (filename, bytes)}`` of a multipart/form-data body."""
    msg = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + raw
    )
    out = {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        out[str(name)] = (
            str(part.get_filename() or ""),
            part.get_payload(decode=True) or b"",
        )
    return out


class Handler(JSONHandler):
    owner: BatchServer

    def _error(self, status: int, message: str) -> bool:
        """An OpenAI error body; the message echoes the caller's key (clients must redact it)."""
        return self.send_json(
            status,
            {
                "error": {
                    "message": f"{message} (request made with key {self._key()})",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": None,
                }
            },
        )

    def _key(self) -> str:
        return self.headers.get("Authorization", "").removeprefix("Bearer ").strip()

    def do_GET(self) -> bool | None:
        s = self.owner
        with s._lock:
            s.log.append(("GET", self.path))
            if m := re.fullmatch(r"/v1/files/([\w-]+)/content", self.path):
                f = s.files.get(m.group(1))
                if f is None:
                    return self._error(404, f"No such File object: {m.group(1)}")
                return self.send_bytes(200, f["data"], content_type="application/octet-stream")
            if m := re.fullmatch(r"/v1/files/([\w-]+)", self.path):
                f = s.files.get(m.group(1))
                if f is None:
                    return self._error(404, f"No such File object: {m.group(1)}")
                return self.send_json(200, f["meta"])
            url = urlsplit(self.path)
            if url.path == "/v1/batches":  # newest first, cursor pagination (limit, after)
                q = parse_qs(url.query)
                items = list(reversed(s.batches.values()))
                if "after" in q:
                    ids = [b.id for b in items]
                    items = items[ids.index(q["after"][0]) + 1 :] if q["after"][0] in ids else []
                limit = int(q.get("limit", ["20"])[0])
                page = [b.payload() for b in items[:limit]]
                return self.send_json(
                    200,
                    {
                        "object": "list",
                        "data": page,
                        "first_id": page[0]["id"] if page else None,
                        "last_id": page[-1]["id"] if page else None,
                        "has_more": len(items) > limit,
                    },
                )
            if m := re.fullmatch(r"/v1/batches/([\w-]+)", self.path):
                b = s.batches.get(m.group(1))
                if b is None:
                    return self._error(404, f"No batch found with id '{m.group(1)}'.")
                s._advance(b)
                return self.send_json(200, b.payload())
        return self._error(404, f"no route GET {self.path}")

    def do_POST(self) -> bool | None:
        s = self.owner
        raw = self.read_body()
        with s._lock:
            s.log.append(("POST", self.path))
            if self.path == "/v1/files":
                parts = _multipart(self.headers.get("Content-Type", ""), raw)
                if "file" not in parts or "purpose" not in parts:
                    return self._error(400, "multipart fields 'file' and 'purpose' are required")
                purpose = parts["purpose"][1].decode()
                if purpose != "batch":
                    return self._error(400, f"unsupported purpose {purpose!r}")
                name, data = parts["file"]
                try:
                    lines = lines_of(data)
                except ValueError:
                    return self._error(400, "the file is not JSONL")
                ids = [ln.get("custom_id") for ln in lines]
                if len(set(ids)) != len(ids) or any(
                    ln.get("method") != "POST" or ln.get("url") != "/v1/chat/completions"
                    for ln in lines
                ):
                    return self._error(400, "duplicate custom_id or bad method/url in the file")
                return self.send_json(200, s._new_file(data, "batch", name or "input.jsonl"))
            body = json.loads(raw or b"{}")
            if self.path == "/v1/chat/completions":
                s.chat_calls += 1
                return self.send_json(200, s.chat(body))
            if self.path == "/v1/batches":
                fid = body.get("input_file_id")
                if fid not in s.files:
                    return self._error(400, f"No such File object: {fid}")
                if body.get("endpoint") != "/v1/chat/completions":
                    return self._error(400, f"unsupported endpoint {body.get('endpoint')!r}")
                if body.get("completion_window") != "24h":
                    return self._error(400, "completion_window must be '24h'")
                from .batch_server import _Batch

                b = _Batch(
                    id=f"batch_{uuid.uuid4().hex[:24]}",
                    input_file_id=fid,
                    endpoint=body["endpoint"],
                    completion_window="24h",
                    created_at=int(time.time()),
                    key=self._key(),
                )
                lost = s.after_create.popleft() if s.after_create else None
                if lost is not None and lost != "drop" and int(lost) < 500:
                    return self._error(int(lost), "refused")  # a definite refusal: no batch
                s.batches[b.id] = b
                if lost == "drop":  # created, but the answer never leaves: the connection closes
                    self.close_connection = True
                    return None
                if lost is not None:  # created, then a proxy answers with this status
                    return self._error(int(lost), "Bad gateway")
                return self.send_json(200, b.payload())
            if m := re.fullmatch(r"/v1/batches/([\w-]+)/cancel", self.path):
                b = s.batches.get(m.group(1))
                if b is None:
                    return self._error(404, f"No batch found with id '{m.group(1)}'.")
                if b.status in ("validating", "in_progress", "finalizing"):
                    b.status = "cancelling"
                    b.times["cancelling"] = int(time.time())
                return self.send_json(200, b.payload())
        return self._error(404, f"no route POST {self.path}")
