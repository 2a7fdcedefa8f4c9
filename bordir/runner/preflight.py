"""What a run checks before it changes its directory: backends, keys, formats against modes.

:func:`preflight` runs between the grid's preparation (inputs loaded, retrieval done) and the
first write to the run directory (:meth:`~bordir.experiment.writer.RunDirWriter.start`): every
model's backend is built (a missing API key, an unknown model, a missing extra fail here), and
one prompt of every (model, mode) is rendered in the config's response format (the ``citation``
format cannot serve ``no_ir``). A run refused here leaves its directory as it was: a complete
run stays complete.

Example:
    >>> from bordir.experiment.config import ExperimentConfig
    >>> from bordir.runner.grid import prepare
    >>> cfg = ExperimentConfig.from_dict({"models": ["openai/gpt-4o-mini"], "modes": "no_ir"})
    >>> import os; _ = os.environ.pop("OPENAI_API_KEY", None)
    >>> preflight(cfg, prepare(cfg, progress=False))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: ...OPENAI_API_KEY...
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from ..experiment.config import ExperimentConfig
from .grid import Prepared, grid_items

__all__ = ["preflight"]


def preflight(
    cfg: ExperimentConfig, prep: Prepared, backends: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Build every backend of ``cfg`` and render one prompt per (model, mode); returns the backends.

    Raises:
        ConfigError: a backend cannot be built (its message says why: the key to export …),
            or the response format cannot serve a mode (naming the config and its fields).
    """
    from ..generation.backend import get_backend

    built = dict(backends or {})
    for model in cfg.models:
        if model not in built:
            built[model] = get_backend(model)
    where = cfg.source or "<config>"
    for model in cfg.models:
        rank = (
            getattr(built[model], "supports_rank_classification", False)
            and cfg.response_format == "direct"
        )
        for mode in prep.modes:
            for q in prep.queries:
                try:
                    items = grid_items(
                        cfg, prep.dataset, [q], mode, model, rank, prep.docs_by, dict(prep.skipped)
                    )
                except ConfigError as exc:
                    raise ConfigError(
                        f"{where}: fields 'response_format' and 'modes': mode {mode.value}: {exc}"
                    ) from None
                if items:
                    break
    return built
