"""``bordir view``: writing the page, the matrix on screen in Chromium, a 100,000-row page, a 1,000,000-row server.

(a) **The demo run's view.** A run of the demo's grid (every mode, 3 runs, the options also
    reversed in ``no_ir``, k 2; 681 rows, as ``bordir demo`` writes) with the ``mock/first``
    backend; :func:`bordir.view.write_view` timed (median of 3) against its target ≤ 2 s. Reference:
    the naive embedding of the same rows (``pandas.read_parquet`` + ``to_json``), timed in the same run.
(b) **The matrix on screen.** The page opened in headless Chromium (Playwright on the system
    Chromium): milliseconds from navigation start until the matrix is drawn (``data-matrix-ms``),
    target ≤ 1 s; reference: a page of the same bytes without the script (its load event).
(c) **A 100,000-row run** (``--quick``: 20,000): the demo rows repeated over runs. The static page's
    write time, size and first paint (the matrix on screen, and Chromium's first-contentful-paint),
    stated; reference: the size of ``responses.parquet``.
(d) **--serve over 1,000,000 rows** (``--quick``: 200,000): the server's answer to 200 filtered page
    queries (facets, search, sort; over HTTP on 127.0.0.1), p50 and p95, target p95 ≤ 200 ms; reference:
    the same filter as a pandas boolean mask plus ``head(50)``, in-process.

Usage: ``python benchmarks/view.py [--quick] [--figures FILE] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
from _figures import Figure, add_options, report
from _timing import median_times

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

WRITE_TARGET_S, MATRIX_TARGET_MS, SERVE_P95_MS = 2.0, 1000.0, 200.0
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


DEMO_GRID = (
    'dataset = "demo"\ncorpus = "demo"\nmodels = ["mock/first"]\nruns = 3\nk = 2\n'
    'modes = ["no_ir", "qlang", "qlang+en", "en_only", "rel_langs", "swap_docs"]\n'
    'option_orders = "reversed"\norder_modes = ["no_ir"]\n'
)
"""The demo's grid with mock/first (681 rows): the config of :func:`base_run` but its cache."""


def base_run(root: Path, config: str = DEMO_GRID) -> Path:
    """``bordir run`` of ``config`` (TOML lines; default :data:`DEMO_GRID`) with a cache in ``root``."""
    from bordir.cli import main

    cfg = root / "exp.toml"
    cfg.write_text(config + f'cache = "{root / "cache.sqlite3"}"\n', encoding="utf-8")
    out = root / "demo-run"
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["run", str(cfg), "--out", str(out), "--no-progress"]) == 0
    return out


def synthetic(base: Path, out: Path, n_rows: int) -> Path:
    """``base``'s run-0 rows repeated over as many runs as ``n_rows`` needs (new seeds), with the
    record a run writes (bordir.runrecord)."""
    from bordir.runrecord import RecordWriter

    df = pd.read_parquet(base / "responses.parquet")
    one = df[df["run"] == 0]
    runs = -(-n_rows // len(one))
    parts = [one.assign(run=r, seed=10_000 + r) for r in range(runs)]
    big = pd.concat(parts, ignore_index=True).iloc[:n_rows]
    info = json.loads((base / "run.json").read_text(encoding="utf-8"))
    info["config"]["seeds"] = [10_000 + r for r in range(runs)]
    info["grid"]["runs"] = runs
    info["responses"] = len(big)
    with RecordWriter(out, "run") as w:
        w.start(info["config"])
        shutil.copy(base / "hits.parquet", out / "hits.parquet")
        big.to_parquet(out / "responses.parquet", index=False)
        (out / "run.json").write_text(json.dumps(info), encoding="utf-8")
        w.finish(files=("run.json", "responses.parquet", "hits.parquet"))
    return out


def chromium():
    exe = shutil.which("chromium") or (
        "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None
    )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None, None, "playwright is not installed"
    if exe is None:
        return None, None, "no chromium binary"
    p = sync_playwright().start()
    return p, p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS), ""


def open_times(browser, url: str) -> tuple[float, float]:
    """(matrix on screen, first contentful paint), ms after navigation start."""
    pg = browser.new_page(viewport={"width": 1280, "height": 860})
    pg.goto(url, timeout=120_000)
    pg.wait_for_selector("body[data-matrix-ready='1']", timeout=120_000)
    ms = float(pg.locator("body").get_attribute("data-matrix-ms"))
    fcp = pg.evaluate(
        "(performance.getEntriesByName('first-contentful-paint')[0] || {startTime: NaN}).startTime"
    )
    pg.close()
    return ms, float(fcp)


def plain_load(browser, html_path: Path) -> float:
    pg = browser.new_page()
    pg.goto(html_path.as_uri(), timeout=120_000)
    t = pg.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
    pg.close()
    return float(t)


def serve_latency(run: Path, n_queries: int) -> tuple[float, float, float, float]:
    """(startup s, p50 ms, p95 ms, pandas reference p95 ms) of filtered page queries over HTTP."""
    from bordir.view.query import SEP
    from bordir.view.server import ViewServer

    t0 = time.perf_counter()
    srv = ViewServer(run, port=0).start()
    startup = time.perf_counter() - t0
    q = srv.query
    rng = np.random.default_rng(1)
    facets = ["territory", "lang", "mode", "model", "run", "outcome", "agree", "role"]
    frame = pd.DataFrame({k: np.asarray(q.data.facets[k]) for k in facets})
    frame["reply"] = q.data.frame["raw_text"].fillna("").to_numpy()
    lat, ref = [], []
    try:
        for i in range(n_queries):
            params: dict[str, str] = {}
            for key in rng.choice(facets, size=int(rng.integers(1, 4)), replace=False):
                vocab = q.vocab[key]
                k = int(rng.integers(1, min(4, len(vocab)) + 1))
                params[key] = SEP.join(
                    rng.choice(vocab, size=min(k, len(vocab)), replace=False).tolist()
                )
            if i % 5 == 0:
                params["q"] = "A)"
            if i % 4 == 1:
                params["sort"] = str(rng.choice(["answer", "territory", "run"]))
                params["dir"] = "desc" if i % 8 == 1 else ""
            if i % 3 == 2:
                params["page"] = str(int(rng.integers(0, 20)))
            url = srv.url + "api/query?" + urllib.parse.urlencode(params)
            t = time.perf_counter()
            with urllib.request.urlopen(url, timeout=30) as r:
                body = r.read()
            lat.append(1000 * (time.perf_counter() - t))
            assert json.loads(body)["total"] >= 0
            t = time.perf_counter()
            m = np.ones(len(frame), dtype=bool)
            for k, v in params.items():
                if k in facets:
                    m &= frame[k].isin(v.split(SEP)).to_numpy()
                elif k == "q":
                    m &= frame["reply"].str.contains(v, case=False, regex=False).to_numpy()
            frame[m].head(50)
            ref.append(1000 * (time.perf_counter() - t))
    finally:
        srv.close()
    p95 = float(np.percentile(lat, 95))
    return startup, float(statistics.median(lat)), p95, float(np.percentile(ref, 95))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(ap)
    ap.add_argument("--keep", help="keep the run directories here")
    args = ap.parse_args()
    big_n, serve_n = (20_000, 200_000) if args.quick else (100_000, 1_000_000)
    root = Path(args.keep or tempfile.mkdtemp(prefix="bench-view-"))
    root.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("BORDIR_PROGRESS", "0")
    from bordir.view import write_view

    figs: list[Figure] = []
    base = base_run(root)
    n_demo = len(pd.read_parquet(base / "responses.parquet"))
    t = median_times(
        {
            "view": lambda: write_view(base),
            "naive": lambda: pd.read_parquet(base / "responses.parquet").to_json(orient="records"),
        },
        3,
    )
    figs.append(Figure(f"demo run's view.html written ({n_demo} rows)", t["view"], "s",
                       target=f"≤ {WRITE_TARGET_S:g} s", reference=f"parquet → JSON records {t['naive']:.3f} s",
                       ratio=t["view"] / t["naive"], holds=t["view"] <= WRITE_TARGET_S))  # fmt: skip
    size_demo = (base / "view.html").stat().st_size
    pw, browser, why = chromium()
    big = synthetic(base, root / "big-run", big_n)
    t0 = time.perf_counter()
    write_view(big)
    big_write = time.perf_counter() - t0
    big_size = (big / "view.html").stat().st_size / 1e6
    pq_size = (big / "responses.parquet").stat().st_size / 1e6
    figs.append(
        Figure(f"{big_n:,}-row run: view.html written", big_write, "s", note="stated, no target")
    )
    figs.append(Figure(f"{big_n:,}-row run: view.html size", big_size, "MB", reference=f"responses.parquet {pq_size:.1f} MB",
                       ratio=big_size / pq_size, note="stated, no target"))  # fmt: skip
    if browser is not None:
        try:
            plain = root / "plain.html"
            text = (base / "view.html").read_text(encoding="utf-8")
            plain.write_text(text.split("<script>")[0] + "</body></html>", encoding="utf-8")
            base_ms = plain_load(browser, plain)
            runs = [open_times(browser, (base / "view.html").as_uri()) for _ in range(3)]
            ms = statistics.median(r[0] for r in runs)
            figs.append(Figure(f"demo run: matrix on screen in Chromium ({size_demo / 1e6:.1f} MB page)", ms, "ms",
                               target=f"≤ {MATRIX_TARGET_MS:g} ms", reference=f"same bytes, no script {base_ms:.0f} ms",
                               ratio=ms / base_ms if base_ms else None, holds=ms <= MATRIX_TARGET_MS))  # fmt: skip
            ms_big, fcp_big = open_times(browser, (big / "view.html").as_uri())
            figs.append(Figure(f"{big_n:,}-row run: first paint (first-contentful-paint)", fcp_big, "ms",
                               note="stated, no target"))  # fmt: skip
            figs.append(Figure(f"{big_n:,}-row run: matrix on screen", ms_big, "ms", reference=f"demo {ms:.0f} ms",
                               ratio=ms_big / ms, note="stated, no target"))  # fmt: skip
        finally:
            browser.close()
            pw.stop()
    else:
        figs.append(
            Figure("matrix on screen in Chromium", float("nan"), "ms", note=f"skipped: {why}")
        )
    huge = synthetic(base, root / "huge-run", serve_n)
    startup, p50, p95, ref95 = serve_latency(huge, 200)
    figs.append(
        Figure(
            f"--serve {serve_n:,} rows: startup (read + index)",
            startup,
            "s",
            note="stated, no target",
        )
    )
    figs.append(
        Figure(
            f"--serve {serve_n:,} rows: filtered page p50", p50, "ms", note="200 queries over HTTP"
        )
    )
    figs.append(Figure(f"--serve {serve_n:,} rows: filtered page p95", p95, "ms", target=f"≤ {SERVE_P95_MS:g} ms",
                       reference=f"pandas mask + head(50) p95 {ref95:.0f} ms", ratio=p95 / ref95 if ref95 else None,
                       holds=p95 <= SERVE_P95_MS))  # fmt: skip
    report("view", figs, args)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
