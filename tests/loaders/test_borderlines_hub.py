"""load_borderlines_hub against a local directory in the hub repository layout.

The loader goes through the real ``datasets.load_dataset(local_dir, config)``
(offline: conftest sets HF_*_OFFLINE and a private HF_HOME). The layout is
written from a BorderLines object loaded from files, so the hub loader must
give back the same territories, queries and counts.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bordir.dataset import BorderLines
from bordir.errors import DataError
from bordir.loaders import load_borderlines_files, load_borderlines_hub, load_demo

# Checked without importing: datasets reads HF_HOME / HF_*_OFFLINE when first imported,
# which must happen inside a test, after conftest has set them.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("datasets") is None, reason="needs the hub extra (datasets)"
)

STR_LIST = pa.list_(pa.string())


def _queries_by_split(ds: BorderLines) -> dict[str, list]:
    """Queries per hub split: one per language; ``en`` holds the control queries of
    territories with an English-speaking claimant (the en claimant query *is* the control)."""
    out: dict[str, list] = {}
    for q in ds.queries:
        if q.is_control:
            if "en" in ds.claimant_langs(q.territory):
                out.setdefault("en", []).append(q)
        else:
            out.setdefault(q.lang, []).append(q)
    return dict(sorted(out.items()))


def write_hub_layout(ds: BorderLines, root: Path, *, claimants_as_json: bool = False) -> Path:
    """Write ``ds`` as a hub-layout directory (README.md configs + parquet files); return ``root``."""
    root = Path(root)
    for sub in ("territories", "countries", "queries"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    control = {q.territory: q for q in ds.queries if q.is_control}
    row_of = {t.name: t.index for t in ds.territories}

    pq.write_table(
        pa.table(
            {
                "Territory": [t.name for t in ds.territories],
                "Claimants": pa.array([list(t.claimants) for t in ds.territories], STR_LIST),
                "Controller": [t.controller for t in ds.territories],
                "Region": [t.region for t in ds.territories],
                "Population": pa.array([t.population for t in ds.territories], pa.int64()),
                "Query": [control[t.name].text for t in ds.territories],
                "QueryID": [t.query_id("en") for t in ds.territories],
            }
        ),
        root / "territories" / "train.parquet",
    )

    countries = list(ds.countries.values())
    pq.write_table(
        pa.table(
            {
                "Country": [c.name for c in countries],
                "Lang_Code": [c.lang for c in countries],
                "Lang_Name": [c.lang_name for c in countries],
                "Lang_Name_Native": [c.lang_name_native for c in countries],
                "Religion": [c.religion for c in countries],
                "Population": pa.array([c.population for c in countries], pa.int64()),
            }
        ),
        root / "countries" / "train.parquet",
    )

    splits = _queries_by_split(ds)
    for lang, qs in splits.items():
        if claimants_as_json:
            options = pa.array(
                [json.dumps(list(q.options), ensure_ascii=False) for q in qs], pa.string()
            )
        else:
            options = pa.array([list(q.options) for q in qs], STR_LIST)
        pq.write_table(
            pa.table(
                {
                    "Query_Native": [q.text for q in qs],
                    "Claimants_Native": options,
                    "Index_Territory": pa.array([row_of[q.territory] for q in qs], pa.int64()),
                    "QueryID": [q.query_id for q in qs],
                }
            ),
            root / "queries" / f"{lang}.parquet",
        )

    yaml = ["---", "configs:"]
    for config in ("territories", "countries"):
        yaml += [
            f"- config_name: {config}",
            "  data_files:",
            "  - split: train",
            f"    path: {config}/train.parquet",
        ]
    yaml += ["- config_name: queries", "  data_files:"]
    for lang in splits:
        yaml += [f"  - split: {lang}", f"    path: queries/{lang}.parquet"]
    yaml += ["---", "", f"# {ds.name} (test copy in hub layout)", ""]
    (root / "README.md").write_text("\n".join(yaml), encoding="utf-8")
    return root


def _query_rows(ds: BorderLines) -> list[tuple]:
    return [
        (q.query_id, q.territory, q.lang, q.text, q.options, q.claimants, q.is_control)
        for q in ds.queries
    ]


def _counts(ds: BorderLines) -> dict:
    info = ds.info()
    for k in ("source", "warnings"):
        info.pop(k)
    return info


def _assert_same_as_files(files: BorderLines, hub: BorderLines) -> None:
    assert hub.source.startswith("hub:")
    assert hub.territories == files.territories
    assert _query_rows(hub) == _query_rows(files)
    assert [q.query_id for q in hub.queries if q.is_control] == [
        t.query_id("en") for t in files.territories
    ]
    assert dict(hub.countries) == dict(files.countries)
    assert _counts(hub) == _counts(files)
    # The countries table is written from the loaded records, so only warnings about
    # the countries_info.json file itself (Suriname's corrupted key) cannot carry over.
    assert set(hub.warnings) <= set(files.warnings)
    assert all(
        w.startswith("countries_info.json:") for w in set(files.warnings) - set(hub.warnings)
    )
    hub.validate()


@pytest.mark.slow
def test_demo_hub_layout_matches_files_loader(tmp_path):
    files = load_demo()
    splits = _queries_by_split(files)
    # the layout is meaningful: en is a real split, smaller than the control set
    assert 0 < len(splits["en"]) < len(files.territories)

    hub = load_borderlines_hub(str(write_hub_layout(files, tmp_path / "hub")), name=files.name)

    _assert_same_as_files(files, hub)
    # en claimant queries are the control queries, counted once
    assert sum(q.lang == "en" for q in hub.queries) == len(files.territories)
    assert hub.lang_counts()["en"] == len(splits["en"])


@pytest.mark.slow
def test_real_borderlines_hub_layout_matches_files_loader(shared_borderlines, tmp_path):
    files = load_borderlines_files(shared_borderlines)
    hub = load_borderlines_hub(str(write_hub_layout(files, tmp_path / "hub")))

    _assert_same_as_files(files, hub)
    assert len(hub.territories) == 251
    assert len(hub.queries) == 720
    assert len(hub.query_langs) == 49


def test_claimants_native_as_json_string(tmp_path):
    files = load_demo()
    root = write_hub_layout(files, tmp_path / "hub", claimants_as_json=True)
    assert (
        pq.read_table(root / "queries" / "ru.parquet").schema.field("Claimants_Native").type
        == pa.string()
    )

    hub = load_borderlines_hub(str(root), name=files.name)

    assert _query_rows(hub) == _query_rows(files)


def test_bad_json_claimants_native_names_the_line(tmp_path):
    files = load_demo()
    root = write_hub_layout(files, tmp_path / "hub", claimants_as_json=True)
    lang = next(
        lang for lang, qs in _queries_by_split(files).items() if len(qs) >= 2 and lang != "en"
    )
    path = root / "queries" / f"{lang}.parquet"
    table = pq.read_table(path)
    options = table.column("Claimants_Native").to_pylist()
    options[1] = options[1][:-1]  # drop the closing bracket of row 2
    pq.write_table(table.set_column(1, "Claimants_Native", pa.array(options, pa.string())), path)

    with pytest.raises(DataError) as err:
        load_borderlines_hub(str(root))

    assert err.value.line == 2
    assert err.value.field == "Claimants_Native"
    assert f"queries/{lang}:2:" in str(err.value)


@pytest.mark.slow
@pytest.mark.parametrize("column", ["Query_Native", "Claimants_Native", "Index_Territory"])
def test_queries_split_missing_a_column(tmp_path, column):
    root = write_hub_layout(load_demo(), tmp_path / "hub")
    path = root / "queries" / "uk.parquet"
    pq.write_table(pq.read_table(path).drop([column]), path)

    with pytest.raises(DataError) as err:
        load_borderlines_hub(str(root))

    assert err.value.field == column
    assert column in str(err.value)
    assert "queries/uk" in str(err.value)


def test_queries_config_missing_a_column_everywhere(tmp_path):
    root = write_hub_layout(load_demo(), tmp_path / "hub")
    for path in (root / "queries").glob("*.parquet"):
        pq.write_table(pq.read_table(path).drop(["Index_Territory"]), path)

    with pytest.raises(DataError, match="missing column 'Index_Territory'") as err:
        load_borderlines_hub(str(root))

    assert err.value.field == "Index_Territory"


@pytest.mark.slow
def test_local_directory_is_not_read_from_a_stale_cache(tmp_path):
    """datasets caches a local directory by folder name: a second, different directory
    with the same name (or an edited one) must still be read afresh."""
    demo = load_demo()
    first = load_borderlines_hub(str(write_hub_layout(demo, tmp_path / "a" / "borderlines")))
    q = demo.query("Crimea_uk")
    edited = dataclasses.replace(
        demo,
        queries=tuple(
            dataclasses.replace(x, text=x.text + " (edited)") if x == q else x for x in demo.queries
        ),
    )

    second = load_borderlines_hub(str(write_hub_layout(edited, tmp_path / "b" / "borderlines")))

    assert first.query("Crimea_uk").text == q.text
    assert second.query("Crimea_uk").text == q.text + " (edited)"


@pytest.mark.slow
def test_unreachable_hub_fails_at_once_with_what_to_do(tmp_path):
    """No network and no cached copy: one clear error in seconds, not five logged retries."""
    import socket
    import subprocess
    import sys

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proxy_vars = {"HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"}
    env = {
        **{k: v for k, v in __import__("os").environ.items() if k not in proxy_vars},
        "HF_ENDPOINT": f"http://127.0.0.1:{port}",
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_OFFLINE": "0",
    }
    code = (
        "import bordir\n"
        "try:\n"
        "    bordir.load_dataset('borderlines')\n"
        "except bordir.errors.DataError as e:\n"
        "    print('ERR', e)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )

    assert proc.stdout.startswith("ERR "), proc.stdout + proc.stderr
    assert "cannot reach the Hugging Face hub" in proc.stdout
    assert "dataset_path" in proc.stdout
    assert "Retrying" not in proc.stderr  # the old path logged five retries over about 25 s
