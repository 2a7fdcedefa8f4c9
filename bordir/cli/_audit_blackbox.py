"""The black-box branch of ``bordir audit logs``: read, attribute, compare, write, print (see docs/audit.md)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import click

from .._io.json_write import jsonable
from ._output import echo_json, echo_lines, split_line

__all__ = ["run_blackbox_cli"]

MAX_SHOWN = 12


def run_blackbox_cli(
    logs: str,
    out_dir: str,
    *,
    fmt: str,
    fields: tuple[str, ...],
    domains: tuple[str, ...],
    publishers: str | None,
    cluster: str | None,
    compare_countries: str | None,
    resolved: str | None,
    n_permutations: int,
    plots: bool,
    as_json: bool,
    settings: dict[str, Any],
) -> None:
    """Run the black-box audit of ``logs`` into ``out_dir`` and print its summary."""
    from ..audit.blackbox.fields import parse_field_specs
    from ..audit.blackbox.report import comparison_sentence, write_blackbox
    from ..audit.blackbox.run import BlackboxOptions, run_blackbox_audit
    from ..errors import ConfigError, DataError

    if settings.get("cluster_by"):
        raise ConfigError(
            "--cluster-by is for white-box logs; a black-box audit clusters by --cluster answer|group"
        )
    if settings.get("group_by") == "model":
        click.echo(
            "note: a black-box audit always has one cell per model (--group-by model changes nothing)"
        )
    mapping = parse_field_specs(fields)
    res_map = None
    if resolved:
        try:
            res_map = json.loads(Path(resolved).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataError(
                f"not a JSON map of redirect URL -> final URL ({exc})", path=resolved
            ) from None
        if not isinstance(res_map, dict):
            raise DataError("expected a JSON object {redirect URL: final URL}", path=resolved)
    countries = (
        tuple(c.strip().upper() for c in compare_countries.split(",") if c.strip())
        if compare_countries
        else None
    )
    opts = BlackboxOptions(
        fields=mapping, fmt=fmt, group_by_month=settings.get("group_by") == "month", cluster=cluster,
        domains=domains, publishers=publishers, compare_countries=countries, resolved=res_map,
        n_resamples=settings.get("n_resamples", 2000), n_permutations=n_permutations,
        seed=settings.get("seed"), min_clusters=settings.get("min_clusters", 10),
    )  # fmt: skip
    from ..audit.blackbox.report import BLACKBOX_OUTPUTS
    from ..runrecord.record import file_digest
    from ..runrecord.writer import RecordWriter

    out = Path(out_dir)
    strict = bool(settings.get("strict"))
    # the log is read and every number computed before the directory changes (its record:
    # kind audit, flavour blackbox; a log with no valid record leaves a finished audit as it was)
    with RecordWriter(out, "audit", flavour="blackbox", aside=BLACKBOX_OUTPUTS) as w:
        fd, name = tempfile.mkstemp(dir=out, prefix=".skipped.jsonl.", suffix=".tmp")
        os.close(fd)
        tmp = Path(name)
        try:
            with tmp.open("w", encoding="utf-8") as fh:

                def on_skip(entry: dict[str, Any]) -> None:
                    if strict:
                        raise DataError(
                            f"{entry['reason']}: {entry['message']} (--strict stops at the first bad record)",
                            path=logs, line=entry["line"], field=entry.get("field") or None,
                        )  # fmt: skip
                    fh.write(
                        json.dumps(jsonable(entry), ensure_ascii=False, allow_nan=False) + "\n"
                    )

                try:
                    result = run_blackbox_audit(logs, opts, on_skip=on_skip)
                except DataError as exc:
                    fh.close()
                    if tmp.stat().st_size and not strict:
                        keep = out / "skipped.failed.jsonl"
                        os.replace(tmp, keep)
                        raise DataError(
                            f"{exc.message}; every skipped record is listed in {keep}",
                            path=exc.path,
                        ) from None
                    raise
            s = result.summary
            w.start({"log": str(logs), "kind": "blackbox"}, inputs={"log": {"path": str(logs)}})
            paths = write_blackbox(result, out, plots=plots)
            if s["skipped"] or s["urls_skipped"]:
                os.replace(tmp, out / "skipped.jsonl")
                paths["skipped.jsonl"] = out / "skipped.jsonl"
            w.finish(
                files=sorted({str(Path(p).relative_to(out).parts[0]) for p in paths.values()}),
                signature=str(result.signature),
                counts={k: s[k] for k in ("records", "valid", "skipped")},
                inputs={"log": {"path": str(logs), "digest": file_digest(logs)}},
            )
        finally:
            tmp.unlink(missing_ok=True)
    judged = (
        result.comparisons[result.comparisons.status == "judged"]
        if len(result.comparisons)
        else result.comparisons
    )
    sig = judged[judged.significant.astype(bool)] if len(judged) else judged
    if as_json:
        echo_json(
            {
                "signature": str(result.signature),
                "kind": "blackbox",
                "summary": {
                    k: s[k]
                    for k in (
                        "records",
                        "valid",
                        "skipped",
                        "skipped_by_reason",
                        "urls",
                        "urls_given",
                        "urls_repeated_in_answer",
                        "urls_skipped",
                        "urls_skipped_by_reason",
                        "unattributed_country",
                        "unresolved_redirects",
                        "cluster",
                        "fields",
                    )
                },  # fmt: skip
                "significant": sig.drop(columns=["signature"])
                .astype(object)
                .where(sig.notna(), None)
                .to_dict(orient="records")
                if len(sig)
                else [],
                "files": {k: str(v) for k, v in paths.items()},
            }
        )
        return
    lines = [
        f"black-box audit: {s['valid']} answers audited, {s['skipped']} skipped; {s['urls']} distinct "
        f"URLs attributed ({s['urls_repeated_in_answer']} repeats in an answer counted once, "
        f"{s['urls_skipped']} bad URLs skipped, {s['unattributed_country']} without a country)"
    ]
    for block in ("skipped_by_reason", "urls_skipped_by_reason"):
        if s[block]:
            lines.append("  " + ("records" if block == "skipped_by_reason" else "URLs") + " skipped: "
                         + ", ".join(f"{r} {v['count']}" for r, v in s[block].items()))  # fmt: skip
    lines.append(
        f"fields: {', '.join(f'{k}={v}' for k, v in s['fields'].items())}; {s['cluster_note']}"
    )
    if s.get("comparisons_note"):
        lines.append(s["comparisons_note"])
    elif len(result.comparisons):
        lines.append(f"{len(judged)} paired comparisons judged, {len(sig)} significant after Holm "
                     f"(compared countries: {', '.join(s['compared_countries'])}, {s['compared_countries_why']}):")  # fmt: skip
        lines += [f"  {comparison_sentence(r)}" for r in sig.head(MAX_SHOWN).itertuples()]
        if len(sig) > MAX_SHOWN:
            lines.append(f"  … {len(sig) - MAX_SHOWN} more in audit.md")
    for text in lines:  # each wrapped to the terminal, a continuation indented
        for line in split_line(text, sep=" ", indent="    " if text.startswith("  ") else "  "):
            click.echo(line)
    echo_lines(f"signature: {result.signature}")
    click.echo(f"report: {out / 'audit.md'}")
