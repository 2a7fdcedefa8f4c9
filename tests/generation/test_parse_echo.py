"""Echoes (issue 51.3): a reply that is mostly a copy of its prompt or of a document is ``echo``.

Real prompts of the demo in eleven languages and five scripts (rendered as ``bordir run``
renders them), what ``mock/echo`` answers, what a small model's echo looks like (the system
prompt, documents strung together), next to replies that must stay answers: an option name, the
instructed refusal sentence, a restated question, an answer quoting one sentence of a document.
Property tests pin the rule's invariants.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.generation.parse import (
    PromptParts,
    detect_echo,
    parse_answer,
    parse_citation_response,
)
from bordir.generation.parse.echo import MIN_COPY, MIN_PROMPT, RUN, SHARE, may_echo, tokens
from bordir.generation.prompts import as_documents, render
from bordir.loaders import load_demo, load_demo_corpus

DS = load_demo()
CORPUS = list(load_demo_corpus())
LANGS = ["en", "ru", "uk", "ar", "iw", "zhs", "zht", "ja", "hi", "el", "tr"]


def _case(lang: str, fmt: str = "direct"):
    """A demo query in ``lang`` with up to three documents of its territory in that language."""
    for q in DS.queries:
        if q.lang != lang:
            continue
        texts = [p.text for p in CORPUS if p.lang == lang and p.territory == q.territory][:3]
        if len(texts) >= 2:
            docs = as_documents(texts, lang=lang)
            messages = render(q, docs, response_format=fmt)
            parts = PromptParts.of_messages(messages, documents=texts, expected=q.options)
            return q, texts, messages, parts
    raise AssertionError(f"no demo query in {lang} with two documents")


@pytest.mark.parametrize("lang", LANGS)
def test_real_prompts_echoes_and_answers(lang):
    q, texts, messages, parts = _case(lang)
    system, user = (m.content for m in messages)
    # what mock/echo answers (the user message), and the system prompt repeated: echoes
    for reply in (user, system, system + "\n" + system, "\n\n".join(texts * 2)):
        got = parse_answer(reply, q, prompt=parts)
        assert got.outcome == "echo", (lang, reply[:80], detect_echo(reply, parts))
        assert got.choice == -1 and got.matched.startswith("echo of ")
    # answers: an option label, an option name, the answer then one quoted sentence
    sentence = texts[0].split(". ")[0] if lang not in ("zhs", "zht", "ja") else texts[0][:30]
    for reply in (
        q.option_label(1),
        q.options[0],
        f"{q.option_label(1)}. {sentence}",
        f"{q.text}\n{q.option_label(1)}",  # the question restated, then the answer
    ):
        got = parse_answer(reply, q, prompt=parts)
        assert got.outcome != "echo", (lang, reply, detect_echo(reply, parts))
        assert got == parse_answer(reply, q)  # the prompt changes nothing for a non-echo


@pytest.mark.parametrize("lang", ["en", "ru", "zhs", "ar"])
def test_citation_format_echo_has_no_citations(lang):
    q, texts, messages, _ = _case(lang, "citation")
    docs = as_documents(texts, lang=lang)
    parts = PromptParts.of_messages(messages, documents=texts, expected=q.options)
    user = messages[-1].content
    r = parse_citation_response(user, q, len(docs), documents=docs, prompt=parts)
    assert (r.answer.outcome, r.cited, r.explanation) == ("echo", (), "")
    own = f"Cited Documents: 0\nChosen Option: {q.option_label(0)}\nExplanation: as <doc0> says."
    r = parse_citation_response(own, q, len(docs), documents=docs, prompt=parts)
    assert (r.answer.outcome, r.cited) == ("answered", (0,))
    # an explanation that quotes the documents at length is still the model's own answer
    quoting = own.replace("as <doc0> says.", "because <doc0> says: " + " ".join(texts * 2))
    r = parse_citation_response(quoting, q, len(docs), documents=docs, prompt=parts)
    assert r.answer.outcome == "answered" and 0 in r.cited
    # documents copied before the answer block: an echo
    copied = "\n\n".join(texts * 2) + "\n" + own
    assert (
        parse_citation_response(copied, q, len(docs), documents=docs, prompt=parts).answer.outcome
        == "echo"
    )


def test_reference_policy_reproduces_the_reference_and_never_says_echo():
    q, _, messages, parts = _case("en")
    user = messages[-1].content
    ref = parse_answer(user, q, policy="reference", prompt=parts)
    assert ref == parse_answer(user, q, policy="reference")
    assert ref.outcome != "echo" and ref.reference_pick == 0


def test_an_instructed_sentence_is_not_an_echo_even_when_long():
    # Thai counts a quarter word a character: the refusal sentence the prompt asks for is long
    refusal = "ฉันไม่สามารถตอบคำถามได้เนื่องจากข้อมูลในเอกสารไม่เพียงพอ " * 2
    system = f"ตอบคำถามจากเอกสาร ถ้าเอกสารไม่มีคำตอบ ให้ตอบว่า: {refusal}"
    assert detect_echo(refusal, PromptParts(system=system, expected=(refusal,))).is_echo is False
    assert detect_echo(refusal, PromptParts(system=system)).is_echo is True


def test_a_small_models_cut_off_system_prompt_is_an_echo():
    system = (
        "You are an accurate and reliable AI assistant that can answer questions with the help of "
        "external documents. Please note that external documents may contain noisy or factually "
        "incorrect information."
    )
    parts = PromptParts(system=system, user="Document:\n…\n\nQuestion: who won?")
    cut = system[:150]  # max_tokens reached mid-word
    e = detect_echo(cut, parts)
    assert e.is_echo and e.source == "system" and e.from_prompt >= MIN_PROMPT


# ---- properties -------------------------------------------------------------------------------

WORDS = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzабвгдеж", min_size=2, max_size=8),
    min_size=1,
    max_size=120,
)
OWN = st.lists(st.sampled_from(["w1", "w2", "w3", "w4", "w5"]), min_size=0, max_size=60)


@settings(max_examples=150, deadline=None)
@given(doc=WORDS, n=st.integers(1, 3))
def test_a_copy_of_a_long_document_is_an_echo_and_a_short_one_is_not(doc, n):
    text = " ".join(doc)
    e = detect_echo(" ".join([text] * n), PromptParts(documents=(text,)))
    words = len(tokens(text)) * n
    if len(doc) >= RUN and words >= MIN_COPY:
        assert e.is_echo and e.source == "document 0"
    if words < MIN_COPY:
        assert not e.is_echo
    assert 0 <= e.copied <= e.words and 0.0 <= e.share <= 1.0


@settings(max_examples=150, deadline=None)
@given(prompt=WORDS, reply=OWN)
def test_words_the_prompt_does_not_have_are_never_copied(prompt, reply):
    e = detect_echo(" ".join(reply), PromptParts(system=" ".join(prompt), user=" ".join(prompt)))
    assert e.copied == 0 and not e.is_echo


@settings(max_examples=150, deadline=None)
@given(doc=WORDS, own=OWN)
def test_own_words_beyond_a_fifth_make_it_an_answer(doc, own):
    text = " ".join(doc)
    parts = PromptParts(documents=(text,))
    e = detect_echo(text + " " + " ".join(own), parts)
    n_doc = len(tokens(text))
    if len(own) > (1 - SHARE) / SHARE * n_doc + 1e-9:
        assert not e.is_echo
    # spacing, case and punctuation do not hide a copy
    noisy = " ,\n ".join(w.upper() for w in text.split()) + "!! " + " ".join(own)
    assert detect_echo(noisy, parts).is_echo == e.is_echo


@settings(max_examples=100, deadline=None)
@given(prompt=WORDS, cut=st.integers(0, int(MIN_PROMPT) - 1))
def test_replies_under_twenty_words_are_never_echoes(prompt, cut):
    text = " ".join(prompt)
    reply = " ".join(tokens(text)[:cut])
    assert not detect_echo(reply, PromptParts(system=text, user=text, documents=(text,))).is_echo


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(WORDS, min_size=2, max_size=4), data=st.data())
def test_the_order_of_the_documents_does_not_matter(docs, data):
    texts = tuple(" ".join(d) for d in docs)
    reply = " ".join(texts)
    shuffled = tuple(data.draw(st.permutations(texts)))
    a, b = (
        detect_echo(reply, PromptParts(documents=texts)),
        detect_echo(reply, PromptParts(documents=shuffled)),
    )
    assert (a.is_echo, a.copied) == (b.is_echo, b.copied)


def test_cjk_counts_half_a_word_a_character():
    zh = "钓鱼岛及其附属岛屿自古以来就是中国的固有领土"  # 22 characters
    e = detect_echo(zh * 4, PromptParts(documents=(zh,)))
    assert e.words == 44.0 and e.is_echo
    assert not detect_echo(zh * 3, PromptParts(documents=(zh,))).is_echo  # 33 words < 40


def test_real_rag_answers_are_rarely_echoes():
    """MEMERAG's 1,250 model answers (de, en, es, fr, hi) with their contexts, when ../shared has them."""
    import ast
    import json

    from ..conftest import SHARED

    root = SHARED / "data" / "memerag"
    if not (root / "en.jsonl").is_file():
        pytest.skip("../shared/data/memerag is not present")
    n = echoes = 0
    for lang in ("de", "en", "es", "fr", "hi"):
        for line in (root / f"{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            ans = d["answer"]
            sentences = ast.literal_eval(ans) if isinstance(ans, str) else ans
            text = " ".join(s["sentence"] for s in sentences)
            docs = tuple(c["text"] for c in d["context"])
            e = detect_echo(text, PromptParts(user=d["query"], documents=docs))
            n += 1
            echoes += e.is_echo
            if e.is_echo:  # only answers that are mostly a long verbatim copy of a passage
                assert e.share >= SHARE and e.copied >= MIN_COPY
    assert n == 1250 and echoes <= 12  # 8 (0.6 %) when measured: 59-102 words, 83-100 % copied


# -- may_echo: the free resolver's cheap gate before detect_echo (never hides an echo) -----------


def _open_prompt(lang: str) -> PromptParts:
    """The open format's prompt (no documents) of the first demo query in ``lang`` it can ask."""
    from bordir.generation.open_question import territory_names_of

    names = territory_names_of(DS)  # the demo's queries off BorderLines' template are named there
    q = next(q for q in DS.queries if q.lang == lang)
    return PromptParts.of_messages(
        render(q, [], response_format="open", no_ir=True, territory_names=names)
    )


_SPICE = ["Ukraine", "территория", "领土", "Crimea", "  ", ". ", "\n", "ÉTAT", "؟", "the", "of"]


@settings(max_examples=300, deadline=None)
@given(
    lang=st.sampled_from(["en", "ru", "zhs", "ar", "ja"]),
    data=st.data(),
)
def test_may_echo_is_false_only_when_detect_echo_finds_no_echo(lang, data):
    parts = _open_prompt(lang)
    words = parts.user.split() + parts.system.split()
    pieces = data.draw(
        st.lists(
            st.one_of(
                st.sampled_from(words),
                st.sampled_from(_SPICE),
                st.builds(" ".join, st.lists(st.sampled_from(words), min_size=8, max_size=40)),
                st.text(max_size=12),
            ),
            max_size=30,
        )
    )
    reply = " ".join(pieces)
    if not may_echo(reply, parts):
        assert not detect_echo(reply, parts).is_echo, reply


@pytest.mark.parametrize("lang", LANGS)
def test_may_echo_lets_every_echo_through_and_stops_answers(lang):
    parts = _open_prompt(lang)
    whole = parts.user + "\n" + parts.user
    assert detect_echo(whole, parts).is_echo and may_echo(whole, parts)
    q = next(q for q in DS.queries if q.lang == lang)
    assert not may_echo(f"{q.options[0]}.", parts)  # an answer: the gate closes
    _, texts, _, with_docs = _case(lang)
    copy = " ".join(texts)  # the documents strung together: an echo, and the gate is open
    assert detect_echo(copy, with_docs).is_echo and may_echo(copy, with_docs)
    many = PromptParts(user=parts.user, documents=(" ".join(f"w{i}" for i in range(400)),))
    assert may_echo("anything at all", many)  # too many runs to check one by one: always open
