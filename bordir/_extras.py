"""Import optional dependencies on use, failing with the exact install command."""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MissingExtraError


def require(module: str, extra: str, *, purpose: str = "") -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtraError` naming ``bordir[extra]``.

    Example:
        >>> require("json", "core").__name__
        'json'
        >>> require("surely_not_installed_xyz", "hub")
        Traceback (most recent call last):
        ...
        bordir.errors.MissingExtraError: 'surely_not_installed_xyz' is needed but is not installed; install it with: pip install 'bordir[hub]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        if exc.name is not None and exc.name.split(".")[0] != top:
            raise  # the package is there but one of its own imports failed
        raise MissingExtraError(module, extra, purpose=purpose) from None
