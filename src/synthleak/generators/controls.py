"""Positive controls for audits: generators that leak on purpose.

An audit that cannot detect a generator built to leak is not evidence of anything. These two
are registered so that every attack, game and epsilon verdict can be run against a known leak:

``leaky:fraction=F,base=SPEC``
    Fits the generator ``SPEC`` and, in every release of ``n`` records, replaces ``round(F * n)``
    records at random positions with training records drawn uniformly at random (without
    replacement while there are enough). ``base`` comes last in the spec and takes the rest of
    it: ``leaky:fraction=0.05,base=baynet:k=2,bins=10``. The default base, ``indhist``, keeps no
    correlations, so what an attack finds comes from the copied records. A leaky generator
    repeats its base's privacy *claim* (``claimed_epsilon``), so ``leaky:...,base=privbayes:...``
    is a DP claim that the release violates: a test case for epsilon verdicts. LeakPro ships the
    same kind of control.

``mutant-privbayes:epsilon=E,...``
    **A deliberately broken implementation, for testing audits only.** PrivBayes with both
    noise mechanisms switched off (its output is ``baynet``'s for the same seed, ``k`` and
    ``bins``), while it still claims ``epsilon``-DP through ``claimed_epsilon``. An audit of the
    claim (e.g. a lower bound on the effective epsilon) should reject it when ``epsilon`` is
    small. Never use it to release data.

References
----------
Zhang, Cormode, Procopiuc, Srivastava and Xiao, "PrivBayes: Private data release via Bayesian
networks", ACM TODS 2017 (the mechanisms the mutant switches off). Jagielski, Ullman and Oprea,
"Auditing differentially private machine learning: how private is private SGD?", NeurIPS 2020,
and Annamalai, Ganev and De Cristofaro, "'What do you want from theory alone?' Experimenting
with tight auditing of differentially private synthetic data generation", USENIX Security 2024
(auditing a DP claim with deliberately broken implementations).
"""

from __future__ import annotations

import math

import numpy as np

from synthleak.constraints import InstanceOf, Interval, check_params, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.generators.base import (
    BaseGenerator,
    GeneratorInfo,
    claimed_delta,
    claimed_epsilon,
    make_generator,
    params_of,
    register_generator,
)
from synthleak.generators.baynet import PrivBayes


class Leaky(BaseGenerator):
    """``base``'s release with a fraction of it replaced by training records (module docstring).

    Parameters
    ----------
    fraction : float, default 0.1
        share of every release replaced by training records.
        In ``[0, 1]``.
    base : str, default "indhist"
        generator spec for the rest (last; takes the rest).
        The spec of the generator that makes the rest of the release; in a spec string it
        comes last and takes the rest of the string.

    Attributes
    ----------
    base_generator : object
        The (unfitted, then fitted) base generator.
    leaked_ : ndarray of int
        Training-row indices copied into the last release, in release order of their positions
        (``positions_`` holds those positions).
    """

    _parameter_constraints = constraints(fraction=Interval(float, 0, 1), base=InstanceOf(str))

    def __init__(self, fraction: float = 0.1, base: str = "indhist") -> None:
        super().__init__()
        self.fraction = fraction
        self.base = base
        # the base generator is made here (its claim is read before fit), so the declared
        # constraints are checked here too; make_generator rejects an empty spec
        check_params(self, self._parameter_constraints)
        self.base_generator = make_generator(self.base)
        self.deterministic = bool(getattr(self.base_generator, "deterministic", True))

    @property
    def claimed_epsilon(self) -> float | None:  # type: ignore[override]
        """The base generator's claim, repeated (the leak breaks it on purpose)."""
        return claimed_epsilon(self.base_generator)

    @property
    def claimed_delta(self) -> float | None:  # type: ignore[override]
        return claimed_delta(self.base_generator)

    def fit(self, table: Table, *, rng: np.random.Generator) -> Leaky:
        """Fit the base generator and keep the training table."""
        if len(table) == 0:
            raise InputError("leaky needs at least 1 training record")
        self.base_generator.fit(table, rng=rng)
        self.data_ = table
        self.schema_ = table.schema
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` records: the base's, with ``round(fraction * n)`` replaced by training records."""
        out = self.base_generator.sample(n, rng=rng)
        k = round(self.fraction * n)
        positions = rng.choice(n, size=k, replace=False) if k else np.zeros(0, dtype=np.intp)
        rows = rng.choice(len(self.data_), size=k, replace=k > len(self.data_))
        codes, values = out.codes.copy(), out.values.copy()
        codes[positions] = self.data_.codes[rows]
        values[positions] = self.data_.values[rows]
        self.positions_ = positions
        self.leaked_ = rows
        return Table.from_arrays(self.schema_, codes, values)


class MutantPrivBayes(PrivBayes):
    """DELIBERATELY BROKEN PrivBayes: no noise at all, yet it claims ``epsilon`` (testing only).

    The parameters are :class:`~synthleak.generators.baynet.PrivBayes`'s. The network is chosen
    by maximal mutual information and the conditionals are exact counts, as ``baynet`` does; the
    ``epsilon`` parameter only sets ``claimed_epsilon``. See the module docstring.

    Parameters
    ----------
    epsilon : float, default 1.0
        the epsilon it CLAIMS (no noise is added).
    k : int, default 2
        degree: number of parents per attribute.
    bins : int, default 20
        uniform bins per continuous column (schema range).
    beta : float, default 0.3
        claimed share of epsilon for the network (unused).
    """

    def fit(self, table: Table, *, rng: np.random.Generator) -> MutantPrivBayes:
        """Fit without noise (the mutation); ``epsilon`` stays the claimed budget."""
        claimed = self.epsilon  # parameters checked when fit starts (Constrained)
        self.epsilon = math.inf  # the mutation: both mechanisms off
        try:
            super().fit(table, rng=rng)
        finally:
            self.epsilon = claimed
        return self


register_generator(
    GeneratorInfo(
        "leaky",
        Leaky,
        params_of(Leaky),
        "positive control: base generator's release with training records copied in",
    )
)
register_generator(
    GeneratorInfo(
        "mutant-privbayes",
        MutantPrivBayes,
        params_of(MutantPrivBayes),
        "DELIBERATELY BROKEN PrivBayes for testing audits: no noise, still claims epsilon",
        differentially_private=True,
    )
)
