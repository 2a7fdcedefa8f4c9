"""Run one function in a forked child while the caller goes on: the report draws two sections at once.

:func:`start` forks (Linux, when the process may run on more than one CPU) and returns a
:class:`Pending`; its :meth:`Pending.result` waits for the child and returns what the function
returned, or raises what it raised. The child has the caller's memory (nothing is pickled on the
way in) and standard streams of its own (file descriptors 1 and 2); its result comes back
pickled through a pipe. Where a fork would not help (one CPU, no
``os.fork``) or is not wanted (``parallel=False``), the function runs at once in the caller and
:meth:`Pending.result` hands its outcome back, so that both paths give the same result.

Example:
    >>> pending = start(sum, [1, 2, 3], parallel=False)
    >>> pending.result()
    6
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from .settings import CPUS

__all__ = ["Pending", "start", "cpus"]

T = TypeVar("T")


def cpus() -> int:
    """How many CPUs bordir's own work may use (the local model's threads, a report's processes).

    ``BORDIR_CPUS`` when set, else the CPUs this process may run on (``os.sched_getaffinity`` where
    the OS has it).
    """
    chosen = CPUS.get()
    if chosen is not None:
        return chosen
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


class ChildFailed(RuntimeError):
    """The child ended without a result (killed, or its outcome could not be pickled)."""


class Pending(Generic[T]):
    """The outcome of a function started by :func:`start`: :meth:`result` waits for it once."""

    def __init__(
        self,
        *,
        pid: int | None = None,
        fd: int | None = None,
        value: Any = None,
        error: BaseException | None = None,
    ) -> None:
        self._pid, self._fd, self._value, self._error = pid, fd, value, error
        self.forked = pid is not None
        """Whether the function ran in a child process."""

    def result(self) -> T:
        """Wait for the function (if it runs in a child) and return its result, or raise its exception."""
        if self._pid is not None:
            self._collect()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[no-any-return]

    def cancel(self) -> None:
        """Stop the child, if there is one still running (the result is lost)."""
        if self._pid is None:
            return
        try:
            os.kill(self._pid, signal.SIGTERM)
        except ProcessLookupError:  # pragma: no cover - already gone
            pass
        self._reap()
        self._error = ChildFailed("cancelled")

    def _reap(self) -> int:
        pid, fd = self._pid, self._fd
        self._pid = self._fd = None
        if fd is not None:
            os.close(fd)
        assert pid is not None
        _, status = os.waitpid(pid, 0)
        return status

    def _collect(self) -> None:
        fd = self._fd
        assert fd is not None
        try:
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
        except BaseException:  # Ctrl-C while waiting: the child goes too
            self.cancel()
            raise
        status = self._reap()
        data = b"".join(chunks)
        if not data:
            self._error = ChildFailed(f"the child process ended without a result (status {status})")
            return
        ok, payload = pickle.loads(data)
        if ok:
            self._value = payload
        else:
            self._error = payload


def _own_streams() -> None:
    """Give the child standard streams of its own, on file descriptors 1 and 2.

    The inherited ``sys.stdout`` / ``sys.stderr`` may be objects that other threads of the parent
    serve (a Jupyter kernel's, a test runner's capture): those threads do not exist in the child,
    and a lock one of them held at the fork would never be released. What the child prints (a
    warning) goes to the process's own descriptors instead.
    """
    for name, fileno in (("stdout", 1), ("stderr", 2)):
        try:
            setattr(sys, name, open(fileno, "w", closefd=False, errors="backslashreplace"))
        except OSError:  # pragma: no cover - a closed descriptor: nowhere to print
            setattr(sys, name, open(os.devnull, "w"))


def _child(fd: int, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    try:
        _own_streams()
        try:
            payload: tuple[bool, Any] = (True, fn(*args, **kwargs))
        except BaseException as exc:  # the caller re-raises it
            payload = (False, exc)
        try:
            data = pickle.dumps(payload)
        except Exception as exc:  # an unpicklable result or exception: say what it was
            data = pickle.dumps((False, ChildFailed(f"{type(exc).__name__}: {exc}")))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        for stream in (sys.stdout, sys.stderr):  # os._exit does not flush them
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(0)


def start(
    fn: Callable[..., T], *args: Any, parallel: bool | None = None, **kwargs: Any
) -> Pending[T]:
    """``fn(*args, **kwargs)`` in a forked child (``parallel`` None: on Linux when :func:`cpus` > 1), else now.

    The child must only compute and write files of its own: it shares the caller's open files and
    connections but must not use them.
    """
    if parallel is None:  # Linux only: on macOS a forked child must not touch Accelerate or the GUI
        parallel = sys.platform.startswith("linux") and cpus() > 1
    if not parallel or not hasattr(os, "fork"):
        try:
            return Pending(value=fn(*args, **kwargs))
        except Exception as exc:
            return Pending(error=exc)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        os.close(read_fd)
        _child(write_fd, fn, args, kwargs)
    os.close(write_fd)
    return Pending(pid=pid, fd=read_fd)
