"""bordir's exception hierarchy.

Every error bordir raises on purpose derives from :class:`BordirError`; the CLI
prints its one-line message and exits with status 2, without a traceback.
Messages say what was expected, what was found, and how to fix it::

    BordirError
    ├── ConfigError              a setting or name is not valid (also a ValueError)
    │   └── UnknownLanguageError     a language code is not in languages/ (also a KeyError)
    ├── DataError                an input file is malformed (.path, .line, .field; also a ValueError)
    ├── FetchError               a provider or server call failed for good
    │                                (.status, .provider, .url, .attempts)
    ├── AttemptError             ONE attempt of a call failed (.status); raised by a backend or
    │   │                            a client's attempt, handled by bordir._net.retry's callers
    │   ├── TransientError           worth retrying: 429, 408/409/425, 5xx, timeout, connection,
    │   │                                malformed reply (.retry_after: the server's Retry-After)
    │   └── PermanentError           retrying will not help: other 4xx, an API error
    └── MissingExtraError        an optional dependency is not installed (.extra; also an ImportError)

    BordirNote (a UserWarning)   input read in a way the user may not have meant (``ua`` read as
                                     ``uk``); the CLI prints it as ``bordir: note: …``

An :class:`AttemptError` does not usually reach the user: the executor
(:mod:`bordir.generation.executor`) records it in the request's result after the
last retry, and the Wikipedia client (:mod:`bordir.wiki.retry`) turns it into a
:class:`FetchError` naming the URL and the attempts. Both retry through
:mod:`bordir._net.retry` (jittered exponential backoff, ``Retry-After`` honoured).
``bordir.wiki.retry.TransientError`` is this same class (bordir.generation does
not re-export them: import them from here).

Secrets never reach a message: every :class:`BordirError` is passed through
:func:`redact` when it is built, which masks the values of secret-looking
environment variables (names containing ``KEY``, ``TOKEN``, ``SECRET``,
``PASSWORD``; values of at least 8 characters) and every value registered
with :func:`register_secret` (keys handed to a client as ``api_key=``).

Example:
    >>> from bordir.errors import DataError
    >>> str(DataError("bad value", path="t.csv", line=3, field="Claimants"))
    "t.csv:3: field 'Claimants': bad value"
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable
from os import PathLike

__all__ = [
    "BordirError",
    "ConfigError",
    "UnknownLanguageError",
    "DataError",
    "FetchError",
    "AttemptError",
    "TransientError",
    "PermanentError",
    "MissingExtraError",
    "BordirNote",
    "redact",
    "redactor",
    "register_secret",
    "undecodable",
    "refuse_nul",
    "describe_transport_error",
    "is_name_resolution_error",
    "transport_attempt_error",
    "secret_values",
    "SECRET_ENV_NAME",
]

SECRET_ENV_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL", re.IGNORECASE)
"""Environment variable names whose values are treated as secrets."""
_MIN_ENV_SECRET = 8  # shorter values ("1", "false", "none") would mask ordinary words
_MIN_SECRET = 4
_registered: set[str] = set()
_registered_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on (an API key handed over as an argument, not via the environment).

    Values shorter than 4 characters are ignored.
    """
    if value and len(value) >= _MIN_SECRET:
        with _registered_lock:
            _registered.add(value)


def secret_values(extra: Iterable[str | None] = ()) -> list[str]:
    """The secrets :func:`redact` masks: registered ones, secret environment values and ``extra``; longest first."""
    found = {v for v in extra if v and len(v) >= _MIN_SECRET}
    with _registered_lock:
        found |= _registered
    for name, value in os.environ.items():
        value = value.strip()
        if len(value) >= _MIN_ENV_SECRET and SECRET_ENV_NAME.search(name):
            found.add(value)
    return sorted(found, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every secret replaced by ``***``: ``secrets`` plus those of :func:`secret_values`.

    The one place where bordir masks keys: errors, completion texts, cached results and log lines use it.

    Example:
        >>> import os
        >>> os.environ["DEMO_API_KEY"] = "sk-canary-0123456789"
        >>> redact("Incorrect API key provided: sk-canary-0123456789.")
        'Incorrect API key provided: ***.'
        >>> redact("token abc1 here", ["abc1"])
        'token *** here'
        >>> del os.environ["DEMO_API_KEY"]
    """
    if not text:
        return text
    for s in secret_values(secrets):
        if s in text:
            text = text.replace(s, "***")
    return text


def redactor(secrets: Iterable[str | None] = ()) -> Callable[[str], str]:
    """:func:`redact` with the secrets looked up once (for masking many texts in a row).

    Example:
        >>> mask = redactor(["tok-1234"])
        >>> mask("a tok-1234 b"), mask("")
        ('a *** b', '')
    """
    values = secret_values(secrets)

    def mask(text: str) -> str:
        if not text:
            return text
        for s in values:
            if s in text:
                text = text.replace(s, "***")
        return text

    return mask


class BordirError(Exception):
    """Base class of every error bordir raises on purpose.

    Its message is redacted (:func:`redact`) when the error is built, so an
    error made from a provider's reply never carries a key.
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class FetchError(BordirError):
    """A call to a provider or server failed (HTTP status, connection, malformed or truncated body).

    Attributes:
        provider: who was called (``openai/text-embedding-3-small``, ``cohere/embed-v4.0``, a host).
        status: the HTTP status, when there was one (None: no answer came).
        url: the endpoint, when known.
        attempts: how many attempts were made.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        url: str | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status
        self.url = url
        self.attempts = attempts


class AttemptError(BordirError):
    """One attempt of a call failed; :class:`TransientError` or :class:`PermanentError` says whether to retry.

    Attributes:
        status: the HTTP status, when there was one.
        reason: the message.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def reason(self) -> str:
        return str(self.args[0]) if self.args else ""


class TransientError(AttemptError):
    """A failed attempt worth retrying (429, 408/409/425, 5xx, timeout, connection, malformed reply).

    Attributes:
        retry_after: seconds the server asked to wait (``Retry-After``), or None.

    Example:
        >>> e = TransientError("HTTP 429: slow down", status=429, retry_after=2.0)
        >>> e.reason, e.status, e.retry_after, isinstance(e, BordirError)
        ('HTTP 429: slow down', 429, 2.0, True)
    """

    def __init__(
        self, message: str, *, retry_after: float | None = None, status: int | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class PermanentError(AttemptError):
    """A failed attempt that retrying will not fix (400, 401, 403, 404, unknown model, an API error)."""


class ConfigError(BordirError, ValueError):
    """A setting, name or argument is not valid."""


class BordirNote(UserWarning):
    """Something bordir read in a way the user may not have meant, and says so (not an error).

    The CLI prints it as one line ``bordir: note: …`` on stderr; in Python it is a warning.
    Example: ``langs = ["ua"]`` is read as Ukrainian (``uk``), with a note that ``ua`` is a
    country code.
    """


class UnknownLanguageError(ConfigError, KeyError):
    """A language code is not in the ``languages/`` registry.

    Attributes:
        code: the code that was looked up.
        known: the valid codes.
    """

    def __init__(self, code: str, known: Iterable[str], *, where: str = "") -> None:
        self.code = code
        self.known = sorted(known)
        prefix = f"{where}: " if where else ""
        super().__init__(
            f"{prefix}languages/ has no entry {code!r}; known codes: {', '.join(self.known)}"
        )

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


class DataError(BordirError, ValueError):
    """An input file does not have the expected content.

    Attributes:
        path: the file (or directory) that was read.
        line: 1-based line (or row) number, when known.
        field: the column or key that is wrong, when known.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | PathLike[str] | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.field = field
        self.message = redact(message)
        loc = ""
        if self.path is not None:
            loc = self.path + (f":{line}" if line is not None else "")
        parts = [p for p in (loc, f"field {field!r}" if field else "") if p]
        super().__init__(": ".join([*parts, message]))


class MissingExtraError(BordirError, ImportError):
    """An optional dependency is needed but not installed.

    Attributes:
        package: the import name that failed.
        extra: the bordir extra that provides it.
    """

    def __init__(self, package: str, extra: str, *, purpose: str = "") -> None:
        self.package = package
        self.extra = extra
        what = f" for {purpose}" if purpose else ""
        super().__init__(
            f"{package!r} is needed{what} but is not installed; "
            f"install it with: pip install 'bordir[{extra}]'"
        )


def undecodable(path: str | PathLike[str], *, encoding: str = "UTF-8") -> DataError:
    """The :class:`DataError` for a file that is not valid UTF-8 text, naming the line of the first bad byte.

    Compressed files, UTF-16 text and binary files get their own hint.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
        >>> _ = p.write_bytes(b"Territory,Claimants\\nAbyei,Sudan;South Sud\\xe1n\\n")
        >>> print(undecodable(p))  # doctest: +ELLIPSIS
        /...t.csv:2: not valid UTF-8 text (byte 0xe1 at column 22); save the file as UTF-8
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read(64 << 20)
    except OSError as exc:
        return DataError(f"cannot be read: {exc.strerror or exc}", path=path)
    head = data[:4096]
    if head.startswith(b"\x1f\x8b"):
        return DataError(
            "is gzip-compressed, not UTF-8 text; decompress it first (gunzip)", path=path
        )
    if head.startswith((b"PK\x03\x04", b"BZh", b"\xfd7zXZ", b"\x28\xb5\x2f\xfd")):
        return DataError("is a compressed archive, not UTF-8 text; extract it first", path=path)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or (
        len(head) >= 4
        and head.count(b"\x00") > len(head) // 4
        and (head[1:2] == b"\x00" or head[:1] == b"\x00")
    ):
        return DataError(
            "is UTF-16 text; save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)", path=path
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        binary = head.count(b"\x00") > 0
        what = "is a binary file, not UTF-8 text" if binary else "not valid UTF-8 text"
        return DataError(
            f"{what} (byte 0x{data[exc.start]:02x} at column {col}); save the file as {encoding}",
            path=path,
            line=line,
        )
    return DataError(f"not valid {encoding} text", path=path)


def refuse_nul(text: str, path: str | PathLike[str] | None, message: str) -> str:
    r"""``text``, or a :class:`DataError` with ``message`` naming the line of its first NUL character.

    A NUL is no text at all: the file is binary, or broken.

    Example:
        >>> refuse_nul("one\ntwo", "t.txt", "a NUL character")
        'one\ntwo'
        >>> refuse_nul("one\n\x00two", "t.txt", "a NUL character")
        Traceback (most recent call last):
        ...
        bordir.errors.DataError: t.txt:2: a NUL character
    """
    nul = text.find("\x00")
    if nul != -1:
        raise DataError(message, path=path, line=text.count("\n", 0, nul) + 1)
    return text


def describe_transport_error(exc: BaseException) -> str:
    """What went wrong below HTTP, in words: a truncated body, a timeout, or a connection error.

    A body cut short (the server closed the connection before the announced
    ``Content-Length`` or the last chunk) is not a connection error: the server
    answered, then broke off. The exception's class is looked up along its
    ``__cause__`` chain (the SDKs wrap ``httpx`` errors, and the ``openai`` SDK's aiohttp
    transport wraps aiohttp's errors in ``httpx`` classes that do not always fit: its
    ``ConnectTimeout`` for a refused connection is read as the connection error it is).

    Example:
        >>> class RemoteProtocolError(Exception): ...
        >>> describe_transport_error(RemoteProtocolError("peer closed connection without sending complete "
        ...                                              "message body (received 40 bytes, expected 500)"))
        'truncated response body (peer closed connection without sending complete message body (received 40 bytes, expected 500))'
        >>> describe_transport_error(RemoteProtocolError("Server disconnected without sending a response."))
        'protocol error: RemoteProtocolError: Server disconnected without sending a response.'
        >>> describe_transport_error(ConnectionRefusedError(111, "Connection refused"))
        'connection error: ConnectionRefusedError: [Errno 111] Connection refused'
    """
    chain: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in chain and len(chain) < 8:
        chain.append(e)
        e = e.__cause__ or e.__context__
    for e in chain:
        names = {c.__name__ for c in type(e).__mro__}
        text = " ".join(str(e).split())
        lower = text.lower()
        if (
            names & {"IncompleteRead", "ClientPayloadError", "ContentLengthError"}
            or "incomplete" in lower
            or "complete message body" in lower
        ):
            return f"truncated response body ({text or type(e).__name__})"
    for e in chain:
        if {c.__name__ for c in type(e).__mro__} & {
            "RemoteProtocolError",
            "ServerDisconnectedError",
        }:
            return f"protocol error: {type(e).__name__}: {e}"
    # aiohttp's errors reach us as the httpx classes the SDK maps them to, and that map calls
    # a disconnect or a refused connection a ConnectTimeout: aiohttp's own error decides
    aio = [e for e in chain if type(e).__module__.partition(".")[0] == "aiohttp"]
    if aio and not any(isinstance(e, TimeoutError) for e in aio):
        chain_for_timeouts: list[BaseException] = []
    else:
        chain_for_timeouts = chain
    for e in chain_for_timeouts:
        names = {c.__name__ for c in type(e).__mro__}
        if names & {
            "TimeoutException",
            "TimeoutError",
            "APITimeoutError",
            "ReadTimeout",
            "ConnectTimeout",
        }:
            return f"timed out ({type(e).__name__})"
    if is_name_resolution_error(exc):
        root = chain[-1]
        return f"cannot resolve the host name (DNS): {type(root).__name__}: {root}"
    root = chain[-1]
    return f"connection error: {type(root).__name__}: {root}"


_DNS_TEXT = (
    "name or service not known",
    "nodename nor servname",
    "temporary failure in name resolution",
    "getaddrinfo failed",
    "no address associated with hostname",
    "name resolution",
    "failed to resolve",
)


def is_name_resolution_error(exc: BaseException) -> bool:
    """True when ``exc`` (or what it wraps) is a failed DNS lookup (``socket.gaierror`` …).

    A host name that does not resolve will not resolve on the next try either: the callers
    do not retry it (:func:`transport_attempt_error`).

    Example:
        >>> import socket
        >>> is_name_resolution_error(OSError("x")), is_name_resolution_error(socket.gaierror(-2, "Name or service not known"))
        (False, True)
    """
    import socket

    e: BaseException | None = exc
    seen: list[BaseException] = []
    while e is not None and e not in seen and len(seen) < 8:
        seen.append(e)
        if isinstance(e, socket.gaierror) or any(s in str(e).lower() for s in _DNS_TEXT):
            return True
        e = e.__cause__ or e.__context__
    return False


def transport_attempt_error(exc: BaseException, prefix: str = "") -> AttemptError:
    """The :class:`AttemptError` of a failure below HTTP: permanent for a DNS failure, else transient.

    Retrying a connection refused or reset may help; retrying a host name that does not resolve
    (a typo in ``base_url``, no network) costs the whole backoff schedule for nothing.

    Example:
        >>> import socket
        >>> type(transport_attempt_error(socket.gaierror(-2, "Name or service not known"))).__name__
        'PermanentError'
        >>> type(transport_attempt_error(ConnectionRefusedError(111, "refused"))).__name__
        'TransientError'
    """
    what = describe_transport_error(exc)
    if is_name_resolution_error(exc):
        return PermanentError(
            f"{prefix}{what}; not retried: check the network connection and the host name "
            "(base_url, endpoint)"
        )
    return TransientError(f"{prefix}{what}")
