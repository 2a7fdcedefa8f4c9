"""One registry type for everything bordir builds or lists by name.

A :class:`Registry` maps a canonical name to an :class:`Entry`: the factory
(a class, a function or a plain value), a one-line description, optional
metadata (a metric's ``label`` and ``bounds`` …) and, for built-ins, the module
to import on first use, so that ``import bordir`` stays light. Backends,
retrievers, fusions, datasets, metrics and policies each have one registry;
every CLI choice, label and ``bordir list`` line comes from them, so adding a
backend or a metric is one new file that registers itself::

    from bordir.generation.backend import Backend, backend

    @backend("my-provider", description="my in-house LLM server")
    class MyBackend(Backend): ...

A module outside bordir is found by the CLI when it is named in the
``BORDIR_PLUGINS`` environment variable (comma-separated module names) or
declared as an entry point of the ``bordir.plugins`` group
(:func:`load_plugins`).

Example:
    >>> colours = Registry("colour")
    >>> @colours.register("red", description="the colour of blood")
    ... def red() -> str:
    ...     return "#f00"
    >>> colours.register("green", lambda: "#0f0", description="grass", rank=2)
    >>> colours.names(), "red" in colours, colours.get("red")()
    (('red', 'green'), True, '#f00')
    >>> colours.entry("green").meta["rank"]
    2
    >>> colours.get("blue")
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: unknown colour 'blue'; known: red, green
    >>> colours.register("green", lambda: "#0a0")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: colour 'green' is already registered (by ...); an entry is never replaced: register it under another name, or unregister('green') first

A built-in is *declared* with its module (``register(name, module="pkg.mod",
description=…)``) and *completed* by that module's decorator when it is first
imported: completing a declared entry is not replacing it.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Generic, TypeVar, cast, overload

from .errors import ConfigError
from .settings import PLUGINS

__all__ = ["Entry", "Registry", "load_plugins", "PLUGINS_GROUP"]

T = TypeVar("T")

PLUGINS_GROUP = "bordir.plugins"
"""Entry-point group whose modules :func:`load_plugins` imports."""

_NOT_LOADED: Any = object()


@dataclass(frozen=True, slots=True)
class Entry(Generic[T]):
    """One registered name.

    Attributes:
        name: the canonical name (the registry key).
        description: one line for ``bordir list`` and ``--help``.
        module: where a deferred entry lives: ``pkg.mod`` (importing it registers the
            factory) or ``pkg.mod:attr`` (the factory is that attribute); empty once loaded.
        meta: anything else the registry's users need (``label``, ``bounds``, ``kind`` …).
    """

    name: str
    description: str = ""
    module: str = ""
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    factory: Any = _NOT_LOADED

    @property
    def loaded(self) -> bool:
        """True once the factory is known (registered directly or imported)."""
        return self.factory is not _NOT_LOADED

    def row(self) -> dict[str, Any]:
        """``name``, ``description`` and the metadata, as one ``bordir list`` row."""
        return {"name": self.name, "description": self.description, **self.meta}


def _origin(obj: Any) -> str:
    """The module a class or function was defined in ('' for plain values and deferred entries)."""
    if obj is _NOT_LOADED or not (inspect.isclass(obj) or inspect.isroutine(obj)):
        return ""
    return str(getattr(obj, "__module__", "") or "")


def _first_line(obj: Any) -> str:
    doc = (getattr(obj, "__doc__", None) or "").strip()
    return doc.splitlines()[0].strip() if doc else ""


class Registry(Generic[T]):
    """Names → factories, with descriptions, metadata and deferred imports.

    Args:
        kind: what one entry is, in words (``backend provider``, ``retriever``); used in errors.
        hint: appended to the unknown-name error (how to fix it).
    """

    def __init__(self, kind: str, *, hint: str = "") -> None:
        self.kind = kind
        self.hint = hint
        self._entries: dict[str, Entry[T]] = {}
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ registering
    @overload
    def register(
        self,
        name: str,
        factory: None = None,
        *,
        description: str = "",
        module: None = None,
        **meta: Any,
    ) -> Callable[[T], T]: ...

    @overload
    def register(
        self, name: str, factory: T, *, description: str = "", module: None = None, **meta: Any
    ) -> None: ...

    @overload
    def register(
        self, name: str, factory: None = None, *, description: str = "", module: str, **meta: Any
    ) -> None: ...

    def register(
        self,
        name: str,
        factory: T | None = None,
        *,
        description: str = "",
        module: str | None = None,
        **meta: Any,
    ) -> Callable[[T], T] | None:
        """Register ``name``: directly (``factory``), deferred (``module``) or as a decorator.

        A name is registered once: registering it again raises :class:`ConfigError`
        (two plugins, or a plugin and a built-in, never silently replace each other;
        tests that swap an entry :meth:`unregister` it first). The one exception is
        a deferred built-in: its declaration (``module=``, with a description and
        metadata) is *completed* by the decorator in that module, which supplies the
        factory and keeps the declared description and metadata unless it gives its own.

        Args:
            name: the canonical name.
            factory: what :meth:`get` returns; omitted with no ``module``: a decorator.
            description: one line; default: the first line of the factory's docstring.
            module: ``pkg.mod`` or ``pkg.mod:attr`` imported on first :meth:`get`.
            **meta: metadata kept in :attr:`Entry.meta`.

        Raises:
            ConfigError: an empty name, or ``name`` is already registered (and this
                is not its declared module completing it).
        """
        if not name or not isinstance(name, str):
            raise ConfigError(f"a {self.kind} needs a non-empty name, not {name!r}")
        if module is not None:
            self._put(name, _NOT_LOADED, description, module, meta)
            return None
        if factory is None:

            def deco(obj: T) -> T:
                self._put(name, obj, description, "", meta)
                return obj

            return deco
        self._put(name, factory, description, "", meta)
        return None

    def _put(
        self, name: str, factory: Any, description: str, module: str, meta: Mapping[str, Any]
    ) -> None:
        with self._lock:
            old = self._entries.get(name)
            if old is not None:
                self._check_completes(old, factory)
                description = description or old.description
                meta = {**old.meta, **meta}
            if factory is not _NOT_LOADED and not description:
                description = _first_line(factory)
            self._entries[name] = Entry(
                name, description, module, MappingProxyType(dict(meta)), factory
            )

    def _check_completes(self, old: Entry[T], factory: Any) -> None:
        """Allow only the declared module's decorator to supply a deferred entry's factory."""
        declared = old.module.partition(":")[0]
        if not old.loaded and factory is not _NOT_LOADED and ":" not in old.module:
            origin = _origin(factory)
            if origin == declared or (not origin and declared in sys.modules):
                return  # the declared module (being imported) completes its entry
            where = f"declared by {declared}, registered again by {origin or 'another module'}"
        else:
            where = f"by {_origin(old.factory) or declared or 'an earlier call'}"
        raise ConfigError(
            f"{self.kind} {old.name!r} is already registered ({where}); an entry is never "
            f"replaced: register it under another name, or unregister({old.name!r}) first"
        )

    def unregister(self, name: str) -> None:
        """Forget ``name`` (tests that register a temporary entry)."""
        with self._lock:
            self._entries.pop(name, None)

    # ------------------------------------------------------------------ looking up
    def unknown(self, name: object) -> ConfigError:
        """The error for a name that is not registered: the known names and the hint."""
        from ._suggest import did_you_mean

        hint = f" {self.hint}" if self.hint else ""
        close = did_you_mean(name, self.names(), n=2) if isinstance(name, str) else ""
        return ConfigError(
            f"unknown {self.kind} {name!r}; known: {', '.join(self.names())}{close}{hint}"
        )

    def entry(self, name: str, *, load: bool = True) -> Entry[T]:
        """The :class:`Entry` of ``name``, its module imported first unless ``load=False``.

        Raises:
            ConfigError: ``name`` is not registered, or its module does not register it.
        """
        try:
            e = self._entries[name]
        except (KeyError, TypeError):
            raise self.unknown(name) from None
        if load and not e.loaded:
            e = self._load(e)
        return e

    def _load(self, e: Entry[T]) -> Entry[T]:
        mod_name, _, attr = e.module.partition(":")
        mod = importlib.import_module(mod_name)
        with self._lock:
            now = self._entries.get(e.name, e)
            if attr:
                now = replace(now, factory=getattr(mod, attr), module="")
                self._entries[e.name] = now
            if not now.loaded:
                raise ConfigError(
                    f"{self.kind} {e.name!r}: importing {mod_name} did not register it "
                    f"(it should register {e.name!r} with this registry)"
                )
            return now

    def get(self, name: str) -> T:
        """The factory registered as ``name`` (its module imported on first use).

        Raises:
            ConfigError: ``name`` is not registered (the message lists the known names).
        """
        return cast("T", self.entry(name).factory)

    def names(self) -> tuple[str, ...]:
        """Every registered name, in registration order (built-ins first, in their documented order)."""
        return tuple(self._entries)

    def entries(self, *, load: bool = False) -> list[Entry[T]]:
        """Every entry in name order (deferred ones imported when ``load``)."""
        return [self.entry(n, load=load) for n in self.names()]

    def describe(self) -> list[dict[str, Any]]:
        """One ``bordir list`` row per entry (``name``, ``description``, metadata), nothing imported."""
        return [e.row() for e in self.entries()]

    def __getitem__(self, name: str) -> T:
        """``registry[name]``: as :meth:`get`, but a missing name raises :class:`KeyError`."""
        if name not in self._entries:
            raise KeyError(name)
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self.names())})"


_plugins_lock = threading.Lock()
_plugins_loaded: set[str] = set()


def load_plugins() -> tuple[str, ...]:
    """Import the modules named in ``$BORDIR_PLUGINS`` and the ``bordir.plugins`` entry points.

    Each is imported once; a module registers its backends, retrievers, metrics …
    with the registries when imported. Returns the modules imported so far.

    Raises:
        ConfigError: a named module cannot be imported (the message says which and why).
    """
    names = PLUGINS.get()
    eps: list[Any] = []
    if _may_declare_plugins():
        try:
            from importlib.metadata import entry_points

            eps = list(entry_points(group=PLUGINS_GROUP))
        except Exception:  # pragma: no cover - broken metadata never stops the CLI
            eps = []
    with _plugins_lock:
        for name in names:
            if name in _plugins_loaded:
                continue
            try:
                importlib.import_module(name)
            except ImportError as exc:
                raise ConfigError(
                    f"{PLUGINS.name}: cannot import plugin module {name!r} ({exc}); "
                    "put it on PYTHONPATH or remove it from the variable"
                ) from None
            _plugins_loaded.add(name)
        for ep in eps:
            if ep.value in _plugins_loaded:
                continue
            ep.load()
            _plugins_loaded.add(ep.value)
        return tuple(sorted(_plugins_loaded))


def _may_declare_plugins() -> bool:
    """Whether an installed distribution may declare a ``bordir.plugins`` entry point.

    ``importlib.metadata`` reads every distribution's metadata (25-50 ms at each CLI start, most
    of it importing the module itself); a distribution declares its entry points in
    ``*.dist-info/entry_points.txt`` (or ``*.egg-info/``) in a folder of ``sys.path``, so reading
    those small files (about 1 ms) tells when no distribution can have one. A ``sys.path`` entry
    that is not a folder (a zip file) may hold distributions too: then the answer is yes.
    """
    group = PLUGINS_GROUP.encode()
    for entry in sys.path:
        where = entry or "."
        try:
            names = os.listdir(where)
        except NotADirectoryError:
            return True  # a zip file on sys.path: let importlib.metadata look
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(where, name, "entry_points.txt"), "rb") as f:
                        if group in f.read():
                            return True
                except OSError:
                    continue
    return False
