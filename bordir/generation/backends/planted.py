"""``mock/planted:<langs>[@<dir>]`` — a mock with planted per-language behaviour, for tests of the statistics.

For queries in one of the chosen languages (``<langs>``, ``+``-separated, e.g.
``mock/planted:ar+ru``) the answer follows the prompt's documents:

* every document in the query's language (what ``qlang`` retrieves) → the
  query language's own claimant (the first claimant whose language, in the
  countries table, is the query language);
* at least one document in another language (``rel_langs``, ``qlang+en``,
  ``en_only``, ``swap_docs``) → the controller (when it is known and a
  claimant; else the baseline);
* no documents (``no_ir``) → the baseline.

Every other query gets the **baseline**: a claimant drawn uniformly, as a
deterministic hash of the seed, the query and the prompt's document ids, so
it differs between runs and modes but is the same for a repeated call. Under
the baseline, two modes have the same answer distribution: a per-language
comparison must find nothing there.

The backend recognises a query by its options and its text in the user
message, in the bundled demo dataset, or in a BorderLines directory named after
``@`` (``mock/planted:es+fr@/data/synthetic``), or in a dataset passed as
``get_backend(model, dataset=ds)``. A prompt that matches no query raises
:class:`~bordir.generation.backend.PermanentError`. A unit-test backend: it
says nothing about real models.

Example:
    >>> from bordir.generation.backend import get_backend
    >>> from bordir.generation.prompts import build_request
    >>> from bordir.generation.types import Document
    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Crimea_uk")   # controller: Russia; own claimant: Ukraine
    >>> b = get_backend("mock/planted:uk")
    >>> own = build_request(q, [Document(0, "d1", "uk", "...")], model=b.name, seed=1)
    >>> mixed = build_request(q, [Document(0, "d1", "uk", "..."), Document(1, "d2", "en", "...")], model=b.name, seed=1)
    >>> b.generate(own).text, b.generate(mixed).text
    ('B) Україна', 'A) Росія')
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError
from ..types import GenerationRequest, GenerationResult

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines
    from ...records import Query

__all__ = ["PREFIX", "PlantedSpec", "parse_spec", "planted_choice", "planted_generate"]

PREFIX = "planted:"


class PlantedSpec:
    """The parsed model name: chosen languages and where the dataset comes from."""

    def __init__(self, langs: frozenset[str], path: str | None) -> None:
        self.langs = langs
        self.path = path

    def __repr__(self) -> str:
        return f"PlantedSpec(langs={sorted(self.langs)!r}, path={self.path!r})"


def parse_spec(model: str) -> PlantedSpec:
    """``planted:ar+ru@/dir`` → languages {ar, ru}, dataset directory ``/dir``.

    >>> parse_spec("planted:ru+ar")
    PlantedSpec(langs=['ar', 'ru'], path=None)
    """
    from ...languages import registry

    body = model.removeprefix(PREFIX)
    spec, sep, path = body.partition("@")
    if "," in spec:
        raise ConfigError(
            f"mock model {model!r}: the planted languages are separated by '+', not ','; "
            f"write mock/planted:{spec.replace(',', '+')}" + (f"@{path}" if sep else "")
        )
    langs = frozenset(x for x in spec.split("+") if x)
    if not langs:
        raise ConfigError(
            f"mock model {model!r}: name the planted languages, e.g. mock/planted:ar+ru"
        )
    reg = registry()
    for code in sorted(langs):
        reg.get_checked(code, where=f"mock model {model!r}")
    return PlantedSpec(langs, path if sep else None)


@lru_cache(maxsize=8)
def _dataset(path: str | None) -> BorderLines:
    from ...loaders import load_borderlines, load_demo

    return load_demo() if path is None else load_borderlines(path)


@lru_cache(maxsize=8)
def _index(ds: BorderLines) -> dict[tuple[str, ...], list[Query]]:
    out: dict[tuple[str, ...], list[Query]] = {}
    for q in ds.queries:
        out.setdefault(tuple(q.option_label(i) for i in range(len(q.options))), []).append(q)
    return out


def _find(ds: BorderLines, request: GenerationRequest) -> Query | None:
    text = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
    candidates = _index(ds).get(tuple(request.options), [])
    found = [q for q in candidates if q.text in text]
    return max(found, key=lambda q: len(q.text)) if found else None


def _baseline(request: GenerationRequest, q: Query) -> int:
    key = "|".join(
        [str(request.seed), q.query_id, *(f"{d.lang}:{d.doc_id}" for d in request.documents)]
    )
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") % len(q.options)


def planted_choice(spec: PlantedSpec, ds: BorderLines, q: Query, request: GenerationRequest) -> int:
    """The option index the planted mock answers for ``q`` (see the module docs)."""
    if q.lang in spec.langs and request.documents:
        t = ds.territory(q.territory)
        if all(d.lang == q.lang for d in request.documents):
            own = [i for i, c in enumerate(t.claimants) if ds.country_lang(c) == q.lang]
            if own:
                return own[0]
        elif t.controller_known and t.controller in t.claimants:
            return t.claimants.index(t.controller)
    return _baseline(request, q)


def planted_generate(model: str, request: GenerationRequest, **options: Any) -> GenerationResult:
    """Answer ``request`` as ``mock/<model>`` (``model`` starts with ``planted:``)."""
    from ...errors import PermanentError

    spec = parse_spec(model)
    ds = options.get("dataset") or _dataset(spec.path)
    q = _find(ds, request)
    if q is None:
        raise PermanentError(
            f"mock/{model}: the prompt matches no query of dataset {ds.name!r} "
            "(pass its directory after '@', or dataset= to get_backend)"
        )
    text = request.options[planted_choice(spec, ds, q, request)]
    return GenerationResult(
        text=text, model=request.model, input_tokens=0, output_tokens=len(text.split())
    )
