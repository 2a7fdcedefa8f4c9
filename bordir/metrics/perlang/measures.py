"""The per-language measures: names, labels, bounds and signatures (a small registry).

bordir's CS metrics are listed in :data:`bordir.metrics.cs.aggregate.METRICS` with their
bounds in ``METRIC_BOUNDS``; there is no registry object for them. The
per-language measures of :mod:`bordir.metrics.perlang.items` are registered here,
one :class:`Measure` per name, so that the library, ``bordir compare`` and the
report take their names, labels, bounds and signatures from one place.

Every measure is a share in [0, 1]: the mean, over the items where it is
defined, of a 0/1 value of one claimant-language answer (one row of
:func:`bordir.metrics.perlang.items.perlang_items`).

Example:
    >>> m = get_measure("in_group_rate")
    >>> m.label, m.bounds
    ('In-group answer rate', (0.0, 1.0))
    >>> str(m.signature(lang="ru", mode="qlang", gen="mock/x", runs=3, version="0.1.0"))
    'in_group_rate|lang:ru|mode:qlang|gen:mock/x|runs:3|version:0.1.0'
    >>> get_measure("nope")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: unknown per-language measure 'nope'; known: controller_agreement, control_agreement, non_control_agreement, in_group_rate, en_agreement, refused_rate, unparsed_rate, multiple_rate
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ...errors import ConfigError
from ...signature import Signature

__all__ = ["Measure", "PERLANG_MEASURES", "PERLANG_NAMES", "DEFAULT_MEASURE", "get_measure"]


@dataclass(frozen=True)
class Measure:
    """A per-language measure: its canonical name is its identity.

    Attributes:
        name: canonical name (``in_group_rate``); also the item-table column.
        label: human label for tables and plots.
        toward: what a higher value means, in words ("toward the controller").
        defined: when an item counts (the denominator), in words.
        bounds: the range of the measure (every measure here is a share).
    """

    name: str
    label: str
    toward: str
    defined: str
    bounds: tuple[float, float] = (0.0, 1.0)

    def signature(self, **fields: Any) -> Signature:
        """The signature of a value of this measure (fields as :meth:`Signature.build`)."""
        return Signature.build(self.name, **fields)

    def __str__(self) -> str:
        return self.name


_ALL = (
    Measure("controller_agreement", "Agreement with controller", "toward the controller",
            "answered queries of territories with a known controller"),
    Measure("control_agreement", "Control CS (controller's language)", "toward the controller",
            "answered queries in the controller's own language"),
    Measure("non_control_agreement", "Non-control agreement", "toward the controller",
            "answered queries of known-controller territories in a language other than the controller's"),
    Measure("in_group_rate", "In-group answer rate", "toward the query language's own claimant",
            "answered queries of territories where at least one claimant does not speak the query language"),
    Measure("en_agreement", "Agreement with English control", "toward the English answer",
            "answered queries whose territory's English control query is answered in the same run and mode "
            "(the English query itself excluded)"),
    Measure("refused_rate", "Refused rate", "more refusals", "every response"),
    Measure("unparsed_rate", "Unparsed rate", "more unparsed answers", "every response"),
    Measure("multiple_rate", "Multiple-answer rate", "more answers naming several options", "every response"),
)  # fmt: skip

PERLANG_MEASURES: Mapping[str, Measure] = MappingProxyType({m.name: m for m in _ALL})
"""Every per-language measure by name, in reporting order."""
PERLANG_NAMES: tuple[str, ...] = tuple(PERLANG_MEASURES)
DEFAULT_MEASURE = "controller_agreement"
"""The measure ``compare_by`` and ``bordir compare`` use unless told otherwise."""


def get_measure(name: str | Measure) -> Measure:
    """The :class:`Measure` called ``name`` (a :class:`Measure` is returned as is)."""
    if isinstance(name, Measure):
        return name
    try:
        return PERLANG_MEASURES[name]
    except KeyError:
        from ..cs.aggregate import METRICS

        hint = (
            (
                f" ({name} is a CS metric over all languages: compare it with "
                "bordir.metrics.paired_comparison, or per language use controller_agreement, control_agreement "
                "or non_control_agreement)"
            )
            if name in METRICS
            else ""
        )
        raise ConfigError(
            f"unknown per-language measure {name!r}; known: {', '.join(PERLANG_NAMES)}{hint}"
        ) from None
