"""The scoring policies, by name: how answers become scores.

Two registries. :data:`PARSE_POLICIES` decides what a parsed answer counts
for in the concurrence scores (:mod:`bordir.generation.parse`,
:mod:`bordir.metrics.responses`); :data:`TESTBED_POLICIES` decides how a
testbed prediction is labelled (:mod:`bordir.testbeds.scorer`). The CLI's
``--policy`` choices and ``bordir list policies`` come from them.

Example:
    >>> PARSE_POLICIES.names(), TESTBED_POLICIES.names()
    (('strict', 'reference'), ('rgb', 'bordir', 'nomiracl'))
    >>> TESTBED_POLICIES.entry("nomiracl").meta["labels_rgb"]
    False
    >>> PARSE_POLICIES.entry("reference").meta["applies_to"]
    'concurrence scores'
"""

from __future__ import annotations

from .registry import Registry

__all__ = ["PARSE_POLICIES", "TESTBED_POLICIES", "describe_policies"]

PARSE_POLICIES: Registry[str] = Registry("parse policy")
"""How an answer counts in the concurrence scores."""
TESTBED_POLICIES: Registry[str] = Registry("testbed policy")
"""How a testbed prediction is labelled."""

for _registry, _applies_to, _entries in (
    (
        PARSE_POLICIES,
        "concurrence scores",
        (
            (
                "strict",
                "a non-answered response is missing: every comparison involving it is "
                "skipped and counted",
            ),
            (
                "reference",
                "BorderLines/BordIRLines compatibility: a non-answered response counts "
                "as option A (KB: wrong)",
            ),
        ),
    ),
    (
        TESTBED_POLICIES,
        "testbeds",
        (
            (
                "rgb",
                "RGB's rules: lower-cased substring match of each answer part, RGB's refusal "
                "phrases",
            ),
            (
                "bordir",
                "NFKC, case- and space-folded matching, refusals of every language, options parsed",
            ),
        ),
    ),
):
    for _name, _description in _entries:
        _registry.register(_name, _name, description=_description, applies_to=_applies_to)
# labels_rgb=False: it does not label RGB predictions (bordir.testbeds.scorer.POLICIES lists those that do)
TESTBED_POLICIES.register(
    "nomiracl",
    "nomiracl",
    description="NoMIRACL's postprocess and ConfusionMetric to the letter (two English phrases, "
    "lower-cased; Invalid kept in n)",
    applies_to="the nomiracl testbed, testbed score --format nomiracl",
    labels_rgb=False,
)


def describe_policies() -> list[dict[str, str]]:
    """``name, applies_to, description`` per policy of both registries (``bordir list policies``)."""
    return [
        {"name": e.name, "applies_to": e.meta["applies_to"], "description": e.description}
        for reg in (PARSE_POLICIES, TESTBED_POLICIES)
        for e in reg.entries()
    ]
