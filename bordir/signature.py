"""Signatures: what produced a score, as ``key:value`` pairs joined by ``|``.

A signature is built by the object that computed the score (never by hand in
the CLI). The metric name comes first, ``version`` last; fields that are
``None`` are left out. It has a long form (``str``), a short form with
abbreviated keys, and a JSON form, and it parses back.

Example:
    >>> sig = Signature.build("kb_cs", mode="rel_langs", gen="openai/gpt-4o-mini", runs=10,
    ...                       ci="t95", policy="strict", boot=2000, seed=12345, version="0.1.0")
    >>> str(sig)
    'kb_cs|mode:rel_langs|gen:openai/gpt-4o-mini|runs:10|ci:t95|policy:strict|boot:2000|seed:12345|version:0.1.0'
    >>> sig.short()
    'kb_cs|m:rel_langs|g:openai/gpt-4o-mini|n:10|ci:t95|p:strict|b:2000|s:12345|v:0.1.0'
    >>> Signature.parse(str(sig)) == sig
    True
    >>> sig.as_dict()["seed"]
    '12345'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._version import __version__
from .errors import ConfigError

__all__ = ["Signature", "ABBREVIATIONS"]

ABBREVIATIONS: Mapping[str, str] = {
    "mode": "m",
    "ret": "r",
    "k": "k",
    "gen": "g",
    "temp": "t",
    "runs": "n",
    "ci": "ci",
    "policy": "p",
    "boot": "b",
    "seed": "s",
    "perm": "pm",
    "data": "d",
    "src": "src",
    "version": "v",
}
"""Short-form keys (keys not listed are kept as they are)."""


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = str(value)
    if "|" in text or "\n" in text:
        raise ConfigError(
            f"signature value {text!r} contains '|' or a newline; use another spelling"
        )
    return text


@dataclass(frozen=True)
class Signature:
    """An immutable signature: a name and ordered ``(key, value)`` string pairs.

    Attributes:
        name: the metric (or metric family) the signature describes.
        fields: ``(key, value)`` pairs in order, ``version`` last.
    """

    name: str
    fields: tuple[tuple[str, str], ...]

    @classmethod
    def build(cls, name: str, **fields: Any) -> Signature:
        """Build a signature; ``None`` values are dropped and ``version`` is appended last.

        ``version`` defaults to the installed bordir version.
        """
        version = fields.pop("version", None) or __version__
        pairs = [(k, _fmt(v)) for k, v in fields.items() if v is not None]
        pairs.append(("version", _fmt(version)))
        return cls(name=_fmt(name), fields=tuple(pairs))

    @classmethod
    def parse(cls, text: str) -> Signature:
        """Parse the long form back (``name|key:value|…``)."""
        name, *rest = text.split("|")
        pairs = []
        for part in rest:
            key, sep, value = part.partition(":")
            if not sep:
                raise ConfigError(f"signature field {part!r} in {text!r} is not key:value")
            pairs.append((key, value))
        return cls(name=name, fields=tuple(pairs))

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value of ``key``, or ``default``."""
        return dict(self.fields).get(key, default)

    def with_name(self, name: str) -> Signature:
        """The same fields under another metric name."""
        return Signature(name=name, fields=self.fields)

    def __str__(self) -> str:
        return "|".join([self.name, *(f"{k}:{v}" for k, v in self.fields)])

    def short(self) -> str:
        """The short form: keys abbreviated by :data:`ABBREVIATIONS`."""
        return "|".join([self.name, *(f"{ABBREVIATIONS.get(k, k)}:{v}" for k, v in self.fields)])

    def as_dict(self) -> dict[str, str]:
        """The JSON form: ``{"name": …, key: value, …}``."""
        return {"name": self.name, **dict(self.fields)}
