"""The executor's small parts: its argument checks, the worker count, secret masking, the progress bar.

Example:
    >>> from bordir.generation.types import GenerationResult
    >>> scrub(GenerationResult(text="key tok-9876 here", model="m"), lambda t: t.replace("tok-9876", "***")).text
    'key *** here'
    >>> check_options(max_retries=-1)
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: max_retries must be an integer >= 0, got -1
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError
from .backend import Backend
from .types import GenerationResult

__all__ = ["check_options", "worker_count", "describe", "scrub", "progress_bar"]

log = logging.getLogger("bordir.generation.executor")
_noted_concurrency: set[tuple[str, int]] = set()


def check_options(
    *,
    max_retries: int = 0,
    concurrency: int | None = None,
    timeout: float | None = None,
    request_deadline: float | None = None,
    deadline: float | None = None,
    max_consecutive_failures: int | None = None,
) -> None:
    """Raise :class:`~bordir.errors.ConfigError` naming the first invalid argument of ``execute``."""
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigError(f"max_retries must be an integer >= 0, got {max_retries!r}")
    if concurrency is not None and (
        isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1
    ):
        raise ConfigError(f"concurrency must be an integer >= 1, got {concurrency!r}")
    for name, value in (
        ("timeout", timeout),
        ("request_deadline", request_deadline),
        ("deadline", deadline),
    ):
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0 < value < float("inf")
        ):
            raise ConfigError(f"{name} must be a positive number of seconds, got {value!r}")
    if max_consecutive_failures is not None and (
        isinstance(max_consecutive_failures, bool)
        or not isinstance(max_consecutive_failures, int)
        or max_consecutive_failures < 1
    ):
        raise ConfigError(
            f"max_consecutive_failures must be an integer >= 1, got {max_consecutive_failures!r}"
        )


def worker_count(backend: Backend, concurrency: int | None, todo: int) -> int:
    """Calls in flight at most: ``concurrency`` (default the backend's limit), capped by a hard limit and ``todo``.

    A value above the backend's default limit is used and said so once (a warning; for a hard
    limit, which caps it, an info line).
    """
    limit = int(backend.max_concurrency)
    workers = concurrency or limit
    if concurrency is not None and concurrency > limit:
        hard = bool(getattr(backend, "max_concurrency_hard", False))
        if (backend.name, concurrency) not in _noted_concurrency:
            _noted_concurrency.add((backend.name, concurrency))
            if hard:  # not a surprise worth a warning on every local run
                log.info(
                    "%s: concurrency %d requested, but this backend runs at most %d call(s) at a time",
                    backend.name,
                    concurrency,
                    limit,
                )
            else:
                log.warning(
                    "%s: concurrency %d is above this backend's default limit of %d; running %d calls "
                    "at a time (lower it if the provider answers 429)",
                    backend.name,
                    concurrency,
                    limit,
                    concurrency,
                )
        if hard:
            workers = limit
    return max(1, min(workers, todo or 1))


def describe(exc: BaseException) -> str:
    status = getattr(exc, "status", None)
    return f"{exc}" + (f" (status {status})" if status is not None else "")


def scrub(result: GenerationResult, mask: Callable[[str], str]) -> GenerationResult:
    """``result`` with every secret masked in its text, error and string metadata (see :func:`redactor`)."""
    text = mask(result.text)
    error = mask(result.error) if result.error else result.error
    meta = result.meta
    if meta:
        meta = {k: mask(v) if isinstance(v, str) else v for k, v in meta.items()}
    if text == result.text and error == result.error and meta == result.meta:
        return result
    return dataclasses.replace(result, text=text, error=error, meta=meta)


def progress_bar(enabled: bool, *, total: int, initial: int, desc: str) -> Any:
    from .._progress import progress_bar as bar

    return bar(enabled, total=total, initial=initial, desc=desc, unit="call")
