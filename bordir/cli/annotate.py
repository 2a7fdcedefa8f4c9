"""``bordir annotate`` (label retrieved pairs with an LLM) and ``bordir agreement`` (compare label sets)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from . import _decorators as opt
from ._cache import opened_cache, with_cache_options
from ._output import echo_json, echo_lines, echo_table

if TYPE_CHECKING:
    from ..annotations.agreement import AgreementReport
    from ..corpus import Corpus
    from ..dataset import BorderLines

_DATASETS = ("demo", "borderlines", "none")


def _inputs(
    dataset: str, path: str | None, corpus_path: str | None
) -> tuple[BorderLines | None, Corpus | None]:
    """(dataset, corpus) to validate against; (None, None) for ``--dataset none``."""
    from ..corpus import load_corpus
    from ..errors import ConfigError
    from ..loaders.catalog import load_dataset

    if dataset == "none":
        return None, (load_corpus(corpus_path) if corpus_path else None)
    if dataset not in ("demo", "borderlines"):
        raise ConfigError(f"unknown dataset {dataset!r}; use one of {', '.join(_DATASETS)}")
    ds = load_dataset(dataset, path)
    if corpus_path:
        corpus = load_corpus(corpus_path)
    elif dataset == "demo":
        corpus = load_corpus("demo")
    else:
        corpus = None
    return ds, corpus


@click.command("annotate")
@click.argument("hits", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--backend",
    "model",
    required=True,
    help="The annotating model, provider/model: openai/gpt-4o, openai-compatible/<m>, local/gemma-3-270m …",
)
@opt.out_file("Output labels (.jsonl or .csv).")
@opt.count("--k", 3, "Hits per query and mode.")
@click.option("--modes", help="Comma-separated modes to label (default: every mode in HITS).")
@opt.choice("--dataset", ["demo", "borderlines"], "demo", "The queries the hits are for.")
@opt.dataset_path("BorderLines directory.")
@click.option(
    "--corpus",
    "corpus_path",
    type=click.Path(path_type=str),
    help="Corpus (anything bordir.load_corpus reads; default: the demo corpus).",
)
@opt.limit("Label only the first N pairs.")
@click.option("--annotator", help="The labels' annotator name (default: the model).")
@opt.file(
    "--calibration",
    "A calibration file of this annotator (bordir judge calibrate --task relevance): its balanced "
    "accuracy beside each query language's labels.",
)
@opt.flag(
    "--correct",
    "With --calibration: also the relevant share corrected for the annotator's sensitivity and "
    "specificity (Rogan-Gladen; refused near chance).",
)
@with_cache_options
@opt.concurrency("Calls in flight at most.")
@opt.count("--max-retries", 6, minimum=0)
@click.option(
    "--timeout", type=float, help="Seconds one attempt of a pair may take (then retried)."
)
@opt.json("Print the summary as JSON.")
def annotate_cmd(
    hits: str,
    model: str,
    out: str,
    k: int,
    modes: str | None,
    dataset: str,
    path: str | None,
    corpus_path: str | None,
    limit: int | None,
    calibration: str | None,
    correct: bool,
    cache: str | None,
    no_cache: bool,
    as_json: bool,
    **settings: Any,
) -> None:
    """Label the top-K (query, document) pairs of HITS for relevance and viewpoint with an LLM.

    HITS is a hits .parquet from `bordir retrieve`. The labels validate against
    annotations/schema.json; answers the annotator could not give are kept as
    outcome 'unparsed' or 'failed'. The local model is for tests and offline
    demos only: its labels are poor.
    """
    # ``settings``: --annotator, --concurrency, --max-retries and --timeout, keywords of annotate
    from ..annotations.annotator import annotate, annotation_pairs
    from ..annotations.io import load_labels
    from ..errors import ConfigError
    from ..retrieval.run import load_hits

    ds, corpus = _inputs(dataset, path, corpus_path)
    assert ds is not None  # --dataset is demo or borderlines here, never none
    if corpus is None:
        raise ConfigError(
            "--corpus is needed to read the documents' text (the demo corpus is the default only "
            "for --dataset demo)"
        )
    run = load_hits(hits)
    pairs = annotation_pairs(
        run.hits, k=k, modes=[m for m in modes.split(",") if m] if modes else None
    )
    if limit:
        pairs = pairs[:limit]
    cal = _calibration(calibration, correct, model, ds, pairs)  # refused before any call
    with opened_cache(cache, no_cache) as rc:
        result = annotate(
            pairs,
            dataset=ds,
            corpus=corpus,
            model=model,
            cache=rc,
            progress=not as_json,
            **settings,
        )
    path_out = result.labels.write(out)
    load_labels(path_out, dataset=ds, corpus=corpus)  # what we wrote validates
    from ..annotations.calibration import relevance_calibration

    block = relevance_calibration(result.labels, cal, correct=correct)
    summary = {
        "out": str(path_out),
        "hits": str(hits),
        "k": k,
        "retrieval": run.signature,
        **result.as_dict(),
        "judge_calibration": block,
    }
    from .._io.json_write import write_json

    write_json(summary, str(path_out) + ".meta.json")  # strict JSON (no NaN), written atomically
    if as_json:
        echo_json(summary)
        return
    frame = result.labels.to_frame()
    judge = {r["lang"]: r["judge"]["text"] for r in block["rows"]}
    rows = []
    for lang, g in frame.groupby("query_lang", sort=True):
        counts = g["outcome"].value_counts()
        rel = g["relevance"].value_counts()
        rows.append(
            (
                lang,
                len(g),
                *(int(counts.get(o, 0)) for o in ("labelled", "unparsed", "failed")),
                *(int(rel.get(r, 0)) for r in ("relevant", "partially_relevant", "not_relevant")),
                judge.get(str(lang), "-"),
            )
        )
    echo_table(
        [
            "query_lang",
            "pairs",
            "labelled",
            "unparsed",
            "failed",
            "relevant",
            "partial",
            "not_relevant",
            "annotator (calibration)",
        ],
        rows,
    )
    if block["corrected"]:
        from ..judging.judged import text_rows

        echo_table(*text_rows(block))
    if block["calibration"]:
        click.echo(f"annotator calibration: {block['calibration']}")
    calls = result.calls
    click.echo(f"{calls['requests']} calls ({calls['cached']} cached, {calls['failed']} failed)")
    click.echo(f"wrote {len(result.labels)} labels to {path_out}")
    echo_lines(f"signature: {result.signature}")


def _calibration(
    path: str | None, correct: bool, model: str, ds: BorderLines, pairs: list[Any]
) -> Any:
    """The calibration file, checked against the annotator and the query languages (None without one)."""
    from ..errors import ConfigError

    if not path:
        if correct:
            raise ConfigError("--correct needs --calibration FILE (the annotator's known errors)")
        return None
    from ..annotations.calibration import check_calibration
    from ..annotations.labelset import query_info
    from ..judging.calibration import Calibration

    cal = Calibration.load(path)
    check_calibration(cal, model=model, langs={query_info(q, ds)[1] for q, _, _ in pairs})
    return cal


def _fmt(est: float | None, lo: float | None, hi: float | None) -> str:
    if est is None:
        return "-"
    ci = "" if lo is None else f" [{lo:.3f}, {hi:.3f}]"
    return f"{est:.3f}{ci}"


def _print_report(report: AgreementReport, *, per_class: bool, title: str) -> None:
    frame = report.to_frame()
    click.echo(title)
    alpha = "alpha" in set(frame["statistic"])
    stats = ["alpha"] if alpha else ["accuracy", "macro_f1", "kappa"]
    ordinal = [
        s
        for s in (("alpha_ordinal",) if alpha else ("kappa_linear", "kappa_quadratic"))
        if s in set(frame["statistic"])
    ]  # ordered dimensions only (relevance)
    stats += ordinal
    headers = [
        "dimension",
        "lang",
        "pairs",
        "clusters",
        *(
            {
                "accuracy": "accuracy [95% CI]",
                "macro_f1": "macro F1 [95% CI]",
                "kappa": "kappa [95% CI]",
                "alpha": "alpha [95% CI]",
                "alpha_ordinal": "alpha ordinal [95% CI]",
                "kappa_linear": "kappa linear [95% CI]",
                "kappa_quadratic": "kappa quadratic [95% CI]",
            }[s]
            for s in stats
        ),
    ]
    rows = []
    for (dim, group), g in frame.groupby(["dimension", "group"], sort=False):
        cells = {r.statistic: _fmt(r.estimate, r.low, r.high) for r in g.itertuples()}
        first = g.iloc[0]
        clusters = (
            str(int(first["n_clusters"]))
            if first["resampled"] != "pair" or report.settings["cluster"] == "pair"
            else "1 (pairs)"
        )
        rows.append(
            (dim, group, int(first["n_pairs"]), clusters, *(cells.get(s, "-") for s in stats))
        )
    echo_table(headers, rows)
    if per_class and not alpha:
        pc = frame[frame["statistic"].str.startswith("f1[")]
        echo_table(
            ["dimension", "lang", "class", "F1 [95% CI]"],
            [
                (r.dimension, r.group, r.statistic[3:-1], _fmt(r.estimate, r.low, r.high))
                for r in pc.itertuples()
            ],
        )


@click.command("agreement")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str))
@opt.choice(
    "--dataset",
    _DATASETS,
    "demo",
    "Validate query ids and claimants against this dataset ('none': schema only).",
)
@opt.dataset_path("BorderLines directory.")
@opt.file(
    "--corpus",
    "Passages JSONL to validate document ids against (default: the demo corpus for --dataset demo).",
    dest="corpus_path",
)
@opt.text(
    "--dimensions",
    "relevance,viewpoint",
    "Comma-separated: relevance, relevance_binary, viewpoint, viewpoint_on_relevant.",
)
@opt.choice("--by", ["query_lang", "doc_lang", "none"], "query_lang", "Also report per language.")
@opt.choice("--cluster", ["territory", "query", "pair"], "territory", "Bootstrap resampling unit.")
@opt.resamples(1000, "Bootstrap resamples (0: no intervals).", minimum=0)
@opt.seed()
@opt.flag(
    "--vs-majority",
    "With 3+ label sets: also compare the last with the majority vote of the others.",
)
@opt.flag("--per-class", "Also print per-class F1.")
@opt.json("Print JSON (with the signature).")
def agreement_cmd(
    files: tuple[str, ...],
    dataset: str,
    path: str | None,
    corpus_path: str | None,
    dimensions: str,
    by: str,
    cluster: str,
    resamples: int,
    seed: int | None,
    vs_majority: bool,
    per_class: bool,
    as_json: bool,
) -> None:
    """Agreement between label FILES: per dimension and language, with bootstrap CIs.

    Two label sets (the first is the reference, e.g. gold.jsonl llm.jsonl):
    accuracy, macro F1 and Cohen's kappa, and for relevance (ordered levels) the
    linearly and quadratically weighted kappa. Three or more: Krippendorff's
    alpha, nominal and (for relevance) ordinal.
    A file holding several annotators counts as one label set per annotator.
    """
    from ..annotations.agreement import compare, majority_vote, reliability
    from ..annotations.io import load_labels
    from ..errors import ConfigError

    ds, corpus = _inputs(dataset, path, corpus_path)
    sets = []
    for f in files:
        ls = load_labels(f, dataset=ds, corpus=corpus)
        if not len(ls):
            from ..errors import DataError

            raise DataError(
                "holds no labels (expected one JSON object or CSV row per label)", path=f
            )
        sets.extend(ls.split_annotators() if len(ls.annotators) > 1 else [ls])
    if len(sets) < 2:
        raise ConfigError(
            f"agreement needs two label sets or more; {', '.join(files)} hold(s) {len(sets)}"
        )
    common: dict[str, Any] = dict(
        dimensions=dimensions,
        by=None if by == "none" else by,
        cluster=cluster,
        n_resamples=resamples,
        seed=seed,
    )
    if len(sets) == 2:
        report = compare(sets[0], sets[1], **common)
        extra = None
    else:
        report = reliability(sets, **common)
        extra = compare(majority_vote(sets[:-1]), sets[-1], **common) if vs_majority else None
    if as_json:
        out = report.as_dict()
        if extra is not None:
            out = {"reliability": out, "vs_majority": extra.as_dict()}
        echo_json(out)
        return
    names = " vs ".join(report.names)
    kind = "Krippendorff's alpha" if len(sets) > 2 else f"reference: {report.names[0]}"
    _print_report(report, per_class=per_class, title=f"{names} ({kind})")
    c = report.counts
    click.echo(
        f"pairs: {c['pairs']} in any set, {c['labelled_by_all']} labelled by all; "
        + "; ".join(
            f"{n}: {c['labelled_by'][n]} labelled, {c['missing_outcome'][n]} unparsed/failed, "
            f"{c['absent_from'][n]} absent"
            for n in report.names
        )
    )
    echo_lines(f"signature: {report.signature}")
    if extra is not None:
        click.echo("")
        _print_report(
            extra,
            per_class=per_class,
            title=f"majority of {', '.join(report.names[:-1])} vs {report.names[-1]}",
        )
        echo_lines(f"signature: {extra.signature}")
