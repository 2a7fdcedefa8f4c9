"""Batch providers: the upload / create / retrieve / download calls of one provider's batch API.

Batch APIs register by provider name in :data:`BATCH_PROVIDERS`
(``@batch_api("openai")``). Only OpenAI's Batch API is implemented (``openai/…`` and
``openai-compatible/…`` models, through the backend's own ``openai`` client, so the base URL and the
key come from the same place as for online calls). Cohere's batch / embed-jobs
API is not: models of other providers are called online by ``--collect``.

Calls used (the ``openai`` SDK's real API): ``client.files.create(file=…,
purpose="batch")``, ``client.batches.create(input_file_id=…,
endpoint="/v1/chat/completions", completion_window="24h")``,
``client.batches.retrieve(id)``, ``client.batches.cancel(id)``,
``client.batches.list()`` (to recover a batch whose creation was interrupted) and
``client.files.content(file_id)`` for the output and error files.

Every failure is a :class:`BatchError` with a one-line message in which the
API key is masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ...errors import BordirError, redact
from ...registry import Registry
from ..backend import Backend
from ..types import GenerationRequest, GenerationResult
from .requests import ENDPOINT, body_of

__all__ = [
    "BatchError",
    "BatchInfo",
    "OpenAIBatchProvider",
    "batch_provider",
    "batch_api",
    "BATCH_PROVIDERS",
]

BATCH_PROVIDERS: Registry[Any] = Registry(
    "batch provider", hint="(other providers' models are called online by --collect)"
)
"""Batch APIs by backend provider name: the class built as ``cls(backend)`` for ``--submit batch``.

A class registers itself (``@batch_api("openai")``); its ``supports(backend)``
says whether a backend of that provider can use it (:func:`batch_provider`)."""

batch_api = BATCH_PROVIDERS.register
"""Class decorator: the batch API of the backends of provider ``name`` (stack it for several)."""
MAX_LINES = 50_000
"""Requests per batch at most (OpenAI's limit); more are split over several batches."""


class BatchError(BordirError):
    """A batch call failed (upload, creation, retrieval, download).

    Attributes:
        status: the HTTP status of the provider's answer (None: no answer came back, as after a
            connection error or a timeout).
        refused: True when the provider definitely said no (a 4xx other than 408 / 409): the call
            had no effect there. Otherwise (no answer, a timeout, a 5xx, e.g. a proxy's 502) it may
            have taken effect.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def refused(self) -> bool:
        return (
            self.status is not None and 400 <= self.status < 500 and self.status not in (408, 409)
        )


@dataclass(frozen=True)
class BatchInfo:
    """What a retrieval says about a batch."""

    id: str
    status: str
    counts: dict[str, int] = field(default_factory=dict)
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: tuple[str, ...] = ()


@batch_api("openai-compatible", description="OpenAI's Batch API protocol on a compatible server")
@batch_api("openai", description="OpenAI's Batch API (/v1/batches, 24 h window)")
class OpenAIBatchProvider:
    """OpenAI's Batch API through an :class:`~bordir.generation.backends.openai.OpenAIBackend`'s client."""

    @staticmethod
    def supports(backend: Backend) -> bool:
        """True if ``backend`` holds an ``openai`` client (an OpenAI backend, not a stand-in)."""
        return hasattr(backend, "_client")

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.name = backend.provider
        self._client: Any = backend._client  # type: ignore[attr-defined]  # its openai.OpenAI
        self._sdk: Any = backend._sdk  # type: ignore[attr-defined]

    def secrets(self) -> tuple[str, ...]:
        return tuple(self.backend.secrets())

    def _fail(self, what: str, exc: Exception) -> BatchError:
        status = getattr(exc, "status_code", None)
        detail = getattr(exc, "message", None) or str(exc)
        where = f"HTTP {status}: " if status else ""
        return BatchError(
            redact(f"{self.backend.name}: {what} failed: {where}{detail}", self.secrets()),
            status=int(status) if isinstance(status, int) else None,
        )

    # -- the request side ------------------------------------------------------------------
    def body(self, request: GenerationRequest) -> dict[str, Any]:
        """The chat-completions body of ``request``, exactly as the online call sends it."""
        return body_of(self.backend._params(request))  # type: ignore[attr-defined]

    def upload(self, data: bytes, filename: str) -> str:
        """Upload a JSONL file with ``purpose="batch"``; returns the file id."""
        try:
            return str(self._client.files.create(file=(filename, data), purpose="batch").id)
        except self._sdk.OpenAIError as exc:
            raise self._fail("uploading the batch file", exc) from None

    def create(self, input_file_id: str) -> BatchInfo:
        """Create a batch over an uploaded file (24 h window)."""
        try:
            b = self._client.batches.create(
                input_file_id=input_file_id, endpoint=ENDPOINT, completion_window="24h"
            )
        except self._sdk.OpenAIError as exc:
            raise self._fail("creating the batch", exc) from None
        return self._info(b)

    def find_by_input(self, input_file_id: str, *, scan: int = 1000) -> BatchInfo | None:
        """The batch created over ``input_file_id`` (None: none among the ``scan`` most recent)."""
        try:
            for n, batch in enumerate(self._client.batches.list(limit=100)):
                if batch.input_file_id == input_file_id:
                    return self._info(batch)
                if n + 1 >= scan:
                    break
        except self._sdk.OpenAIError as exc:
            raise self._fail("listing the batches", exc) from None
        return None

    def retrieve(self, batch_id: str) -> BatchInfo:
        try:
            return self._info(self._client.batches.retrieve(batch_id))
        except self._sdk.OpenAIError as exc:
            raise self._fail(f"retrieving batch {batch_id}", exc) from None

    def cancel(self, batch_id: str) -> BatchInfo:
        try:
            return self._info(self._client.batches.cancel(batch_id))
        except self._sdk.OpenAIError as exc:
            raise self._fail(f"cancelling batch {batch_id}", exc) from None

    def content(self, file_id: str) -> bytes:
        """The bytes of a result file."""
        try:
            return bytes(self._client.files.content(file_id).content)
        except self._sdk.OpenAIError as exc:
            raise self._fail(f"downloading file {file_id}", exc) from None

    def to_result(self, request: GenerationRequest, body: Mapping[str, Any]) -> GenerationResult:
        """A 200 chat-completion body as the result the online call would have returned."""
        from openai.types.chat import ChatCompletion

        completion = ChatCompletion.model_validate(dict(body))
        return cast("GenerationResult", self.backend._result(request, completion, 0.0))  # type: ignore[attr-defined]

    def _info(self, b: Any) -> BatchInfo:
        counts = getattr(b, "request_counts", None)
        errs = getattr(getattr(b, "errors", None), "data", None) or []
        return BatchInfo(
            id=str(b.id),
            status=str(b.status),
            counts={k: int(getattr(counts, k, 0) or 0) for k in ("total", "completed", "failed")}
            if counts is not None
            else {},
            output_file_id=b.output_file_id,
            error_file_id=b.error_file_id,
            errors=tuple(
                redact(
                    f"{getattr(e, 'code', '') or 'error'}: {getattr(e, 'message', '') or ''}"
                    + (f" (line {e.line})" if getattr(e, "line", None) else ""),
                    self.secrets(),
                )
                for e in errs
            ),
        )


def batch_provider(backend: Backend) -> OpenAIBatchProvider | None:
    """The batch provider of ``backend`` (None: its provider has no batch API in bordir)."""
    if backend.provider not in BATCH_PROVIDERS:
        return None
    cls = BATCH_PROVIDERS.get(backend.provider)
    return cls(backend) if cls.supports(backend) else None
