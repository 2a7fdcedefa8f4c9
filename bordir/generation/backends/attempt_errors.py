"""The errors of one API attempt that every HTTP backend words alike: a timeout, a failure below HTTP.

Example:
    >>> str(timed_out("openai/gpt-4o-mini", 30.0))
    'openai/gpt-4o-mini: request timed out after 30s'
    >>> err = connection_failed("cohere/command-r", ConnectionRefusedError(111, "refused"), str)
    >>> type(err).__name__, str(err).startswith("cohere/command-r: ")
    ('TransientError', True)
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import AttemptError, TransientError, transport_attempt_error

__all__ = ["timed_out", "connection_failed"]


def timed_out(name: str, limit: float) -> TransientError:
    """The transient error of an attempt of backend ``name`` that took longer than ``limit`` seconds."""
    return TransientError(f"{name}: request timed out after {limit:g}s")


def connection_failed(name: str, exc: BaseException, clean: Callable[[str], str]) -> AttemptError:
    """The error of an attempt of backend ``name`` that failed below HTTP (:func:`~bordir.errors.transport_attempt_error`).

    Permanent for a DNS failure, else transient; ``clean`` masks the secrets in its message.
    """
    err = transport_attempt_error(exc, f"{name}: ")
    return type(err)(clean(str(err)))
