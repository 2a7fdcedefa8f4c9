"""response_format = "open" in a config: what it cannot serve is refused, with the fix."""

from __future__ import annotations

import pytest

from bordir.errors import ConfigError
from bordir.experiment.config import ExperimentConfig
from bordir.experiment.twin import forced_twin


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"policy": "reference"}, "policy"),
        ({"instruction_lang": "ru"}, "instruction_lang"),
        ({"option_orders": "reversed"}, "option_orders"),
        ({"langs": ["ru", "de"]}, "langs"),
    ],
)
def test_what_the_open_format_cannot_serve_is_refused(extra, field):
    with pytest.raises(ConfigError, match=f"field '{field}'"):
        ExperimentConfig.from_dict({"response_format": "open", **extra})


def test_open_and_its_forced_twin():
    cfg = ExperimentConfig.from_dict(
        {"response_format": "open", "models": ["mock/first"], "runs": 2}
    )
    twin = forced_twin(cfg)
    assert twin.response_format == "direct" and twin.seeds == cfg.seeds and twin.max_tokens is None
    with pytest.raises(ConfigError, match="'direct', 'citation' or 'open'"):
        ExperimentConfig.from_dict({"response_format": "free"})
