"""The annotations folder's ``MANIFEST.json``: the sha256 of every shipped file, written and checked."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .schema import (
    annotations_dir,
)

__all__ = ["MANIFEST", "write_manifest", "manifest_problems"]


MANIFEST = "MANIFEST.json"


def _file_hashes(folder: Path) -> dict[str, str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != MANIFEST and "__pycache__" not in p.parts:
            out[p.relative_to(folder).as_posix()] = (
                "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest()
            )
    return out


def write_manifest(folder: str | Path | None = None) -> Path:
    """Write ``MANIFEST.json`` (the sha256 of every other file) into the annotations folder."""
    folder = Path(folder) if folder is not None else annotations_dir()
    path = folder / MANIFEST
    data = {
        "description": "sha256 of every file in annotations/ (except this one)",
        "files": _file_hashes(folder),
    }
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def manifest_problems(folder: str | Path | None = None) -> list[str]:
    """Differences between the annotations folder and its ``MANIFEST.json`` (empty when they agree).

    >>> manifest_problems()
    []
    """
    folder = Path(folder) if folder is not None else annotations_dir()
    path = folder / MANIFEST
    if not path.is_file():
        return [f"{path} is missing"]
    listed = json.loads(path.read_text(encoding="utf-8")).get("files", {})
    actual = _file_hashes(folder)
    problems = [f"{name}: listed but missing" for name in sorted(set(listed) - set(actual))]
    problems += [f"{name}: not listed in {MANIFEST}" for name in sorted(set(actual) - set(listed))]
    problems += [
        f"{name}: checksum {actual[name]} differs from the manifest's {listed[name]}"
        for name in sorted(set(listed) & set(actual))
        if listed[name] != actual[name]
    ]
    return problems
