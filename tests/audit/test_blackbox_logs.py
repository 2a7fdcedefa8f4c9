"""Black-box logs: JSONL / Parquet / CSV, field mapping and common names, the four raw API formats, bad input."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bordir.audit.blackbox.run import BlackboxOptions, run_blackbox_audit
from bordir.cli import main
from bordir.errors import DataError

from .search_servers import SearchAPIServer

OPTS = BlackboxOptions(n_resamples=100, n_permutations=100, min_clusters=1)


def _rec(i, lang="ru", urls=None, **kw):
    return {
        "id": i,
        "question": "Чей Крым?",
        "lang": lang,
        "answer": "…",
        "urls": urls
        if urls is not None
        else ["https://ria.ru/a", "https://en.wikipedia.org/wiki/Crimea"],
        "model": "m",
        **kw,
    }


def _write(path, recs):
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8"
    )
    return path


def test_jsonl_parquet_and_csv_give_the_same_shares(tmp_path):
    recs = [_rec(i, ("ru", "uk")[i % 2], group=i // 2) for i in range(20)]
    j = _write(tmp_path / "log.jsonl", recs)
    pq.write_table(pa.Table.from_pylist(recs), tmp_path / "log.parquet")
    with open(tmp_path / "log.csv", "w", encoding="utf-8") as fh:
        fh.write("id,question,lang,answer,urls,model,group\n")
        for r in recs:
            fh.write(
                f"{r['id']},{r['question']},{r['lang']},{r['answer']},{' '.join(r['urls'])},{r['model']},{r['group']}\n"
            )
    tables = [
        run_blackbox_audit(p, OPTS).shares.drop(columns=[])
        for p in (j, tmp_path / "log.parquet", tmp_path / "log.csv")
    ]
    for t in tables[1:]:
        assert t[["model", "query_lang", "dimension", "category", "count", "n_urls"]].equals(
            tables[0][["model", "query_lang", "dimension", "category", "count", "n_urls"]]
        )


def test_user_field_mapping_and_common_names(tmp_path):
    p = _write(
        tmp_path / "log.jsonl",
        [
            {
                "q": "Whose?",
                "language": "en",
                "answer_text": "x",
                "sources": ["https://bbc.com/a"],
                "bot": "b",
            }
        ],
    )
    r = run_blackbox_audit(
        p, BlackboxOptions(fields={"question": "q", "model": "bot"}, min_clusters=1)
    )
    assert r.summary["fields"] == {
        "question": "q",
        "model": "bot",
        "query_lang": "language",
        "response": "answer_text",
        "urls": "sources",
    }
    assert r.shares.query("dimension == 'country' and query_lang == 'en'").category.tolist() == [
        "GB"
    ]
    with pytest.raises(
        DataError,
        match=r"log\.jsonl: --field response=reply: no record of the log has a field 'reply'",
    ):
        run_blackbox_audit(p, BlackboxOptions(fields={"response": "reply"}))


def test_duplicates_in_one_answer_count_once_and_say_so(tmp_path):
    p = _write(
        tmp_path / "log.jsonl",
        [
            _rec(
                1,
                urls=[
                    "https://ria.ru/a",
                    "https://ria.ru/a#x",
                    "https://ria.ru/a?utm_source=z",
                    "https://ria.ru/b",
                ],
            )
        ],
    )
    r = run_blackbox_audit(p, OPTS)
    assert r.summary["urls"] == 2 and r.summary["urls_repeated_in_answer"] == 2
    assert int(r.answers.query("query_lang == 'ru'").n_dup.iloc[0]) == 2


def test_bad_input_is_counted_under_its_reason(tmp_path):
    recs = [
        _rec(1),
        _rec(
            2,
            urls=[
                "javascript:alert(1)",
                "data:text/plain,x",
                "/rel",
                "",
                7.5,
                {"url": None},
                "https://ok.ru/x",
            ],
        ),
        _rec(3, urls=[1, 2]),
        _rec(4, urls="https://a.ru"),
        {"id": 5, "question": "q", "answer": "a"},
        _rec(1),
    ]
    p = _write(tmp_path / "log.jsonl", recs)
    with open(p, "a") as fh:
        fh.write("{not json\n")
    skipped = []
    r = run_blackbox_audit(p, OPTS, on_skip=skipped.append)
    assert dict(r.summary["skipped_by_reason"]).keys() >= {
        "index_without_urls",
        "wrong_type",
        "missing_field",
        "duplicate_record",
        "invalid_json",
    }
    url_reasons = {k: v["count"] for k, v in r.summary["urls_skipped_by_reason"].items()}
    assert url_reasons == {"unsafe_scheme": 2, "relative_url": 1, "empty_url": 1, "not_a_string": 2}
    assert {(e["line"], e["field"]) for e in skipped if e["reason"] == "unsafe_scheme"} == {
        (2, "urls[0]"),
        (2, "urls[1]"),
    }
    assert (
        r.summary["valid"] == 2 and r.summary["urls"] == 3
    )  # ria.ru, wikipedia, ok.ru: shares over these only


def test_a_log_mixing_the_two_kinds_stops_with_one_line_or_counts_the_late_ones(
    tmp_path, monkeypatch, capsys
):
    white = {"id": 1, "query": "q", "documents": [{"id": "d", "lang": "en"}], "response": "x"}
    p = _write(tmp_path / "log.jsonl", [white, _rec(2)])
    assert main(["audit", str(p), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 1 has 'documents'" in err[0] and "line 2" in err[0]
    import bordir.audit.blackbox.reader as reader

    monkeypatch.setattr(reader, "SAMPLE", 1)  # a white-box record past the records looked at first
    p = _write(tmp_path / "log2.jsonl", [_rec(1), white])
    r = run_blackbox_audit(p, OPTS)
    assert list(r.summary["skipped_by_reason"]) == ["white_box_record"]


@pytest.mark.parametrize(
    "api,path",
    [
        ("openai-search", "/v1/responses"),
        ("perplexity", "/chat/completions"),
        ("openai-chat", "/v1/chat/completions"),
        ("gemini", "/v1beta/models/g:generateContent"),
        ("anthropic", "/v1/messages"),
    ],
)
def test_the_raw_api_formats_are_read_as_they_come(tmp_path, api, path):
    import urllib.request

    with SearchAPIServer(lang_of={"Чей Крым?": "ru"}) as srv:
        body = {
            "openai-search": {"model": "x", "input": "Чей Крым?"},
            "perplexity": {
                "model": "sonar",
                "messages": [{"role": "user", "content": "Чей Крым?"}],
            },
            "openai-chat": {
                "model": "gpt-4o-search-preview",
                "messages": [{"role": "user", "content": "Чей Крым?"}],
            },
            "gemini": {"contents": [{"parts": [{"text": "Чей Крым?"}]}]},
            "anthropic": {"model": "c", "messages": [{"role": "user", "content": "Чей Крым?"}]},
        }[api]
        req = urllib.request.Request(
            srv.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req) as resp:
            raw = json.loads(resp.read())
    p = _write(
        tmp_path / "log.jsonl",
        [{"id": 1, "question": "Чей Крым?", "query_lang": "ru", "model": api, "response": raw}],
    )
    r = run_blackbox_audit(p, OPTS)
    assert r.summary["valid"] == 1 and r.summary["urls"] >= 1
    if api == "gemini":  # redirect URIs are kept and unresolved offline
        assert r.summary["unresolved_redirects"] == r.summary["urls"]
    else:
        assert r.summary["unattributed_country"] < r.summary["urls"]
    assert r.data.answers["provider"].to_pylist() == [
        {"openai-search": "openai-responses"}.get(api, api)
    ]
    if api == "openai-chat":  # the tracking parameter OpenAI appends does not split a URL
        assert r.summary["urls"] == len(raw["choices"][0]["message"]["annotations"])


def test_perplexity_indices_without_urls_are_skipped(tmp_path):
    p = _write(
        tmp_path / "log.jsonl",
        [
            {
                "id": 1,
                "question": "q",
                "lang": "en",
                "answer": {"model": "sonar", "choices": [{"message": {"content": "Yes [1][2]."}}]},
                "urls": None,
            },
            _rec(2),
        ],
    )
    r = run_blackbox_audit(p, OPTS)
    assert list(r.summary["skipped_by_reason"]) == ["index_without_urls"]


def test_the_vectorised_path_gives_the_record_by_record_tables(tmp_path):
    from bordir.audit.blackbox.attribution import Attributor
    from bordir.audit.blackbox.fields import FieldMap
    from bordir.audit.blackbox.ingest import ingest

    recs = [_rec(i, ("ru", "uk", "en")[i % 3], group=i // 3, claimants=["Russia", "UA"],
                 urls=[f"https://site{i % 7}.ru/a?utm_source=x", "https://en.wikipedia.org/wiki/Crimea", "javascript:x", f"https://site{i % 7}.ru/a"])
            for i in range(60)] + [_rec(3)]  # fmt: skip
    p = _write(tmp_path / "log.jsonl", recs)
    fm = FieldMap.resolve(recs[0].keys() | {"group", "claimants"}, {})
    fast = ingest(p, "jsonl", fm, Attributor())
    slow = ingest(p, "jsonl", fm, Attributor(), fast=False)
    assert fast.answers.equals(slow.answers) and fast.urls.equals(slow.urls)
    assert fast.skipped == slow.skipped and fast.url_skipped == slow.url_skipped


def test_csv_url_cells_as_logs_write_them(tmp_path):
    """pandas' repr of a list, numbered lists, commas and line breaks: every URL, none glued."""
    import csv

    cells = [
        "['https://www.spiegel.de/a', 'https://zeit.de/b']",
        "[1] https://elpais.com/a [2] https://rtve.es/b",
        "https://lemonde.fr/a,b, https://france24.com/c",
        "https://ria.ru/a\nhttps://tass.ru/b",
        '["https://bbc.com/a", "https://reuters.com/b"]',
    ]
    p = tmp_path / "log.csv"
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["question", "lang", "answer", "urls"])
        for i, c in enumerate(cells):
            w.writerow([f"q{i}", "en", "a", c])
    r = run_blackbox_audit(p, OPTS)
    assert r.summary["valid"] == 5 and r.summary["urls"] == 10
    assert not r.summary["urls_skipped_by_reason"]


def test_csv_claimant_names_keep_their_words(tmp_path):
    """'United Kingdom; Argentina' is two claimants, 'RU UA' two codes: no record lost to a split name."""
    import csv

    p = tmp_path / "log.csv"
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["question", "lang", "answer", "urls", "territory", "claimants"])
        w.writerow(
            ["q1", "es", "a", "https://elpais.com/a", "Falklands", "United Kingdom; Argentina"]
        )
        w.writerow(["q2", "ru", "a", "https://ria.ru/a", "Crimea", "RU UA"])
        w.writerow(
            ["q3", "en", "a", "https://bbc.com/a", "Western Sahara", "Morocco, Western Sahara"]
        )
    r = run_blackbox_audit(p, OPTS)
    assert r.summary["valid"] == 3 and not r.summary.get("skipped_by_reason")
