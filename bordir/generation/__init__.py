"""Generation: prompts, LLM backends, answer and citation parsing, the response cache."""

from __future__ import annotations

from .backend import (
    Backend,
    available_backends,
    backend,
    get_backend,
)
from .types import Document, GenerationRequest, GenerationResult, Message

__all__ = [
    "Backend",
    "backend",
    "get_backend",
    "available_backends",
    "Document",
    "GenerationRequest",
    "GenerationResult",
    "Message",
]
