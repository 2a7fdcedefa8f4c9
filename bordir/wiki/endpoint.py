"""Where and as whom the fetcher asks: the API endpoint template, permalinks and the User-Agent.

Both HTTP clients build the API URL from a template,
``https://{edition}.wikipedia.org/w/api.php`` by default. wikipedia-api
(0.16) hard-codes ``https://{language}.wikipedia.org/w/api.php`` in
``BaseHTTPClient._build_url``; :func:`wikipedia_class` subclasses
:class:`wikipediaapi.Wikipedia` and overrides only that method, so tests can
point the real library at a server on 127.0.0.1.

Requests carry :func:`user_agent` (with a contact from ``BORDIR_WIKI_CONTACT``
when set), as Wikimedia's User-Agent policy asks.
"""

from __future__ import annotations

from functools import cache
from typing import Any, cast

from .._extras import require
from .._net.http import tls_context
from .._version import __version__
from ..errors import ConfigError
from ..settings import WIKI_CONTACT

__all__ = ["DEFAULT_ENDPOINT", "user_agent", "endpoint_url", "permalink"]

DEFAULT_ENDPOINT = "https://{edition}.wikipedia.org/w/api.php"
"""The MediaWiki API of a Wikipedia edition; ``{edition}`` is the subdomain (``he`` for ``iw``)."""
FALLBACK_PROJECT_URL = "https://bordir.readthedocs.io"


def _project_url() -> str:
    """The project URL bordir declares in its metadata (Repository, else Homepage, else Documentation)."""
    try:
        from importlib.metadata import PackageNotFoundError, metadata

        urls = {}
        for entry in metadata("bordir").get_all("Project-URL") or []:
            label, _, url = entry.partition(",")
            urls[label.strip().lower()] = url.strip()
        for label in ("repository", "source", "homepage", "documentation"):
            if urls.get(label):
                return cast("str", urls[label])
    except (
        PackageNotFoundError,
        ImportError,
    ):  # pragma: no cover - source checkout without install
        pass
    return FALLBACK_PROJECT_URL


def user_agent(contact: str | None = None) -> str:
    """The User-Agent of every request: ``bordir/<version> (<project URL>[; <contact>])``.

    Wikimedia's User-Agent policy asks for a way to contact the operator: pass
    ``contact`` (an e-mail address or URL) or set ``BORDIR_WIKI_CONTACT``.

    Example:
        >>> user_agent("ops@example.org").startswith("bordir/")
        True
        >>> user_agent("ops@example.org").endswith("; ops@example.org)")
        True
    """
    contact = (contact if contact is not None else WIKI_CONTACT.get()).strip()
    inner = _project_url() + (f"; {contact}" if contact else "")
    return f"bordir/{__version__} ({inner})"


def endpoint_url(endpoint: str, edition: str) -> str:
    """The API URL of ``edition`` from the endpoint template.

    >>> endpoint_url(DEFAULT_ENDPOINT, "he")
    'https://he.wikipedia.org/w/api.php'
    """
    try:
        return endpoint.format(edition=edition)
    except (KeyError, IndexError, ValueError):
        raise ConfigError(
            f"endpoint {endpoint!r} is not a valid template; use {{edition}} for the Wikipedia edition, "
            f"e.g. {DEFAULT_ENDPOINT}"
        ) from None


def permalink(api_url: str, revision_id: int) -> str:
    """The permanent link of a revision: ``…/w/index.php?oldid=<id>`` next to ``…/w/api.php``.

    >>> permalink("https://en.wikipedia.org/w/api.php", 1155316524)
    'https://en.wikipedia.org/w/index.php?oldid=1155316524'
    """
    base = api_url[: -len("api.php")] if api_url.endswith("api.php") else api_url.rstrip("/") + "/"
    return f"{base}index.php?oldid={revision_id}"


def wikipedia_class() -> tuple[Any, Any]:
    wikipediaapi = require("wikipediaapi", "wiki", purpose="fetching Wikipedia articles")
    return wikipediaapi, _endpoint_class(wikipediaapi)


@cache
def _endpoint_class(wikipediaapi: Any) -> Any:
    if not hasattr(wikipediaapi, "SyncHTTPClient") or not hasattr(
        wikipediaapi.SyncHTTPClient, "_build_url"
    ):
        raise ConfigError(
            f"wikipedia-api {getattr(wikipediaapi, '__version__', '?')} has no _build_url hook; "
            "bordir needs wikipedia-api>=0.16: pip install 'bordir[wiki]'"
        )

    class EndpointWikipedia(wikipediaapi.Wikipedia):  # type: ignore[misc, unused-ignore]
        """:class:`wikipediaapi.Wikipedia` whose API URL comes from bordir's endpoint template."""

        def __init__(self, *args: Any, endpoint: str, **kwargs: Any) -> None:
            self._bordir_endpoint = endpoint
            if "transport" not in kwargs:  # the process's one TLS context, not one per client
                import httpx

                tls = tls_context(httpx)
                kwargs["transport"] = httpx.HTTPTransport(verify=True if tls is None else tls)
            super().__init__(*args, **kwargs)

        def _build_url(self, language: str) -> str:  # overrides a staticmethod of BaseHTTPClient
            return endpoint_url(self._bordir_endpoint, language)

    return EndpointWikipedia
