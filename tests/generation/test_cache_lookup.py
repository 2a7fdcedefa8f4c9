"""``bordir view`` reads the response cache read-only whatever its name: ``#`` and ``?`` included.

Before, the cache was opened as ``f"file:{path}?mode=ro"``: SQLite read ``#…`` as a URI
fragment and ``?…`` as its query, so it opened (and created) another file read-write, a
stray file beside the cache, and the page marked no key as verified.
"""

from __future__ import annotations

from ..conftest import invoke_cli
from ..view.test_view_files import column, page_data


def test_a_cache_named_with_hash_and_question_mark(tmp_path, monkeypatch):
    from bordir.view.run_details import KEY_VERIFIED

    monkeypatch.setenv("BORDIR_PROGRESS", "0")
    folder = tmp_path / "c#1?d"
    folder.mkdir()
    cache = folder / "responses #2?.sqlite3"
    cfg = tmp_path / "exp.toml"
    cfg.write_text(
        f'[experiment]\nmodels = ["mock/first"]\nmodes = ["no_ir"]\nruns = 1\ncache = "{cache}"\n',
        encoding="utf-8",
    )
    res = invoke_cli("run", str(cfg), "--out", str(tmp_path / "run"))
    assert res.returncode == 0, res.stderr
    before = sorted(p.name for p in tmp_path.rglob("*") if "run" not in p.parts)
    res = invoke_cli("view", str(tmp_path / "run"))
    assert res.returncode == 0, res.stderr
    after = sorted(p.name for p in tmp_path.rglob("*") if "run" not in p.parts)
    # nothing new but SQLite's own -wal / -shm companions of the cache
    assert [n for n in after if n not in before and not n.endswith(("-wal", "-shm"))] == []
    keystat = column(page_data(tmp_path / "run" / "view.html"), "keystat")
    assert keystat and set(keystat) == {KEY_VERIFIED}
