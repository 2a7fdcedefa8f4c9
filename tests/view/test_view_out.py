"""``bordir view --out``: a directory, or a path under a file, is refused in one line naming what was given."""

from __future__ import annotations

from pathlib import Path

import pytest

from bordir.errors import ConfigError
from bordir.view import write_view

from ..conftest import invoke_cli


@pytest.fixture(scope="module")
def audit_dir(tmp_path_factory) -> Path:
    """A small real audit output (the quickest kind of directory to make)."""
    root = tmp_path_factory.mktemp("view-out")
    log = root / "log.jsonl"
    log.write_text(
        "".join(
            f'{{"id": "a{i}", "query": "q", "query_lang": "sw", "documents": [{{"id": "d", "lang": "en"}}],'
            f' "response": "x", "citations": ["d"]}}\n'
            for i in range(5)
        ),
        encoding="utf-8",
    )
    res = invoke_cli(
        "audit", str(log), "--out", str(root / "audit"), "--resamples", "20", "--no-plots"
    )
    assert res.returncode == 0, res.stderr
    return root / "audit"


def test_out_a_directory(audit_dir, tmp_path, monkeypatch):
    target = tmp_path / "pages"
    target.mkdir()
    monkeypatch.chdir(tmp_path)
    for given in (str(target), "pages", "pages/"):
        res = invoke_cli("view", str(audit_dir), "--out", given)
        err = res.stderr.strip()
        assert res.returncode == 2 and "\n" not in err, err
        assert err == (
            f"bordir: error: --out {given}: a directory; pass the file to write instead, "
            f"e.g. --out {Path(given) / 'view.html'}"
        )
        assert ".tmp" not in err and "Traceback" not in err
    assert list(target.iterdir()) == []  # nothing written, no stray temporary file
    res = invoke_cli("view", str(audit_dir), "--out", "pages/view.html")
    assert res.returncode == 0 and (target / "view.html").is_file(), res.stderr


def test_out_under_a_file(audit_dir, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    res = invoke_cli("view", str(audit_dir), "--out", str(blocker / "view.html"))
    assert res.returncode == 2
    assert res.stderr.strip() == (
        f"bordir: error: --out {blocker / 'view.html'}: {blocker} is a file, not a folder; "
        "pass a path in a folder"
    )
    with pytest.raises(ConfigError, match="a directory; pass the file to write instead"):
        write_view(audit_dir, out=tmp_path)


def test_out_a_named_pipe_is_written_into_not_replaced(audit_dir, tmp_path):
    """``--out /dev/stdout`` and the like: the page goes into the file, which stays what it is.

    Before, the atomic write renamed its temporary file over the destination: a FIFO (and
    ``/dev/null`` or ``/dev/stdout``, for every process of the machine, when run as root) became
    a regular file.
    """
    import os
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    res = invoke_cli("view", str(audit_dir), "--out", str(fifo))
    reader.join(timeout=30)
    assert res.returncode == 0, res.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still a pipe
    assert got and got[0].startswith(b"<!DOCTYPE html>") and got[0].rstrip().endswith(b"</html>")
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]  # no temporary file left


def test_out_a_symlink_replaces_the_file_it_points_to(audit_dir, tmp_path):
    (tmp_path / "pages").mkdir()
    real = tmp_path / "pages" / "page.html"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "latest.html"
    link.symlink_to(real)
    res = invoke_cli("view", str(audit_dir), "--out", str(link))
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and real.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.skipif(not Path("/proc/version").is_file(), reason="a Linux /proc")
def test_out_where_no_file_can_be_made_names_the_out_not_a_temporary_name(audit_dir):
    res = invoke_cli("view", str(audit_dir), "--out", "/proc/version")
    assert res.returncode == 2, res.stdout
    assert res.stderr.strip() == (
        "bordir: error: /proc/version: cannot write a file in its folder (No such file or directory)"
    )  # before: "/proc/.version.n4fhqs52.tmp: No such file or directory"
