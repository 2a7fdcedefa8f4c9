"""The model calls of ``bordir testrun`` and ``bordir judge``: one executor run whose warnings name each request.

A warning about a failed call names it by its entry in ``names`` (keyed by the
request's cache key: ``test t1 of cfg …``), or by the first characters of the key
when ``names`` does not hold it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..generation.backend import Backend
    from ..generation.types import GenerationRequest, GenerationResult

__all__ = ["execute_named"]


def execute_named(
    backend: Backend,
    requests: Sequence[GenerationRequest],
    names: Mapping[str, str],
    *,
    cache: Any,
    concurrency: int | None,
    timeout: float | None,
    max_retries: int | None,
    progress: bool,
    desc: str,
) -> list[GenerationResult]:
    """Answer ``requests`` with ``backend`` (one result per request, in order).

    Args:
        backend: the model.
        requests: the calls.
        names: what a warning calls a request, by cache key.
        cache: a response cache (None: no cache).
        concurrency: calls in flight at most (None: the executor's default).
        timeout: seconds one call may take over its attempts (None: the executor's default).
        max_retries: retries of a transient failure (None: the executor's default).
        progress: show a progress bar.
        desc: the progress bar's label.
    """
    from ..generation.call_limits import ExecutorOptions
    from ..generation.executor import execute

    def name(request: GenerationRequest) -> str:
        key = request.cache_key()
        return names.get(key, f"request {key[:12]}…")

    return execute(
        backend,
        requests,
        cache=cache,
        options=ExecutorOptions.given(
            concurrency=concurrency, timeout=timeout, max_retries=max_retries
        ),
        progress=progress,
        desc=desc,
        label=name,
    )
