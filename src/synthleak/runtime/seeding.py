"""Random streams that do not depend on scheduling, declared once and named one way.

Every piece of randomness in synthleak comes from a *stream*: a :class:`Stream` declared at the
top of the module that uses it with :func:`stream`, named ``component/purpose`` (lower case,
words joined by ``-``, parts by ``/``; e.g. ``membership/pool``, ``aia-release/fit``). A
stream's generator for a unit of work is derived from the run seed, the stream's integer key and
the unit's own integer path with :class:`numpy.random.SeedSequence` (``spawn_key``), so a unit
draws the same numbers whichever worker runs it, in whatever order: results are identical for
any number of workers or machines. Streams are keyed, not drawn in order, so adding, removing or
skipping one changes no other stream's numbers.

A stream's key is fixed when the stream is introduced (by default the CRC-32 of its name) and
never changes afterwards: renaming a stream keeps its numbers, so every published figure stays
reproducible from its seed. :func:`stream` refuses two streams with one name or one key, so two
parts of a run can never draw the same numbers by accident.

A game run inside an audit stage is seeded with :func:`game_seed` of the stage's stream (its
first draw), so the games of two stages never share a seed, whichever keys they use inside.

:data:`STREAMS_VERSION` is the version of this layout. A run directory records it, and one
written under another layout is refused (its finished work would mix two sets of numbers).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import numpy as np

#: Version of the stream layout (which seed each stage and game draws from). Run directories
#: record it (:func:`~synthleak.runtime.store.check_layout`). Version 2: every game of an audit
#: is seeded from its stage's stream (:func:`game_seed`).
STREAMS_VERSION = 2

_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:[-_][a-z0-9]+)*)*")


def unit_seed(seed: int, *key: int) -> np.random.SeedSequence:
    """The seed sequence of unit ``key`` (a path of non-negative integers) under ``seed``."""
    return np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(k) for k in key))


def unit_rng(seed: int, *key: int) -> np.random.Generator:
    """A fresh generator for unit ``key`` under run ``seed`` (the primitive every
    :class:`Stream` draws through; scripts may use it with their own keys)."""
    return np.random.default_rng(unit_seed(seed, *key))


def stream_key(name: str) -> int:
    """A stable 32-bit key for a stream name (CRC-32 of the name)."""
    return zlib.crc32(name.encode("utf-8"))


def stream_rng(seed: int, name: str, *key: int) -> np.random.Generator:
    """The generator of an ad-hoc stream called ``name`` under ``seed`` (for scripts and
    benchmarks; the package declares its streams with :func:`stream`)."""
    return unit_rng(seed, stream_key(name), *key)


@dataclass(frozen=True)
class Stream:
    """A declared random stream.

    Attributes
    ----------
    name : str
        ``component/purpose``, the stream's one name (see the module's docstring).
    key : int
        Its integer key, fixed when it was introduced.
    scoped : bool
        Whether the stream lives inside a numbered unit of its game (the attribute game's
        streams, one set per game): then every draw names the unit first,
        ``rng(seed, *path, scope=(game,))``.
    labelled : str or None
        For a family of streams told apart by a label (one per attack, per stage), the format of
        the text whose CRC-32 keys the member for a label (``"{}"`` is the label); see
        :meth:`sub`. ``None`` for a single stream.
    """

    name: str
    key: int
    scoped: bool = False
    labelled: str | None = None

    def seed_sequence(
        self, seed: int, *path: int, scope: tuple[int, ...] = ()
    ) -> np.random.SeedSequence:
        """The seed sequence of unit ``path`` of this stream under ``seed``."""
        if self.labelled is not None:
            raise TypeError(f"stream {self.name} is a family: draw from .sub(label)")
        if bool(scope) != self.scoped:
            raise TypeError(
                f"stream {self.name} "
                + ("needs the unit it lives in (scope=)" if self.scoped else "takes no scope")
            )
        return unit_seed(seed, *scope, self.key, *path)

    def rng(self, seed: int, *path: int, scope: tuple[int, ...] = ()) -> np.random.Generator:
        """A fresh generator for unit ``path`` of this stream under ``seed``."""
        return np.random.default_rng(self.seed_sequence(seed, *path, scope=scope))

    def sub(self, label: str) -> Stream:
        """The member of this family for ``label`` (e.g. an attack's or a stage's name)."""
        if self.labelled is None:
            raise TypeError(f"stream {self.name} is not a family of labelled streams")
        return Stream(f"{self.name}/{label}", stream_key(self.labelled.format(label)), self.scoped)


#: Every declared stream by name (filled as the modules that declare them are imported).
STREAMS: dict[str, Stream] = {}


def stream(
    name: str,
    *,
    key: int | None = None,
    scoped: bool = False,
    labelled: str | None = None,
) -> Stream:
    """Declare the stream ``name`` (module level, once).

    ``key`` defaults to the CRC-32 of the name (of ``labelled`` for a family); a stream that
    existed under another name passes the key it had, so its numbers do not change. Declaring
    a name twice, or a key that another stream of the same kind (scoped or not) holds, raises
    :class:`ValueError`.
    """
    if not _NAME.fullmatch(name):
        raise ValueError(f"stream name {name!r} is not of the form component/purpose")
    if labelled is not None and "{}" not in labelled:
        raise ValueError(f"stream {name}: labelled must contain '{{}}'")
    if key is None:  # a family's own key is never drawn from (its members' are)
        key = stream_key(name)
    out = Stream(name, int(key), scoped, labelled)
    old = STREAMS.get(name)
    if old is not None:
        if old == out:  # a module imported twice (e.g. by name and by path)
            return old
        raise ValueError(f"stream {name} is declared twice")
    if labelled is None:
        for other in STREAMS.values():
            if other.labelled is None and other.scoped == scoped and other.key == out.key:
                raise ValueError(f"streams {other.name} and {name} have the same key {key}")
    STREAMS[name] = out
    return out


def game_seed(rng: np.random.Generator) -> int:
    """The seed a stage hands the game it runs: the first draw of the stage's stream."""
    return int(rng.integers(2**31))
