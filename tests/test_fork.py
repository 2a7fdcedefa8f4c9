"""bordir._fork: a function in a forked child gives what it gives in the caller, errors included."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

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


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc")
@pytest.mark.parametrize("to", ["group", "parent"])
def test_ctrl_c_during_a_forked_report_stops_both_processes(tmp_path, to):
    """`bordir report` on 2 CPUs, interrupted while its per-language child draws: one line, status
    130, and no process left behind; ``parent``: the signal reaches the parent only (a supervisor's
    kill -INT), which stops its child itself."""
    pytest.importorskip("matplotlib")
    from .report.test_report import make_run_dir

    cpus = sorted(os.sched_getaffinity(0) | set(range(os.cpu_count() or 1)))
    if len(cpus) < 2:
        pytest.skip("needs 2 CPUs")
    run_dir = make_run_dir(tmp_path / "run")
    err_file = (tmp_path / "stderr.txt").open("w")
    proc = subprocess.Popen(  # no pipes: a child left running would hold them open
        [sys.executable, "-m", "bordir", "report", str(run_dir), "--resamples", "200"],
        stdout=subprocess.DEVNULL,
        stderr=err_file,
        start_new_session=True,
        preexec_fn=lambda: os.sched_setaffinity(0, cpus),  # the worker may be pinned to one core
        env={k: v for k, v in os.environ.items() if k != "BORDIR_CPUS"},  # 1 under xdist
    )
    deadline = time.monotonic() + 120
    child: list[int] = []
    while not child and proc.poll() is None and time.monotonic() < deadline:
        child = _children(proc.pid)
        time.sleep(0.05)
    assert child, "the report never forked"
    time.sleep(0.5)  # both processes busy
    if to == "group":
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal reaches the whole process group
    else:
        os.kill(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
    err_file.close()
    err = (tmp_path / "stderr.txt").read_text()
    # 130, or death by SIGINT (a shell shows it as 130 too): after bordir has caught the interrupt
    # and printed its line, CPython sometimes still ends the process by raising SIGINT again
    # (strace shows the process sending it to itself at exit, 1 run in 8 or so)
    assert proc.returncode in (130, -signal.SIGINT), err
    assert err.strip().splitlines() == ["bordir: aborted"], (
        err
    )  # click's Abort: one line, no traceback
    gone = time.monotonic() + 3  # the child draws for several seconds more if nobody stops it
    while any(Path(f"/proc/{c}").exists() for c in child) and time.monotonic() < gone:
        time.sleep(0.05)
    left = [c for c in child if Path(f"/proc/{c}").exists()]
    assert not left, f"the forked child outlived the report: {left}"  # reaped, not orphaned


_BLOCKED_STREAM = r"""
import sys, threading, warnings
from bordir import _fork

class Blocked:  # a stream another thread serves, its lock held at the fork (a Jupyter kernel's)
    lock = threading.Lock()
    def write(self, s):
        with self.lock:
            return len(s)
    def flush(self):
        with self.lock:
            pass

def warn_and_return():
    warnings.warn("drawn with a warning")
    print("and a line")
    return 42

stream = Blocked()
stream.lock.acquire()
sys.stdout = sys.stderr = stream
result = _fork.start(warn_and_return, parallel=True).result()
sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
stream.lock.release()
print(f"result {result}")
"""


@pytest.mark.slow  # a subprocess
def test_the_child_does_not_print_through_the_parents_stream_objects():
    """A warning in the child goes to fd 2, not through a ``sys.stderr`` it cannot use."""
    done = subprocess.run(
        [sys.executable, "-c", _BLOCKED_STREAM], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "result 42"
    assert "drawn with a warning" in done.stderr and "and a line" in done.stdout
