"""Per-unit random generators that do not depend on scheduling.

Every work unit derives its generator from the run seed and its own integer key path with
:class:`numpy.random.SeedSequence` (``spawn_key``), so a unit draws the same numbers whichever
worker runs it, in whatever order: results are identical for any number of workers or machines.
"""

from __future__ import annotations

import zlib

import numpy as np


def unit_seed(seed: int, *key: int) -> np.random.SeedSequence:
    """The seed sequence of unit ``key`` (a path of non-negative integers) under ``seed``."""
    return np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(k) for k in key))


def unit_rng(seed: int, *key: int) -> np.random.Generator:
    """A fresh generator for unit ``key`` under run ``seed``."""
    return np.random.default_rng(unit_seed(seed, *key))


def stream_key(name: str) -> int:
    """A stable 32-bit key for a named random stream (CRC-32 of the name)."""
    return zlib.crc32(name.encode("utf-8"))


def stream_rng(seed: int, name: str, *key: int) -> np.random.Generator:
    """The generator of the stream called ``name`` (e.g. an audit stage) under ``seed``.

    Streams are keyed by name, not by the order they are asked for, so adding, removing or
    skipping one stream changes no other stream's numbers.
    """
    return unit_rng(seed, stream_key(name), *key)
