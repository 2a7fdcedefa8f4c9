"""Token estimates before a call: characters / 4, the rule the dry run, the rate limiter and batches use.

Example:
    >>> from bordir.generation.types import GenerationRequest, Message
    >>> estimate_call_tokens(GenerationRequest(model="mock/echo", messages=(Message("user", "x" * 40),), max_tokens=5))
    15
"""

from __future__ import annotations

import math

from .types import GenerationRequest

__all__ = [
    "CHARS_PER_TOKEN",
    "INPUT_ESTIMATE_NOTE",
    "estimate_input_tokens",
    "estimate_call_tokens",
]

CHARS_PER_TOKEN = 4
INPUT_ESTIMATE_NOTE = (
    "input tokens are estimated as characters / 4 before the call; scripts other than Latin "
    "often need more tokens per character, so the estimate can be low"
)


def estimate_input_tokens(request: GenerationRequest) -> int:
    """Prompt tokens estimated as characters / 4 (rounded up), over all messages.

    Documents are counted once: their text is already in the messages.

    Example:
        >>> from bordir.generation.types import GenerationRequest, Message
        >>> estimate_input_tokens(GenerationRequest(model="mock/echo", messages=(Message("user", "abcde"),)))
        2
    """
    chars = sum(len(m.content) for m in request.messages)
    return math.ceil(chars / CHARS_PER_TOKEN)


def estimate_call_tokens(request: GenerationRequest) -> int:
    """Tokens a call may use at most, as reserved by a rate limiter: estimated input + ``max_tokens``."""
    return estimate_input_tokens(request) + int(request.max_tokens)
