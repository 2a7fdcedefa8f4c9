"""Generate ``languages/wikipedia.tsv``: one row per Wikipedia language edition not curated in languages.tsv.

Run once (and again when the list below changes), then commit the output::

    .venv/bin/pip install langcodes language-data PyStemmer
    .venv/bin/python languages/generate.py

Sources:

* the **list of Wikipedia edition codes** is the literal :data:`WIKIPEDIA_EDITIONS`
  below, written by hand from Wikipedia's "List of Wikipedias" (active editions as
  of 2024; closed, read-only editions such as ``aa``, ``cho``, ``ho``, ``hz``, ``ii``,
  ``kj``, ``kr``, ``mh``, ``mus``, ``ng`` are left out, and so is ``simple``, which is
  English). ``langcodes``/``language-data`` do not have this list. Editions the
  curated table already covers (through its ``wiki`` column: ``en``, ``he`` for
  ``iw``, ``zh`` for ``zhs``/``zht`` …) are skipped.
* names, autonyms, ISO 639 codes and the likely **script** come from ``langcodes``
  with ``language-data`` (CLDR likely subtags), corrected in :data:`SCRIPT` where
  the Wikipedia edition is written in another script than CLDR's default;
  Wikipedia codes that are not BCP-47 (``bat-smg``, ``zh-yue`` …) are mapped in
  :data:`BCP47`;
* **direction** follows the script (:data:`RTL_SCRIPTS`);
* the **BM25 analysis**: a Snowball stemmer where PyStemmer has one for the
  language (:data:`STEMMERS`, checked against ``Stemmer.algorithms()``);
  character bigrams for scripts written without spaces (:data:`UNSPACED_SCRIPTS`);
  whitespace words otherwise;
* extra **analysis steps** where a language needs more than its tokenizer
  (:data:`ANALYSIS`: German compounds);
* the ``langdetect`` code where langdetect (55 profiles, :data:`LANGDETECT`) knows
  the language.

Generated rows have an empty ``resource`` and ``joshi_class`` (not rated) and
``query_language = no``. Nothing here runs when bordir is used: bordir reads the
committed TSV.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "wikipedia.tsv"

WIKIPEDIA_EDITIONS = """
ab ace ady af als alt am ami an ang ann anp ar arc ary arz as ast atj av avk awa ay az azb
ba ban bar bat-smg bbc bcl be be-tarask bew bg bh bi bjn blk bm bn bo bpy br bs btm bug bxr
ca cbk-zam cdo ce ceb ch chr chy ckb co cr crh cs csb cu cv cy
da dag de dga din diq dsb dtp dty dv dz ee el eml en eo es et eu ext
fa fat ff fi fiu-vro fj fo fon fr frp frr fur fy ga gag gan gcr gd gl glk gn gom gor got gpe gu guc gur guw gv
ha hak haw he hi hif hr hsb ht hu hy hyw ia iba id ie ig igl ik ilo inh io is it iu
ja jam jbo jv ka kaa kab kbd kbp kcg kg ki kk kl km kn knc ko koi krc ks ksh ku kus kv kw ky
la lad lb lbe lez lfn lg li lij lld lmo ln lo lt ltg lv
mad mai map-bms mdf mg mhr mi min mk ml mn mni mnw mos mr mrj ms mt mwl my myv mzn
na nah nap nds nds-nl ne new nia nl nn no nov nqo nr nrm nso nv ny oc olo om or os
pa pag pam pap pcd pcm pdc pfl pi pih pl pms pnb pnt ps pt pwn qu
rm rmy rn ro roa-rup roa-tara rsk ru rue rw sa sah sat sc scn sco sd se sg sh shi shn si sk skr sl sm smn sn so sq
sr srn ss st stq su sv sw syl szl szy ta tay tcy tdd te tet tg th ti tig tk tl tly tn to tpi tr trv ts tt tum tw ty tyv
udm ug uk ur uz ve vec vep vi vls vo wa war wo wuu xal xh xmf yi yo za zea zgh zh zh-classical zh-min-nan zh-yue zu
""".split()
"""Active Wikipedia language editions (subdomain codes), written from memory of the 2024 list."""

BCP47 = {
    "als": "gsw",
    "bat-smg": "sgs",
    "be-tarask": "be-tarask",
    "bh": "bho",
    "cbk-zam": "cbk",
    "fiu-vro": "vro",
    "map-bms": "jv-x-bms",
    "nds-nl": "nds-NL",
    "no": "nb",
    "nrm": "nrf",
    "roa-rup": "rup",
    "roa-tara": "nap-x-tara",
    "sh": "sh",
    "zh-classical": "lzh",
    "zh-min-nan": "nan",
    "zh-yue": "yue",
    "eml": "egl",
}
"""Wikipedia codes that are not the BCP-47 tag of their language."""

SCRIPT = {
    "azb": "Arab",
    "hyw": "Armn",
    "zh-min-nan": "Latn",
    "hak": "Latn",
    "cdo": "Latn",
    "zh-classical": "Hant",
    "gan": "Hant",
    "anp": "Deva",
    "pi": "Deva",
    "blk": "Mymr",
    "lad": "Latn",
    "arc": "Syrc",
    "sh": "Latn",
    "crh": "Latn",
    "ku": "Latn",
    "kk": "Cyrl",
    "map-bms": "Latn",
    "roa-tara": "Latn",
    "tdd": "Tale",
    "sat": "Olck",
    "ks": "Arab",
    "xal": "Cyrl",
    "bh": "Deva",
    "mni": "Beng",
    "zh-yue": "Hant",
    "wuu": "Hans",
    "tly": "Latn",
    "syl": "Beng",
}
"""Scripts the Wikipedia edition is written in, where CLDR's likely script differs or is unknown."""

RTL_SCRIPTS = {"Arab", "Hebr", "Syrc", "Thaa", "Nkoo", "Adlm", "Mand", "Samr", "Rohg", "Armi"}
UNSPACED_SCRIPTS = {"Hans", "Hant", "Hani", "Jpan", "Thai", "Laoo", "Khmr", "Mymr", "Tibt", "Tale"}
"""Scripts written without spaces between words: the bigram analyzer (bordir/retrieval/analysis.py)."""

STEMMERS = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "eo": "esperanto",
    "et": "estonian",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "nn": "norwegian",
    "fa": "persian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "sh": "serbian",
    "bs": "serbian",
    "hr": "serbian",
    "st": "sesotho",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
    "hyw": "armenian",
}
"""Wikipedia code → PyStemmer (Snowball) algorithm."""

ANALYSIS = {"de": "char4grams"}
"""Wikipedia code → extra analysis steps (the ``analysis`` column; bordir/retrieval/analysis.py):
German gets the character 4-grams of its stems beside them, so that a compound matches its parts."""

LANGDETECT = set(
    "af ar bg bn ca cs cy da de el en es et fa fi fr gu he hi hr hu id it ja kn ko lt lv mk ml mr ne nl no pa pl "
    "pt ro ru sk sl so sq sv sw ta te th tl tr uk ur vi".split()
)
"""Codes langdetect returns (besides zh-cn / zh-tw, which only the curated zhs / zht use)."""

COLUMNS = (
    "code",
    "iso639_1",
    "iso639_3",
    "bcp47",
    "name",
    "native_name",
    "script",
    "direction",
    "wiki",
    "wiki_variant",
    "langdetect",
    "resource",
    "joshi_class",
    "tokenizer",
    "stemmer",
    "analysis",
    "query_language",
)


def _curated_wikis() -> set[str]:
    rows = [
        ln
        for ln in (HERE / "languages.tsv").read_text(encoding="utf-8").splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    header = rows[0].split("\t")
    idx = header.index("wiki")
    return {r.split("\t")[idx] for r in rows[1:]}


def _row(code: str, algorithms: set[str]) -> dict[str, str]:
    import langcodes

    tag = BCP47.get(code, code)
    lang = langcodes.Language.get(tag)
    base = langcodes.Language.get(lang.language or tag)
    script = SCRIPT.get(code) or lang.maximize().script or "Latn"
    name = lang.display_name("en")
    native = lang.autonym()
    iso3 = ""
    try:
        iso3 = base.to_alpha3()
    except (LookupError, ValueError):
        iso3 = lang.language if lang.language and len(lang.language) == 3 else ""
    iso1 = lang.language if lang.language and len(lang.language) == 2 else ""
    stemmer = STEMMERS.get(code, "")
    if stemmer and stemmer not in algorithms:
        stemmer = ""
    tokenizer = (
        "bigram" if script in UNSPACED_SCRIPTS else ("snowball" if stemmer else "whitespace")
    )
    if tokenizer != "snowball":
        stemmer = ""
    return {
        "code": code,
        "iso639_1": iso1,
        "iso639_3": iso3,
        "bcp47": tag,
        "name": name,
        "native_name": native,
        "script": script,
        "direction": "rtl" if script in RTL_SCRIPTS else "ltr",
        "wiki": code,
        "wiki_variant": "",
        "langdetect": code if code in LANGDETECT else "",
        "resource": "",
        "joshi_class": "",
        "tokenizer": tokenizer,
        "stemmer": stemmer,
        "analysis": ANALYSIS.get(code, ""),
        "query_language": "no",
    }


def main() -> int:
    import Stemmer

    algorithms = set(Stemmer.algorithms())
    curated = _curated_wikis()
    codes = sorted(set(WIKIPEDIA_EDITIONS) - curated)
    rows = [_row(c, algorithms) for c in codes]
    with OUT.open("w", encoding="utf-8", newline="") as fh:
        fh.write(
            "# wikipedia.tsv: GENERATED by languages/generate.py; do not edit by hand (edit the script).\n"
            f"# {len(rows)} Wikipedia language editions not curated in languages.tsv (which covers "
            f"{len(curated)} editions). Same columns as languages.tsv; resource and joshi_class are\n"
            "# empty (not rated). Codes are Wikipedia edition codes; bcp47 holds the language tag.\n"
        )
        w = csv.writer(
            fh, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar="\\"
        )
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r[c].replace("\t", " ") for c in COLUMNS])
    print(
        f"wrote {len(rows)} rows to {OUT} ({len(set(WIKIPEDIA_EDITIONS))} editions, {len(curated)} curated)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
