"""Which records a membership game attacks: :class:`Targets`.

A target set joins selectors and explicit rows::

    Targets.top(10)                      # the 10 most vulnerable records by V_k
    Targets.top(10) + Targets.top(10, "rare") + Targets.random(10)
    Targets.rows([3, 17])

A row chosen by two selectors is one target whose ``selected_by`` names both. Selection happens
when the game runs, on the game's data and seed (random selection draws from the game's seed).

References
----------
Meeus et al. (2023), Sec. 4 (distance, ``V_k`` with k = 5) and Sec. 5.2 (rare value,
log-likelihood and random baselines).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.modes import DATA_METHODS
from synthleak.runtime.seeding import stream
from synthleak.serde import IntArray, Result
from synthleak.vulnerability import TargetMethod, select_targets

#: Seed path of random target selection (kept from the first version: same seeds, same targets).
_TARGETS = stream("targets/select", key=5)
ROWS = "rows"


@dataclass(frozen=True, repr=False)
class TargetPart(Result):
    """One selector (``method`` and count ``n``) or an explicit list of ``rows``."""

    method: str
    n: int = 0
    rows: tuple[int, ...] = ()
    label: str = ""

    def __post_init__(self) -> None:
        if self.method == ROWS:
            if not self.rows:
                raise InputError("rows is empty: give at least one target row")
            if any(int(r) != r or r < 0 for r in self.rows):
                raise InputError(f"target rows must be non-negative whole numbers, got {self.rows}")
            return
        if self.method not in DATA_METHODS:
            choices = ", ".join([*(m.value for m in DATA_METHODS), ROWS])
            raise InputError(f"unknown target selector {self.method!r}: use {choices}")
        if isinstance(self.n, bool) or int(self.n) != self.n or self.n < 1:
            raise InputError(f"the number of targets must be at least 1, got {self.n!r}")

    def name(self) -> str:
        """How a target picked by this part was selected (``selected_by``)."""
        return self.label or (ROWS if self.method == ROWS else self.method)


@dataclass(frozen=True, repr=False)
class ResolvedTargets(Result):
    """Target rows of a table and how each was selected (``"distance+rare"`` when by both)."""

    rows: IntArray
    selected_by: tuple[str, ...]

    def __len__(self) -> int:
        return int(self.rows.size)


@dataclass(frozen=True, repr=False)
class Targets(Result):
    """Selectors and explicit rows, joined (see the module docstring).

    Parameters
    ----------
    parts : tuple of TargetPart
    k : int
        Neighbours of the vulnerability score ``V_k`` for the ``distance`` selector.
    """

    parts: tuple[TargetPart, ...]
    k: int = 5

    @classmethod
    def top(
        cls, n: int, method: TargetMethod | str = TargetMethod.DISTANCE, *, k: int = 5
    ) -> Targets:
        """The ``n`` most vulnerable records by ``method`` (``distance``: V_k)."""
        return cls((TargetPart(str(getattr(method, "value", method)), n),), k)

    @classmethod
    def random(cls, n: int) -> Targets:
        """``n`` records drawn at random (a control group of targets)."""
        return cls((TargetPart(TargetMethod.RANDOM.value, n),))

    @classmethod
    def rows(cls, rows: Iterable[int], *, label: str = "") -> Targets:
        """These rows of the data (0-based); ``label`` names how they were chosen (default
        ``rows``)."""
        return cls((TargetPart(ROWS, 0, tuple(int(r) for r in rows), label),))

    def __add__(self, other: Targets) -> Targets:
        if not isinstance(other, Targets):
            return NotImplemented
        return Targets(self.parts + other.parts, self.k)

    def __str__(self) -> str:
        return "+".join(
            f"rows:{','.join(map(str, p.rows))}" if p.method == ROWS else f"{p.method}:{p.n}"
            for p in self.parts
        )

    def resolve(self, table: Table, *, seed: int) -> ResolvedTargets:
        """The target rows of ``table`` (selection order kept, duplicates merged)."""
        rows: list[int] = []
        labels: dict[int, list[str]] = {}
        for i, part in enumerate(self.parts):
            if part.method == ROWS:
                bad = [r for r in part.rows if r >= len(table)]
                if bad:
                    raise InputError(
                        f"target row(s) {bad[:5]} are not in the data (rows 0..{len(table) - 1}): "
                        "give existing rows"
                    )
                picked = list(part.rows)
            else:
                picked = select_targets(
                    table, part.method, part.n, rng=_TARGETS.rng(seed, i), k=self.k
                ).tolist()
            for r in picked:
                if r not in labels:
                    rows.append(int(r))
                    labels[r] = []
                if part.name() not in labels[r]:
                    labels[r].append(part.name())
        return ResolvedTargets(
            np.asarray(rows, dtype=np.int64), tuple("+".join(labels[r]) for r in rows)
        )


def as_targets(targets: Targets | Iterable[int]) -> Targets:
    """``targets`` as :class:`Targets` (a sequence of ints means these rows)."""
    if isinstance(targets, Targets):
        return targets
    if isinstance(targets, str):
        raise InputError(
            "targets must be a synthleak Targets object (e.g. Targets.top(10)) or a list of rows, "
            f"not the text {targets!r}"
        )
    try:
        return Targets.rows(list(targets))
    except TypeError:
        raise InputError(
            f"targets must be a Targets object or a list of rows, got {type(targets).__name__}"
        ) from None
