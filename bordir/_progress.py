"""The one progress-bar helper: tqdm on stderr with one set of defaults.

Every long loop (generation calls, retrieval, embedding, Wikipedia fetches,
audits, batches) shows its bar through :func:`progress_bar`, so they all
behave alike:

* ``enabled=False`` (``--no-progress``): no bar;
* ``enabled=True`` or ``None`` (the default): a bar when stderr is a terminal
  (or in a notebook); in logs, pipes and CI, plain lines instead
  (:class:`LineProgress`: one every 5 % of the work, with the elapsed time and
  the ETA, no more often than every ``$BORDIR_PROGRESS_EVERY`` seconds, 10 by
  default; work shorter than that prints nothing), never minutes of silence;
* ``BORDIR_PROGRESS=0`` turns every bar and line off, ``BORDIR_PROGRESS=1``
  shows tqdm bars even when stderr is not a terminal.

The bar returned when disabled is a silent tqdm (``update`` / ``close`` /
``with`` work and do nothing), so callers never test for None.

Example:
    >>> with progress_bar(False, total=3, desc="demo", unit="item") as bar:
    ...     for _ in range(3):
    ...         bar.update(1)
    >>> bar.disable
    True
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from .settings import PROGRESS

__all__ = ["progress_bar", "progress_disabled", "LineProgress"]


def _plural(unit: str, n: int) -> str:
    """``call`` → ``calls`` for a count other than one (a unit that is not a word stays as it is).

    Example:
        >>> _plural("call", 189), _plural("call", 1), _plural("q×mode", 5)
        ('calls', 'call', 'q×mode')
    """
    if n == 1 or not unit.isalpha() or unit.endswith("s"):
        return unit
    return unit + "s"


def _clock(seconds: float) -> str:
    """``1:02:03`` / ``2:03``."""
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


class LineProgress:
    """A progress report for a log: a plain line on stderr every ``step`` of the work, with the ETA.

    It has the tqdm methods bordir's loops use (``update``, ``close``, ``set_postfix``,
    ``set_postfix_str``, ``refresh``, ``write``, ``n``, ``total``, ``disable``, ``with``). A line
    is written when the work has advanced by ``step`` (5 %) since the last one and ``every``
    seconds have passed, or after ``6 × every`` seconds whatever the progress; work that ends
    before the first line is due writes nothing.

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> bar = LineProgress(total=4, desc="demo", unit="call", every=0.0, file=out)
        >>> for _ in range(4):
        ...     bar.update(1)
        >>> bar.close()
        >>> out.getvalue().splitlines()[-1].startswith("demo: 4/4 calls (100%)")
        True
    """

    disable = False

    def __init__(
        self,
        *,
        total: int | None = None,
        initial: int = 0,
        desc: str = "",
        unit: str = "it",
        every: float = 10.0,
        step: float = 0.05,
        file: Any = None,
    ) -> None:
        import time

        self._time = time.monotonic
        self.total, self.n, self.desc, self.unit = total, initial, desc, unit
        self.every, self.step = every, step
        self.file = file if file is not None else sys.stderr
        self._t0 = self._last_t = self._time()
        self._initial = initial
        self._last_frac = initial / total if total else 0.0
        self._printed_n: int | None = None
        self._postfix = ""

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _line(self, now: float) -> str:
        elapsed = now - self._t0
        head = f"{self.desc}: " if self.desc else ""
        if self.total:
            frac = self.n / self.total
            done = self.n - self._initial
            left = self.total - self.n
            eta = f", ETA {_clock(elapsed / done * left)}" if done > 0 and left > 0 else ""
            text = (
                f"{head}{self.n:,}/{self.total:,} {_plural(self.unit, self.total)} ({100 * frac:.0f}%), "
                f"{_clock(elapsed)} elapsed{eta}"
            )
        else:
            text = f"{head}{self.n:,} {_plural(self.unit, self.n)}, {_clock(elapsed)} elapsed"
        return text + (f" [{self._postfix}]" if self._postfix else "")

    def _emit(self, now: float) -> None:
        print(self._line(now), file=self.file, flush=True)
        self._last_t, self._printed_n = now, self.n
        self._last_frac = self.n / self.total if self.total else 0.0

    def update(self, n: float = 1) -> None:
        self.n += int(n)
        now = self._time()
        since = now - self._last_t
        if self.total:
            frac = self.n / self.total
            due = (frac - self._last_frac >= self.step and since >= self.every) or (
                since >= 6 * self.every
            )
        else:
            due = since >= 3 * self.every
        if due:
            self._emit(now)

    def set_postfix(self, ordered_dict: Any = None, refresh: bool = True, **kwargs: Any) -> None:
        items = dict(ordered_dict or {}, **kwargs)
        self._postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self._postfix = s

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        self.desc = desc or ""

    def refresh(self) -> None:
        pass

    def write(self, s: str, file: TextIO | None = None) -> None:
        """Print one message line (to ``file``, stderr by default), as ``tqdm.write`` does."""
        print(s, file=file if file is not None else self.file, flush=True)

    def close(self) -> None:
        """The last line, when an earlier one was written and the count moved since."""
        if self._printed_n is not None and self._printed_n != self.n:
            self._emit(self._time())
        self._printed_n = self.n if self._printed_n is not None else None


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    try:
        return bool(get and get() is not None and "IPKernelApp" in get().config)
    except Exception:  # noqa: BLE001 - a half-initialised IPython is not a notebook
        return False


def progress_disabled(enabled: bool | None) -> bool | None:
    """tqdm's ``disable`` for ``enabled``: True (off), or None (on when stderr is a terminal).

    ``$BORDIR_PROGRESS`` (:data:`bordir.settings.PROGRESS`) overrides: ``0`` gives True,
    ``1`` gives False (always on).

    Raises:
        ConfigError: ``$BORDIR_PROGRESS`` is neither a yes nor a no (``maybe``).
    """
    env = PROGRESS.get()
    if env is False:
        return True
    if enabled is False:
        return True
    if env is True:
        return False
    return None


def progress_bar(
    enabled: bool | None = None,
    *,
    total: int | None = None,
    initial: int = 0,
    desc: str = "",
    unit: str = "it",
    unit_scale: bool = False,
) -> Any:
    """A tqdm bar on stderr (see the module docs for when it is shown).

    Args:
        enabled: False: never; True / None: when stderr is a terminal.
        total: the number of steps, when known.
        initial: steps already done (a resumed run).
        desc: the bar's label.
        unit: what one step is (``call``, ``passage``, ``record`` …).
        unit_scale: show large counts as 1.2k, 3.4M.
    """
    from tqdm.auto import tqdm

    disable = progress_disabled(enabled)
    if disable is None and not _isatty(sys.stderr) and not _in_notebook():
        from .settings import PROGRESS_EVERY

        return LineProgress(
            total=total, initial=initial, desc=desc, unit=unit, every=PROGRESS_EVERY.get()
        )
    return tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        dynamic_ncols=True,
        file=sys.stderr,
        disable=disable,
    )


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False
