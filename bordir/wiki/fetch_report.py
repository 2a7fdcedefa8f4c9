"""What a Wikipedia fetch reports: :class:`FetchReport` and the per-language counts of a corpus manifest."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["FetchReport", "summary_rows"]


@dataclass
class FetchReport:
    """What a fetch did and what the corpus now holds.

    Attributes:
        rows: one per language: ``lang, pools, articles, paragraphs, flagged,
            missing, no_langlink`` (corpus totals after the run).
        pools_fetched / pools_skipped: pools built by this run / already stored.
    """

    path: Path
    signature: str
    content_hash: str
    passages: int
    rows: list[dict[str, Any]]
    pools_fetched: int
    pools_skipped: int
    requests: int
    retries: int
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": str(self.path),
            "passages": self.passages,
            "content_hash": self.content_hash,
            "pools_fetched": self.pools_fetched,
            "pools_skipped": self.pools_skipped,
            "requests": self.requests,
            "retries": self.retries,
            "per_language": self.rows,
            "warnings": self.warnings,
            "signature": self.signature,
        }


def summary_rows(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-language counts from a manifest: pools, articles, paragraphs, flagged, missing, no_langlink."""
    per: dict[str, dict[str, Any]] = defaultdict(
        lambda: {
            "pools": set(),
            "articles": 0,
            "paragraphs": 0,
            "flagged": 0,
            "missing": 0,
            "no_langlink": 0,
        }
    )
    for lang, c in (manifest.get("counts", {}).get("per_language") or {}).items():
        per[lang]["paragraphs"] = c.get("passages", 0)
        per[lang]["flagged"] = c.get("flagged", 0)
        per[lang]["articles"] = c.get("articles", 0)
    for u in manifest.get("units", []):
        row = per[u["lang"]]
        row["pools"].add(u["territory"])
        if u["status"] == "missing":
            row["missing"] += 1
        elif u["status"] in ("no_langlink", "no_edition"):
            row["no_langlink"] += 1
    order = sorted(per, key=lambda l: (l != "en", l))
    return [
        {"lang": l, **{k: (len(v) if isinstance(v, set) else v) for k, v in per[l].items()}}
        for l in order
    ]
