"""Simplified and Traditional Chinese from one edition, with OpenCC.

BorderLines asks Chinese queries in two languages, ``zhs`` (Simplified) and
``zht`` (Traditional), but Wikipedia has one Chinese edition, zh.wikipedia,
whose articles mix both scripts. As in BordIRLines, bordir fetches the zh
article once and converts every paragraph (and the article and section titles)
with OpenCC (the ``opencc`` package, in the ``wiki`` extra): configuration
``t2s`` (Traditional → Simplified) for ``zhs`` and ``s2t`` (Simplified →
Traditional) for ``zht``. MediaWiki's own variant conversion
(``variant=zh-hans``/``zh-hant``, the registry's ``wiki_variant``) is not used,
so the conversion does not depend on the server.

Example:
    >>> convert("钓鱼台列屿", "zht"), convert("釣魚臺列嶼", "zhs"), convert("Crimea", "en")
    ('釣魚臺列嶼', '钓鱼台列屿', 'Crimea')
"""

from __future__ import annotations

from functools import cache
from typing import Any, cast

from .._extras import require

__all__ = ["OPENCC_CONFIGS", "convert", "opencc_version"]

OPENCC_CONFIGS = {"zhs": "t2s", "zht": "s2t"}
"""OpenCC configuration per BorderLines language code."""


@cache
def _converter(config: str) -> Any:
    opencc = require("opencc", "wiki", purpose="converting Chinese to Simplified/Traditional")
    return opencc.OpenCC(config)


def convert(text: str, lang: str) -> str:
    """``text`` in the script of ``lang`` (``zhs``/``zht``); other languages are returned unchanged."""
    config = OPENCC_CONFIGS.get(lang)
    if config is None or not text:
        return text
    return cast("str", _converter(config).convert(text))


def opencc_version() -> str:
    """The installed OpenCC package version (recorded in the manifest)."""
    opencc = require("opencc", "wiki", purpose="converting Chinese to Simplified/Traditional")
    return str(getattr(opencc, "__version__", "?"))
