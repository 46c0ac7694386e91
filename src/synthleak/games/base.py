"""The one protocol every privacy game follows.

A game is constructed with its parameters and played with ::

    result = game.run(data, *, seed=..., runtime=None)

* ``data`` is a pandas DataFrame or a :class:`~synthleak.data.table.Table` for the games that run
  a generator themselves (membership, attribute inference, risk map), or a
  :class:`~synthleak.data.release.Release`
  (original, synthetic and optionally control records) for the games that audit a release without
  its generator (singling out, linkability, no-box membership, attribute inference on a release);
* ``seed`` is the only source of randomness: same seed, same result, whatever the runtime;
* ``runtime`` (:class:`~synthleak.runtime.Runtime`) says how to run: workers, Dask cluster,
  resumable run directory, progress bars;
* the result is the game's own frozen, typed result (:class:`~synthleak.serde.Result`).

Attacks are given the same way to every game: by registered name (``"query"``) or as an unfitted
attack object of the game's family (see :mod:`synthleak.attacks.base`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from synthleak.runtime.context import Runtime

R_co = TypeVar("R_co", covariant=True)


@runtime_checkable
class Game(Protocol[R_co]):
    """A privacy game: ``run(data, *, seed, runtime=None) -> typed result``."""

    def run(self, data: Any, *, seed: int, runtime: Runtime | None = None) -> R_co: ...


class _NamedAttack(Protocol):
    @property
    def attack(self) -> str: ...


A = TypeVar("A", bound=_NamedAttack)


class AttacksByName(Generic[A]):
    """``result["name"]``: one attack's result, for a game result that holds ``attacks``."""

    attacks: Sequence[A]

    def __getitem__(self, attack: str) -> A:
        for a in self.attacks:
            if a.attack == attack:
                return a
        raise KeyError(
            f"no attack named {attack!r}: the attacks are {[a.attack for a in self.attacks]}"
        )
