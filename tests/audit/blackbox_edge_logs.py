"""Generated black-box logs full of edge cases, for the golden test of the black-box audit's tables.

:func:`write_scenario` writes one of :data:`SCENARIOS` (a log and the options it is audited with)
and :func:`audit_tables` audits it and returns every table and count the audit produces, as JSON
values; :mod:`tests.audit.test_blackbox_golden` compares them with the tables the previous
implementation produced from the same logs (``tests/audit/data/blackbox_golden.json.gz``).

The logs hold, in blocks of about 20 kB (so that the reader's blocks, the attributor's memory of
hosts and authorities and the duplicate check all cross block boundaries, and blocks with a bad
record take the record-by-record path while the others are typed by Arrow): every kind of bad
URL, URLs repeated in one answer under other spellings (case, default port, fragment, tracking
parameters), credentials, IDN and IP hosts, ports, language subdomains, paths and parameters,
publishers, government domains, redirects, URL objects with titles and snippets, missing and
mapped query languages, claimants as codes, names, repeated, with and without their languages,
missing models and groups, repeated records, months.

Regenerate the golden file (only when a change of the numbers is intended, and say so):
``python -m tests.audit.blackbox_edge_logs tests/audit/data/blackbox_golden.json.gz``.
"""

from __future__ import annotations

import gzip
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

HOSTS = [
    "ria.ru", "www.rt.com", "en.wikipedia.org", "ru.wikipedia.org", "uk.wikipedia.org", "www.ukrinform.ua",
    "minfin.gov.ru", "www.gov.ua", "www.bbc.com", "bbc.co.uk", "kyivindependent.com", "tass.com",
    "news.site7.de", "кремль.рф", "Example.COM", "192.168.1.20", "[2001:db8::1]", "meduza.io",
    "vertexaisearch.cloud.google.com", "localhost", "russian.rt.com", "www.dw.com", "state.gov", "nato.int",
    "gc.ca", "a.b.c.example.co.uk", "xn--e1afmkfd.xn--p1ai", "8.8.8.8",
]  # fmt: skip
PATHS = [
    "/",
    "",
    "/ru/news/1",
    "/en-us/a",
    "/ukrainian/x",
    "/new/x",
    "/art/1",
    "/uk/",
    "/wiki/Крым",
    "/a%20b",
    "/news",
]
QUERIES = [
    "",
    "?utm_source=x",
    "?lang=uk",
    "?hl=ru&utm_medium=y",
    "?id=3&fbclid=z",
    "?LANGUAGE=en",
    "?setlang=de&x=1",
]
PREFIXES = ["https://", "http://", "HTTPS://", "https://user:pw@", "http://anon@"]
PORTS = ["", "", "", ":443", ":8080", ":80"]
BAD = [
    "javascript:alert(1)", "data:text/plain,x", "mailto:a@b.ru", "/relative", "", "   ", " https://ria.ru/pad ",
    "\u3000https://ria.ru/wide\u3000", "ftp://x.ru/f", "www.example.com:80/x", "http:///nohost",
    "https://exa mple.com/", "https://host:port/x", "JAVASCRIPT:void(0)", "blob:https://a.ru/1",
]  # fmt: skip
LANGS = ["ru", "uk", "en", "zh-CN", "he", "de"]
MODELS = ["openai-search/a", "perplexity/b", "gemini/c", ""]
CLAIMANTS: list[tuple[list[str], list[str] | None]] = [
    (["RU", "UA"], ["ru", "uk"]), (["Russia", "Ukraine"], None), (["RU", "RU"], ["ru", "uk"]),
    (["UA", "RU"], ["uk"]), ([], None), (["Israel", "PS"], ["he", "ar"]),
]  # fmt: skip
SNIPPETS = ["Крым — полуостров на севере Чёрного моря.", "Крим — півострів на півночі Чорного моря.",
            "Crimea is a peninsula on the Black Sea.", "", None]  # fmt: skip
QUESTIONS = {
    "ru": "Чей Крым?",
    "uk": "Чий Крим?",
    "en": "Whose is Crimea?",
    "de": "Wem gehört die Krim?",
}

SCENARIOS: dict[str, dict[str, Any]] = {
    "flat": {"n": 300, "objects": False, "bad_records": False, "options": {}},
    "objects": {"n": 240, "objects": True, "bad_records": False,
                "options": {"group_by_month": True, "cluster": "answer", "domains": ["listed=domains.csv"]}},
    "mixed": {"n": 300, "objects": False, "bad_records": True, "options": {"compare_countries": ["RU", "UA", "GB"]}},
    "plain": {"n": 300, "objects": False, "bad_records": False, "options": {}, "parquet": True},
}  # fmt: skip
"""Each: how many records, URLs as strings or objects, bad records between the good ones, the audit's options;
``plain``: a Parquet log without claimants nor question groups (the compared countries are the most cited)."""


def _url(rng: random.Random, i: int) -> Any:
    if rng.random() < 0.08:
        return rng.choice(BAD)
    host = rng.choice(HOSTS)
    return (
        rng.choice(PREFIXES)
        + host
        + rng.choice(PORTS)
        + rng.choice(PATHS)
        + rng.choice(QUERIES)
        + rng.choice(["", "#top"])
    )


def _variant(url: str, rng: random.Random) -> str:
    """The same URL spelled otherwise (a fragment, a tracking parameter, upper case), or itself."""
    k = rng.randrange(4)
    if k == 0:
        return url + "#again"
    if k == 1:
        return url + ("&" if "?" in url else "?") + "utm_campaign=z"
    if k == 2 and "://" in url:
        scheme, rest = url.split("://", 1)
        return scheme.upper() + "://" + rest
    return url


def records(name: str, seed: int = 7) -> list[Any]:
    """The records of scenario ``name`` (a record that is not an object, or a raw line, as a string)."""
    sc = SCENARIOS[name]
    rng = random.Random(f"{name}-{seed}")
    out: list[Any] = []
    for i in range(sc["n"]):
        group = i // 6
        lang = LANGS[i % len(LANGS)]
        urls: list[Any] = [_url(rng, i) for _ in range(rng.randrange(0, 8))]
        if urls and rng.random() < 0.4:
            urls.append(_variant(urls[0], rng) if isinstance(urls[0], str) else urls[0])
        claim, clangs = CLAIMANTS[group % len(CLAIMANTS)]
        plain = sc.get("parquet", False)
        rec: dict[str, Any] = {"id": i if i % 5 or plain else f"r{i}", "question": QUESTIONS.get(lang, f"q{group} {lang}"),
                               "answer": f"answer {i} " + "…" * (i % 3), "model": MODELS[(i // 3) % len(MODELS)]}  # fmt: skip
        if i % 11 != 3:
            rec["lang"] = lang  # else detected from the question
        if i % 13 != 5 and not plain:
            rec["group"] = group if i % 2 else f"g{group}"
        if claim and not plain:
            rec["claimants"] = claim
            if clangs is not None:
                rec["claimant_langs"] = clangs
            if i % 4:
                rec["territory"] = "Crimea" if "RU" in claim or "Russia" in claim else ""
        if sc["objects"]:
            rec["urls"] = [{"url": u, "title": f"t{j}" if j % 2 else None, "snippet": rng.choice(SNIPPETS)}
                           for j, u in enumerate(urls)]  # fmt: skip
            rec["timestamp"] = f"2026-0{1 + i % 3}-1{i % 9}T10:00:00Z"
        else:
            rec["urls"] = urls
        out.append(rec)
        if i % 37 == 5 and not plain:
            out.append(dict(rec))  # the same record again
        if sc["bad_records"] and i % 29 == 7:
            out.append(rng.choice(['{"broken', "[1, 2]", '{"question": "q", "answer": 3, "urls": []}',
                                   '{"question": "q", "lang": "ru", "answer": "a", "urls": [null, 7.5, "https://ria.ru/n"]}',
                                   '{"lang": "ru", "answer": "a", "urls": [1, 2]}']))  # fmt: skip
    return out


def write_scenario(name: str, d: Path) -> tuple[Path, dict[str, Any]]:
    """Write scenario ``name``'s log (and its domain list) into ``d``: ``(log, BlackboxOptions fields)``."""
    d.mkdir(parents=True, exist_ok=True)
    if SCENARIOS[name].get("parquet"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        log = d / f"{name}.parquet"
        pq.write_table(pa.Table.from_pylist(records(name)), log, row_group_size=64)
    else:
        log = d / f"{name}.jsonl"
        with log.open("w", encoding="utf-8") as fh:
            for r in records(name):
                fh.write((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n")
    (d / "domains.csv").write_text(
        "domain\nria.ru\nwww.bbc.com\nhttps://tass.com/\n", encoding="utf-8"
    )
    opts = dict(SCENARIOS[name]["options"])
    if "domains" in opts:
        opts["domains"] = tuple(
            x.replace("domains.csv", str(d / "domains.csv")) for x in opts["domains"]
        )
    if "compare_countries" in opts:
        opts["compare_countries"] = tuple(opts["compare_countries"])
    return log, {"n_resamples": 200, "n_permutations": 200, "seed": 3, **opts}


def _clean(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_clean(x) for x in v]
    return v


def audit_tables(name: str, d: Path, block_bytes: int = 20_000) -> dict[str, Any]:
    """Audit scenario ``name`` (written into ``d``) in blocks of ``block_bytes``; every table as JSON values."""
    from unittest import mock

    import pyarrow.parquet as pq

    from bordir.audit.blackbox import ingest as ingest_mod
    from bordir.audit.blackbox import reader
    from bordir.audit.blackbox.report import write_blackbox
    from bordir.audit.blackbox.run import BlackboxOptions, run_blackbox_audit

    log, opts = write_scenario(name, d)

    def small_blocks(*a: Any, **k: Any) -> Any:
        return reader.typed_blocks(*a, **{**k, "block_bytes": block_bytes})

    with mock.patch.object(ingest_mod, "typed_blocks", small_blocks):
        r = run_blackbox_audit(log, BlackboxOptions(**opts))
    out = d / f"{name}-audit"
    write_blackbox(r, out, plots=False)
    summary = {k: v for k, v in r.summary.items() if k not in ("seconds", "log")}
    tables = {
        k: getattr(r, k).to_csv(index=False)
        for k in ("answers", "shares", "claimants", "comparisons")
    }
    return _clean({
        "summary": summary, "signature": str(r.signature), **tables,
        "answers.parquet": pq.read_table(out / "answers.parquet").to_pylist(),
        "citations.parquet": pq.read_table(out / "citations.parquet").to_pylist(),
        "citations.schema": str(pq.read_schema(out / "citations.parquet").remove_metadata()),
    })  # fmt: skip


def main(argv: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        golden = {name: audit_tables(name, Path(d)) for name in SCENARIOS}
    with gzip.open(argv[0], "wt", encoding="utf-8") as fh:
        json.dump(golden, fh, ensure_ascii=False, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
