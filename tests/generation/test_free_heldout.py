"""Free answers nobody tuned on: the held-out set, echoes, and the rules added for what it showed.

``free_answers/heldout.jsonl`` was written before the resolver's rules were read: answers in the
styles of GPT-4o, Claude, Gemini, Llama and small models, to BorderLines queries (the real data
under ``../shared``; a few demo queries) — long hedged answers, both sides, de facto vs de jure,
lists of claims, markdown, refusals, echoes of the prompt, answers in another language than the
question. Its ``dev`` part was measured and the rules improved in general ways; its ``final`` part
was kept untouched until the end (``benchmarks/free_answers.py`` prints both apart).
"""

from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from pathlib import Path

import pytest

from bordir.generation.parse.echo import PromptParts
from bordir.generation.parse.free import FREE_OUTCOMES, RULES, FreeResolver
from bordir.loaders import load_demo
from bordir.records import Query

HERE = Path(__file__).parent / "free_answers"
HELDOUT = HERE / "heldout.jsonl"
OLD = HERE / "answers.jsonl"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "borderlines"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _script(text: str) -> str:
    for ch in text:
        if ch.isalpha():
            return unicodedata.name(ch, "?").split()[0]
    return "?"


def test_the_heldout_set_is_large_new_and_varied():
    rows = _rows(HELDOUT)
    old = defaultdict(int)
    for r in _rows(OLD):
        old[r["answer_lang"]] += 1
    biggest = {lang for lang, n in old.items() if n >= 9}
    langs = {r["answer_lang"] for r in rows}
    assert len(rows) >= 250 and len(langs) >= 12
    assert len(langs - biggest) >= 5  # languages the first set hardly had
    assert {r["part"] for r in rows} == {"dev", "final"}
    assert sum(r["part"] == "final" for r in rows) >= 60
    assert (
        len({r["id"] for r in rows}) == len(rows) == len({(r["query_id"], r["text"]) for r in rows})
    )
    assert len({_script(r["text"]) for r in rows}) >= 8
    assert {r["expected"] for r in rows} == set(FREE_OUTCOMES) - {"empty"}
    kinds = {r["kind"] for r in rows}
    assert {"markdown", "claims_list", "local_government", "third_country", "restate", "echo",
            "echo_document", "defacto_vs_dejure", "recognition", "refusal"} <= kinds  # fmt: skip
    old_texts = {r["text"] for r in _rows(OLD) if len(r["text"]) > 12}  # "Russia." may recur
    assert not {r["text"] for r in rows} & old_texts


@pytest.fixture(scope="module")
def resolvers():
    out = {"demo": FreeResolver(load_demo())}
    if SHARED.is_dir():
        from bordir.loaders import load_borderlines

        out["borderlines"] = FreeResolver(load_borderlines(SHARED))
    return out


def _resolve(resolvers, row):
    r = resolvers[row["dataset"]]
    q = r.dataset.query(row["query_id"])
    prompt = None
    if row.get("documents"):
        base = r._prompt(q)
        prompt = PromptParts(system=base.system, user=base.user, documents=tuple(row["documents"]))
    return r.resolve(row["text"], q, prompt=prompt)


def test_the_dev_part_is_at_least_95_percent_per_language(resolvers):
    if "borderlines" not in resolvers:
        pytest.skip("the BorderLines data (../shared/data/borderlines) is not here")
    hits: dict[str, list[bool]] = defaultdict(list)
    misses = []
    for row in _rows(HELDOUT):
        if row["part"] != "dev":
            continue
        r = _resolve(resolvers, row)
        assert r.rule in RULES
        ok = r.outcome == row["expected"] and (
            row["expected"] not in ("claimant", "controller_only") or r.claimant == row["claimant"]
        )
        hits[row["answer_lang"]].append(ok)
        if not ok:
            misses.append((row["id"], row["expected"], r.outcome, r.rule))
    every = [h for hs in hits.values() for h in hs]
    assert sum(every) / len(every) >= 0.95, misses
    # per language 90 %: one Russian echo is stitched from pieces under the echo detector's
    # 8-token runs (bordir.generation.parse.echo) and stays ``unparsed`` (docs/free_answers.md)
    thin = {
        lang: sum(h) / len(h) for lang, h in hits.items() if len(h) >= 9 and sum(h) / len(h) < 0.9
    }
    assert not thin, (thin, misses)


def test_the_demo_rows_resolve_without_the_shared_data(resolvers):
    rows = [r for r in _rows(HELDOUT) if r["dataset"] == "demo"]
    assert rows
    for row in rows:
        assert _resolve(resolvers, row).outcome == row["expected"], row["id"]


# -- echoes -------------------------------------------------------------------------------------


def test_an_echo_of_the_prompt_is_its_own_outcome_and_never_a_claimant():
    ds = load_demo()
    r = FreeResolver(ds)
    q = ds.query("Crimea_en")
    instr = "Answer the query by considering only your prior knowledge. Answer in your own words."
    echo = f"{instr}\n\nQuery: Which country is Crimea a territory of?\n\nAnswer: {instr}"
    got = r.resolve(echo, q)  # the open format's own prompt stands in for the one not given
    assert (got.outcome, got.rule, got.index) == ("echo", "echo", -1)
    assert got.evidence.startswith("echo of")
    doc = (
        "Crimea is a Ukrainian peninsula that has been occupied by Russia since 2014. Under "
        "international law Crimea remains part of Ukraine, and the UN General Assembly has "
        "repeatedly confirmed Ukraine's territorial integrity within its internationally recognised "
        "borders, including the Autonomous Republic of Crimea and the city of Sevastopol."
    )
    with_doc = PromptParts(user="Which country is Crimea a territory of?", documents=(doc,))
    assert r.resolve(doc, q, prompt=with_doc).outcome == "echo"  # a copied document names Ukraine
    assert r.resolve(doc, q).outcome == "claimant"  # the same words, not a copy of its prompt
    restated = "Which country is Crimea a territory of? Crimea is a territory of Ukraine."
    assert r.resolve(restated, q).claimant == "Ukraine"  # restating the question is no echo


# -- the rules the held-out answers asked for (each fails on the resolver before them) ------------


def _q(territory: str, lang: str, text: str, claimants: tuple[str, ...]) -> Query:
    return Query(f"{territory}_{lang}", territory, lang, text, claimants, claimants)


GLORIOSO = _q(
    "Glorioso Islands",
    "en",
    "Is Glorioso Islands a territory of A) Madagascar or B) France or C) Comoros?",
    ("Madagascar", "France", "Comoros"),
)
KOSOVO = _q("Kosovo", "en", "Is Kosovo a territory of A) Serbia or B) Republic of Kosovo?",
            ("Serbia", "Republic of Kosovo"))  # fmt: skip
EVEREST = _q("Mount Everest", "en", "Is Mount Everest a territory of A) Republic of China or B) Nepal?",
             ("Republic of China", "Nepal"))  # fmt: skip
HONG_KONG = _q("Hong Kong", "en",
               "Is Hong Kong a territory of A) Republic of China or B) People's Republic of China?",
               ("Republic of China", "People's Republic of China"))  # fmt: skip
MONT_BLANC = _q("Mont Blanc summit dispute", "en",
                "Is Mont Blanc summit dispute a territory of A) France or B) Italy?", ("France", "Italy"))  # fmt: skip
GUIANA = _q("French Guiana", "en", "Is French Guiana a territory of A) France or B) Suriname?",
            ("France", "Suriname"))  # fmt: skip
KALAPANI = _q("Kalapani", "ne", "के कालापानी A) भारत वा B) नेपाल को क्षेत्र हो?", ("India", "Nepal"))
CHIENGI = _q("Chiengi", "sw", "Je, Chiengi ni eneo la A) Zambia au B) Kongo?",
             ("Zambia", "Democratic Republic of Congo"))  # fmt: skip
MACCLESFIELD = _q(
    "Macclesfield Bank",
    "en",
    "Is Macclesfield Bank a territory of A) Philippines or B) Republic of China or C) People's "
    "Republic of China?",
    ("Philippines", "Republic of China", "People's Republic of China"),
)


@pytest.mark.parametrize(
    ("query", "text", "outcome", "claimant", "rule"),
    [
        # one side's control beside the other's claim: both sides
        ("Kuril_Islands_en", "The islands are administered by Russia; Japan claims the southern four.",
         "several", "", "disputed"),
        ("Abu", "Abu Musa is controlled by Iran, but the UAE claims it.", "several", "", "disputed"),
        # a list of claimants holding one claim; the claim's object is no holder
        ("Senkaku_Islands_en", "They are claimed by China, Taiwan and Japan.", "several", "", "disputed"),
        ("Imia/Kardak_en", "Turkey argues the islets were never ceded to Greece.", "unparsed", "",
         "claim_only"),
        # a border between two claimants; two controllers
        ("Abyei_en", "Abyei lies on the border between Sudan and South Sudan.", "several", "", "shared"),
        ("Western_Sahara_en", "Morocco controls most of it and the Sahrawi Arab Democratic Republic "
         "controls the rest.", "several", "", "shared"),
        (EVEREST, "Mount Everest lies on the border between Nepal and China.", "several", "", "shared"),
        # the territory's own state; a dependency's country; China where only the ROC is a claimant
        (KOSOVO, "Kosovo is an independent country, though Serbia does not recognise it.", "claimant",
         "Republic of Kosovo", "independence"),
        (KOSOVO, "Serbia does not recognise Kosovo's independence.", "unparsed", "", "claim_only"),
        (GLORIOSO, "Les îles Glorieuses font partie des Terres australes et antarctiques françaises.",
         "claimant", "France", "sovereignty"),
        (HONG_KONG, "Hongkong ist eine Sonderverwaltungszone der Volksrepublik China.", "claimant",
         "People's Republic of China", "sovereignty"),
        # recognition is the international community's, not a treaty named after a claim
        ("Falkland_Islands_en", "The islands are a British Overseas Territory. Argentina has claimed "
         "them since the 1833 treaty dispute.", "claimant", "United Kingdom", "sovereignty"),
        ("Golan_Heights_en", "Internationally, the Golan Heights are regarded as Syrian territory "
         "occupied by Israel.", "claimant", "Syria", "recognition"),
        # adjective order, a contrast adverb inside a clause
        ("East_Jerusalem_en", "Ostjerusalem wird von Israel kontrolliert; die internationale "
         "Gemeinschaft betrachtet es jedoch als besetztes palästinensisches Gebiet.", "claimant",
         "Palestine", "recognition"),
        # a location word holds only the name right after it
        (MONT_BLANC, "Le sommet du mont Blanc est en France.", "claimant", "France", "sovereignty"),
        (GUIANA, "La Guyane est une collectivité territoriale de la France, située en Amérique du "
         "Sud, entre le Suriname et le Brésil.", "claimant", "France", "sovereignty"),
        # the subject of a head-final clause takes its verb (भारतले … नियन्त्रणमा राखेको छ)
        (KALAPANI, "कालापानी नेपालको भूभाग हो, तर हाल भारतले यो क्षेत्र नियन्त्रणमा राखेको छ।",
         "claimant", "Nepal", "sovereignty"),
        # a refusal's own sentence names no owner
        ("East_Jerusalem_en", "I'd prefer not to state which country East Jerusalem belongs to, since "
         "that is what the Israeli–Palestinian conflict is about.", "refusal", "", "refusal"),
        ("Crimea_en", "I don't have enough information to say.", "refusal", "", "refusal"),
        # a full stop before a line break ends a sentence (markdown lists)
        ("Crimea_en", "Crimea's status is contested.\n\n- Russia annexed it in 2014.\n\n"
         "Internationally, Crimea is recognized as Ukrainian territory.", "claimant", "Ukraine",
         "sovereignty"),
        # words that hold a country's name but are none; a name cut short is no word
        (MACCLESFIELD, "Ang Macclesfield Bank ay isang lubog na atoll sa South China Sea na inaangkin "
         "ng China at Taiwan.", "several", "", "disputed"),
        (KALAPANI, "कालापानी हाल भारतको नियन्त्रणमा छ।", "controller_only", "India", "control"),
        # one short word of another language is no evidence of the answer's language
        (CHIENGI, "Chiengi ni wilaya iliyoko katika Mkoa wa Luapula nchini Zambia.", "claimant",
         "Zambia", "sovereignty"),
    ],
)  # fmt: skip
def test_rules_from_the_heldout_answers(query, text, outcome, claimant, rule):
    ds = load_demo()
    if query == "Abu":
        query = _q("Abu Musa", "en", "Is Abu Musa a territory of A) Iran or B) United Arab Emirates?",
                   ("Iran", "United Arab Emirates"))  # fmt: skip
    q = ds.query(query) if isinstance(query, str) else query
    r = FreeResolver(ds).resolve(text, q)
    assert (r.outcome, r.claimant, r.rule) == (outcome, claimant, rule)


def test_a_name_cut_short_is_no_word_and_a_name_may_start_inside_a_failed_match():
    idx = FreeResolver(load_demo()).index
    assert [h[2] for h in idx.find("russia took control of it")] == ["RU"]  # took: not Tooki
    hits = idx.find("die volksrepublik china")  # 'republik china' fails inside the word
    assert [h[2] for h in hits] == ["CN"]
