"""A backend that answers from collected batch results, so ``--collect`` runs the grid through the normal path.

:class:`BatchResultsBackend` stands in for a model's online backend in
:func:`bordir.run`: the executor asks it for each request the cache does not
hold, and it returns the result the batch brought back for that cache key
(``meta["batch"]`` set, so the cost is priced at the batch rate), or fails
permanently with the batch's reason (the request failed in the batch) or with
"not submitted" (the grid asks something no batch held). The executor then
stores the successes in the response cache under the request's own key,
exactly as after an online call, and the runner builds the same rows: the
responses table of a batch run equals the online one, except the wall-time
column ``latency_s`` (the batch's wait is not a call's latency).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ...errors import PermanentError
from ..backend import Backend
from ..types import GenerationRequest, GenerationResult

__all__ = ["BatchResultsBackend"]


class BatchResultsBackend(Backend):
    """Answers ``model``'s requests from ``results`` (``{cache key: result}``) collected from its batches.

    Example:
        >>> from bordir.generation.types import Message
        >>> req = GenerationRequest(model="openai/m", messages=(Message("user", "Q"),))
        >>> b = BatchResultsBackend("openai/m", {req.cache_key(): GenerationResult(text="A)", model="openai/m")})
        >>> b.name, b.generate(req).text, b.generate(req).meta
        ('openai/m', 'A)', {'batch': True})
        >>> try:
        ...     b.generate(req.replace(seed=3))
        ... except PermanentError as exc:
        ...     print(str(exc).split(";")[0])
        openai/m: not submitted in a batch of this run
    """

    max_concurrency = 8
    answers_from_batches = True
    """The executor calls it for keys that its own batches' claims hold (they answer them), and
    neither stops after consecutive failures nor times it out (a failed batch line is an answer)."""

    def __init__(
        self,
        model: str,
        results: Mapping[str, GenerationResult],
        *,
        secrets: tuple[str, ...] = (),
    ) -> None:
        provider, _, name = model.partition("/")
        super().__init__(name)
        self._provider = provider
        self._results = dict(results)
        self._secrets = tuple(secrets)

    @property
    def name(self) -> str:
        return f"{self._provider}/{self.model}"

    def secrets(self) -> tuple[str, ...]:
        return self._secrets

    def generate(self, request: GenerationRequest) -> GenerationResult:
        res = self._results.get(request.cache_key())
        if res is None:
            raise PermanentError(
                f"{self.name}: not submitted in a batch of this run; run "
                "`bordir run CONFIG --out DIR --submit batch` again"
            )
        if not res.ok:
            raise PermanentError(f"{res.error}; `--submit batch` again re-submits it")
        meta = dict(res.meta)
        meta.setdefault("batch", True)
        return dataclasses.replace(res, model=request.model, meta=meta, cached=False)
