"""A planted judge for the calibration tests: labelled items written to a file, and a loopback reply whose errors follow a per-language rate.

:func:`write_items` writes a label file (JSONL) of synthetic items: per language ``questions``
questions with ``per_question`` sentences each, a known human label per sentence. The loopback
judge (:func:`planted_reply`) reads the sentence back from the faithfulness prompt, looks its true
label up, and answers wrong (the same prompt always gets the same reply, so a cached re-run is
identical), or with an unreadable
reply for a planted share: exactly ``round(rate × n)`` sentences of each class and language (those
with the lowest hashes), so the sample's rates are the planted ones. :func:`realized` computes,
from the same rule, what the calibration must report.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

POS, NEG = "Supported", "Not Supported"


def unit(text: str, salt: str = "") -> float:
    h = hashlib.sha256(f"{salt}|{text}".encode()).digest()
    return int.from_bytes(h[:8], "little") / 2**64


def write_items(
    path: Path, questions: dict[str, int], *, per_question: int = 2, share_pos: float = 0.6
) -> dict[str, tuple[str, str, str]]:
    """Write the label file; returns sentence -> (lang, human label, question id)."""
    truth: dict[str, tuple[str, str, str]] = {}
    lines = []
    for lang, n in questions.items():
        for q in range(n):
            qid = f"{lang}-q{q}"
            for s in range(per_question):
                text = f"Sentence {s} of question {q} in {lang}."
                label = POS if unit(text, "label") < share_pos else NEG
                truth[text] = (lang, label, qid)
                lines.append(
                    {
                        "lang": lang,
                        "question": f"Question {q} ({lang})?",
                        "question_id": qid,
                        "context": [f"Passage one of {q}.", f"Passage two of {q}."],
                        "sentence": text,
                        "label": label,
                    }
                )
    path.write_text("".join(json.dumps(l) + "\n" for l in lines), encoding="utf-8")
    return truth


def sentence_of(prompt: str) -> str:
    return prompt.split("[BEGIN DATA: sentence]\n", 1)[1].split("\n[END DATA: sentence]", 1)[0]


def _plan(truth, errors, garble):
    """The sentences the judge garbles and gets wrong: exactly ``round(rate × n)`` of each class per language, the lowest hashes."""
    out: dict[str, str | None] = {}
    for lang in {l for l, _, _ in truth.values()}:
        mine = sorted(
            (t for t, (l, _, _) in truth.items() if l == lang), key=lambda t: unit(t, "g")
        )
        n_garbled = round(garble.get(lang, 0.0) * len(mine))
        for t in mine[:n_garbled]:
            out[t] = None
        for label, err in zip((POS, NEG), errors[lang]):
            cls = sorted(
                (t for t in mine[n_garbled:] if truth[t][1] == label),
                key=lambda t: unit(t, "judge"),
            )
            k = round(err * len(cls))
            for i, t in enumerate(cls):
                out[t] = (NEG if label == POS else POS) if i < k else label
    return out


def decide(text: str, truth, errors, garble) -> str | None:
    """The planted judge's label for ``text`` (None: an unreadable reply)."""
    key = (id(truth), tuple(sorted(errors.items())), tuple(sorted(garble.items())))
    if key not in _PLANS:
        _PLANS[key] = _plan(truth, errors, garble)
    return _PLANS[key][text]


_PLANS: dict = {}


def planted_reply(truth, errors, garble=None):
    """The loopback's reply function (OpenAI chat body -> text)."""
    garble = garble or {}

    def reply(body):
        text = sentence_of(body["messages"][-1]["content"])
        got = decide(text, truth, errors, garble)
        return "I am not able to tell." if got is None else f"The passages say so.\nVerdict: {got}"

    return reply


def realized(truth, errors, garble=None) -> dict[str, dict[str, float]]:
    """Per language the balanced accuracy, sensitivity, specificity and unparseable share the calibration must report."""
    garble = garble or {}
    out = {}
    for lang in sorted({l for l, _, _ in truth.values()}):
        c = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
        unp = 0
        for text, (l, label, _) in truth.items():
            if l != lang:
                continue
            got = decide(text, truth, errors, garble)
            unp += got is None
            right = got == label
            key = ("tp" if right else "fn") if label == POS else ("tn" if right else "fp")
            c[key] += 1
        se = c["tp"] / (c["tp"] + c["fn"])
        sp = c["tn"] / (c["tn"] + c["fp"])
        out[lang] = {
            "balanced_accuracy": (se + sp) / 2,
            "sensitivity": se,
            "specificity": sp,
            "unparseable": unp / sum(c.values()),
        }
    return out
