"""Retrieval modes as values with canonical names (BordIRLines definitions).

A mode says which languages' documents a query may see. Canonical names are
the paper's; the code/hub spellings parse too.

Example:
    >>> Mode.parse("qlang_en") is Mode.QLANG_EN
    True
    >>> str(Mode.parse("en")), Mode.parse("ablate_swap").hub_name
    ('en_only', 'ablate_swap')
    >>> Mode.parse("all_langs")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: unknown retrieval mode 'all_langs'; valid: no_ir, qlang, qlang+en, en_only, rel_langs, swap_docs (aliases: qlang_en, en, ablate_swap)
"""

from __future__ import annotations

from enum import Enum

from .errors import ConfigError

__all__ = ["Mode"]


class Mode(str, Enum):
    """The six BordIRLines retrieval modes."""

    NO_IR = "no_ir"
    QLANG = "qlang"
    QLANG_EN = "qlang+en"
    EN_ONLY = "en_only"
    REL_LANGS = "rel_langs"
    SWAP_DOCS = "swap_docs"

    def __str__(self) -> str:
        return self.value

    @property
    def hub_name(self) -> str:
        """The name the BordIRLines code and hub dataset use (``qlang_en``, ``en``, ``ablate_swap``)."""
        return _HUB_NAMES.get(self, self.value)

    @classmethod
    def parse(cls, name: str | Mode) -> Mode:
        """Parse a canonical name or an alias; raise :class:`ConfigError` listing the valid ones."""
        if isinstance(name, Mode):
            return name
        key = name.strip().lower()
        for m in cls:
            if key in (m.value, m.hub_name):
                return m
        raise ConfigError(
            f"unknown retrieval mode {name!r}; valid: {', '.join(m.value for m in cls)} "
            f"(aliases: {', '.join(_HUB_NAMES.values())})"
        )


_HUB_NAMES = {Mode.QLANG_EN: "qlang_en", Mode.EN_ONLY: "en", Mode.SWAP_DOCS: "ablate_swap"}
