"""Retrieval: retrievers behind one interface, and the six BordIRLines modes.

Example:
    >>> from bordir.retrieval import Mode, mode_langs
    >>> str(Mode.parse("qlang_en"))
    'qlang+en'
"""

from __future__ import annotations

from ..modes import Mode, Skip, mode_langs, swap_eligible, swap_partner, swap_skip_reason
from .base import Retriever, available, get_retriever, register

__all__ = [
    "Mode",
    "Retriever",
    "available",
    "get_retriever",
    "register",
    "Skip",
    "mode_langs",
    "swap_eligible",
    "swap_partner",
    "swap_skip_reason",
]
