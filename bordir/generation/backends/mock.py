"""``mock/<behaviour>`` — a backend for unit tests of logic only (never proof that a real backend works).

Behaviours: ``echo`` returns the last user message; ``first`` answers the
first option label; ``fixed:<text>`` always answers ``<text>``;
``planted:<langs>`` has planted per-language behaviour (:mod:`~bordir.generation.backends.planted`).
"""

from __future__ import annotations

from typing import Any

from ..backend import Backend, backend
from ..types import GenerationRequest, GenerationResult


@backend("mock")
class MockBackend(Backend):
    """Offline answers for tests and dry runs: ``mock/echo``, ``mock/first``, ``mock/fixed:<text>``, ``mock/planted:<langs>``."""

    provider = "mock"
    max_concurrency = 64

    def __init__(self, model: str, **options: Any) -> None:
        if model not in ("echo", "first") and not model.startswith(("fixed:", "planted:")):
            from ...errors import ConfigError

            raise ConfigError(
                f"unknown mock behaviour {model!r} in 'mock/{model}'; valid: mock/echo, mock/first, "
                "mock/fixed:<text>, mock/planted:<langs> (see `bordir list backends`)"
            )
        if model.startswith("planted:"):  # its languages are checked now, not once per call
            from .planted import parse_spec

            parse_spec(model)
        super().__init__(model, **options)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        if self.model == "echo":
            text = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        elif self.model == "first":
            text = request.options[0] if request.options else "A)"
        elif self.model.startswith("fixed:"):
            text = self.model.removeprefix("fixed:")
        elif self.model.startswith(
            "planted:"
        ):  # planted per-language behaviour (backends/planted.py)
            from .planted import planted_generate

            return planted_generate(self.model, request, **self.options)
        else:
            text = ""
        return GenerationResult(
            text=text, model=request.model, input_tokens=0, output_tokens=len(text.split())
        )
