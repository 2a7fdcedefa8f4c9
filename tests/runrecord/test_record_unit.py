"""The run record, the directory lock and the output protocol, each on its own (real files, real locks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bordir.errors import ConfigError, DataError
from bordir.runrecord import (
    KINDS,
    OutputWriter,
    RecordWriter,
    RunRecord,
    check_output,
    read_manifest,
    read_record,
    record_digest,
    require_complete,
    stale_outputs,
)
from bordir.runrecord.lock import DirLock
from bordir.runrecord.temporaries import remove_stale


def _finished(d, kind="audit", **kw):
    with RecordWriter(d, kind, **kw) as w:
        w.start({"seed": 1})
        (d / "a.txt").write_text("a")
        return w.finish(files=["a.txt"], counts={"n": 1}, signature="x|version:1")


def test_the_record_holds_what_produced_the_run(tmp_path):
    rec = _finished(tmp_path)
    assert rec == read_record(tmp_path)
    assert rec.kind == "audit" and rec.status == "complete" and rec.counts == {"n": 1}
    assert rec.bordir_version and rec.packages["python"] and rec.started and rec.finished
    assert rec.files["a.txt"].startswith("sha256-") and rec.signature == "x|version:1"
    assert require_complete(tmp_path, kind="audit") == rec


def test_an_incomplete_record_is_refused_with_one_line(tmp_path):
    with RecordWriter(tmp_path, "testbed") as w:
        w.start({})
    with pytest.raises(DataError, match=r"record.json: field 'status': a `bordir testbed` run, "
                       r"incomplete .*re-run the same command"):  # fmt: skip
        require_complete(tmp_path)
    with pytest.raises(DataError, match="field 'kind'.* not `bordir run` output"):
        require_complete(tmp_path, kind="run")


def test_a_file_changed_after_the_run_is_refused(tmp_path):
    _finished(tmp_path)
    (tmp_path / "a.txt").write_text("b")
    with pytest.raises(DataError, match=r"a.txt: changed since the run wrote it"):
        require_complete(tmp_path)
    (tmp_path / "a.txt").unlink()
    with pytest.raises(DataError, match=r"a.txt: missing, but record.json lists it"):
        require_complete(tmp_path)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("[1]", "expected a JSON object"),
        ('{"schema": "bordir.record/9", "kind": "run"}', "field 'schema'"),
        ('{"schema": "bordir.record/1", "kind": "nosuch", "status": "complete"}', "field 'kind'"),
        ('{"schema": "bordir.record/1", "kind": "run", "status": "done"}', "field 'status'"),
        ('{"schema": "bordir.record/1", "kind": "run", "status": "complete", "files": []}',
         "field 'files'"),
    ],
)  # fmt: skip
def test_a_malformed_record_is_one_line(tmp_path, body, needle):
    (tmp_path / "record.json").write_text(body)
    with pytest.raises(DataError, match=needle):
        read_record(tmp_path)


def test_a_rerun_moves_the_whole_previous_set_aside_together(tmp_path):
    _finished(tmp_path, "run", aside=("run.json",))
    (tmp_path / "run.json").write_text("{}")
    for name in KINDS["run"].outputs:
        (tmp_path / name).mkdir() if "." not in name else (tmp_path / name).write_text(name)
    (tmp_path / "outputs.json").write_text("{}")
    old = (tmp_path / "record.json").read_text()
    with RecordWriter(tmp_path, "run", aside=("run.json",)) as w:
        w.start({})
        assert read_record(tmp_path).status == "incomplete"
    left = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("."))
    assert left == ["a.txt", "previous", "record.json"]
    prev = tmp_path / "previous"
    assert (prev / "record.json").read_text() == old
    assert sorted(p.name for p in prev.iterdir()) == sorted(
        ["record.json", "outputs.json", "run.json", *KINDS["run"].outputs]
    )


def test_a_stage_keeps_the_run_and_adds_itself(tmp_path):
    first = _finished(tmp_path, "testrun")
    with RecordWriter(tmp_path, "testrun") as w:
        w.start_stage("judge", {"judges": ["j"]})
        assert read_record(tmp_path).status == "incomplete"
        (tmp_path / "b.txt").write_text("b")
        rec = w.finish(files=["b.txt"], counts={"requests": 2})
    assert rec.status == "complete" and rec.started == first.started
    assert set(rec.files) == {"a.txt", "b.txt"} and rec.stages["judge"]["counts"] == {"requests": 2}
    with (
        RecordWriter(tmp_path, "audit") as w,
        pytest.raises(DataError, match="expected a finished"),
    ):
        w.start_stage("judge", {})


def test_one_writer_or_readers_never_both(tmp_path):
    _finished(tmp_path)
    with DirLock(tmp_path):
        with pytest.raises(ConfigError, match=rf"being written by another bordir process \(pid {os.getpid()}\)"):  # fmt: skip
            DirLock(tmp_path, shared=True).acquire()
    with DirLock(tmp_path, shared=True), DirLock(tmp_path, shared=True):
        with pytest.raises(ConfigError, match="being read by another bordir process"):
            RecordWriter(tmp_path, "audit").__enter__()
    with RecordWriter(tmp_path, "audit"):
        pass  # free again


def test_a_reader_leaves_no_lock_file_in_a_foreign_directory(tmp_path):
    with DirLock(tmp_path, shared=True):
        pass
    assert list(tmp_path.iterdir()) == []


def test_outputs_name_their_record_and_go_stale_with_it(tmp_path):
    _finished(tmp_path, "run")
    with OutputWriter(tmp_path, by="bordir report") as w:
        (w.stage / "metrics.json").write_text("{}")
        (w.stage / "tables").mkdir()
        (w.stage / "tables" / "t.csv").write_text("a")
        assert w.commit() == []
    manifest = read_manifest(tmp_path)
    assert set(manifest) == {"metrics.json", "tables"}
    assert manifest["tables"]["record"] == record_digest(tmp_path)
    assert check_output(tmp_path, "metrics.json") == tmp_path / "metrics.json"
    assert check_output(tmp_path, "report.html") is None
    (tmp_path / "report.html").write_text("x")  # not written by a report
    (tmp_path / "tables" / "t.csv").write_text("b")  # changed after
    assert stale_outputs(tmp_path) == [
        "tables changed since bordir report wrote it",
        "report.html is not listed in outputs.json (copied in, or written by a report or view "
        "that was interrupted)",
    ]
    with pytest.raises(DataError, match=r"report.html is not listed .*; run `bordir report"):
        check_output(tmp_path, "report.html")
    rec = json.loads((tmp_path / "record.json").read_text())
    (tmp_path / "record.json").write_text(json.dumps({**rec, "finished": "later"}))
    with pytest.raises(DataError, match="metrics.json was computed from another record"):
        check_output(tmp_path, "metrics.json")


def test_a_commit_replaces_the_whole_set_and_warns_about_the_others(tmp_path):
    _finished(tmp_path, "run")
    with OutputWriter(tmp_path, by="bordir report") as w:
        (w.stage / "plots").mkdir()
        w.commit()
    (tmp_path / "view.html").write_text("old")  # not listed
    with pytest.warns(UserWarning, match="view.html is not listed"):
        with OutputWriter(tmp_path, by="bordir report") as w:
            (w.stage / "report.html").write_text("page")
            w.commit(replaces=("plots", "report.html"))
    assert not (tmp_path / "plots").exists() and set(read_manifest(tmp_path)) == {"report.html"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".bordir-") and "tmp" in p.name]


def test_outputs_need_a_finished_run(tmp_path):
    with RecordWriter(tmp_path, "run") as w:
        w.start({})
    with pytest.raises(DataError, match="incomplete"):
        OutputWriter(tmp_path, by="bordir report").__enter__()
    with OutputWriter(tmp_path, by="bordir view", allow_incomplete=True) as w:
        assert w.stage.is_dir()
    assert not w.stage.exists()


def test_the_temporaries_of_dead_writers_are_removed(tmp_path):
    _finished(tmp_path, "run")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    (tmp_path / f".bordir-stage.{dead}.abcd.tmp").mkdir()
    alive = tmp_path / f".bordir-stage.{os.getpid()}.abcd.tmp"
    alive.mkdir()
    (tmp_path / ".metrics.json.k2j4h5g6.tmp").write_text("torn")
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / ".t.csv.abcdefgh.tmp").write_text("torn")
    (tmp_path / ".keep.tmp").write_text("not ours")
    assert remove_stale(tmp_path, every_writer=False) == 2
    assert alive.exists() and (tmp_path / "tables" / ".t.csv.abcdefgh.tmp").exists()
    assert remove_stale(tmp_path, every_writer=True) == 2
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == [".keep.tmp"]


def test_a_record_reads_back_equal(tmp_path):
    rec = RunRecord(kind="testbed", status="complete", config={"a": [1, 2]}, counts={"n": 3})
    (tmp_path / "record.json").write_text(rec.to_json())
    assert read_record(tmp_path) == rec
    assert rec.dispatch == ("testbed",)
    assert RunRecord(kind="audit", flavour="blackbox").dispatch == ("audit/blackbox", "audit")
