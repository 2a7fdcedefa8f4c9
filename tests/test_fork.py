"""bordir._fork: a function in a forked child gives what it gives in the caller, errors included."""

from __future__ import annotations

import os
import signal
import time

import pytest

from bordir import _fork

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")


def _pid_and(x):
    return os.getpid(), x


def _fail(message):
    raise ValueError(message)


def _die():
    os.kill(os.getpid(), signal.SIGKILL)


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("no pickling here")


def _unpicklable():
    raise _Unpicklable("x")


def test_the_child_is_another_process_and_returns_a_large_result():
    big = "é" * 3_000_000  # far beyond a pipe's buffer: the parent reads while the child writes
    pending = _fork.start(_pid_and, big, parallel=True)
    assert pending.forked
    pid, value = pending.result()
    assert pid != os.getpid() and value == big


def test_the_same_result_without_a_fork():
    pending = _fork.start(_pid_and, [1, 2], parallel=False)
    assert not pending.forked
    assert pending.result() == (os.getpid(), [1, 2])


@pytest.mark.parametrize("parallel", [True, False])
def test_an_exception_is_raised_by_result(parallel):
    pending = _fork.start(_fail, "planted", parallel=parallel)
    with pytest.raises(ValueError, match="planted"):
        pending.result()


def test_a_child_that_dies_is_an_error_not_a_hang():
    pending = _fork.start(_die, parallel=True)
    with pytest.raises(_fork.ChildFailed, match="without a result"):
        pending.result()


def test_an_outcome_that_cannot_be_pickled_is_named():
    pending = _fork.start(_unpicklable, parallel=True)
    with pytest.raises(_fork.ChildFailed, match="no pickling here"):
        pending.result()


def test_cancel_stops_a_running_child():
    pending = _fork.start(time.sleep, 60, parallel=True)
    t0 = time.perf_counter()
    pending.cancel()
    assert time.perf_counter() - t0 < 10
    with pytest.raises(_fork.ChildFailed, match="cancelled"):
        pending.result()
    pending.cancel()  # twice is harmless


def test_auto_forks_only_with_more_than_one_cpu(monkeypatch):
    monkeypatch.setattr(_fork, "cpus", lambda: 1)
    assert not _fork.start(int, "3").forked
    monkeypatch.setattr(_fork, "cpus", lambda: 2)
    pending = _fork.start(int, "3")
    assert pending.forked and pending.result() == 3
