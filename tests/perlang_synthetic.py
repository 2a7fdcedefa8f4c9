"""A synthetic BorderLines directory and passages file with many territories per language (for tests).

8 Latin-script query languages, one country each, and ``COPIES`` territories per pair of countries (the
controller alternating between the two claimants): ``7 * COPIES`` territories per language, half of them
controlled by the other claimant. Each (territory, language) pool (the two claimant languages and English)
holds three passages, so BM25 retrieval works in every mode.
"""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

from click.testing import CliRunner

from bordir.cli.main import cli

LANGS = {
    "es": "Esland",
    "fr": "Frasia",
    "tr": "Turkmia",
    "id": "Indara",
    "tl": "Tagonia",
    "sw": "Swahilia",
    "so": "Somara",
    "ht": "Haitara",
}
COPIES = 6


def write_synthetic(root: Path) -> tuple[Path, Path]:
    """A BorderLines-format directory and a passages .jsonl for it; returns (dataset dir, passages file)."""
    root.mkdir(parents=True, exist_ok=True)
    countries = {
        name: {
            "Lang_Code": code,
            "Lang_Name": code,
            "Lang_Name_Native": code,
            "Religion": "-",
            "Population": 1000,
        }
        for code, name in LANGS.items()
    }
    (root / "countries_info.json").write_text(json.dumps(countries, indent=1), encoding="utf-8")
    terr_rows, per_lang = [], {code: [] for code in LANGS}
    passages = []
    codes = list(LANGS)
    for (i, a), (j, b) in itertools.combinations(enumerate(codes), 2):
        for copy in range(COPIES):
            name = f"Isle {i}{j}{copy}"
            claimants = (LANGS[a], LANGS[b])
            controller = claimants[copy % 2]
            q = f"Is {name} a territory of A) {claimants[0]} or B) {claimants[1]}?"
            row = len(terr_rows)
            terr_rows.append(
                [
                    name,
                    ";".join(claimants),
                    controller,
                    "Synthetic",
                    "100",
                    q,
                    name.replace(" ", "_") + "_en",
                ]
            )
            for code in (a, b):
                opts = [f"{c} ({code})" for c in claimants]
                per_lang[code].append(
                    (row, f"[{code}] Is {name} a territory of A) {opts[0]} or B) {opts[1]}?", opts)
                )
            for code in (a, b, "en"):
                for p in range(3):
                    passages.append(
                        {
                            "doc_id": f"{name.replace(' ', '_')}_{code}_p{p}",
                            "lang": code,
                            "territory": name,
                            "title": name,
                            "section": "s",
                            "text": f"{name} paragraph {p} in {code}: {claimants[p % 2]} administers "
                            f"{name}; {claimants[(p + 1) % 2]} claims {name} territory.",
                            "about": "territory",
                        }
                    )
    with open(root / "disputed_territories.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(
            ["Territory", "Claimants", "Controller", "Region", "Population", "Query", "QueryID"]
        )
        w.writerows(terr_rows)
    (root / "prompts_mc_q").mkdir(exist_ok=True)
    (root / "terms").mkdir(exist_ok=True)
    for code, qs in per_lang.items():
        (root / "prompts_mc_q" / f"prompts.{code}").write_text(
            "\n".join(q for _, q, _ in qs) + "\n", encoding="utf-8"
        )
        (root / "prompts_mc_q" / f"choices.{code}").write_text(
            "\n".join(json.dumps(o, ensure_ascii=False) for _, _, o in qs) + "\n", encoding="utf-8"
        )
        (root / "terms" / f"line_inds.{code}.txt").write_text(
            json.dumps([r for r, _, _ in qs]), encoding="utf-8"
        )
    corpus = root.parent / f"{root.name}-passages.jsonl"
    corpus.write_text("\n".join(json.dumps(p) for p in passages) + "\n", encoding="utf-8")
    return root, corpus


def run_cli(tmp: Path, name: str, body: str) -> Path:
    """`bordir run` of the config ``body`` (TOML) into ``tmp/name``; returns the run directory."""
    cfg = tmp / f"{name}.toml"
    cfg.write_text(body, encoding="utf-8")
    out = tmp / name
    res = CliRunner().invoke(cli, ["run", str(cfg), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out
