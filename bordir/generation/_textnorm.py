"""Text normalization for matching answers against option names (private).

:func:`fold` maps a string to a matching key so that surface variants of the
same name compare equal:

1. NFKC (fullwidth ``Ａ）`` → ``A)``, Arabic presentation forms → letters);
2. invisible format characters removed (LRM/RLM, bidi isolates, ZWJ/ZWNJ, BOM);
3. typographic quotes, apostrophes and dashes → ASCII; whitespace collapsed;
4. ``casefold``;
5. Latin/Greek/Cyrillic combining diacritics (U+0300–U+036F) removed
   (``España`` = ``espana``, ``Ελλάδα`` = ``ελλαδα``, ``Türkİye`` = ``turkiye``),
   and the Latin letters without a decomposition folded too (``ı ə ł ø đ`` →
   ``i e l o d``: ``Azərbaycan`` = ``azerbaycan``);
6. Arabic harakat, Quranic marks and tatweel removed; alef/yeh/kaf/heh variants
   folded (``إسرائيل`` = ``اسرائيل``, Urdu ``ی``/``ک``/``ہ`` = Arabic ``ي``/``ك``/``ه``);
7. Hebrew niqqud and cantillation removed;
8. Traditional Chinese characters mapped to Simplified with a small built-in
   table (country and territory names, and the words of answers and refusals).
   The table is deliberately built in — not OpenCC — so a parse never depends on
   which optional packages are installed. Vocabulary that differs between
   Taiwan and the mainland (亞塞拜然 / 阿塞拜疆) is not mapped.

Example:
    >>> fold("ＥＳＰＡÑＡ") == fold("España") == "espana"
    True
    >>> fold("中華人民共和國") == fold("中华人民共和国")
    True
    >>> fold("إِسْرَائِيل") == fold("اسرائيل")
    True
    >>> fold("יִשְׂרָאֵל") == fold("ישראל")
    True
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["fold", "light", "unmark", "zh_simplify"]

_INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_SPACES = re.compile(r"[^\S\n]+")
_PUNCT = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u02bc": "'",
        "\u00b4": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u300c": '"',
        "\u300d": '"',
        "\u300e": '"',
        "\u300f": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
    }
)
_LATIN_FOLD = str.maketrans(
    {"\u0131": "i", "\u0259": "e", "\u0142": "l", "\u00f8": "o", "\u0111": "d"}
)  # after casefold
_LATIN_MARKS = re.compile("[\u0300-\u036f]")
_ARABIC_MARKS = re.compile(
    "[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e8\u06ea-\u06ed\u0640]"
)
_HEBREW_MARKS = re.compile("[\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7]")
_ARABIC_FOLD = str.maketrans(
    {
        "\u0623": "\u0627",
        "\u0625": "\u0627",
        "\u0622": "\u0627",
        "\u0671": "\u0627",  # أ إ آ ٱ → ا
        "\u0649": "\u064a",
        "\u06cc": "\u064a",
        "\u06d0": "\u064a",  # ى ی ې → ي
        "\u06a9": "\u0643",  # ک → ك
        "\u06c1": "\u0647",
        "\u06be": "\u0647",
        "\u0629": "\u0647",
        "\u06c0": "\u0647",  # ہ ھ ة ۀ → ه
        "\u0624": "\u0648",  # ؤ → و
    }
)

# Traditional → Simplified, one character each (T then S). Only pairs that differ.
_ZH_PAIRS = (
    # states, territories, places
    "華华國国灣湾臺台韓韩蘭兰爾尔羅罗亞亚聯联東东門门衛卫島岛嶼屿釣钓魚鱼緬缅馬马來来紐纽蘇苏維维烏乌"
    "敘叙約约葉叶剛刚幾几聖圣萬万圖图魯鲁達达麥麦麗丽歐欧愛爱蓋盖瑪玛貝贝義义賓宾萊莱鮮鲜錫锡喬乔賽赛"
    "納纳內内陸陆區区齊齐鄰邻盧卢穌稣廣广縣县鄉乡鎮镇礁礁劃划邊边疆疆屬属"
    # answers, refusals, explanations
    "無无確确選选擇择這这個个問问題题爭争議议領领於于歸归為为爲为權权實实際际統统對对與与關关係系將将"
    "應应該该據据證证認认說说請请兩两會会組组織织單单們们沒没並并從从時时間间經经濟济軍军隊队轄辖稱称"
    "聲声張张擁拥歷历傳传雙双條条戰战獨独斷断給给覆复複复雜杂夠够僅仅須须當当處处場场現现黨党執执協协"
    "決决談谈論论範范圍围態态識识勢势總总務务線线難难準准類类號号衝冲鬥斗雖虽暫暂項项則则資资訊讯顯显"
    "紀纪錄录記记載载憲宪規规書书員员長长開开發发頭头專专業业習习語语譯译讀读寫写檔档網网電电視视聞闻"
    "報报導导紙纸藝艺術术館馆產产農农漁渔築筑設设計计預预價价錢钱幣币銀银稅税費费貨货買买賣卖審审訴诉"
    "調调閱阅覽览觀观參参還还遠远塊块闊阔擊击護护氣气壓压勞劳貿贸運运鐵铁輸输車车飛飞機机醫医藥药學学"
    "詞词彙汇腦脑戲戏劇剧樂乐畫画廳厅樓楼層层廠厂礦矿獵猎贈赠獎奖賞赏罰罚獄狱偵侦後后裡里麼么廢废"
    "選选舉举憑凭據据顧顾慮虑際际狀状況况領领導导員员區区擴扩張张佔占據据殖殖"
)
_ZH_TABLE = {
    ord(_ZH_PAIRS[i]): _ZH_PAIRS[i + 1]
    for i in range(0, len(_ZH_PAIRS), 2)
    if _ZH_PAIRS[i] != _ZH_PAIRS[i + 1]
}


def zh_simplify(text: str) -> str:
    """Map the Traditional characters of the built-in table to Simplified.

    >>> zh_simplify("釣魚臺列嶼是中華民國的領土")
    '钓鱼台列屿是中华民国的领土'
    """
    return text.translate(_ZH_TABLE)


def light(text: str) -> str:
    """NFKC, invisible characters removed, quotes/dashes to ASCII, spaces collapsed (case kept).

    Used where letters must keep their case (option letters ``A)``).
    """
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text).translate(_PUNCT)
    return _SPACES.sub(" ", text)


def unmark(text: str) -> str:
    r""":func:`light` plus markdown emphasis and carriage returns removed (``**B)**`` → ``B)``).

    The form in which replies are parsed (answers and citations alike).

    >>> unmark("**Answer:** B)")
    'Answer: B)'
    """
    return light(text).replace("*", "").replace("`", "").replace("\r", "")


def fold(text: str) -> str:
    """The matching key of ``text`` (see the module docstring for the steps)."""
    text = light(text).casefold()
    text = unicodedata.normalize("NFD", text)
    text = _LATIN_MARKS.sub("", text).translate(_LATIN_FOLD)
    text = unicodedata.normalize("NFC", text)
    text = _ARABIC_MARKS.sub("", text).translate(_ARABIC_FOLD)
    text = _HEBREW_MARKS.sub("", text)
    return zh_simplify(text)
