"""Seeds: explicit, overridable by $BORDIR_SEED; named streams are stable and independent of each other."""

from __future__ import annotations

import numpy as np
import pytest

from bordir.errors import ConfigError
from bordir.settings import DEFAULT_SEED
from bordir.stats import named_rng, resolve_seed


def test_resolve_seed(monkeypatch):
    monkeypatch.delenv("BORDIR_SEED", raising=False)
    assert resolve_seed() == DEFAULT_SEED == 12345 and resolve_seed(3) == 3
    monkeypatch.setenv("BORDIR_SEED", "77")
    assert resolve_seed() == 77 and resolve_seed(3) == 3
    monkeypatch.setenv("BORDIR_SEED", "x")
    with pytest.raises(ConfigError, match="BORDIR_SEED"):
        resolve_seed()


def test_named_streams_are_stable_and_distinct():
    a = named_rng(12345, "cell/en").integers(1 << 30, size=3)
    assert (a == named_rng(12345, "cell/en").integers(1 << 30, size=3)).all()
    assert not (a == named_rng(12345, "cell/sw").integers(1 << 30, size=3)).all()
    assert not (a == named_rng(1, "cell/en").integers(1 << 30, size=3)).all()
    ref = np.random.default_rng(
        np.random.SeedSequence(entropy=12345, spawn_key=(0x6D0D8E2F2A0B9C3D,))
    )
    assert isinstance(
        ref.integers(10), np.integer
    )  # a SeedSequence with a spawn key, as numpy documents
