"""The local backend's store of evaluated prompts: a later prompt that starts the same way skips that part.

The demo's prompts share long beginnings (the system message and the
instruction, and often the documents of another mode), so about a third of the
prompt tokens a run evaluates were evaluated before. :class:`PrefixStore` keeps
the llama.cpp state (the KV cache of one sequence) of recent prompts, up to a
memory budget, least recently used first out. For a new prompt it finds the
stored prompt with the longest common beginning; the backend restores that
state, cuts it back to the *restore point* and evaluates only the rest.

The scores stay those of a whole-prompt evaluation, bit for bit: a restore point
is a multiple of :data:`ALIGN` tokens and leaves at least 2 tokens to evaluate
(llama.cpp's CPU kernels assign a token to a kernel by its position in the
batch, in groups that divide :data:`ALIGN`, and treat a batch of one token
apart), so every token goes through the same kernels as in one batch from an
empty cache. The local backend's tests check the equality on real prompts, and
that a score does not depend on which prompts came before.

Example:
    >>> store = PrefixStore(budget_bytes=100)
    >>> store.add([1, 2, 3] * 30, b"state-a", 7)
    >>> point, state = store.restore_point([1, 2, 3] * 20 + [9] * 30)
    >>> point, state
    (32, b'state-a')
    >>> store.restore_point([7] * 90)
    (0, None)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["ALIGN", "PrefixStore", "restore_point"]

ALIGN = 32
"""Restore points are multiples of this many tokens."""


def restore_point(common: int, length: int) -> int:
    """The furthest restore point of a prompt of ``length`` tokens that shares ``common`` with a stored one.

    A multiple of :data:`ALIGN`, at most ``common``, leaving at least 2 tokens to evaluate.

    >>> restore_point(100, 300), restore_point(300, 300), restore_point(65, 66), restore_point(20, 300)
    (96, 288, 64, 0)
    """
    return max(0, min(common, length - 2)) // ALIGN * ALIGN


class PrefixStore:
    """Saved states of evaluated prompts, keyed by their tokens, within a byte budget (LRU).

    Args:
        budget_bytes: the most the saved states may hold together; 0 keeps none.
    """

    def __init__(self, budget_bytes: int) -> None:
        self.budget_bytes = int(budget_bytes)
        self._entries: OrderedDict[int, tuple[np.ndarray, Any, int]] = OrderedDict()
        self._next = 0
        self.used_bytes = 0
        self.reused_tokens = 0
        """Prompt tokens not evaluated again, since the store was made."""

    def __len__(self) -> int:
        return len(self._entries)

    def restore_point(self, prompt: Sequence[int]) -> tuple[int, Any]:
        """``(point, state)``: the furthest restore point over the stored prompts, and that prompt's state.

        ``(0, None)`` when no stored prompt shares a whole :data:`ALIGN` block with ``prompt``.
        The entry found becomes the most recently used.
        """
        toks = np.asarray(prompt, dtype=np.int64)
        best, best_key = 0, None
        for key, (stored, _, _) in self._entries.items():
            m = min(len(stored), len(toks))
            differ = np.flatnonzero(stored[:m] != toks[:m])
            point = restore_point(int(differ[0]) if len(differ) else m, len(toks))
            if point > best:
                best, best_key = point, key
        if best_key is None:
            return 0, None
        self._entries.move_to_end(best_key)
        self.reused_tokens += best
        return best, self._entries[best_key][1]

    def add(self, prompt: Sequence[int], state: Any, nbytes: int) -> None:
        """Keep ``state`` (``nbytes`` bytes: the evaluated ``prompt``), evicting the least recently used past the budget."""
        if nbytes > self.budget_bytes:
            return
        toks = np.asarray(prompt, dtype=np.int64)
        for key, (stored, _, _) in list(self._entries.items()):  # the same prompt again: keep one
            if len(stored) == len(toks) and np.array_equal(stored, toks):
                self._drop(key)
        self._entries[self._next] = (toks, state, nbytes)
        self._next += 1
        self.used_bytes += nbytes
        while self.used_bytes > self.budget_bytes:
            self._drop(next(iter(self._entries)))

    def clear(self) -> None:
        """Forget every saved state."""
        self._entries.clear()
        self.used_bytes = 0

    def _drop(self, key: int) -> None:
        self.used_bytes -= self._entries.pop(key)[2]
