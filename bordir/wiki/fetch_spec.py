"""What a Wikipedia fetch is asked for: the languages per territory (:class:`LangSpec`), the revision date, the settings a resume must share."""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from ..dataset import BorderLines
from ..errors import ConfigError
from ..languages import registry

__all__ = ["SOURCE", "RESULT_PARAMETERS", "LangSpec", "normalize_as_of"]


SOURCE = "wikipedia"
"""The ``parameters.source`` of a fetched corpus."""


RESULT_PARAMETERS = ("as_of", "endpoint", "min_chars")
"""Parameters a resumed fetch must share with the stored corpus."""


@dataclass(frozen=True)
class LangSpec:
    """Which languages to fetch per territory: ``claimants``, explicit codes, or both (``claimants+en``).

    Tokens are separated by ``+`` or ``,``; codes are checked against the registry.

    Example:
        >>> s = LangSpec.parse("claimants+en")
        >>> s.claimants, s.codes, str(s)
        (True, ('en',), 'claimants+en')
        >>> LangSpec.parse("ru,xx")
        Traceback (most recent call last):
        ...
        bordir.errors.UnknownLanguageError: --langs: languages/ has no entry 'xx'; known codes: ...
    """

    claimants: bool
    codes: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> LangSpec:
        tokens = [t.strip() for t in re.split(r"[+,]", text or "") if t.strip()]
        if not tokens:
            raise ConfigError(
                "--langs is empty; use e.g. claimants+en, claimants, or codes such as ru,uk,en"
            )
        reg = registry()
        codes: list[str] = []
        claimants = False
        for tok in tokens:
            if tok == "claimants":
                claimants = True
                continue
            reg.get_checked(tok, where="--langs")
            if tok not in codes:
                codes.append(tok)
        return cls(claimants, tuple(codes))

    def for_territory(self, dataset: BorderLines, territory: str) -> tuple[str, ...]:
        langs = list(dataset.claimant_langs(territory)) if self.claimants else []
        return tuple(dict.fromkeys([*langs, *self.codes]))

    def __str__(self) -> str:
        return "+".join((["claimants"] if self.claimants else []) + list(self.codes))


def normalize_as_of(value: str | None) -> str | None:
    """``2023-05-15`` → ``2023-05-15T23:59:59Z`` (the end of that day, UTC, as BordIRLines); full timestamps pass.

    >>> normalize_as_of("2023-05-15"), normalize_as_of("2023-05-15T12:00:00Z"), normalize_as_of(None)
    ('2023-05-15T23:59:59Z', '2023-05-15T12:00:00Z', None)
    """
    if value is None or not str(value).strip():
        return None
    v = str(value).strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
            _dt.date.fromisoformat(v)
            return f"{v}T23:59:59Z"
        when = _dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            f"--as-of {value!r} is not a date; use YYYY-MM-DD (e.g. 2023-05-15) or an ISO timestamp"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.UTC)
    return when.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
