"""The backend interface and registry: one abstract ``generate``, addressed as ``provider/model``.

Backends register by provider name (``@backend("openai")``) and import their
SDK only when built. Retries, rate limits, concurrency and caching live in
:mod:`bordir.generation.executor`, not in backends: a backend makes ONE attempt
and raises :class:`TransientError` (retryable, optionally with ``retry_after``)
or :class:`PermanentError`.

Example:
    >>> b = get_backend("mock/echo")
    >>> from bordir.generation.types import GenerationRequest, Message
    >>> b.generate(GenerationRequest(model="mock/echo", messages=(Message("user", "A) x"),))).text
    'A) x'
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import ClassVar

from ..errors import BordirError, ConfigError
from .types import GenerationRequest, GenerationResult

__all__ = [
    "Backend",
    "backend",
    "get_backend",
    "available_backends",
    "TransientError",
    "PermanentError",
]


class TransientError(BordirError):
    """A failed attempt worth retrying (429, 5xx, timeout, malformed response)."""

    def __init__(
        self, message: str, *, retry_after: float | None = None, status: int | None = None
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class PermanentError(BordirError):
    """A failed attempt that retrying will not fix (400, 401, unknown model)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Backend(ABC):
    """An LLM provider. Subclasses implement :meth:`generate` (one attempt).

    Attributes:
        provider: registry name (``openai``, ``cohere``, ``openai-compatible``, ``local``, ``mock``).
        model: the model part of ``provider/model``.
        max_concurrency: default limit of calls in flight (a configured ``concurrency`` may raise it,
            unless ``max_concurrency_hard``).
        supports_rank_classification: True if the backend fills ``option_logprobs``.
    """

    provider: ClassVar[str] = ""
    max_concurrency: ClassVar[int] = 8
    max_concurrency_hard: ClassVar[bool] = False
    """True when ``max_concurrency`` cannot be raised (an in-process model with one lock)."""
    supports_rank_classification: ClassVar[bool] = False

    def __init__(self, model: str, **options) -> None:
        self.model = model
        self.options = options

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}"

    @abstractmethod
    def generate(self, request: GenerationRequest) -> GenerationResult:
        """Make one attempt; raise TransientError / PermanentError on failure."""

    def generate_within(
        self, request: GenerationRequest, timeout: float | None
    ) -> GenerationResult:
        """One attempt that gives up after ``timeout`` seconds (None: the backend's own limit).

        The executor calls this so that a request's ``timeout`` and a run's ``deadline``
        bound the attempt in progress too. HTTP backends override it; the default ignores
        ``timeout`` and calls :meth:`generate`.
        """
        return self.generate(request)

    def secrets(self) -> tuple[str, ...]:
        """Values that must never be stored or shown (the API key); the executor masks them in results."""
        return ()

    def close(self) -> None:
        """Release clients or models."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


Factory = Callable[..., Backend]
_REGISTRY: dict[str, Factory] = {}
_BUILTIN = {
    "openai": "bordir.generation.backends.openai",
    "openai-compatible": "bordir.generation.backends.openai",
    "cohere": "bordir.generation.backends.cohere",
    "local": "bordir.generation.backends.local",
    "mock": "bordir.generation.backends.mock",
}


def backend(provider: str) -> Callable[[Factory], Factory]:
    """Class decorator registering a backend under ``provider``."""

    def deco(factory: Factory) -> Factory:
        _REGISTRY[provider] = factory
        return factory

    return deco


def available_backends() -> tuple[str, ...]:
    return tuple(sorted(set(_REGISTRY) | set(_BUILTIN)))


def get_backend(model: str, **options) -> Backend:
    """Build the backend for ``provider/model`` (e.g. ``openai/gpt-4o-mini``, ``local/gemma-3-270m``)."""
    provider, sep, name = model.partition("/")
    if not sep or not name:
        raise ConfigError(
            f"model {model!r} must be written provider/model; providers: {', '.join(available_backends())}"
        )
    if provider not in _REGISTRY and provider in _BUILTIN:
        importlib.import_module(_BUILTIN[provider])
    factory = _REGISTRY.get(provider)
    if factory is None:
        raise ConfigError(
            f"unknown backend provider {provider!r} in {model!r}; available: {', '.join(available_backends())}"
        )
    return factory(name, **options)
