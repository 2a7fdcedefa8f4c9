"""NoMIRACL: the hallucination rate on queries no passage answers, the error rate on queries one does.

Its data (NoMIRACL's files or the hub), prompt (NoMIRACL's vanilla prompt, and
bordir's instructions in the query language) and scoring (NoMIRACL's own
post-processing, and bordir's multilingual reading) are its engine's
(:mod:`bordir.testbeds.nomiracl.engine`); it builds no questions from the
territorial data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import ConfigError
from ..nomiracl.engine import ENGINE, SETTINGS
from ..nomiracl.template import PASSAGES
from ..testbed import Option, Testbed, register_testbed

__all__ = ["NOMIRACL", "questions"]


def questions(pools: Any, queries: Sequence[Any], **_: Any) -> tuple[list[Any], list[Any]]:
    """The territorial data has no NoMIRACL questions."""
    raise ConfigError(
        "the nomiracl testbed reads NoMIRACL's data: --data nomiracl:PATH or --data nomiracl (the hub)"
    )


NOMIRACL = register_testbed(
    Testbed(
        "nomiracl",
        "NoMIRACL: hallucination rate (no passage answers) and error rate (one does) in 18 languages.",
        kind="nomiracl",
        settings=SETTINGS,
        ratios=(1.0, 0.0),
        fixed_ratios=True,
        headline="hallucination_rate",
        metrics=("invalid_rate",),
        questions=questions,
        engine=ENGINE,
        # NoMIRACL's repro_nomiracl_generation.py: --temperature 0.1 --max_new_tokens 50, 10 passages
        defaults={"temperature": 0.1, "max_tokens": 50, "passage_num": PASSAGES},
        options=(
            Option("split", "test", "NoMIRACL split.", ("test", "dev")),
            Option(
                "settings",
                ",".join(SETTINGS),
                "Prompts: vanilla (NoMIRACL's), native (bordir's instructions in the query "
                "language); comma-separated.",
            ),
        ),
    )
)
