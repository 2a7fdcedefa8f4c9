"""The backend interface and registry: one abstract ``generate``, addressed as ``provider/model``.

Backends register by provider name (``@backend("openai")``) and import their
SDK only when built. Retries, rate limits, concurrency and caching live in
:mod:`bordir.generation.executor`, not in backends: a backend makes ONE attempt
and raises :class:`~bordir.errors.TransientError` (retryable, optionally with ``retry_after``)
or :class:`~bordir.errors.PermanentError`.

Example:
    >>> b = get_backend("mock/echo")
    >>> from bordir.generation.types import GenerationRequest, Message
    >>> b.generate(GenerationRequest(model="mock/echo", messages=(Message("user", "A) x"),))).text
    'A) x'
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

from ..errors import ConfigError
from ..registry import Registry
from .types import GenerationRequest, GenerationResult

__all__ = [
    "Backend",
    "BACKENDS",
    "backend",
    "get_backend",
    "available_backends",
]


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

    def __init__(self, model: str, **options: Any) -> None:
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

    def reserve(self, concurrency: int) -> None:
        """Get ready for ``concurrency`` calls in flight (HTTP backends size their connection pool).

        The executor calls this once per run with its number of workers; the default does nothing.
        """

    def secrets(self) -> tuple[str, ...]:
        """Values that must never be stored or shown (the API key); the executor masks them in results."""
        return ()

    def close(self) -> None:
        """Release clients or models."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


Factory = Callable[..., Backend]
BACKENDS: Registry[Factory] = Registry(
    "backend provider", hint="(models are written provider/model, e.g. openai/gpt-4o-mini)"
)
"""Backend providers by name; built-ins are imported on first use."""
for _provider, _module, _description in (
    ("openai", "bordir.generation.backends.openai", "OpenAI chat completions API"),
    (
        "openai-compatible",
        "bordir.generation.backends.openai",
        "any server speaking the OpenAI chat completions protocol (vLLM, llama.cpp server, …)",
    ),
    ("cohere", "bordir.generation.backends.cohere", "Cohere chat API (command-r …)"),
    ("local", "bordir.generation.backends.local", "in-process GGUF model (llama-cpp-python)"),
):
    BACKENDS.register(_provider, module=_module, description=_description)

MOCK_BEHAVIOURS: dict[str, str] = {
    "mock/echo": "answers with the last user message (for prompt tests)",
    "mock/first": "always answers the first option label, A)",
    "mock/fixed:<text>": "always answers <text> verbatim",
    "mock/planted:<langs>[@<dir>]": "planted per-language behaviour: follows the documents for <langs> "
    "(own claimant / controller), a seeded uniform baseline otherwise",
}
"""The mock backend's behaviours (``bordir/generation/backends/mock.py``); unit tests only, never evidence."""
BACKENDS.register(
    "mock",
    module="bordir.generation.backends.mock",
    description="scripted answers for unit tests, never evidence",
    variants=MOCK_BEHAVIOURS,
)


backend = BACKENDS.register
"""Class decorator registering a backend under ``provider``: ``@backend("openai")``
(:meth:`Registry.register <bordir.registry.Registry.register>` of :data:`BACKENDS`; ``description=``
one line for ``bordir list backends``, default the docstring's first line; ``variants=`` named
behaviours listed one per row, as the mock's)."""


def available_backends() -> tuple[str, ...]:
    """The provider names :func:`get_backend` accepts."""
    return tuple(sorted(BACKENDS.names()))


def get_backend(model: str, **options: Any) -> Backend:
    """Build the backend for ``provider/model`` (e.g. ``openai/gpt-4o-mini``, ``local/gemma-3-270m``)."""
    provider, sep, name = model.partition("/")
    if not sep or not name:
        raise ConfigError(
            f"model {model!r} must be written provider/model; providers: {', '.join(available_backends())}"
        )
    if provider not in BACKENDS:
        from .._suggest import did_you_mean

        raise ConfigError(
            f"unknown backend provider {provider!r} in {model!r}; available: "
            f"{', '.join(available_backends())}{did_you_mean(provider, available_backends(), n=2)}"
        )
    return BACKENDS.get(provider)(name, **options)
