"""Temporary files and folders in a run directory, and removing those of writers that died.

Every temporary thing a writer puts in a run directory is hidden and ends in ``.tmp``: a
file being written atomically (:mod:`bordir._io.atomic`: ``.NAME.xxxxxxxx.tmp``) and the
folders of the output protocol (``.bordir-stage.PID.xxxx.tmp``, ``.bordir-trash.PID.xxxx.tmp``,
``.bordir-previous.PID.xxxx.tmp``), whose name holds the writer's pid. A process killed with
``kill -9`` leaves them behind; the next write removes them (:func:`remove_stale`).

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> t = temp_dir(d, "stage")
    >>> t.name.startswith(".bordir-stage.") and t.name.endswith(".tmp")
    True
    >>> remove_stale(d, every_writer=True), sorted(d.iterdir())
    (1, [])
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from .._io.pid import pid_alive

__all__ = ["temp_dir", "remove_stale"]

_OURS = re.compile(r"^\.bordir-[a-z]+\.(\d+)\..+\.tmp$")
_ATOMIC = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")


def temp_dir(root: Path, role: str) -> Path:
    """A new ``.bordir-ROLE.PID.xxxx.tmp`` folder in ``root`` (``root``'s filesystem: renames stay atomic)."""
    return Path(tempfile.mkdtemp(prefix=f".bordir-{role}.{os.getpid()}.", suffix=".tmp", dir=root))


def remove_stale(root: Path, *, every_writer: bool) -> int:
    """Remove the temporaries of dead writers from ``root``; returns how many were removed.

    Args:
        root: the run directory.
        every_writer: the caller holds the directory's exclusive lock, so no other writer is
            alive: every temporary is stale (also the atomic writes' files in sub-folders).
            Otherwise (a reader writing its outputs, under the outputs lock) only the protocol's
            folders whose pid is dead, and the atomic writes' files at the top.
    """
    removed = 0
    try:
        entries = list(root.iterdir())
    except OSError:
        return 0
    for p in entries:
        ours = _OURS.match(p.name)
        if ours and (every_writer or not pid_alive(int(ours.group(1)))):
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
            removed += 1
        elif not ours and _ATOMIC.match(p.name) and p.is_file():
            p.unlink(missing_ok=True)
            removed += 1
    if every_writer:  # the run's own folders (predictions/MODEL/…): three levels at most
        level = [p for p in entries if p.is_dir() and not p.name.startswith(".")]
        for _ in range(3):
            deeper = []
            for sub in level:
                if sub.is_symlink():
                    continue
                for q in sub.iterdir():
                    if q.is_dir() and not q.name.startswith("."):
                        deeper.append(q)
                    elif _ATOMIC.match(q.name) and q.is_file():
                        q.unlink(missing_ok=True)
                        removed += 1
            level = deeper
    return removed
