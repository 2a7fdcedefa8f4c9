"""What a run will take before it starts: its calls, the cache, and for the local model the time.

The in-process model (``local/…``) is the one backend whose speed depends on this machine: gemma
3 270M evaluates about :data:`LOCAL_TOKENS_PER_S` prompt tokens a second on two idle cores
(measured: docs/generation.md), and a machine busy with other work slows it in proportion to the
cores it leaves. :func:`start_notice` turns a dry-run table (:func:`bordir.runner.dry_run.dry_run`)
and the machine's cores and load into the lines printed before a run starts: how many calls
remain, how many answers come from the response cache (and whether that cache is the shared one
every run on the machine writes), the expected duration for a local model, and on a busy machine
what to do about it (``BORDIR_CPUS``, a mock backend).

Example:
    >>> m = Machine(cpus=2, load=0.1, threads=2)
    >>> m.free_cores, round(expected_seconds(65_000, m))
    (1.9, 105)
    >>> Machine(cpus=2, load=6.0, threads=2).busy
    True
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "LOCAL_TOKENS_PER_S",
    "Machine",
    "machine",
    "expected_seconds",
    "start_notice",
    "notice_lines",
]

LOCAL_TOKENS_PER_S = 650.0
"""Prompt tokens a second of ``local/gemma-3-270m`` on two idle cores (rank classification)."""

_REFERENCE_CORES = 2.0

SLOW_THREADS = 4.0
"""How much slower than one thread several llama.cpp threads were seen to run on a busy machine."""


@dataclass(frozen=True)
class Machine:
    """The cores this process may use, the machine's 1-minute load and the local model's threads."""

    cpus: int
    load: float
    threads: int

    @property
    def free_cores(self) -> float:
        """Cores the load leaves idle (at least a quarter of one)."""
        return round(max(0.25, self.cpus - self.load), 2)

    @property
    def busy(self) -> bool:
        """True when other work holds more than half of the cores."""
        return self.load > self.cpus / 2


def machine() -> Machine:
    """This machine now: ``os.sched_getaffinity``, ``os.getloadavg`` and ``BORDIR_CPUS``."""
    from .._fork import cpus

    try:
        avail = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        avail = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - no load average
        load = 0.0
    return Machine(cpus=avail, load=float(load), threads=cpus())


def expected_seconds(input_tokens: int, m: Machine) -> float:
    """Seconds the local model needs for ``input_tokens`` prompt tokens on machine ``m``.

    The model's speed scales with the cores the load leaves idle, up to its threads.
    """
    cores = min(float(m.threads), m.free_cores)
    return input_tokens / (LOCAL_TOKENS_PER_S * cores / _REFERENCE_CORES)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"about {max(5, round(seconds / 5) * 5):.0f} s"
    return f"about {seconds / 60:.0f} min"


def start_notice(
    table: Any, cache: str | os.PathLike[str] | None, m: Machine | None = None
) -> list[str]:
    """The lines to print before a run of the dry-run ``table`` starts (empty when nothing to say).

    ``cache``: the config's cache file (None: the shared default cache).
    """
    from ..generation.cache import default_cache_path

    calls, cached = int(table["calls"].sum()), int(table["cached"].sum())
    out: list[str] = []
    where = Path(cache).expanduser() if cache else default_cache_path()
    if cached:
        shared = (
            ""
            if cache
            else " (shared by every bordir run on this machine; --cache FILE for a run's own)"
        )
        out.append(
            f"{cached:,} of {calls + cached:,} answers come from the response cache {where}{shared}"
        )
    local = table[table["model"].astype(str).str.startswith("local/")]
    if not len(local) or not int(local["calls"].sum()):
        if calls:
            out.append(f"{calls:,} calls to make")
        return out
    m = m or machine()
    tokens = int(local["input_tokens"].sum())
    secs = expected_seconds(tokens, m)
    idle = expected_seconds(tokens, Machine(cpus=m.cpus, load=0.0, threads=m.threads))
    head = f"{int(local['calls'].sum()):,} local-model calls to make ({tokens:,} prompt tokens): "
    on = f"on this machine ({m.cpus} cores, load {m.load:.1f}, {m.threads} thread{'s' * (m.threads != 1)})"
    if m.busy and m.threads > 1:
        # llama.cpp's threads meet at a barrier after every layer: on a busy machine each waits for
        # the slowest, which was seen to cost up to 4x the single-thread time (docs/generation.md)
        one = expected_seconds(tokens, Machine(cpus=m.cpus, load=m.load, threads=1))
        out.append(head + f"{_duration(one)} to {_duration(SLOW_THREADS * one)[6:]} {on}")
    else:
        out.append(head + f"{_duration(secs)} {on}")
    if m.busy:
        out.append(
            f"the machine is busy (load {m.load:.1f} on {m.cpus} cores; {_duration(idle)} when idle): "
            + ("BORDIR_CPUS=1 leaves a core to the other work; " if m.threads > 1 else "")
            + "--model mock/planted:ru+uk checks the pipeline in seconds"
        )
    return [
        w
        for line in out
        for w in textwrap.wrap(
            line, 100, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
        )
    ]


def notice_lines(cfg: Any) -> list[str]:
    """:func:`start_notice` of the run ``cfg`` describes, from its dry run (nothing is called)."""
    from .dry_run import dry_run

    return start_notice(dry_run(cfg), cfg.cache)
