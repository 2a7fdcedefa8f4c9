"""Helpers of bordir's API clients: API keys from the environment, request options, error bodies, TLS.

Shared by the LLM backends (:mod:`bordir.generation.backends`) and the embedding
APIs (:mod:`bordir.retrieval.dense`); retries are :mod:`bordir._net.retry`'s, masking
secrets :func:`bordir.errors.redact`'s.

Example:
    >>> short_body({"error": {"message": "rate   limited"}})
    'rate limited'
    >>> extra_params([("top_p", "0.9"), ("user", "me")])
    {'top_p': 0.9, 'user': 'me'}
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from .._io.json_read import loads
from ..errors import ConfigError

__all__ = [
    "attempt_seconds",
    "env_key",
    "env_key_source",
    "reject_key_options",
    "extra_params",
    "short_body",
    "tls_context",
]

_TLS: dict[tuple[str, str, str], Any] = {}
_TLS_LOCK = threading.Lock()


def env_key(names: Iterable[str], *, default: str | None = None, provider: str) -> str:
    """The first non-empty environment variable of ``names`` (API keys are read only from the environment)."""
    names = tuple(names)
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    if default is not None:
        return default
    raise ConfigError(
        f"the {provider} backend needs an API key and none is set; "
        f"export {' or '.join(names)} (keys are read only from the environment)"
    )


def env_key_source(names: Iterable[str]) -> str:
    """The name of the environment variable :func:`env_key` takes the key from (the first name when none is set).

    Example:
        >>> import os
        >>> os.environ["DEMO_B_KEY"] = "x" * 10
        >>> env_key_source(["DEMO_A_KEY", "DEMO_B_KEY"])
        'DEMO_B_KEY'
        >>> del os.environ["DEMO_B_KEY"]
    """
    names = tuple(names)
    for name in names:
        if os.environ.get(name, "").strip():
            return name
    return names[0]


def reject_key_options(options: Mapping[str, Any], *, provider: str, env: str) -> None:
    """Refuse API keys passed as options: they would end up in configs, logs and reprs."""
    for name in ("api_key", "key", "token"):
        if name in options:
            raise ConfigError(
                f"the {provider} backend reads its API key only from the environment ({env}); do not pass {name}="
            )


def attempt_seconds(own: float, given: float | None, *, own_given: bool) -> float:
    """Seconds one attempt of an API client may take.

    Args:
        own: the client's own ``timeout`` option (default 60 s).
        given: the executor's limit for this attempt (its per-attempt timeout, cut at what is
            left of the request's and the run's deadlines); None: none.
        own_given: the ``timeout`` option was passed to the backend: then it is a cap.

    Example:
        >>> attempt_seconds(60.0, 120.0, own_given=False), attempt_seconds(10.0, 120.0, own_given=True)
        (120.0, 10.0)
        >>> attempt_seconds(60.0, 0.4, own_given=True), attempt_seconds(60.0, None, own_given=False)
        (0.4, 60.0)
    """
    if given is None:
        return own
    given = max(0.001, given)
    return min(own, given) if own_given else given


def short_body(body: Any, limit: int = 300) -> str:
    """A one-line excerpt of an error body: its ``message`` when there is one."""
    if isinstance(body, Mapping):
        err = body.get("error", body)
        if isinstance(err, Mapping) and err.get("message"):
            body = err["message"]
        elif body.get("message"):
            body = body["message"]
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def extra_params(extra: Iterable[tuple[str, str]], *, skip: Iterable[str] = ()) -> dict[str, Any]:
    """``request.extra`` pairs as API parameters (values parsed as JSON when they are JSON)."""
    skip = set(skip)
    out: dict[str, Any] = {}
    for k, v in extra:
        if k in skip:
            continue
        try:
            out[k] = loads(v)
        except (TypeError, ValueError):
            out[k] = v
    return out


def tls_context(http: Any) -> Any:
    """The process's one TLS context for clients of the httpx-like module ``http`` (verifying, as its default).

    Building a verifying context loads the CA bundle, about 27 ms of CPU; every client bordir
    builds (the backends', the judges', the Wikipedia fetcher's) shares this one instead of building
    its own. It is ``http.create_ssl_context()``, the context the module builds by default
    (``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when set, else certifi's bundle), built again when one of
    those variables changes. ``None`` when the module has no ``create_ssl_context``: the caller then
    passes nothing and the client builds its own.

    Example:
        >>> import httpx
        >>> tls_context(httpx) is tls_context(httpx)
        True
    """
    make = getattr(http, "create_ssl_context", None)
    if make is None:
        return None
    key = (
        getattr(http, "__name__", repr(http)),
        os.environ.get("SSL_CERT_FILE", ""),
        os.environ.get("SSL_CERT_DIR", ""),
    )
    with _TLS_LOCK:
        ctx = _TLS.get(key)
        if ctx is None:
            ctx = _TLS[key] = make()
        return ctx
