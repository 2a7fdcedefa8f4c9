"""load_bordirlines on small directories written in the raw BordIRLines layout.

    data/queries.tsv                                   query_id, query_text, territory, language
    data/{lang}/{system}/{mode}/{lang}_query_hits.tsv  query_id, territory, rank, score, doc_id, doc_lang
    data/all_docs.json                                 {lang: {doc_id: text}}

Every hit's doc_id names the file it came from (``{lang}.{system}.{hub mode}.{query}.{rank}``),
so the tests can check which files a loaded row was read from.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bordir.errors import ConfigError, DataError
from bordir.loaders import load_bordirlines
from bordir.modes import Mode
from bordir.records import Hit, Passage

from ..conftest import invoke_cli

LANGS = ("en", "uk", "zhs")
SYSTEMS = ("openai", "m3")
HUB_MODES = ("qlang", "qlang_en", "en", "rel_langs")
CANONICAL = {"qlang": "qlang", "qlang_en": "qlang+en", "en": "en_only", "rel_langs": "rel_langs"}
TERRITORIES = ("Crimea", "Senkaku Islands")
N_PER_FILE = 15  # hits per query in every hit file
SPARE_DOCS = {"en": {"spare_en": "A paragraph no query retrieved."}}

N_QUERIES = len(LANGS) * len(TERRITORIES)
N_GROUPS = N_QUERIES * len(SYSTEMS) * len(HUB_MODES)  # (query, system, mode) groups


def _doc_lang(qlang: str, mode: str, rank: int) -> str:
    if mode == "qlang":
        return qlang
    if mode == "en":
        return "en"
    if mode == "qlang_en":
        return qlang if rank % 2 else "en"
    return LANGS[rank % len(LANGS)]  # rel_langs


def _hit_path(root: Path, lang: str, system: str, mode: str) -> Path:
    return root / "data" / lang / system / mode / f"{lang}_query_hits.tsv"


def write_bordirlines(root: Path) -> Path:
    """Write a small BordIRLines repository under ``root``; return ``root``."""
    data = root / "data"
    data.mkdir(parents=True)
    rows = ["query_id\tquery_text\tterritory\tlanguage"]
    for lang in LANGS:
        for t in TERRITORIES:
            rows.append(f"{t.replace(' ', '_')}_{lang}\tWho owns {t}? ({lang})\t{t}\t{lang}")
    (data / "queries.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")

    docs: dict[str, dict[str, str]] = {lang: dict(d) for lang, d in SPARE_DOCS.items()}
    rng = random.Random(0)
    for lang in LANGS:
        for system in SYSTEMS:
            for mode in HUB_MODES:
                hits = []
                for t in TERRITORIES:
                    qid = f"{t.replace(' ', '_')}_{lang}"
                    for rank in range(1, N_PER_FILE + 1):
                        doc_id = f"{lang}.{system}.{mode}.{qid}.{rank}"
                        doc_lang = _doc_lang(lang, mode, rank)
                        docs.setdefault(doc_lang, {})[doc_id] = f"Text of {doc_id}"
                        hits.append(
                            f"{qid}\t{t}\t{rank}\t{1 - rank / 100:.2f}\t{doc_id}\t{doc_lang}"
                        )
                rng.shuffle(hits)  # file order is not rank order: truncation must sort by rank
                path = _hit_path(root, lang, system, mode)
                path.parent.mkdir(parents=True)
                path.write_text(
                    "query_id\tterritory\trank\tscore\tdoc_id\tdoc_lang\n" + "\n".join(hits) + "\n",
                    encoding="utf-8",
                )
    (data / "all_docs.json").write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    return root


def _rewrite_cell(path: Path, data_row: int, column: str, value: str) -> None:
    """Set ``column`` of the ``data_row``-th data row (0-based; the header is line 1)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    col = lines[0].split("\t").index(column)
    cells = lines[data_row + 1].split("\t")
    cells[col] = value
    lines[data_row + 1] = "\t".join(cells)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def bdl(tmp_path) -> Path:
    return write_bordirlines(tmp_path / "bordirlines")


def _source(doc_id: str) -> tuple[str, str, str]:
    lang, system, mode, _qid, _rank = doc_id.split(".")
    return lang, system, mode


# --- reading -------------------------------------------------------------------


def test_default_keeps_top_10_by_rank_per_query_system_mode(bdl):
    b = load_bordirlines(bdl)

    assert b.n_hits == 10
    assert len(b.queries) == N_QUERIES
    assert list(b.hits.columns) == [
        "query_id",
        "territory",
        "query_lang",
        "system",
        "mode",
        "rank",
        "score",
        "doc_id",
        "doc_lang",
    ]
    assert len(b.hits) == N_GROUPS * 10
    groups = b.hits.groupby(["query_id", "system", "mode"])
    assert groups.ngroups == N_GROUPS
    for _, g in groups:
        assert list(g["rank"]) == list(range(1, 11))
        assert list(g["score"]) == [pytest.approx(1 - r / 100) for r in range(1, 11)]
    assert b.hits["rank"].dtype.kind == "i" and b.hits["score"].dtype.kind == "f"


def test_n_hits_none_keeps_all_and_n_hits_3_keeps_top_3(bdl):
    everything = load_bordirlines(bdl, n_hits=None)
    top3 = load_bordirlines(bdl, n_hits=3)

    assert len(everything.hits) == N_GROUPS * N_PER_FILE
    assert sorted(set(everything.hits["rank"])) == list(range(1, N_PER_FILE + 1))
    assert len(top3.hits) == N_GROUPS * 3
    assert set(top3.hits["rank"]) == {1, 2, 3}


def test_rows_come_from_their_files_with_canonical_mode_names(bdl):
    b = load_bordirlines(bdl)

    assert set(b.hits["mode"]) == {"qlang", "qlang+en", "en_only", "rel_langs"}
    assert set(b.hits["mode"]) == {
        m.value for m in (Mode.QLANG, Mode.QLANG_EN, Mode.EN_ONLY, Mode.REL_LANGS)
    }
    assert set(b.hits["system"]) == set(SYSTEMS)
    assert set(b.hits["query_lang"]) == set(LANGS)
    for row in b.hits.itertuples(index=False):
        assert _source(row.doc_id) == (row.query_lang, row.system, Mode(row.mode).hub_name)
        assert row.query_id.endswith("_" + row.query_lang)


@pytest.mark.parametrize(
    "modes, expected",
    [
        (["qlang_en", "en"], {"qlang+en", "en_only"}),  # hub spelling
        (["qlang+en", "en_only"], {"qlang+en", "en_only"}),  # bordir spelling
        ([Mode.REL_LANGS, "QLANG"], {"rel_langs", "qlang"}),  # enum values, any case
    ],
)
def test_modes_in_either_spelling_select_their_files(bdl, modes, expected):
    b = load_bordirlines(bdl, modes=modes)

    assert set(b.hits["mode"]) == expected
    assert {_source(d)[2] for d in b.hits["doc_id"]} == {Mode(m).hub_name for m in expected}
    assert len(b.hits) == N_QUERIES * len(SYSTEMS) * len(expected) * 10


def test_systems_filter(bdl):
    b = load_bordirlines(bdl, systems=["m3"])

    assert set(b.hits["system"]) == {"m3"}
    assert {_source(d)[1] for d in b.hits["doc_id"]} == {"m3"}


def test_langs_filter(bdl):
    b = load_bordirlines(bdl, langs=["zhs", "uk"])

    assert set(b.hits["query_lang"]) == {"zhs", "uk"}
    assert {_source(d)[0] for d in b.hits["doc_id"]} == {"zhs", "uk"}
    assert len(b.hits) == 2 * len(TERRITORIES) * len(SYSTEMS) * len(HUB_MODES) * 10


def test_langs_filter_with_unknown_language(bdl):
    with pytest.raises(DataError, match="no hit files for language"):
        load_bordirlines(bdl, langs=["zhs", "fr"])


def test_iter_hits_returns_hit_records(bdl):
    b = load_bordirlines(bdl)

    hits = list(b.iter_hits())

    assert len(hits) == len(b.hits)
    assert all(type(h) is Hit for h in hits)
    first = b.hits.iloc[0]
    assert hits[0] == Hit(
        query_id=first["query_id"],
        mode=first["mode"],
        rank=int(first["rank"]),
        doc_id=first["doc_id"],
        doc_lang=first["doc_lang"],
        score=float(first["score"]),
        territory=first["territory"],
        system=first["system"],
    )
    assert {h.system for h in hits} == set(SYSTEMS)
    assert {h.mode for h in hits} == {"qlang", "qlang+en", "en_only", "rel_langs"}
    assert all(isinstance(h.rank, int) and isinstance(h.score, float) for h in hits)


def test_iter_passages_covers_all_docs(bdl):
    b = load_bordirlines(bdl)
    on_disk = json.loads((bdl / "data" / "all_docs.json").read_text(encoding="utf-8"))

    passages = list(b.iter_passages())

    assert all(isinstance(p, Passage) for p in passages)
    assert {(p.lang, p.doc_id): p.text for p in passages} == {
        (lang, d): text for lang, docs in on_disk.items() for d, text in docs.items()
    }
    assert len(passages) == sum(len(d) for d in on_disk.values())
    assert ("en", "spare_en") in {p.key for p in passages}  # retrieved by no query, still a passage
    assert b.doc_text("en", "spare_en") == SPARE_DOCS["en"]["spare_en"]
    with pytest.raises(ConfigError):
        b.doc_text("en", "no_such_doc")


def test_hits_to_missing_docs_are_kept_and_counted(bdl):
    full = load_bordirlines(bdl)
    assert full.warnings == ()
    docs_path = bdl / "data" / "all_docs.json"
    docs = json.loads(docs_path.read_text(encoding="utf-8"))
    # drop the documents of every rank-1 hit of the m3 system
    gone = full.hits[(full.hits["system"] == "m3") & (full.hits["rank"] == 1)]
    for lang, doc_id in zip(gone["doc_lang"], gone["doc_id"]):
        del docs[lang][doc_id]
    docs_path.write_text(json.dumps(docs), encoding="utf-8")

    b = load_bordirlines(bdl)

    assert len(b.hits) == len(full.hits)
    assert len(gone) == N_QUERIES * len(HUB_MODES)
    assert set(gone["doc_id"]) <= set(b.hits["doc_id"])
    (warning,) = b.warnings
    assert warning.startswith(f"{len(gone)} hits point to documents missing from all_docs.json")


# --- errors --------------------------------------------------------------------


def test_missing_column_in_hit_file(bdl):
    path = _hit_path(bdl, "zhs", "m3", "qlang_en")
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text(
        "\n".join("\t".join(ln.split("\t")[:3] + ln.split("\t")[4:]) for ln in lines) + "\n",
        encoding="utf-8",
    )  # drop the score column

    with pytest.raises(DataError) as err:
        load_bordirlines(bdl)

    assert err.value.field == "score"
    assert err.value.path == str(path)
    assert str(path) in str(err.value) and "'score'" in str(err.value)


def test_missing_column_in_queries_tsv(bdl):
    path = bdl / "data" / "queries.tsv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("territory\tlanguage", "territory\tlang", 1), encoding="utf-8")

    with pytest.raises(DataError) as err:
        load_bordirlines(bdl)

    assert (err.value.path, err.value.field) == (str(path), "language")


@pytest.mark.parametrize("data_row", [0, 6, 2 * N_PER_FILE - 1])
def test_non_numeric_score_names_its_line(bdl, data_row):
    path = _hit_path(bdl, "uk", "openai", "rel_langs")
    _rewrite_cell(path, data_row, "score", "high")

    with pytest.raises(DataError) as err:
        load_bordirlines(bdl)

    assert err.value.line == data_row + 2  # the header is line 1
    assert err.value.field == "score"
    assert f"{path}:{data_row + 2}: field 'score'" in str(err.value)
    assert "'high'" in str(err.value)


def test_non_numeric_rank_names_its_line(bdl):
    path = _hit_path(bdl, "en", "m3", "en")
    _rewrite_cell(path, 4, "rank", "first")

    with pytest.raises(DataError) as err:
        load_bordirlines(bdl)

    assert (err.value.line, err.value.field) == (6, "rank")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"systems": ["openai", "bm25"]}, "bm25"),
        ({"modes": ["qlang", "all_langs"]}, "all_langs"),
        ({"modes": ["no_ir"]}, "no_ir"),
        ({"modes": ["swap_docs"]}, "swap_docs"),
        ({"n_hits": 0}, "n_hits"),
    ],
)
def test_invalid_settings_raise_config_error(bdl, kwargs, match):
    with pytest.raises(ConfigError, match=match):
        load_bordirlines(bdl, **kwargs)


def test_missing_data_directory(tmp_path):
    with pytest.raises(DataError, match="no data/ directory") as err:
        load_bordirlines(tmp_path)

    assert err.value.path == str(tmp_path)


# --- CLI -------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_data_info_json(bdl):
    n_docs = len(json.loads((bdl / "data" / "all_docs.json").read_text(encoding="utf-8"))["zhs"])

    proc = invoke_cli("data", "info", "bordirlines", "--path", str(bdl), "--json")

    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["dataset"] == "bordirlines"
    assert info["queries"] == N_QUERIES
    assert info["n_hits"] == 10
    assert info["hits"] == N_GROUPS * 10
    assert info["documents"] == sum(info["documents_per_language"].values())
    assert set(info["documents_per_language"]) == set(LANGS)
    assert info["documents_per_language"]["zhs"] == n_docs
    per_mode = N_QUERIES * 10
    assert info["hits_per_system_mode"] == {
        f"{s}.{CANONICAL[m]}": per_mode for s in SYSTEMS for m in HUB_MODES
    }
    assert info["warnings"] == []


@pytest.mark.slow
def test_cli_data_info_on_broken_file(bdl):
    path = _hit_path(bdl, "zhs", "openai", "qlang")
    _rewrite_cell(path, 3, "score", "high")

    proc = invoke_cli("data", "info", "bordirlines", "--path", str(bdl), "--json")

    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("bordir: error:")
    assert f"{path}:5: field 'score'" in lines[0]
