"""Black-box statistics: the cluster Wilson interval from sums = bordir.stats.wilson_ratio; shares; paired comparisons."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bordir.audit.blackbox.run import BlackboxOptions, run_blackbox_audit
from bordir.stats import wilson_ratio
from bordir.stats.cluster_wilson import wilson_from_sums


@pytest.mark.parametrize("seed", range(20))
def test_wilson_from_sums_is_wilson_ratio(seed):
    rng = np.random.default_rng(seed)
    g = int(rng.integers(1, 60))
    b = rng.integers(0, 8, g).astype(float)
    a = np.array([rng.integers(0, x + 1) if x else 0 for x in b], dtype=float)
    if b.sum() == 0:
        b[0] = 1
    est, lo, hi = wilson_from_sums(
        np.array([a.sum()]),
        np.array([(a * a).sum()]),
        np.array([(a * b).sum()]),
        np.array([b.sum()]),
        np.array([(b * b).sum()]),
        np.array([(b > 0).sum()]),
        floor=False,
        small_sample=False,
    )
    assert np.allclose([est[0], lo[0], hi[0]], wilson_ratio(a, b), equal_nan=True)


def test_clusters_that_all_agree_on_an_interior_share_give_no_zero_width_interval(tmp_path):
    p = tmp_path / "same.jsonl"
    with open(p, "w", encoding="utf-8") as fh:
        for g in range(12):  # every answer cites one Russian and one English source
            fh.write(
                json.dumps(
                    {
                        "question": "q",
                        "lang": "ru",
                        "answer": "a",
                        "group": g,
                        "urls": ["https://ria.ru/x", "https://bbc.com/y"],
                    }
                )
                + "\n"
            )
    s = (
        run_blackbox_audit(p, BlackboxOptions())
        .shares.query("dimension == 'country' and category == 'RU' and query_lang == 'ru'")
        .iloc[0]
    )
    assert s.share == 0.5 and s.low < 0.35 and s.high > 0.65  # wilson_ratio alone gives [0.5, 0.5]


def _log(path, n_groups, share_ru_in_ru, share_ru_in_uk, seed=0, per=4):
    rng = np.random.default_rng(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for g in range(n_groups):
            for lang, p in (("ru", share_ru_in_ru), ("uk", share_ru_in_uk)):
                urls = [
                    f"https://site{k}.ru/{g}" if rng.random() < p else f"https://site{k}.ua/{g}"
                    for k in range(per)
                ]
                fh.write(
                    json.dumps(
                        {
                            "id": f"{g}-{lang}",
                            "question": "q",
                            "lang": lang,
                            "answer": "a",
                            "urls": urls,
                            "group": g,
                            "model": "m",
                        }
                    )
                    + "\n"
                )
    return path


def test_a_planted_difference_between_languages_is_found_and_none_is_invented(tmp_path):
    o = BlackboxOptions(n_resamples=500, n_permutations=500, compare_countries=("RU",))
    big = (
        run_blackbox_audit(_log(tmp_path / "a.jsonl", 40, 0.6, 0.2), o)
        .comparisons.query("factor == 'query_lang' and category == 'RU'")
        .iloc[0]
    )
    assert big.status == "judged" and big.significant and big.ci_low < 0.4 < big.ci_high
    same = (
        run_blackbox_audit(_log(tmp_path / "b.jsonl", 40, 0.3, 0.3), o)
        .comparisons.query("factor == 'query_lang' and category == 'RU'")
        .iloc[0]
    )
    assert same.status == "judged" and not same.significant and same.ci_low < 0 < same.ci_high


def test_small_cells_are_too_few_to_judge_with_their_power_and_never_a_zero_width_interval(
    tmp_path,
):
    r = run_blackbox_audit(
        _log(tmp_path / "s.jsonl", 3, 1.0, 0.0, per=1),
        BlackboxOptions(n_resamples=100, n_permutations=100, compare_countries=("RU",)),
    )
    s = r.shares.query("dimension == 'country' and query_lang == 'ru' and category == 'RU'").iloc[0]
    assert s.share == 1.0 and s.status == "too few to judge" and np.isnan(s.low)
    c = r.comparisons.query("category == 'RU'").iloc[0]
    assert (
        c.status == "too few to judge"
        and c.n_groups == 3
        and 0 <= c.power_20 < 0.5
        and c.p_holm is None
        or np.isnan(c.p_holm)
    )
    judged = run_blackbox_audit(
        _log(tmp_path / "t.jsonl", 12, 1.0, 1.0, per=1),
        BlackboxOptions(n_resamples=100, n_permutations=100),
    ).shares
    ok = judged[judged.status == "ok"]
    assert len(ok) and (ok.high - ok.low > 0).all()  # every cluster agrees: still not a point


def test_unattributed_is_a_category_of_every_table(tmp_path):
    p = tmp_path / "u.jsonl"
    p.write_text(
        json.dumps(
            {
                "question": "q",
                "lang": "en",
                "answer": "a",
                "urls": ["https://startup.io/x", "https://bbc.com/y"],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    sh = run_blackbox_audit(p, BlackboxOptions(min_clusters=1)).shares
    for dim in ("country", "lang", "relation"):
        assert "unattributed" in set(sh[sh.dimension == dim].category), dim
    assert (
        float(
            sh.query(
                "dimension == 'country' and query_lang == 'en' and category == 'unattributed'"
            ).share.iloc[0]
        )
        == 0.5
    )


def test_the_shared_draws_give_paired_test_s_numbers():
    from bordir.audit.blackbox.compare import CompareOptions, _Draws, _paired
    from bordir.stats import paired_test

    rng = np.random.default_rng(3)
    ad, bd = rng.integers(1, 6, 30).astype(float), rng.integers(1, 6, 30).astype(float)
    an, bn = (
        rng.binomial(ad.astype(int), 0.4).astype(float),
        rng.binomial(bd.astype(int), 0.2).astype(float),
    )

    def ratio(cols, w):
        return (
            cols["num"].sum(-1) / cols["den"].sum(-1)
            if w is None
            else (w @ cols["num"]) / (w @ cols["den"])
        )

    t = paired_test(
        {"num": an, "den": ad},
        {"num": bn, "den": bd},
        ratio,
        n_resamples=300,
        n_permutations=300,
        seed=7,
    )
    lo, hi, p = _paired(
        an, ad, bn, bd, _Draws(CompareOptions(n_resamples=300, n_permutations=300, seed=7))
    )
    assert np.allclose([lo, hi, p], [t.low, t.high, t.p_value])
