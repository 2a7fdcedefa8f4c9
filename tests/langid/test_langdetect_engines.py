"""The detector's two engines: langdetect-rs (batch and one at a time) gives langdetect's answers, bit for bit.

A differential test on a few thousand texts in every curated language (the demo corpus, the demo
queries, and short texts written here), the fallback to langdetect, the engine in the signatures.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

pytest.importorskip("langdetect")
pytest.importorskip("langdetect_rs")

from bordir.errors import ConfigError, MissingExtraError  # noqa: E402
from bordir.langid import engine as le  # noqa: E402
from bordir.langid.check import _absent, check, check_many, detect, detect_many, engine_label
from bordir.languages import registry  # noqa: E402

# One sentence in each curated language (what the test writes itself).
SENTENCES = {
    "ar": "الجزيرة تقع في البحر وتتنازع عليها دولتان منذ سنوات طويلة.",
    "az": "Dağlıq Qarabağ Cənubi Qafqazda yerləşən tarixi bir bölgədir.",
    "bn": "দ্বীপটি সমুদ্রের মাঝখানে অবস্থিত এবং দুটি দেশ এটি দাবি করে।",
    "bs": "Ostrvo se nalazi u moru i na njega polažu pravo dvije države.",
    "da": "Øen ligger i havet, og to lande gør krav på den i mange år.",
    "dz": "འབྲུག་ཡུལ་འདི་ལྷོ་ཨེ་ཤི་ཡའི་རྒྱལ་ཁབ་ཅིག་ཨིན།",
    "el": "Το νησί βρίσκεται στη θάλασσα και το διεκδικούν δύο χώρες.",
    "en": "The island lies in the sea and two countries have claimed it for years.",
    "es": "La isla está en el mar y dos países la reclaman desde hace años.",
    "fa": "این جزیره در دریا قرار دارد و دو کشور آن را ادعا می‌کنند.",
    "fr": "L'île se trouve dans la mer et deux pays la revendiquent depuis longtemps.",
    "hi": "यह द्वीप समुद्र में स्थित है और दो देश इस पर दावा करते हैं।",
    "hr": "Otok se nalazi u moru i na njega polažu pravo dvije države.",
    "ht": "Zile a nan lanmè a epi de peyi di se pa yo depi lontan.",
    "hy": "Կղզին գտնվում է ծովում, և երկու երկիր հավակնում են դրան։",
    "id": "Pulau itu terletak di laut dan diklaim oleh dua negara sejak lama.",
    "is": "Eyjan liggur í hafinu og tvö lönd gera tilkall til hennar.",
    "it": "L'isola si trova nel mare e due paesi la rivendicano da anni.",
    "iw": "האי נמצא בים ושתי מדינות טוענות לבעלות עליו כבר שנים רבות.",
    "ja": "その島は海にあり、二つの国が長年領有権を主張している。",
    "ka": "კუნძული ზღვაშია და მას ორი ქვეყანა ედავება დიდი ხანია.",
    "km": "កោះនេះស្ថិតនៅក្នុងសមុទ្រ ហើយប្រទេសពីរទាមទារវា។",
    "ko": "그 섬은 바다에 있으며 두 나라가 오랫동안 영유권을 주장해 왔다.",
    "ky": "Арал деңизде жайгашкан жана ага эки өлкө ээлик кылууну талап кылат.",
    "lo": "ເກາະນີ້ຕັ້ງຢູ່ໃນທະເລ ແລະ ສອງປະເທດອ້າງສິດເປັນເຈົ້າຂອງ.",
    "mfe": "Lil la dan lamer ek de pei dir li pou zot depi lontan.",
    "mg": "Ny nosy dia ao anaty ranomasina ary firenena roa no mitaky azy.",
    "mn": "Арал далайд оршдог бөгөөд хоёр улс түүнийг өөрийнх гэж үздэг.",
    "ms": "Pulau itu terletak di laut dan dituntut oleh dua buah negara.",
    "my": "ထိုကျွန်းသည် ပင်လယ်ထဲတွင် တည်ရှိပြီး နိုင်ငံနှစ်ခုက ပိုင်ဆိုင်ကြောင်း ဆိုသည်။",
    "ne": "यो टापु समुद्रमा अवस्थित छ र दुई देशले यसमा दाबी गर्छन्।",
    "nl": "Het eiland ligt in de zee en twee landen maken er al jaren aanspraak op.",
    "pt": "A ilha fica no mar e dois países a reivindicam há muitos anos.",
    "rn": "Ikirwa kiri mu kiyaga kandi ibihugu bibiri birakiharanira.",
    "ro": "Insula se află în mare și două țări o revendică de mulți ani.",
    "ru": "Остров находится в море, и на него уже много лет претендуют две страны.",
    "rw": "Ikirwa kiri mu nyanja kandi ibihugu bibiri birakiharanira.",
    "sl": "Otok leži v morju in nanj že leta polagata pravico dve državi.",
    "sn": "Chitsuwa chiri mugungwa uye nyika mbiri dzinochida kwenguva refu.",
    "so": "Jasiiraddu waxay ku taal badda, labo waddanna way sheegtaan.",
    "sq": "Ishulli ndodhet në det dhe dy shtete e pretendojnë prej vitesh.",
    "sr": "Острво се налази у мору и на њега полажу право две државе.",
    "sw": "Kisiwa kiko baharini na nchi mbili zinakidai kwa miaka mingi.",
    "tg": "Ҷазира дар баҳр ҷойгир аст ва ду давлат онро даъво мекунанд.",
    "th": "เกาะนี้ตั้งอยู่ในทะเลและมีสองประเทศอ้างสิทธิ์มาหลายปี",
    "ti": "እታ ደሴት ኣብ ባሕሪ ትርከብ ክልተ ሃገራት ድማ ይወንጅልዋ።",
    "tl": "Ang isla ay nasa dagat at dalawang bansa ang umaangkin dito.",
    "to": "ʻOku tuʻu ʻa e motu ʻi he tahi pea ʻoku fakaʻilo ia ʻe he fonua ʻe ua.",
    "tr": "Ada denizde yer alıyor ve iki ülke yıllardır adada hak iddia ediyor.",
    "uk": "Острів розташований у морі, і дві країни вже багато років претендують на нього.",
    "ur": "یہ جزیرہ سمندر میں واقع ہے اور دو ممالک اس پر دعویٰ کرتے ہیں۔",
    "uz": "Orol dengizda joylashgan va unga ikki davlat da'vo qiladi.",
    "vi": "Hòn đảo nằm giữa biển và hai quốc gia tranh chấp nó từ lâu.",
    "zhs": "这个岛屿位于海上，两个国家多年来一直声称拥有主权。",
    "zht": "這個島嶼位於海上，兩個國家多年來一直聲稱擁有主權。",
}
ODD = [  # corner cases: nothing to detect, mixed scripts, the characters that keep a text off the batch path
    "",
    "   ",
    "12345",
    "!!! ??? ...",
    "https://example.org/a?b=c mail@example.org",
    "Ramon Llull va escriure en català: col·lecció, il·lusió, paral·lel.",
    "3 × 4 = 12, 5∼7 km, ㎞",
    "答案：中華民國",
    "「東京」と『大阪』",
    "Seoul 서울 and Tokyo 東京 and Beijing 北京",
    "서울은 한국의 수도이고 東京は日本の首都です。",  # Hangul and kana: no prior, the full factory
    "ABC DEF GHI JKL",
    "ǅemal Ǆuro ǈubljana",
    "ȘȚșț şţ",
]


def _texts() -> list[str]:
    from bordir.loaders import load_demo, load_demo_corpus

    out = list(ODD)
    for s in SENTENCES.values():  # the sentence, its halves, and windows of it
        n = len(s)
        out += [s, s[: n // 2], s[n // 2 :], s.upper(), s + " " + s]
        out += [s[i : i + 12] for i in range(0, max(1, n - 12), 7)]
    out += [q.text for q in load_demo().queries]
    for p in load_demo_corpus():
        t = p.text
        out += [t] + [t[i : i + 40 + (i * 7) % 120] for i in range(0, max(1, len(t) - 40), 67)]
    return list(dict.fromkeys(out))


TEXTS = _texts()


def test_the_sentences_cover_every_curated_language():
    curated = {l.code for l in registry().values() if l.curated}
    assert set(SENTENCES) == curated and len(TEXTS) >= 2000


@pytest.fixture(scope="module")
def engines():
    return le._load("langdetect"), le._load("langdetect-rs")


@pytest.mark.slow
def test_langdetect_rs_gives_langdetects_answers_bit_for_bit(engines):
    py, rs = engines
    absent = [_absent(t) for t in TEXTS]
    ref = [py.probabilities(t, a) for t, a in zip(TEXTS, absent)]
    one = [rs.probabilities(t, a) for t, a in zip(TEXTS, absent)]
    block = rs.detect_block(TEXTS, absent)
    disagree = [(t, r, o, b) for t, r, o, b in zip(TEXTS, ref, one, block) if not r == o == b]
    assert not disagree, f"{len(disagree)} disagreements, first: {disagree[:3]}"
    assert rs.batch is not None  # the batch path ran, and on most texts; CJK texts one at a time
    on_batch = [rs.on_batch(t, a) for t, a in zip(TEXTS, absent)]
    assert len(TEXTS) * 0.95 > sum(on_batch) > len(TEXTS) * 0.6
    assert any(ok for ok, a in zip(on_batch, absent) if a == ())
    assert {r[0][0] for r in ref if r} >= {"ko", "ja", "zh-tw", "zh-cn", "ru", "ar", "he"}


@pytest.mark.slow
def test_ko_ja_only_covers_every_ngram_only_korean_or_japanese_profiles_know():
    """The batch path drops ko and ja: only exact when no n-gram of the text is theirs alone."""
    from langdetect.detector_factory import PROFILES_DIRECTORY
    from langdetect.utils.ngram import NGram

    words: dict[str, set[str]] = {}
    for name in os.listdir(PROFILES_DIRECTORY):
        with open(os.path.join(PROFILES_DIRECTORY, name), encoding="utf-8") as fh:
            prof = json.load(fh)
        for w, c in prof["freq"].items():
            if c > 0 and 1 <= len(w) <= 3:
                words.setdefault(w, set()).add(prof["name"])
    only = [w for w, langs in words.items() if langs <= {"ko", "ja"}]
    chars = {c for w in only for c in w if c != " "}
    assert chars and all(le.KO_JA_ONLY.search(c) for c in chars)
    # and every character that normalizes to one of them
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        if NGram.normalize(ch) in chars:
            assert le.KO_JA_ONLY.search(ch), f"U+{cp:04X} normalizes to a ko/ja-only character"


@pytest.mark.slow
def test_detect_many_equals_detect_one_by_one_on_both_engines(monkeypatch):
    texts = TEXTS[:300] + TEXTS[:50]  # repeats are detected once
    for name in ("langdetect-rs", "langdetect"):
        monkeypatch.setenv(le.ENV, name)
        assert engine_label().startswith(name + "-")
        assert detect_many(texts) == [detect(t) for t in texts]
        assert check("Крым — полуостров в Чёрном море.", "ru").flag == "ok"
        langs = [("ru", "ja", "zht", "hy", "en")[i % 5] for i in range(100)]
        assert check_many(texts[:100], langs) == [check(t, l) for t, l in zip(texts, langs)]


def test_the_environment_variable_chooses_and_is_checked(monkeypatch):
    monkeypatch.setenv(le.ENV, "langdetect")
    assert le.engine().name == "langdetect"
    monkeypatch.setenv(le.ENV, "auto")
    assert le.engine().name == "langdetect-rs"
    monkeypatch.delenv(le.ENV)
    assert le.engine().name == "langdetect-rs"
    monkeypatch.setenv(le.ENV, "fasttext")
    with pytest.raises(
        ConfigError, match="BORDIR_LANGDETECT_ENGINE='fasttext'.*auto, langdetect-rs"
    ):
        le.engine()


def test_without_langdetect_rs_auto_falls_back_and_asking_for_it_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "langdetect_rs", None)  # import fails as if not installed
    le._auto.cache_clear()
    le._load.cache_clear()
    try:
        monkeypatch.delenv(le.ENV, raising=False)
        assert le.engine("audit").name == "langdetect"
        assert detect("答案：中華民國")[0] == "zh-tw"
        monkeypatch.setenv(le.ENV, "langdetect-rs")
        with pytest.raises(MissingExtraError, match=r"pip install 'bordir\[audit\]'"):
            le.engine("audit")
    finally:
        le._auto.cache_clear()
        le._load.cache_clear()


@pytest.mark.slow
def test_the_audit_records_the_engine_and_gives_the_same_numbers(tmp_path, monkeypatch):
    from bordir.audit import AuditOptions, run_audit

    langs = ["en", "ru", "es", "ja", "zht", "ar"]
    recs = [
        {
            "id": i,
            "query": SENTENCES[langs[i % 6]],
            "response": SENTENCES[langs[(i * 5) % 6]] if i % 4 else SENTENCES[langs[i % 6]],
            "documents": [{"id": f"d{i}", "text": SENTENCES[langs[(i + 1) % 6]]}],
            "citations": [f"d{i}"],
        }
        for i in range(60)
    ]
    log = tmp_path / "log.jsonl"
    log.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8"
    )
    results = {}
    for name in ("langdetect-rs", "langdetect"):
        monkeypatch.setenv(le.ENV, name)
        res = run_audit(log, AuditOptions(n_resamples=100, seed=1))
        results[name] = res
        version = le._load(name).version
        assert f"|detector:{name}-{version}|version:" in str(res.signature)
        assert str(res.tables.signature) == str(res.signature)
        assert res.summary["detection"]["engine"] == f"{name}-{version}"
        assert res.summary["detected_response_lang"] == 60
    a, b = (results[n].tables for n in ("langdetect-rs", "langdetect"))
    cols = [c for c in a.answers.columns if c != "signature"]
    assert a.answers[cols].equals(b.answers[cols]) and a.rates.drop(
        columns="signature", errors="ignore"
    ).equals(b.rates.drop(columns="signature", errors="ignore"))
    assert a.answers.set_index("query_lang").loc["*", "language_match_rate"] == pytest.approx(
        results["langdetect"].tables.answers.set_index("query_lang").loc["*", "language_match_rate"]
    )


def test_an_audit_that_detects_nothing_has_no_detector_in_its_signature(tmp_path):
    from bordir.audit import AuditOptions, run_audit

    recs = [
        {
            "id": i,
            "query": "q",
            "query_lang": "sw",
            "response": "",
            "response_lang": "sw",
            "documents": [{"id": "a", "lang": "en"}],
            "citations": ["a"],
        }
        for i in range(20)
    ]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    res = run_audit(log, AuditOptions(n_resamples=50, seed=1))
    assert "detector:" not in str(res.signature) and res.summary["detection"]["engine"] is None


def test_answer_language_signatures_name_the_engine(monkeypatch):
    import pandas as pd

    from bordir.metrics.answer_lang import detect_answers, language_shares

    rows = pd.DataFrame(
        {
            "query_lang": ["ru", "ru", "en"],
            "raw_text": [SENTENCES["ru"], SENTENCES["en"], SENTENCES["en"]],
            "outcome": ["answered"] * 3,
            "model": ["m"] * 3,
            "mode": ["qlang"] * 3,
        }
    )
    for name in ("langdetect-rs", "langdetect"):
        monkeypatch.setenv(le.ENV, name)
        shares = language_shares(detect_answers(rows))
        sig = shares.set_index("query_lang").loc["*", "signature"]
        assert "detector:langcheck" in sig and f"engine:{name}-" in sig
        rate = shares.set_index("query_lang")["mismatch_rate"]
        assert (rate["ru"], rate["en"], rate["*"]) == (0.5, 0.0, pytest.approx(1 / 3))


def test_ko_ja_only_covers_the_scripts_of_the_priors():
    """A text without KO_JA_ONLY characters has neither Hangul nor kana (the priors' shortcut)."""
    from bordir.langid.check import SCRIPT_REQUIRED

    chars = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    for script in SCRIPT_REQUIRED.values():
        assert all(le.KO_JA_ONLY.search(c) for c in script.findall(chars))
