"""The one atomic-write helper: bytes, text and Parquet written all-or-nothing.

Every file bordir writes that another process (or a resumed run) may read goes
through here: the content is written to a uniquely named temporary file in the
destination's own directory (so two processes never share a temporary name and
the final rename never crosses a filesystem), flushed and ``fsync``-ed, then
moved over the destination with :func:`os.replace`, which is atomic on POSIX
and Windows. A reader therefore sees either the old file or the new one, never
a torn one; an interrupted write leaves at most a hidden ``.NAME.*.tmp`` file,
which is removed when the write fails inside Python.

A destination that is not a regular file — ``/dev/stdout``, ``/dev/null``, a named pipe — is
written into, not replaced (a rename over it would put a regular file in its place); a symbolic
link stays a link, and the file it points to is replaced.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> atomic_write_text(d / "a.txt", "hello\\n").read_text()
    'hello\\n'
    >>> atomic_write_bytes(d / "b.bin", b"\\x00\\x01").read_bytes()
    b'\\x00\\x01'
    >>> sorted(p.name for p in d.iterdir())
    ['a.txt', 'b.bin']
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

__all__ = [
    "atomic_path",
    "atomic_replace_dir",
    "atomic_write_bytes",
    "atomic_write_parquet",
    "atomic_write_text",
]


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable where the platform allows opening a directory."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - Windows, odd filesystems
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _special(path: Path) -> bool:
    """True when ``path`` (its links followed) is there and is no regular file: a device, a FIFO, a socket."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


@contextlib.contextmanager
def _into(path: Path) -> Iterator[Path]:
    """A temporary file for the content, then copied into ``path`` (a device or a FIFO) by writing.

    A rename over ``path`` would replace ``/dev/null`` or ``/dev/stdout`` with a regular file
    (for every process of the machine, when run as root).
    """
    fd, name = tempfile.mkstemp(prefix=".bordir-out.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, mode: int = 0o644) -> Iterator[Path]:
    """Yield a unique temporary path next to ``path``; on success move it over ``path``.

    For writers that want a file name rather than a file object (``pyarrow``,
    ``sqlite3``, ``shutil.copy``). The temporary file exists (empty) when the
    block starts; it is fsync-ed and renamed when the block exits normally and
    deleted when it raises.

    Example:
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> with atomic_path(d / "x.txt") as tmp:
        ...     _ = tmp.write_text("x")
        >>> (d / "x.txt").read_text()
        'x'
    """
    path = Path(path)
    if _special(path):  # /dev/stdout, /dev/null, a FIFO: written into, never replaced
        with _into(path) as tmp:
            yield tmp
        return
    if path.is_symlink():  # the file it points to is replaced; the link stays
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # said of the destination, not of a temporary name it never had
        raise OSError(
            exc.errno, f"cannot write a file in its folder ({exc.strerror})", str(path)
        ) from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        try:
            os.replace(tmp, path)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot replace it ({exc.strerror})", str(path)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def _write_with(
    path: str | os.PathLike[str], write: Callable[[IO[Any]], object], binary: bool, **open_kw: Any
) -> Path:
    path = Path(path)
    with atomic_path(path) as tmp:
        with open(tmp, "wb" if binary else "w", **open_kw) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
    return path


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns ``path``."""
    return _write_with(path, lambda fh: fh.write(data), binary=True)


def atomic_write_text(
    path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8", newline: str | None = None
) -> Path:
    """Write ``text`` to ``path`` atomically (UTF-8 by default); returns ``path``."""
    return _write_with(
        path, lambda fh: fh.write(text), binary=False, encoding=encoding, newline=newline
    )


def atomic_write_parquet(path: str | os.PathLike[str], table: Any, **kwargs: Any) -> Path:
    """Write a :class:`pyarrow.Table` or :class:`pandas.DataFrame` to ``path`` atomically.

    Keyword arguments go to :func:`pyarrow.parquet.write_table` (e.g.
    ``compression="zstd"``). A DataFrame is converted without its index.

    Example:
        >>> import tempfile, pathlib, pandas as pd
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.parquet"
        >>> _ = atomic_write_parquet(p, pd.DataFrame({"a": [1, 2]}))
        >>> pd.read_parquet(p)["a"].tolist()
        [1, 2]
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not isinstance(table, pa.Table):
        table = pa.Table.from_pandas(table, preserve_index=False)
    path = Path(path)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, **kwargs)
    return path


def atomic_replace_dir(built: str | os.PathLike[str], dest: str | os.PathLike[str]) -> bool:
    """Move a finished directory ``built`` (a sibling of ``dest``) into place as ``dest``.

    For indexes built whole in a temporary sibling directory. An existing
    ``dest`` is renamed aside (within the same directory), the new one renamed
    in, and only then is the old one deleted. If another process put its own finished copy in
    place in the meantime (``dest`` exists again, with ``marker`` file
    ``meta.json`` in it), that copy is kept and ``built`` is discarded.

    Returns:
        True if ``built`` is now ``dest``; False if another process's copy was kept.

    Example:
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> (d / ".idx.build").mkdir(); _ = (d / ".idx.build" / "meta.json").write_text("{}")
        >>> atomic_replace_dir(d / ".idx.build", d / "idx"), sorted(p.name for p in d.iterdir())
        (True, ['idx'])
    """
    built, dest = Path(built), Path(dest)
    old: Path | None = None
    if dest.exists():  # moved aside, not deleted first: a reader never finds no index at all
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old.", dir=dest.parent))
        os.replace(dest, old / dest.name)
    try:
        os.replace(built, dest)
    except OSError:  # another process finished the same build first: keep its copy
        if not (dest / "meta.json").exists():
            raise
        shutil.rmtree(built, ignore_errors=True)
        return False
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    _fsync_dir(dest.parent)
    return True
