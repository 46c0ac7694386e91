"""Compiling kernels with numba: an on-disk cache when one can be written, none otherwise.

Every compiled kernel of the package is declared with :func:`njit` instead of ``numba.njit``.
With ``cache=True`` numba looks for a folder it can write compiled code to (``NUMBA_CACHE_DIR``,
the ``__pycache__`` beside the source, the user's cache folder under ``$HOME``) when the kernel
is *declared*, and raises ``RuntimeError("cannot cache function ...")`` when none is writable: a
read-only install run by an account without a writable home could not even import the modules
holding kernels. :func:`njit` then declares the kernel without a cache: it is compiled in each
process that first calls it (seconds per kernel) instead of once per installation, and computes
the same results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba

UNCACHED: list[str] = []
"""Qualified names of the kernels declared without a disk cache (no writable cache folder)."""


def njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(**options)``, except that ``cache=True`` falls back to no caching when
    numba finds no folder it can write its cache to (see the module docstring)."""

    def declare(fn: Callable[..., Any]) -> Any:
        if not options.get("cache"):
            return numba.njit(**options)(fn)
        try:
            return numba.njit(**options)(fn)
        except RuntimeError as exc:
            if "cannot cache" not in str(exc):
                raise
            UNCACHED.append(f"{fn.__module__}.{fn.__qualname__}")
            return numba.njit(**{**options, "cache": False})(fn)

    return declare
