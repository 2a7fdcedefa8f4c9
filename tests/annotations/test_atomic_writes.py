"""Issue 14.3: every file is written through the one helper, ``bordir._io.atomic``, with unique temporary names.

A fixed temporary name (``labels.jsonl.tmp``) is shared by two processes writing the same
file: the second one's write clobbers or fails on the first one's. The tests occupy the old
fixed names and check that the writers neither trip over them nor leave anything behind,
and a scan of the package keeps hand-written temporary files from coming back.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import bordir
from bordir.annotations.io import load_labels
from bordir.annotations.labelset import write_labels
from bordir.annotations.schema import Label
from bordir.retrieval.dense import store as store_mod

PACKAGE = Path(bordir.__file__).parent
HAND_WRITTEN = re.compile(
    r"""mkstemp|NamedTemporaryFile|["']\.(tmp|part)["']|\.(tmp|part)["']\)?$|os\.replace\("""
)
ALLOWED = {
    "_io/atomic.py",  # the helper itself
    "runrecord/writer.py",  # moves the previous output set aside (renames finished files)
    "runrecord/outputs.py",  # renames a finished, staged output set into place
    "runrecord/temporaries.py",  # the staging folders themselves (removed when their writer died)
    "audit/record.py",  # the skipped records, streamed into a temporary while the log is read
    "cli/_audit_blackbox.py",  # the same for a black-box log
}


def _label() -> Label:
    return Label(
        query_id="Crimea_uk",
        doc_lang="uk",
        doc_id="d1",
        relevance="relevant",
        viewpoint="neutral",
        annotator="a",
    )


def test_write_labels_does_not_use_a_fixed_temporary_name(tmp_path):
    for name in ("labels.jsonl", "labels.csv"):
        path = tmp_path / name
        (tmp_path / f"{name}.tmp").mkdir()  # another writer's fixed temporary name, occupied
        write_labels([_label()], path)
        assert [lb.query_id for lb in load_labels(path)] == ["Crimea_uk"]
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(f".{name}")) == []
    assert (tmp_path / "labels.csv").read_bytes().count(b"\r\n") == 2  # CSV keeps its \r\n rows


def test_embedding_store_writes_through_the_helper(tmp_path, monkeypatch):
    calls = []
    real = store_mod.atomic_path

    def spy(path, **kw):
        calls.append(Path(path).name)
        return real(path, **kw)

    monkeypatch.setattr(store_mod, "atomic_path", spy)
    path = tmp_path / "e" / "x.npz"
    store_mod._write(path, np.eye(2, dtype=np.float32), (("en", "a"), ("en", "b")), {"dims": 2})
    assert calls == ["x.npz"] and path.is_file() and path.with_suffix(".json").is_file()
    assert sorted(p.name for p in path.parent.iterdir()) == ["x.json", "x.npz"]


def test_no_hand_written_temporary_files_in_the_package():
    found = []
    for f in sorted(PACKAGE.rglob("*.py")):
        rel = f.relative_to(PACKAGE).as_posix()
        if rel in ALLOWED:
            continue
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            code = line.split("#", 1)[0]
            if code.lstrip().startswith((">>>", "...")):
                continue
            if HAND_WRITTEN.search(code):
                found.append(f"{rel}:{i}: {line.strip()}")
    assert not found, "write through bordir._io.atomic instead:\n" + "\n".join(found)
