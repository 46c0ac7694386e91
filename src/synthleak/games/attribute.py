"""Attribute inference: the privacy game with a randomised secret, and its no-box release audit.

:class:`AttributeGame` is the Attribute Inference Privacy Game of Annamalai et al. (2024),
Sec. 4.1, run against a generator. One game:

1. the challenger samples ``D`` (``train_size`` records) from the data;
2. picks a target whose quasi-identifiers are unique in ``X`` (``targets_per_game`` distinct
   targets: an amortisation of ours, 1 by default as in the paper);
3. replaces the target's secret by a uniformly random class (``D'``);
4. fits the generator on ``D'`` and samples ``S`` of ``m`` records (every ``m`` of
   ``synthetic_size``);
5. hands ``S``, all quasi-identifiers ``X`` and the target's ``x_u`` to each attack;
6. records each attack's scores and guess against the randomised secret.

The randomised secret makes the baseline exact: no adversary without the release guesses it
better than ``1 / C`` for ``C`` classes (the paper's Sec. 7.2).

:class:`ReleaseAttributeGame` audits a release without its generator: the data owner has the
training data (``original``), the synthetic data and a ``control`` set of real records of the
same population that the generator never saw. The adversary knows the quasi-identifiers of
every training record (the paper's partially informed adversary) and attacks the training
records from the release. Its baseline is the same attack against people who were not in the
training data: in a second "control world" a random set of training records is swapped for
control records (the rest of ``X`` unchanged) and the attack is run again. Under no individual
leakage (a release independent of the training data) the two worlds are exchangeable, so the
accuracy on training records and on swapped-in control records have the same expectation;
the leak is their difference, with Newcombe's interval for two independent groups. The secret
is not randomised (there is no generator to re-run), so both accuracies include what
population-level inference alone gives; only their difference measures the release.

Games are work units run by :class:`~synthleak.runtime.Runtime` (processes or a Dask cluster,
resumable run directory). A unit draws all its randomness from the game's streams
(:mod:`synthleak.runtime.seeding`) keyed by the unit, so results do not depend on the number
of workers.

Discrete domain. The paper assumes discrete attributes (its Sec. 3): continuous columns are
discretised before anything else (``bins`` bins per column, ``uniform`` over the schema range
or ``quantile`` of the data; missing values get their own bin), and the generator is trained on
the discretised table. Uniqueness of the target is judged on these discrete quasi-identifiers.

Sweep over m. For each game the generator is fitted once and sampled at every ``m`` (fresh
samples with their own seed), the attacks' work that depends only on ``X`` (e.g. the query
matrix of Adv_recon) is done once, and utility is measured on the same random marginals for every
``m``: the result for one ``m`` is identical whether it is run alone or inside a sweep.

Failures. A game fails as a whole (reported with its reason, never a crash) when the secret
takes a single value in ``D``, when no target has unique quasi-identifiers or when the generator
fails; an attack fails for one (game, m) when its linear program is not solved within its time
limit. Accuracy is computed over the games an attack finished, and the failures are listed.

Measurement status. Every accuracy carries the width of its confidence interval and the
documented limit :data:`MAX_CI_WIDTH`; wider than the limit, the figure is ``too small to
measure`` (neither a leak nor its absence can be read from it). What could not be measured at
all (no control set, every game failed) is ``not measured`` with the reason and what it needs.

Non-binary secrets (our extension of the paper's Sec. 7.6): the secret is randomised uniformly
over its ``C`` classes, attacks score every class (Adv_recon solves one LP per class, one-vs-rest)
and the highest score wins; the accuracy baseline is ``1 / C``. AUC is reported for binary
secrets only.

References
----------
Annamalai, Gadotti and Rocher (2024), "A Linear Reconstruction Approach for Attribute Inference
Attacks against Synthetic Data", USENIX Security: Sec. 4.1 (game), 4.2-4.3 (attacks), 5.3
(utility), 6 (experiments: n = 1000, 500 games, m from 10 to 10^6, Acc_max in Sec. 6.4), 7.6
(non-binary secrets). Newcombe (1998) (interval of a difference of two proportions).
"""

from __future__ import annotations

import copy
import hashlib
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from synthleak.attacks.aia_reconstruction import ReconstructionFailure
from synthleak.attacks.base import AttackFamily, AttributeAttack, resolve_attack, resolve_attacks
from synthleak.data.encoding import Discretiser
from synthleak.data.release import Release, as_table
from synthleak.data.schema import Column, ColumnKind, Schema
from synthleak.data.table import Table
from synthleak.errors import InputError, raise_if_interrupted
from synthleak.generators import make_generator
from synthleak.metrics.privacy import (
    AccuracyDifference,
    PairedComparison,
    RiskEstimate,
    accuracy_difference,
    accuracy_estimate,
    auc,
    paired_accuracy_difference,
)
from synthleak.metrics.utility import mre_from_codes, random_marginals, tvd_from_codes
from synthleak.modes import BinStrategy, ToleranceKind
from synthleak.runtime import WorkUnit, as_runtime
from synthleak.runtime.seeding import stream, stream_key
from synthleak.serde import FloatArray, IntArray, Result

if TYPE_CHECKING:
    import pandas as pd

    from synthleak.runtime import Runtime

MAX_CLASSES = 20
"""Most secret classes an attack is run on (Adv_recon solves one linear program per class)."""

MAX_CI_WIDTH = 0.2
"""Widest 95% interval read as a measurement. A judgement: an interval wider than 0.2 cannot tell
an attack at its baseline from one 10 points above it, so the figure is "too small to measure";
about 100 attacked secrets reach it at an accuracy of 0.5."""

# the attribute game's streams live in the unit of one game (its index first in every key)
_DATA = stream("aia/data", key=0, scoped=True)
_TARGET = stream("aia/target", key=1, scoped=True)
_FIT = stream("aia/fit", key=2, scoped=True)
_ATTACK_FIT = stream("aia/attack-fit", key=3, scoped=True)
_SAMPLE = stream("aia/sample", key=4, scoped=True)
_ATTACK = stream("aia/attack", key=5, scoped=True)
_UTILITY = stream("aia/utility", key=6, scoped=True)
_COMPARE = stream("aia/compare", key=7)
# the release attribute game (keys kept from its first names)
_RELEASE_FIT = stream("aia-release/fit", key=stream_key("aia-release-fit"))
_RELEASE_SCORE = stream("aia-release/score", key=stream_key("aia-release-score"))
_RELEASE_UTILITY = stream("aia-release/utility", key=stream_key("aia-release-utility"))
_RELEASE_TARGETS = stream("aia-release/targets", key=stream_key("aia-release-targets"))
_RELEASE_SWAP = stream("aia-release/swap", key=stream_key("aia-release-swap"))
_RELEASE_POPULATION = stream("aia-release/population", key=stream_key("aia-release-population"))


class Measurement(StrEnum):
    """Whether a figure could be read."""

    MEASURED = "measured"
    TOO_SMALL = "too small to measure"
    NOT_MEASURED = "not measured"


class GameFailure(RuntimeError):
    """A game that cannot be played (reported per game with its reason)."""


# --- input validation and encoding ---------------------------------------------------------------
TOLERANCE_BINS = 10
"""Quantile bins of a numeric secret the attacks guess among under a tolerance rule."""

MEANINGLESS_RATE = 0.99
"""A rule under which one constant guess is right for this share of the records tells nothing."""


@dataclass(frozen=True, repr=False)
class SecretRule(Result):
    """When a guess of a numeric secret counts as right.

    Give ``tolerance`` (with ``kind``) or ``bins``:

    * ``tolerance=t, kind="absolute"``: the guess lies within ``t`` of the true value;
    * ``tolerance=t, kind="relative"``: within ``t * |true value|`` (Anonymeter's rule for
      numeric secrets; ``t < 1``, since ``t >= 1`` accepts a guess of 0 for every value);
    * ``bins=B``: the guess names the right one of ``B`` quantile bins (of the release in
      :class:`ReleaseAttributeGame`, of the data in :class:`AttributeGame`).

    The attacks guess among quantile bins of the secret (``bins``, or :data:`TOLERANCE_BINS`
    under a tolerance rule; a missing value is a bin of its own); the value a bin stands for is
    the median of the release's values in it. A record whose true secret is missing is guessed
    right when the guess is the missing bin.
    """

    tolerance: float | None = None
    kind: ToleranceKind | str = ToleranceKind.ABSOLUTE
    bins: int | None = None

    def __post_init__(self) -> None:
        if self.tolerance is None and self.bins is None:
            raise InputError(
                "a numeric secret needs a success rule: give secret_tolerance (a guess within "
                "it counts as right) or secret_bins (the right quantile bin)"
            )
        if self.tolerance is not None and self.bins is not None:
            raise InputError(
                "give either secret_tolerance or secret_bins (one success rule), not both"
            )
        try:
            object.__setattr__(self, "kind", ToleranceKind(self.kind))
        except ValueError:
            raise InputError(
                f"tolerance_kind must be absolute or relative, got {self.kind!r}"
            ) from None
        t = self.tolerance
        if t is not None:
            if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
                raise InputError(f"secret_tolerance must be a positive number, got {t!r}")
            if t <= 0:
                raise InputError(
                    f"secret_tolerance must be positive, got {t:g}: give how far from the true "
                    "value a guess may lie (e.g. 5000, or 0.1 with tolerance_kind relative)"
                )
            if self.kind is ToleranceKind.RELATIVE and t >= 1:
                raise InputError(
                    f"a relative secret_tolerance of {t:g} accepts a guess of 0 for every value: "
                    "give a fraction below 1 (0.1 = within 10 % of the true value)"
                )
        b = self.bins
        if b is not None and (
            isinstance(b, bool) or not isinstance(b, int | np.integer) or not 2 <= b <= MAX_CLASSES
        ):
            raise InputError(
                f"secret_bins must be a whole number from 2 to {MAX_CLASSES}, got {b!r}"
            )

    @property
    def n_bins(self) -> int:
        """Quantile bins the attacks guess among."""
        return int(self.bins) if self.bins is not None else TOLERANCE_BINS

    @property
    def mode(self) -> str:
        """``bin``, ``absolute`` or ``relative``."""
        return "bin" if self.tolerance is None else ToleranceKind(self.kind).value

    def describe(self) -> str:
        """The rule in words."""
        if self.tolerance is None:
            return f"the right one of {self.n_bins} quantile bins"
        if ToleranceKind(self.kind) is ToleranceKind.RELATIVE:
            return f"within {self.tolerance:.1%} of the true value"
        return f"within {self.tolerance:g} of the true value"

    def success(self) -> str:
        """When a guess counts as right, as the clause after "right when"."""
        if self.tolerance is None:
            return f"the guess names the right one of {self.n_bins} quantile bins"
        return f"the guess is {self.describe()}"

    def to_config(self) -> dict[str, Any]:
        return {
            "rule": self.mode,
            "tolerance": None if self.tolerance is None else float(self.tolerance),
            "bins": self.n_bins,
        }

    def hits(self, guess: np.ndarray, truth: np.ndarray) -> np.ndarray:
        """Whether each guessed value is right for each true value (tolerance rules; NaN is
        right only against NaN)."""
        g = np.asarray(guess, dtype=np.float64)
        v = np.asarray(truth, dtype=np.float64)
        t = float(self.tolerance or 0.0)
        with np.errstate(invalid="ignore"):
            if ToleranceKind(self.kind) is ToleranceKind.RELATIVE:
                ok = np.abs(g - v) <= t * np.abs(v)
            else:
                ok = np.abs(g - v) <= t
        return ok | (np.isnan(g) & np.isnan(v))

    def constant_rate(self, values: np.ndarray, weights: np.ndarray | None = None) -> float:
        """Success rate of the best constant guess on ``values`` (optionally weighted): the
        baseline of a tolerance rule for an adversary without the release. Candidates are 201
        quantiles of the values, 0 and missing."""
        v = np.asarray(values, dtype=np.float64)
        w = np.ones(v.size) if weights is None else np.asarray(weights, dtype=np.float64)
        if v.size == 0 or w.sum() <= 0:
            return float("nan")
        w = w / w.sum()
        fin = v[np.isfinite(v)]
        cands = np.unique(
            np.concatenate([np.quantile(fin, np.linspace(0, 1, 201)) if fin.size else [], [0.0]])
        )
        best = float(w[np.isnan(v)].sum())
        for c in np.array_split(cands, max(1, cands.size * v.size // 2_000_000 + 1)):
            rates = self.hits(c[:, None], v[None, :]) @ w
            best = max(best, float(rates.max(initial=0.0)))
        return best


def _secret_values(table: Table, secret: str) -> np.ndarray:
    return table.values[:, table.schema.continuous_names.index(secret)].astype(np.float64)


def validate_secret(
    schema: Schema,
    secret: str,
    quasi_ids: Sequence[str] | None = None,
    *,
    data: Table | None = None,
    max_classes: int = MAX_CLASSES,
    rule: SecretRule | None = None,
    left_out: Mapping[str, str] | None = None,
) -> list[str]:
    """Check a secret column and its quasi-identifiers before any attack runs; returns the
    quasi-identifiers (every other column when ``quasi_ids`` is empty).

    Cheap: reads the schema (and, with ``data``, the secret column only). Raises
    :class:`~synthleak.errors.InputError` naming the problem: unknown columns, a secret left out
    as an identifier or free text (``left_out``: column -> what it was left out as), a numeric
    secret without a success ``rule`` (or a categorical one with it), a secret among the
    quasi-identifiers, a repeated or missing quasi-identifier, a secret with one value or with
    more than ``max_classes`` classes, a tolerance under which one constant guess is right for
    almost every record.
    """
    names = list(schema.names)
    if left_out and secret in left_out:
        what = left_out[secret]
        raise InputError(
            f"secret {secret!r} was left out as {what}: attribute inference infers a property "
            "of a person, not a value unique to each record; choose another secret, or, if it "
            f"is not {what}, analyse the column with keep",
            parameter="secret",
        )
    if secret not in schema:
        raise InputError(
            f"secret {secret!r} is not a column: the columns are {', '.join(names)}",
            parameter="secret",
        )
    col = schema[secret]
    if not col.is_categorical and rule is None:
        raise InputError(
            f"secret {secret!r} is a numeric column: state when a guess counts as right with "
            "secret_tolerance (and tolerance_kind absolute or relative) or secret_bins (the "
            "right quantile bin), or declare the column categorical",
            parameter="secret",
        )
    qi = list(quasi_ids) if quasi_ids else [c for c in names if c != secret]
    unknown = [c for c in qi if c not in schema]
    if unknown:
        raise InputError(
            f"quasi_ids names unknown column(s) {', '.join(map(repr, unknown))}: "
            f"the columns are {', '.join(names)}"
        )
    if secret in qi:
        raise InputError(
            f"the secret {secret!r} cannot also be a quasi-identifier: remove it from quasi_ids"
        )
    if len(set(qi)) != len(qi):
        raise InputError("a quasi-identifier is listed twice in quasi_ids: list each column once")
    if not qi:
        raise InputError("attribute inference needs at least one quasi-identifier column")
    if rule is not None and not col.is_categorical:
        if data is not None:
            v = _secret_values(data, secret)
            if np.unique(v[np.isfinite(v)]).size + int(np.isnan(v).any()) < 2:
                raise InputError(
                    f"the secret {secret!r} takes a single value in the data: there is nothing "
                    "to infer; choose another secret"
                )
            finite = v[np.isfinite(v)]
            relative = rule.tolerance is not None and rule.kind is ToleranceKind.RELATIVE
            if relative and (finite < 0).any():
                raise InputError(
                    f"a relative secret_tolerance is ill-defined for {secret!r}, which takes "
                    f"negative values ({int((finite < 0).sum())} records): give an absolute "
                    "tolerance (tolerance_kind absolute) or secret_bins",
                    parameter="secret_tolerance",
                )
            if rule.bins is not None:
                distinct = int(np.unique(finite).size)
                if rule.bins > distinct:
                    raise InputError(
                        f"secret_bins {rule.bins} is more than the {distinct} distinct values of "
                        f"{secret!r}: give at most {distinct} bins, or declare the column "
                        "categorical",
                        parameter="secret_bins",
                    )
                edges = np.unique(np.quantile(finite, np.linspace(0, 1, rule.n_bins + 1)))
                b = np.clip(np.searchsorted(edges, finite, side="right") - 1, 0, edges.size - 2)
                top = float(np.bincount(b).max() / max(1, v.size)) if edges.size > 1 else 1.0
                if top >= MEANINGLESS_RATE:
                    raise InputError(
                        f"secret_bins {rule.bins} is meaningless for {secret!r}: its quantile "
                        f"bins collapse into one that holds {top:.0%} of the records (one value "
                        "dominates), so guessing it is almost always right; give a tolerance, "
                        "or declare the column categorical",
                        parameter="secret_bins",
                    )
            if rule.tolerance is not None:
                rate = rule.constant_rate(v)
                if rate >= MEANINGLESS_RATE:
                    raise InputError(
                        f"secret_tolerance {rule.tolerance:g} ({rule.mode}) is meaningless for "
                        f"{secret!r}: one constant guess is {rule.describe()} for {rate:.0%} of "
                        "the records; give a smaller tolerance"
                    )
        return qi
    n_values = col.size
    if data is not None:
        codes = data.codes[:, data.schema.categorical_names.index(secret)]
        n_values = int(np.unique(codes).size)
    if n_values < 2:
        raise InputError(
            f"the secret {secret!r} takes a single value in the data: there is nothing to infer; "
            "choose another secret"
        )
    if rule is not None:
        raise InputError(
            f"secret {secret!r} is categorical: secret_tolerance and secret_bins apply to a "
            "numeric secret; leave them out (a guess is right when it names the class)",
            parameter="secret",
        )
    if n_values > max_classes:
        raise InputError(
            f"the secret {secret!r} has {n_values} classes, more than the {max_classes} the "
            "attacks are run on: choose a secret with fewer classes or group its values"
        )
    return qi


@dataclass(frozen=True)
class AttributeCodes:
    """A table as discrete codes ``[X | y]`` for attribute inference.

    Attributes
    ----------
    codes : ndarray (n, F + 1)
        Quasi-identifier codes then the secret's class (``0 .. C - 1``).
    sizes : ndarray (F + 1,)
        Domain size of every column (the last is ``C``).
    schema : Schema
        All-categorical schema of the codes.
    quasi_ids : list of str
    labels : list of str
        The secret value of each class.
    """

    codes: np.ndarray
    sizes: np.ndarray
    schema: Schema
    quasi_ids: list[str]
    labels: list[str]
    rule: SecretRule | None = None
    values: np.ndarray | None = None  # a numeric secret's values (n,), float64
    edges: np.ndarray | None = None  # (C, 2) lower and upper edge of each class (NaN: missing)

    @property
    def n_classes(self) -> int:
        return int(self.sizes[-1])

    def representatives(self, rows: np.ndarray | slice) -> np.ndarray:
        """The value each class stands for: the median of the values of ``rows`` in it (the
        middle of its edges when none falls in it; NaN for the missing class)."""
        assert self.values is not None and self.edges is not None
        y, v = self.codes[rows, -1], self.values[rows]
        out = np.where(np.isnan(self.edges[:, 0]), np.nan, self.edges.mean(axis=1))
        for c in range(self.n_classes):
            inside = v[(y == c) & np.isfinite(v)]
            if inside.size:
                out[c] = float(np.median(inside))
        return out

    def correct(
        self, guess: np.ndarray, truth: np.ndarray, values: np.ndarray | None, reps: np.ndarray
    ) -> np.ndarray:
        """Whether each guess (class) is right under the rule: the class itself (categorical
        secrets, bin rule) or its representative value within the tolerance of ``values``."""
        if self.rule is None or self.rule.tolerance is None or values is None:
            return np.asarray(guess) == np.asarray(truth)
        return self.rule.hits(reps[np.asarray(guess, dtype=np.int64)], values)


def discretise(
    table: Table,
    bins: int,
    strategy: BinStrategy | str = BinStrategy.UNIFORM,
    *,
    fit: Table | None = None,
) -> tuple[np.ndarray, Schema]:
    """Codes (N, F) of every column and an all-categorical schema for them (bin indices).

    ``quantile`` bins are cut on ``fit`` (``table`` itself by default).
    """
    strategy = BinStrategy(strategy)
    disc = Discretiser(
        table.schema,
        bins,
        strategy.value,
        data=(fit if fit is not None else table) if strategy is BinStrategy.QUANTILE else None,
    )
    codes = disc.transform(table).astype(np.int64)
    cols = tuple(
        Column(c.name, ColumnKind.CATEGORICAL, categories=tuple(range(int(s))))
        for c, s in zip(table.schema.columns, disc.sizes, strict=True)
    )
    return codes, Schema(cols)


def attribute_codes(
    table: Table,
    secret: str,
    quasi_ids: Sequence[str] | None = None,
    *,
    bins: int = 10,
    bin_strategy: BinStrategy | str = BinStrategy.UNIFORM,
    fit: Table | None = None,
    rule: SecretRule | None = None,
    left_out: Mapping[str, str] | None = None,
) -> AttributeCodes:
    """Discretise ``table`` to ``[X | y]`` codes, classes re-coded to those present (``0..C-1``).

    ``fit`` (default ``table``) is the data quantile bins are cut on. A numeric secret needs a
    success ``rule`` (:class:`SecretRule`); it is cut into ``rule.n_bins`` quantile bins of
    ``fit`` (a missing value is a bin of its own) and its values are kept for the rule.
    """
    qi = validate_secret(
        table.schema,
        secret,
        quasi_ids,
        data=fit if fit is not None else table,
        rule=rule,
        left_out=left_out,
    )
    if int(bins) < 1:
        raise InputError(f"bins must be at least 1, got {bins}")
    try:
        strategy = BinStrategy(bin_strategy)
    except ValueError:
        raise InputError(
            f"bin_strategy must be one of {', '.join(BinStrategy)}, got {bin_strategy!r}"
        ) from None
    if rule is not None:
        return _numeric_codes(table, secret, qi, int(bins), strategy, fit, rule)
    sub = table.select([*qi, secret])
    codes, schema = discretise(
        sub, int(bins), strategy, fit=None if fit is None else fit.select([*qi, secret])
    )
    present = np.unique(codes[:, -1])
    codes[:, -1] = np.searchsorted(present, codes[:, -1])
    col = sub.schema[secret]
    labels = [
        str(col.categories[c]) if c < len(col.categories) else "<missing>" for c in present.tolist()
    ]
    cols = list(schema.columns)
    cols[-1] = Column(secret, ColumnKind.CATEGORICAL, categories=tuple(range(present.size)))
    schema = Schema(tuple(cols))
    sizes = np.array([c.size for c in schema.columns], dtype=np.int64)
    return AttributeCodes(codes, sizes, schema, qi, labels)


def _numeric_codes(
    table: Table,
    secret: str,
    qi: list[str],
    bins: int,
    strategy: BinStrategy,
    fit: Table | None,
    rule: SecretRule,
) -> AttributeCodes:
    """:func:`attribute_codes` of a numeric secret: quantile bins of ``fit`` as classes."""
    X, xschema = discretise(
        table.select(qi), bins, strategy, fit=None if fit is None else fit.select(qi)
    )
    v = _secret_values(table, secret)
    ref = _secret_values(fit if fit is not None else table, secret)
    ref = ref[np.isfinite(ref)]
    edges = np.unique(np.quantile(ref, np.linspace(0, 1, rule.n_bins + 1)))
    nb = edges.size - 1
    raw = np.clip(np.searchsorted(edges, v, side="right") - 1, 0, nb - 1)
    raw = np.where(np.isnan(v), nb, raw)
    present = np.unique(raw)
    y = np.searchsorted(present, raw)
    lo = np.array([edges[c] if c < nb else np.nan for c in present])
    hi = np.array([edges[c + 1] if c < nb else np.nan for c in present])
    labels = [
        "<missing>"
        if c >= nb
        else f"[{edges[c]:.6g}, {edges[c + 1]:.6g}{']' if c == nb - 1 else ')'}"
        for c in present.tolist()
    ]
    codes = np.column_stack([X.astype(np.int64), y.astype(np.int64)])
    cols = (
        *xschema.columns,
        Column(secret, ColumnKind.CATEGORICAL, categories=tuple(range(present.size))),
    )
    schema = Schema(tuple(cols))
    sizes = np.array([c.size for c in schema.columns], dtype=np.int64)
    return AttributeCodes(codes, sizes, schema, qi, labels, rule, v, np.column_stack([lo, hi]))


def singleton_rows(codes: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows whose values occur exactly once in ``codes`` (no other row is
    equal to them), e.g. records with unique quasi-identifiers."""
    arr = np.ascontiguousarray(np.asarray(codes).astype(np.int32))
    view = arr.view(np.dtype((np.void, arr.dtype.itemsize * arr.shape[1]))).ravel()
    _, inv, cnt = np.unique(view, return_inverse=True, return_counts=True)
    return cnt[inv.ravel()] == 1


def _guess(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Highest-scoring class per row, ties broken uniformly at random."""
    best = scores.max(axis=1, keepdims=True)
    tie = np.isclose(scores, best, rtol=0, atol=1e-9)
    pick = rng.random(scores.shape) * tie
    return np.argmax(pick, axis=1)


def _status(width: float, limit: float, n: int) -> tuple[Measurement, str]:
    if n == 0 or not np.isfinite(width):
        return Measurement.NOT_MEASURED, "no secret was attacked"
    if width > limit:
        return (
            Measurement.TOO_SMALL,
            f"the 95% interval is {width:.2f} wide, wider than the limit of {limit:.2f}: "
            "attack more secrets (more games, targets or records)",
        )
    return Measurement.MEASURED, ""


def _attack_config(name: str, attack: AttributeAttack) -> dict[str, Any]:
    """A JSON-able description of an attack (its name and hyperparameters)."""
    params = {
        k: (v if isinstance(v, bool | int | float | str | type(None)) else str(v))
        for k, v in vars(attack).items()
        if not k.endswith("_")
    }
    return {"name": name, "class": type(attack).__name__, "params": params}


def _check_attacks(
    attacks: list[tuple[str, AttributeAttack]], X: np.ndarray, sizes: np.ndarray
) -> None:
    """Fit a copy of every attack on a few rows: bad hyperparameters fail before any game."""
    few = X[: min(len(X), 8)]
    for _, attack in attacks:
        copy.deepcopy(attack).fit(few, sizes, rng=np.random.default_rng(0))


# --- results ----------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class AttackAccuracy(Result):
    """One attack at one synthetic size: accuracy against the randomised secret.

    Attributes
    ----------
    attack : str
    synthetic_size : int
    accuracy : RiskEstimate
        Accuracy with its Wilson interval over the attacked secrets (``n_trials``); its baseline
        is ``1 / C`` (the randomised secret cannot be guessed better without the release).
    auc : float
        AUC of the score of the second class (binary secrets; NaN otherwise or when undefined).
    n_games : int
        Games the attack finished at this size.
    n_failed : int
        Games where it failed (see the result's ``failures``).
    ci_width, max_ci_width : float
        Width of the accuracy interval and the documented limit (:data:`MAX_CI_WIDTH`).
    status : Measurement
    reason : str
        Why the figure is not a measurement ("" when it is).
    """

    attack: str
    synthetic_size: int
    accuracy: RiskEstimate
    auc: float
    n_games: int
    n_failed: int
    ci_width: float
    max_ci_width: float
    status: Measurement
    reason: str = ""


@dataclass(frozen=True, repr=False)
class AttackComparison(Result):
    """Attack ``a`` against attack ``b`` on the same secrets at one synthetic size.

    ``comparison`` holds the accuracy difference with a bootstrap interval over games (the
    targets of one game share ``S``) and the exact McNemar p-value.
    """

    synthetic_size: int
    a: str
    b: str
    comparison: PairedComparison


@dataclass(frozen=True, repr=False)
class SizeSummary(Result):
    """Utility of the synthetic data and the best attack at one synthetic size.

    Attributes
    ----------
    synthetic_size : int
    mre_gt10 : float
        Mean relative error over 3-way marginal cells with an original count above the
        threshold (the paper's MRE_{>10}), averaged over games.
    tvd3 : float
        Mean 3-way total variation distance, averaged over games.
    acc_max : float
        Highest accuracy over the attacks (the paper's Acc_max, Sec. 6.4); NaN if none finished.
    best_attack : str
    """

    synthetic_size: int
    mre_gt10: float
    tvd3: float
    acc_max: float
    best_attack: str


@dataclass(frozen=True, repr=False)
class AttackOutcomes(Result):
    """Every secret one attack attacked at one synthetic size (for further analysis).

    Attributes
    ----------
    attack : str
    synthetic_size : int
    game : IntArray
        Game of each attacked secret.
    target : IntArray
        Row of the target in its game's dataset ``D``.
    truth : IntArray
        The randomised secret (class index).
    guess : IntArray
        The attack's guess.
    scores : FloatArray
        ``(n, C)`` class scores.
    """

    attack: str
    synthetic_size: int
    game: IntArray
    target: IntArray
    truth: IntArray
    guess: IntArray
    scores: FloatArray


@dataclass(frozen=True, repr=False)
class Failure(Result):
    """A game, or one attack at one synthetic size of a game, that could not be played."""

    game: int
    synthetic_size: int | None
    attack: str | None
    reason: str


@dataclass(frozen=True, repr=False)
class AttributeGameResult(Result):
    """Outcome of :meth:`AttributeGame.run`.

    Attributes
    ----------
    config : dict
        Everything the run depended on (JSON-able).
    accuracies : tuple of AttackAccuracy
        One per synthetic size and attack (sizes in the order given, attacks in order).
    comparisons : tuple of AttackComparison
        Every pair of attacks at every size, on the secrets both attacked.
    sizes : tuple of SizeSummary
        Utility and Acc_max per synthetic size.
    failures : tuple of Failure
    outcomes : tuple of AttackOutcomes
        Per-secret truth, guesses and scores, one per synthetic size and attack.
    """

    config: dict[str, Any]
    accuracies: tuple[AttackAccuracy, ...]
    comparisons: tuple[AttackComparison, ...]
    sizes: tuple[SizeSummary, ...]
    failures: tuple[Failure, ...] = ()
    outcomes: tuple[AttackOutcomes, ...] = field(default=())

    def accuracy(self, attack: str, synthetic_size: int) -> AttackAccuracy:
        """The entry of ``attack`` at ``synthetic_size``."""
        for a in self.accuracies:
            if a.attack == attack and a.synthetic_size == synthetic_size:
                return a
        raise KeyError(f"no result for attack {attack!r} at synthetic size {synthetic_size}")

    def to_frame(self) -> pd.DataFrame:
        """One row per synthetic size and attack: accuracy, interval, baseline, AUC, status,
        counts and the utility of that size."""
        import pandas as pd

        util = {s.synthetic_size: s for s in self.sizes}
        rows = []
        for a in self.accuracies:
            u = util.get(a.synthetic_size)
            rows.append(
                {
                    "synthetic_size": a.synthetic_size,
                    "attack": a.attack,
                    "accuracy": a.accuracy.value,
                    "ci_low": a.accuracy.ci_low,
                    "ci_high": a.accuracy.ci_high,
                    "baseline": a.accuracy.baseline,
                    "auc": a.auc,
                    "n_targets": a.accuracy.n_trials,
                    "n_games": a.n_games,
                    "n_failed": a.n_failed,
                    "status": a.status.value,
                    "ci_width": a.ci_width,
                    "mre_gt10": u.mre_gt10 if u else float("nan"),
                    "tvd3": u.tvd3 if u else float("nan"),
                }
            )
        return pd.DataFrame(rows)


# --- the game ---------------------------------------------------------------------------------
def _play_game(shared: dict[str, Any], game: int) -> dict[str, np.ndarray]:
    """One attribute inference game (a work unit)."""
    cfg = shared["config"]
    codes: np.ndarray = shared["codes"]
    sizes: np.ndarray = shared["sizes"]
    schema: Schema = shared["schema"]
    attacks: list[tuple[str, AttributeAttack]] = shared["attacks"]
    seed, n = int(cfg["seed"]), int(cfg["train_size"])
    ms = [int(m) for m in cfg["synthetic_size"]]
    F = codes.shape[1] - 1
    C = int(sizes[F])
    rows = _DATA.rng(seed, scope=(game,)).choice(codes.shape[0], size=n, replace=False)
    D = codes[rows]
    X, y = D[:, :F], D[:, F]
    if np.unique(y).size < 2:
        raise GameFailure("the secret takes a single value in the sampled dataset D")
    uniq = np.flatnonzero(singleton_rows(X))
    if uniq.size == 0:
        raise GameFailure("no record of D has unique quasi-identifiers")
    rng_t = _TARGET.rng(seed, scope=(game,))
    k = min(int(cfg["targets_per_game"]), uniq.size)
    targets = np.sort(rng_t.choice(uniq, size=k, replace=False))
    y_new = y.copy()
    y_new[targets] = rng_t.integers(0, C, size=k)
    Dp = D.copy()
    Dp[:, F] = y_new
    try:
        gen = make_generator(cfg["generator"]).fit(
            Table.from_arrays(schema, Dp, None), rng=_FIT.rng(seed, scope=(game,))
        )
    except InputError:
        raise
    except Exception as exc:
        raise_if_interrupted(exc)
        raise GameFailure(
            f"generator {cfg['generator']} failed to fit: {type(exc).__name__}: {exc}"
        ) from exc
    fitted = [
        copy.deepcopy(attack).fit(X, sizes[:F], rng=_ATTACK_FIT.rng(seed, i, scope=(game,)))
        for i, (_, attack) in enumerate(attacks)
    ]
    marg = (
        random_marginals(
            F + 1, 3, int(cfg["utility_marginals"]), rng=_UTILITY.rng(seed, scope=(game,))
        )
        if F + 1 >= 3
        else np.zeros((0, 3), dtype=np.int64)
    )
    out: dict[str, np.ndarray] = {
        "truth": y_new[targets].astype(np.int64),
        "targets": targets.astype(np.int64),
    }
    pools = shared.get("class_values")
    if pools is not None:  # a numeric secret under a tolerance: a value of the random class
        out["truth_value"] = np.array(
            [pools[c][rng_t.integers(pools[c].size)] for c in out["truth"]], dtype=np.float64
        )
    M = len(ms)
    mre, tvd = np.full(M, np.nan), np.full(M, np.nan)
    scores = np.full((len(attacks), M, k, C), np.nan)
    guesses = np.full((len(attacks), M, k), -1, dtype=np.int64)
    fails = [["" for _ in ms] for _ in attacks]
    for mi, m in enumerate(ms):
        S = gen.sample(m, rng=_SAMPLE.rng(seed, m, scope=(game,))).codes.astype(np.int64)
        for i, attack in enumerate(fitted):
            rng_a = _ATTACK.rng(seed, m, i, scope=(game,))
            try:
                sc = attack.score(S[:, :F], S[:, F], targets, C, rng=rng_a)
            except ReconstructionFailure as exc:
                fails[i][mi] = str(exc)
                continue
            scores[i, mi] = sc
            guesses[i, mi] = _guess(sc, rng_a)
        if len(marg):
            mre[mi] = mre_from_codes(D, S, sizes, marg, float(cfg["mre_threshold"]))
            tvd[mi] = tvd_from_codes(D, S, sizes, marg)
    out["scores"], out["guess"] = scores, guesses
    out["fail"] = np.array(fails, dtype="U200").reshape(len(attacks), M)
    out["mre"], out["tvd"] = mre, tvd
    return out


def _reason(error: str) -> str:
    """A unit's error as a plain reason: known failures without their class, no source line."""
    head, _, rest = error.partition(": ")
    msg = rest if head in ("GameFailure", "ReconstructionFailure") else error
    return re.sub(r" at [\w.]+\.py:\d+$", "", msg)


def _parse_sizes(synthetic_size: int | Sequence[int]) -> list[int]:
    if isinstance(synthetic_size, int | np.integer):
        sizes = [int(synthetic_size)]
    else:
        sizes = [int(v) for v in synthetic_size]
    if not sizes or any(v < 1 for v in sizes):
        raise InputError(f"synthetic_size must be positive integers, got {sizes}")
    return list(dict.fromkeys(sizes))


class AttributeGame:
    """Attribute Inference Privacy Game with a randomised secret, swept over synthetic sizes.

    Parameters
    ----------
    generator : str
        Generator spec (``nonprivate``, ``indhist``, ``baynet:k=2``, ``rap``, ...).
    secret : str
        The secret column (categorical; binary in the paper, up to :data:`MAX_CLASSES` here).
    quasi_ids : sequence of str, optional
        Quasi-identifier columns (default: every other column).
    train_size : int
        Records in each original dataset ``D`` (the paper's n = 1000).
    synthetic_size : int or sequence of int
        Synthetic records released (the paper's m); several run the sweep of the paper's
        Sec. 6.3 with one generator fit per game.
    n_games : int
        Games played (500 in the paper).
    attacks : sequence of str or AttributeAttack
        Registered attribute attacks (``recon``, ``dcr``, ``infer``) or unfitted attack objects.
    attack_params : dict, optional
        Hyperparameters per attack name, e.g. ``{"recon": {"query_mode": "marginal",
        "n_queries": 1000, "time_limit": 120}, "infer": {"model": "hgb"}}``.
    targets_per_game : int
        Distinct unique targets randomised in each game (1 = the paper's game).
    bins, bin_strategy :
        Discretisation of continuous columns.
    utility_marginals : int
        Random 3-way marginals for MRE_{>10} and 3-TVD (same set for every size of a game).
    mre_threshold : float
        Original count above which a marginal cell enters MRE (10 in the paper).
    max_ci_width : float
        Widest accuracy interval read as a measurement (:data:`MAX_CI_WIDTH`).
    max_seconds : float, optional
        Wall-time limit: the first game is timed and only the games that fit are played (at
        least one; games kept in the run directory take no time). The result then depends on
        the machine's speed; ``config["n_games"]`` says how many were played and
        ``config["n_games_requested"]`` how many were asked for.
    min_games : int
        Games played whatever ``max_seconds`` (1 by default): a floor that keeps the intervals
        measurable when the limit is a budget's allowance rather than a hard cap.
    log : callable, optional
        Receives the projected time and progress lines (the audit prints them).
    secret_rule : SecretRule, optional
        When a guess of a numeric secret counts as right (required for a numeric secret). The
        secret is cut into quantile bins of the data, the generator trains on the bins and the
        target's bin is randomised uniformly. Under the bin rule the baseline stays ``1 / C``.
        Under a tolerance the target's secret is a uniform value of the data inside its random
        bin, a guessed bin stands for the data's median in it, and the baseline is the success
        rate of the best constant guess against that randomised secret (``config["baseline"]``).

    Notes
    -----
    Threat model: no-box (the adversary sees the synthetic data only), partially informed (the
    quasi-identifiers of every record of ``D``, not the target's secret). The target's secret is
    randomised, so any accuracy above ``1 / C`` is individual-level leakage, not population-level
    inference.

    References
    ----------
    Annamalai et al. (2024), Sec. 4.1 and 6.
    """

    def __init__(
        self,
        generator: str,
        secret: str,
        quasi_ids: Sequence[str] | None = None,
        *,
        train_size: int = 1000,
        synthetic_size: int | Sequence[int] = (100_000,),
        n_games: int = 500,
        attacks: Sequence[str | AttributeAttack] = ("recon", "dcr", "infer"),
        attack_params: Mapping[str, Mapping[str, Any]] | None = None,
        targets_per_game: int = 1,
        bins: int = 10,
        bin_strategy: BinStrategy | str = BinStrategy.UNIFORM,
        utility_marginals: int = 50,
        mre_threshold: float = 10.0,
        max_ci_width: float = MAX_CI_WIDTH,
        max_seconds: float | None = None,
        min_games: int = 1,
        log: Callable[[str], None] | None = None,
        secret_rule: SecretRule | None = None,
    ) -> None:
        self.secret_rule = secret_rule
        self.max_seconds = max_seconds
        self.min_games = min_games
        self.log = log
        self.generator = generator
        self.secret = secret
        self.quasi_ids = quasi_ids
        self.train_size = train_size
        self.synthetic_size = synthetic_size
        self.n_games = n_games
        self.attacks = attacks
        self.attack_params = attack_params
        self.targets_per_game = targets_per_game
        self.bins = bins
        self.bin_strategy = bin_strategy
        self.utility_marginals = utility_marginals
        self.mre_threshold = mre_threshold
        self.max_ci_width = max_ci_width

    def _validate(
        self, table: Table
    ) -> tuple[AttributeCodes, list[tuple[str, AttributeAttack]], list[int]]:
        """Everything cheap, before any game: columns, sizes, attacks, generator spec."""
        codes = attribute_codes(
            table,
            self.secret,
            self.quasi_ids,
            bins=self.bins,
            bin_strategy=self.bin_strategy,
            rule=self.secret_rule,
        )
        if not 1 <= int(self.train_size) <= len(table):
            raise InputError(
                f"train_size must be between 1 and the {len(table)} records of the data, "
                f"got {self.train_size}"
            )
        if int(self.n_games) < 1:
            raise InputError(f"n_games must be at least 1, got {self.n_games}")
        if int(self.targets_per_game) < 1:
            raise InputError(f"targets_per_game must be at least 1, got {self.targets_per_game}")
        if not self.max_ci_width > 0:
            raise InputError(f"max_ci_width must be positive, got {self.max_ci_width}")
        ms = _parse_sizes(self.synthetic_size)
        given = [self.attacks] if isinstance(self.attacks, str) else list(self.attacks)
        bad = [a for a in given if not isinstance(a, str | AttributeAttack)]
        if bad:
            raise InputError(
                "attacks must be registered attribute attack names or AttributeAttack objects, "
                f"got {type(bad[0]).__name__}"
            )
        attacks = cast(
            list[tuple[str, AttributeAttack]],
            resolve_attacks(
                AttackFamily.ATTRIBUTE,
                given,
                {k: dict(v) for k, v in (self.attack_params or {}).items()},
            ),
        )
        unknown = sorted(set(self.attack_params or {}) - {n for n, _ in attacks})
        if unknown:
            raise InputError(
                f"attack_params names {unknown}, which are not among the attacks "
                f"{[n for n, _ in attacks]}: give parameters only for attacks that run"
            )
        make_generator(self.generator)  # validates the spec early (InputError)
        _check_attacks(attacks, codes.codes[:, :-1], codes.sizes[:-1])
        return codes, attacks, ms

    def run(
        self,
        data: pd.DataFrame | Table,
        *,
        seed: int,
        runtime: Runtime | None = None,
    ) -> AttributeGameResult:
        """Play ``n_games`` games and aggregate accuracy, AUC and utility per synthetic size.

        Parameters
        ----------
        data : DataFrame or Table
            The population the original datasets are sampled from.
        seed : int
            Run seed: same seed, same result whatever the runtime.
        runtime : Runtime, optional
            Workers, Dask cluster, resumable run directory, progress bars.

        Notes
        -----
        Games are work units ``game-000000``, ``game-000001``, ... kept in the run directory as
        they finish, under a configuration that leaves out ``n_games``: an interrupted run, or
        one asked for more games, reuses every finished game, with the same result as a run
        that played them all at once.
        """
        max_seconds = self.max_seconds
        if max_seconds is not None and not (
            isinstance(max_seconds, int | float) and max_seconds > 0
        ):
            raise InputError(f"max_seconds must be a positive number, got {max_seconds!r}")
        min_games = self.min_games
        if (
            isinstance(min_games, bool)
            or not isinstance(min_games, int | np.integer)
            or min_games < 1
        ):
            raise InputError(f"min_games must be a whole number of at least 1, got {min_games!r}")
        rt = as_runtime(runtime)
        table = as_table(data)
        prep, attacks, ms = self._validate(table)
        n = int(self.train_size)
        first = _DATA.rng(int(seed), scope=(0,)).choice(prep.codes.shape[0], size=n, replace=False)
        if not singleton_rows(prep.codes[first, :-1]).any():
            raise InputError(
                "no record has unique quasi-identifiers in a sampled dataset: "
                "add quasi-identifiers, use more bins or a larger train_size"
            )
        config: dict[str, Any] = {
            "game": "attribute",
            "generator": self.generator,
            "secret": self.secret,
            "secret_classes": prep.labels,
            "quasi_ids": prep.quasi_ids,
            "train_size": n,
            "synthetic_size": ms,
            "n_games": int(self.n_games),
            "attacks": [_attack_config(name, a) for name, a in attacks],
            "targets_per_game": int(self.targets_per_game),
            "bins": int(self.bins),
            "bin_strategy": BinStrategy(self.bin_strategy).value,
            "utility_marginals": int(self.utility_marginals),
            "mre_threshold": float(self.mre_threshold),
            "max_ci_width": float(self.max_ci_width),
            "seed": int(seed),
            "data_rows": int(prep.codes.shape[0]),
            "data_sha256": hashlib.sha256(np.ascontiguousarray(prep.codes).tobytes()).hexdigest()[
                :16
            ],
        }
        shared: dict[str, Any] = {
            "config": config,
            "codes": prep.codes,
            "sizes": prep.sizes,
            "schema": prep.schema,
            "attacks": attacks,
        }
        rule = self.secret_rule
        judge: tuple[SecretRule, np.ndarray, float] | None = None
        if rule is not None:
            config["secret_rule"] = rule.to_config()
            if rule.tolerance is not None:
                # the randomised secret: a uniform class, then a uniform value of the data in
                # it; each class stands for the median of the data's values in it
                assert prep.values is not None
                y, v = prep.codes[:, -1], prep.values
                C = prep.n_classes
                pools = [v[y == c] for c in range(C)]
                weights = 1.0 / (C * np.bincount(y, minlength=C)[y])
                reps = prep.representatives(slice(None))
                judge = (rule, reps, rule.constant_rate(v, weights))
                shared["class_values"] = pools
                config["secret_values"] = [float(x) for x in reps]
                config["baseline"] = judge[2]
        units = [WorkUnit(f"game-{g:06d}", (g,)) for g in range(int(self.n_games))]
        store = rt.store({k: v for k, v in config.items() if k != "n_games"})
        try:
            out = _run_logged(
                rt,
                _play_game,
                units,
                shared=shared,
                store=store,
                description=f"attribute inference games of '{self.secret}'",
                what="games",
                log=self.log,
                max_seconds=max_seconds,
                min_units=min(int(min_games), len(units)),
            )
            if len(out) < len(units):
                config = {**config, "n_games": len(out), "n_games_requested": len(units)}
            result = _aggregate(
                config, out, [name for name, _ in attacks], ms, prep.n_classes, judge
            )
            if store is not None:
                store.write_json("result.json", result.to_dict())
        finally:
            if store is not None:
                store.close()
        return result


def _compare(
    seed: int, names: list[str], per: dict[str, dict[str, np.ndarray]], mi: int, m: int
) -> list[AttackComparison]:
    """Paired comparison of every two attacks at size index ``mi`` on the secrets both scored.

    Accuracy difference with a bootstrap CI that resamples whole games (the targets of one game
    share ``S``) and an exact McNemar p-value: "a beats b" is a claim about this difference.
    """
    out = []
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            b = names[j]
            both = per[a]["ok"] & per[b]["ok"]
            if not both.any():
                continue
            cmp = paired_accuracy_difference(
                per[a]["correct"][both],
                per[b]["correct"][both],
                clusters=per[a]["game"][both],
                rng=_COMPARE.rng(seed, mi, i, j),
            )
            out.append(AttackComparison(m, a, b, cmp))
    return out


def _aggregate(
    config: dict[str, Any],
    out: dict[str, Any],
    names: list[str],
    ms: list[int],
    C: int,
    judge: tuple[SecretRule, np.ndarray, float] | None = None,
) -> AttributeGameResult:
    """Accuracies per size and attack. ``judge`` (a numeric secret under a tolerance): the
    rule, the value each class stands for and the baseline (best constant guess)."""
    failures: list[Failure] = []
    games: dict[int, dict[str, np.ndarray]] = {}
    for key, r in sorted(out.items()):
        g = int(key.split("-")[1])
        if not r.ok:
            failures.append(Failure(g, None, None, _reason(r.error or "")))
            continue
        games[g] = r.arrays
    if not games:
        reasons = sorted({f.reason for f in failures})
        raise InputError(
            f"every game failed ({'; '.join(reasons)[:300]}): check the data and options"
        )
    order = sorted(games)
    truth = np.concatenate([games[g]["truth"] for g in order])
    truth_value = (
        np.concatenate([games[g]["truth_value"] for g in order]) if judge is not None else None
    )
    target = np.concatenate([games[g]["targets"] for g in order])
    game_of = np.concatenate([np.full(games[g]["truth"].size, g) for g in order])
    limit = float(config["max_ci_width"])
    seed = int(config["seed"])
    accuracies, comparisons, sizes, outcomes = [], [], [], []
    for mi, m in enumerate(ms):
        per: dict[str, dict[str, np.ndarray]] = {}
        for i, name in enumerate(names):
            fail = np.concatenate(
                [np.full(games[g]["truth"].size, str(games[g]["fail"][i, mi])) for g in order]
            )
            for g in order:
                reason = str(games[g]["fail"][i, mi])
                if reason:
                    failures.append(Failure(g, m, name, reason))
            ok = fail == ""
            guess = np.concatenate([games[g]["guess"][i, mi] for g in order])
            scores = np.concatenate([games[g]["scores"][i, mi] for g in order])
            if judge is None or truth_value is None:
                correct = guess == truth
            else:
                correct = judge[0].hits(judge[1][guess], truth_value)
            per[name] = {"ok": ok, "correct": correct, "game": game_of}
            n_failed = sum(1 for g in order if str(games[g]["fail"][i, mi]))
            est = accuracy_estimate(
                correct[ok], baseline=1.0 / C if judge is None else judge[2], test=True
            )
            width = est.ci_high - est.ci_low
            status, reason = _status(width, limit, int(ok.sum()))
            if not ok.any():
                reason = f"the attack failed in every game ({fail[0]})"
            t, s = truth[ok], scores[ok]
            auc_v = auc(t, s[:, 1]) if C == 2 and np.unique(t).size == 2 else float("nan")
            accuracies.append(
                AttackAccuracy(
                    name,
                    m,
                    est,
                    auc_v,
                    len(order) - n_failed,
                    n_failed,
                    width,
                    limit,
                    status,
                    reason,
                )
            )
            outcomes.append(
                AttackOutcomes(name, m, game_of[ok], target[ok], t, guess[ok], s.astype(float))
            )
        comparisons += _compare(seed, names, per, mi, m)
        mre = np.array([games[g]["mre"][mi] for g in order])
        tvd = np.array([games[g]["tvd"][mi] for g in order])
        done = [a for a in accuracies[-len(names) :] if a.accuracy.n_trials]
        best = max(done, key=lambda a: a.accuracy.value) if done else None
        sizes.append(
            SizeSummary(
                m,
                float(np.nanmean(mre)) if np.isfinite(mre).any() else float("nan"),
                float(np.nanmean(tvd)) if np.isfinite(tvd).any() else float("nan"),
                best.accuracy.value if best else float("nan"),
                best.attack if best else "",
            )
        )
    return AttributeGameResult(
        config,
        tuple(accuracies),
        tuple(comparisons),
        tuple(sizes),
        tuple(sorted(failures, key=lambda f: (f.game, f.synthetic_size or 0, f.attack or ""))),
        tuple(outcomes),
    )


# --- the release audit ------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class TargetOutcomes(Result):
    """The attacked people of one world of :class:`ReleaseAttributeGame`.

    Attributes
    ----------
    rows : IntArray
        Rows of the original (training) data, or of the control data, that were attacked.
    truth, guess : IntArray
        Their secret (class index) and the attack's guess.
    scores : FloatArray
        ``(n, C)`` class scores.
    right : IntArray or None
        1 where the guess counts as right under the game's rule.
    population_right : IntArray or None
        1 where a classifier trained on the control records alone (what the population's
        statistics let anyone infer, without the release) guesses the secret right under the
        same rule; ``None`` unless the game was asked for it (``population_baseline``).
    """

    rows: IntArray
    truth: IntArray
    guess: IntArray
    scores: FloatArray
    right: IntArray | None = None
    population_right: IntArray | None = None


@dataclass(frozen=True, repr=False)
class ReleaseAttributeResult(Result):
    """Outcome of :meth:`ReleaseAttributeGame.run`.

    Attributes
    ----------
    config : dict
    attack : str
    synthetic_size : int
        Records in the release.
    status : Measurement
        ``measured``; ``too small to measure`` when the interval of the difference is wider
        than ``max_ci_width``; ``not measured`` without control records or when the attack
        failed (``reason`` says what is needed).
    reason : str
    accuracy : RiskEstimate
        Accuracy on the attacked training records (Wilson interval); its baseline is the
        control accuracy (NaN when not measured).
    control_accuracy : RiskEstimate
        Accuracy on control records swapped into the training data (Wilson interval; baseline
        ``1 / C``): what the attack achieves on people the generator never saw.
    difference : AccuracyDifference
        ``accuracy - control_accuracy`` with Newcombe's interval and a one-sided p-value: the
        leak. The release leaks when the whole interval lies above 0.
    auc, control_auc : float
        AUC of the score of the second class on each group (binary secrets; NaN otherwise).
    ci_width, max_ci_width : float
        Width of the interval of ``difference`` and the documented limit.
    n_classes : int
    majority_rate : float
        Share of the most common secret class among the training records (what always guessing
        it achieves), for context.
    mre_gt10, tvd3 : float
        Utility of the release against the training data (3-way marginals).
    failures : tuple of str
    training, control : TargetOutcomes or None
        Per-person outcomes of each world.
    """

    config: dict[str, Any]
    attack: str
    synthetic_size: int
    status: Measurement
    reason: str
    accuracy: RiskEstimate
    control_accuracy: RiskEstimate
    difference: AccuracyDifference
    auc: float
    control_auc: float
    ci_width: float
    max_ci_width: float
    n_classes: int
    majority_rate: float
    mre_gt10: float
    tvd3: float
    failures: tuple[str, ...] = ()
    training: TargetOutcomes | None = None
    control: TargetOutcomes | None = None

    @property
    def advantage(self) -> RiskEstimate:
        """``difference`` as a risk figure against a baseline of 0 (for findings and reports),
        with the difference's one-sided score-test p-value."""
        d = self.difference
        p = float(d.p_value) if math.isfinite(d.p_value) else math.nan
        return RiskEstimate(d.difference, d.ci_low, d.ci_high, d.confidence, d.n_a + d.n_b, 0.0, p)

    def to_frame(self) -> pd.DataFrame:
        """One row (the release's size and the attack)."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "synthetic_size": self.synthetic_size,
                    "attack": self.attack,
                    "accuracy": self.accuracy.value,
                    "ci_low": self.accuracy.ci_low,
                    "ci_high": self.accuracy.ci_high,
                    "baseline": self.control_accuracy.value,
                    "baseline_ci_low": self.control_accuracy.ci_low,
                    "baseline_ci_high": self.control_accuracy.ci_high,
                    "difference": self.difference.difference,
                    "difference_ci_low": self.difference.ci_low,
                    "difference_ci_high": self.difference.ci_high,
                    "p_value": self.difference.p_value,
                    "auc": self.auc,
                    "n_targets": self.accuracy.n_trials,
                    "n_control_targets": self.control_accuracy.n_trials,
                    "status": self.status.value,
                    "ci_width": self.ci_width,
                    "mre_gt10": self.mre_gt10,
                    "tvd3": self.tvd3,
                }
            ]
        )


def _matching(codes: np.ndarray, fixed: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Rows of ``codes`` (quasi-identifier columns first) holding every ``(column, code)`` of
    ``fixed``."""
    mask = np.ones(codes.shape[0], dtype=bool)
    for j, v in fixed:
        mask &= codes[:, j] == v
    return mask


#: A part of :class:`ReleaseAttributeGame`: training rows, positions swapped for control records,
#: those control rows, and the ``(column, code)`` values its records share.
_Part = tuple[np.ndarray, np.ndarray, np.ndarray, tuple[tuple[int, int], ...]]


def _release_parts(
    X: np.ndarray, X_ctl: np.ndarray, asked: int, size: int, seed: int
) -> list[_Part]:
    """The parts of :class:`ReleaseAttributeGame`: ``(rows, swapped, control rows, fixed)``.

    The training records are split into blocks of at most ``size`` records that share the
    values ``fixed`` of some quasi-identifiers (:func:`split_blocks`, deterministic), and whole
    blocks are attacked, in a random order, until at least ``asked`` records are (all blocks
    when ``asked`` is every record). A part's linear programs read the release's records with
    the same values, whose counts describe exactly the part's records when the release copies
    them; a random part of a large training set read against the whole release's rescaled
    counts learns little more than the population's statistics (a verbatim copy of 40,000
    Adult records, 1,000 attacked: an excess of 0.054 with random parts, 0.19 with parts by
    value). In each part, control records holding the part's values (none is used twice) are
    swapped in for as many of its records chosen at random, so both worlds read the same
    statistics."""
    from synthleak.attacks.aia_reconstruction import split_blocks

    blocks = split_blocks(X, size)
    order = (
        np.arange(len(blocks))
        if asked >= X.shape[0]
        else _RELEASE_TARGETS.rng(seed).permutation(len(blocks))
    )
    rng = _RELEASE_SWAP.rng(seed)
    free = np.ones(X_ctl.shape[0], dtype=bool)
    out: list[_Part] = []
    total = 0
    for b in order:
        if total >= asked:
            break
        rows, fixed = blocks[int(b)]
        match = np.flatnonzero(_matching(X_ctl, fixed) & free)
        n = min(rows.size, match.size)
        swapped = np.sort(rng.choice(rows.size, n, replace=False))
        ctl_rows = rng.choice(match, n, replace=False).astype(np.int64)
        free[ctl_rows] = False
        out.append((rows.astype(np.int64), swapped, ctl_rows, tuple(fixed)))
        total += rows.size
    return out


def _play_part(shared: dict[str, Any], world: int, part: int) -> dict[str, np.ndarray]:
    """Fit the attack on one part of one world's quasi-identifiers and attack its targets
    (a work unit): world 0 attacks every record of the part, world 1 the control records
    swapped into it."""
    seed = int(shared["seed"])
    rows, swapped, ctl_rows, fixed = shared["parts"][part]
    X = shared["original"][rows].copy()
    targets = np.arange(rows.size)
    if world == 1:
        X[swapped] = shared["control"][ctl_rows]
        targets = swapped
    S: np.ndarray = shared["synthetic"]
    sizes: np.ndarray = shared["sizes"]
    C = int(sizes[-1])
    S = S[_matching(S, fixed)]  # the release's records with the part's shared values
    if not len(S):  # the release has nobody like them: it tells nothing about their secrets
        rng0 = _RELEASE_SCORE.rng(seed, world, part)
        flat = np.full((targets.size, C), 1.0 / C)
        return {"scores": flat, "guess": _guess(flat, rng0)}
    attack = copy.deepcopy(shared["attack"]).fit(
        X, sizes[:-1], rng=_RELEASE_FIT.rng(seed, world, part)
    )
    rng = _RELEASE_SCORE.rng(seed, world, part)
    scores = attack.score(S[:, :-1], S[:, -1], targets, C, rng=rng)
    return {"scores": np.asarray(scores, dtype=np.float64), "guess": _guess(scores, rng)}


def _run_logged(
    rt: Runtime,
    fn: Any,
    units: list[WorkUnit],
    *,
    shared: Any,
    store: Any,
    description: str,
    what: str,
    log: Callable[[str], None] | None,
    max_seconds: float | None = None,
    min_units: int = 1,
) -> dict[str, Any]:
    """Run ``units``, saying how long they will take and how far they are.

    Without ``log`` and ``max_seconds`` this is :meth:`Runtime.run`. Otherwise the first unit
    to compute runs alone and its wall time projects the rest (on the runtime's workers); with
    ``max_seconds`` only the leading units that fit in it are run (at least ``min_units``).
    The rest run in about ten chunks, each followed by a line with the units done and the time
    left. Finished units are kept in the run store as they finish, so an interrupted run resumes
    where it stopped; units reloaded from the store are counted as done and take no time.
    """
    if (log is None and max_seconds is None) or not units:
        return rt.run(fn, units, shared=shared, store=store, description=description)
    from synthleak.games.cost import format_seconds

    say: Callable[[str], None] = log or (lambda _line: None)
    quiet = replace(rt, progress=False)
    workers = max(1, int(rt.workers))
    kept = store.done() if store is not None else set()
    reloaded = [u for u in units if u.key in kept]
    todo = [u for u in units if u.key not in kept]
    out: dict[str, Any] = {}
    if reloaded:
        out.update(quiet.run(fn, reloaded, shared=shared, store=store, description=description))
        say(
            f"{description}: {len(reloaded)} of {len(units)} {what} reloaded from the run directory"
        )
    if not todo:
        return out
    t0 = time.perf_counter()
    out.update(quiet.run(fn, todo[:1], shared=shared, store=store, description=description))
    first = time.perf_counter() - t0
    rest = todo[1:]
    total = len(units)
    if rest and max_seconds is not None:
        fit = max(0, math.floor((float(max_seconds) - first) / max(first, 1e-9))) * workers
        floor = min_units - 1 - len(reloaded)
        if fit < len(rest):
            rest = rest[: max(fit, floor)]
            total = len(reloaded) + 1 + len(rest)
            say(
                f"{description}: {len(reloaded) + 1 + fit} of {len(units)} {what} fit the time "
                f"limit of {format_seconds(float(max_seconds))} (the first took {first:.1f} s)"
                + (f"; {total} are played, the floor" if floor > fit else "")
            )
    if rest:
        projected = first * math.ceil(len(rest) / workers)
        say(
            f"{description}: projected time {format_seconds(first + projected)} for "
            f"{len(rest) + 1} {what} (the first took {first:.1f} s; {workers} worker(s))"
        )
    chunk = max(workers, math.ceil(len(rest) / 10))
    started = time.perf_counter()
    for i in range(0, len(rest), chunk):
        part = rest[i : i + chunk]
        out.update(quiet.run(fn, part, shared=shared, store=store, description=description))
        done = i + len(part)
        left = (time.perf_counter() - started) / done * (len(rest) - done)
        say(
            f"{description}: {len(reloaded) + 1 + done} of {total} {what} done"
            + (f", about {format_seconds(left)} left" if done < len(rest) else "")
        )
    return out


def _nan_estimate(baseline: float | None = None) -> RiskEstimate:
    nan = float("nan")
    return RiskEstimate(nan, nan, nan, 0.95, 0, baseline)


@dataclass(frozen=True)
class _Judge:
    """Truth and success of guesses on training or control rows under the secret's rule."""

    prep: AttributeCodes
    reps: np.ndarray
    truth: tuple[np.ndarray, np.ndarray]  # classes of the training and of the control rows
    values: tuple[np.ndarray | None, np.ndarray | None]  # their values (numeric secrets)

    def __call__(
        self, rows: np.ndarray, guess: np.ndarray, *, control: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        truth = self.truth[int(control)][rows]
        vals = self.values[int(control)]
        return truth, self.prep.correct(
            guess, truth, None if vals is None else vals[rows], self.reps
        )


class ReleaseAttributeGame:
    """Attribute inference on a released synthetic dataset, against a control baseline.

    Parameters
    ----------
    secret : str
        The secret column (categorical, at most :data:`MAX_CLASSES` classes).
    quasi_ids : sequence of str, optional
        What the adversary knows of every training record (default: every other column).
    attack : str or AttributeAttack
        A registered attribute attack (``recon`` by default, ``dcr``, ``infer``) or an unfitted
        attack object.
    attack_params : dict, optional
        Hyperparameters of a named attack (``{"time_limit": 120}``).
    n_targets : int, optional
        Training records attacked (all by default): whole parts (see ``part_size``) are
        attacked, in a random order, until at least this many records are, so the records
        attacked (``config["n_targets"]``) may exceed it by less than a part. In each part, as
        many control records holding the part's shared values as there are (at most the part's
        records, none used twice) are swapped in for random records of the part in the control
        world and attacked. The cost grows with it (see ``part_size``), so budgets bound it.
    bins, bin_strategy :
        Discretisation of continuous columns. ``quantile`` bins (of the quasi-identifiers and of
        a numeric secret) are cut on the release, which is what the adversary sees: cut on the
        training data, they fit the training records' sample noise and not the control
        records', which biased the excess downwards (measured on Adult: a mean null excess of
        -0.019 against +0.003 for the same seeds with a numeric secret under a tolerance).
    utility_marginals : int
        Random 3-way marginals for MRE_{>10} and 3-TVD of the release.
    part_size : int
        The training records are split into parts of at most this many records that share the
        values of some quasi-identifiers (split on the column with the fewest values, then the
        next, as the reconstruction attack's own blocks), and each part is attacked on its own
        against the release's records with the same values (one work unit per part and world:
        one linear program per class for ``recon``, whose size grows with the part's records
        times its queries). The release's counts restricted to a part's values describe exactly
        that part's records when it copies them, so a part loses nothing of the whole game; a
        random part read against the whole release's rescaled counts lost most of a copy's
        signal on large training sets. Parts are kept in the run directory as they finish.
    log : callable, optional
        Receives the projected time and progress lines (the audit prints them).
    max_ci_width : float
        Widest interval of the difference read as a measurement (:data:`MAX_CI_WIDTH`).
    max_seconds : float, optional
        Wall-time limit: after the first part, only the parts that fit in it are attacked (a
        part's training and control units together), and the result is measured on them
        (``config["n_parts_run"]``). Without it every part runs.
    population_baseline : bool
        Also guess each attacked training record's secret with a classifier (``infer``)
        trained on the control records only, and keep whether it was right
        (``training.population_right``): a record the attack infers from the release while
        the population's statistics do not is inferred beyond that baseline.

    Notes
    -----
    Threat model: no-box (the release only), partially informed: the adversary knows the
    quasi-identifiers of every training record (not their secrets), as in Annamalai et al.
    (2024), Sec. 4.1; Adv_recon needs them all, since the release's statistics describe the
    whole training data. The baseline is the same attack with control records swapped in for a
    random set of training records (see the module docstring): a release that reveals nothing
    about its training records gives both groups the same expected accuracy, whatever the
    population-level predictability of the secret, the secret's balance or the sizes of the
    training and control sets. The control set must be real records of the same population that
    the generator never saw.

    Calibration (``benchmarks/RESULTS_aia_release.md``): with a disjoint real sample as the
    release, 11 of 420 runs on seven real datasets and secrets at training:control ratios 1:1,
    4:1 and 10:1 were flagged (2.6%, nominal 2.5%), with no bias in the mean difference; a copy
    and a bootstrap resample of the training data were flagged in every setting. Newcombe's
    interval treats the attacked records as independent; one linear program couples them, and
    the measured spread of the null difference was 0.7 to 1.4 times the interval's standard error.
    Numeric secrets (``benchmarks/RESULTS_aia_numeric.md``): 2 of 96 null runs flagged over Adult
    age and hours and ACS income under the three rules at 4:1, every copy flagged.

    References
    ----------
    Annamalai et al. (2024), Sec. 4.1-4.3; Newcombe (1998).
    """

    def __init__(
        self,
        secret: str,
        quasi_ids: Sequence[str] | None = None,
        *,
        attack: str | AttributeAttack = "recon",
        attack_params: Mapping[str, Any] | None = None,
        n_targets: int | None = None,
        bins: int = 10,
        bin_strategy: BinStrategy | str = BinStrategy.QUANTILE,
        utility_marginals: int = 50,
        max_ci_width: float = MAX_CI_WIDTH,
        part_size: int = 2000,
        log: Callable[[str], None] | None = None,
        secret_rule: SecretRule | None = None,
        max_seconds: float | None = None,
        population_baseline: bool = False,
    ) -> None:
        self.log = log
        self.secret_rule = secret_rule
        self.max_seconds = max_seconds
        self.population_baseline = population_baseline
        self.secret = secret
        self.quasi_ids = quasi_ids
        self.attack = attack
        self.attack_params = attack_params
        self.n_targets = n_targets
        self.part_size = part_size
        self.bins = bins
        self.bin_strategy = bin_strategy
        self.utility_marginals = utility_marginals
        self.max_ci_width = max_ci_width

    def run(
        self,
        release: Release,
        *,
        seed: int,
        runtime: Runtime | None = None,
    ) -> ReleaseAttributeResult:
        """Attack the training records and the swapped-in control records from the release.

        Parameters
        ----------
        release : Release
            ``Release(original, synthetic, control)``; without control records the result is
            ``not measured``.
        seed : int
        runtime : Runtime, optional
        """
        rt = as_runtime(runtime)
        if not isinstance(release, Release):
            raise InputError(
                "release must be a synthleak Release(original, synthetic, control), "
                f"got {type(release).__name__}"
            )
        if self.n_targets is not None and int(self.n_targets) < 1:
            raise InputError(f"n_targets must be at least 1, got {self.n_targets}")
        if int(self.part_size) < 1:
            raise InputError(f"part_size must be at least 1, got {self.part_size}")
        if not self.max_ci_width > 0:
            raise InputError(f"max_ci_width must be positive, got {self.max_ci_width}")
        ms = self.max_seconds
        if ms is not None and not (isinstance(ms, int | float) and ms > 0):
            raise InputError(f"max_seconds must be a positive number, got {ms!r}")
        ctl = release.control
        has_control = ctl is not None and len(ctl) > 0
        enc = Release(
            release.original, release.synthetic, ctl if has_control else None, release.schema
        ).encode()
        rule = self.secret_rule
        qi = validate_secret(enc.schema, self.secret, self.quasi_ids, data=enc.original, rule=rule)
        name, resolved = resolve_attack(
            AttackFamily.ATTRIBUTE, self.attack, dict(self.attack_params or {}) or None
        )
        attack = cast(AttributeAttack, resolved)
        parts = [enc.original, enc.synthetic] + ([enc.control] if enc.control is not None else [])
        prep = attribute_codes(
            Table.concat(parts),
            self.secret,
            qi,
            bins=self.bins,
            bin_strategy=self.bin_strategy,
            fit=enc.synthetic,
            rule=rule,
        )
        N, m = len(enc.original), len(enc.synthetic)
        ori, S = prep.codes[:N], prep.codes[N : N + m]
        ctl_codes = prep.codes[N + m :]
        C = prep.n_classes
        _check_attacks([(name, attack)], ori[:, :-1], prep.sizes[:-1])
        counts = np.bincount(ori[:, -1], minlength=C)
        majority = float(counts.max() / N)
        if rule is not None and rule.tolerance is not None:
            assert prep.values is not None
            majority = rule.constant_rate(prep.values[:N])
        # the value each class stands for, from what the adversary sees: the release
        reps = prep.representatives(slice(N, N + m)) if rule is not None else np.zeros(C)
        marg = (
            random_marginals(
                ori.shape[1],
                3,
                int(self.utility_marginals),
                rng=_RELEASE_UTILITY.rng(seed),
            )
            if ori.shape[1] >= 3
            else np.zeros((0, 3), dtype=np.int64)
        )
        mre = mre_from_codes(ori, S, prep.sizes, marg) if len(marg) else float("nan")
        tvd = tvd_from_codes(ori, S, prep.sizes, marg) if len(marg) else float("nan")
        asked = N if self.n_targets is None else min(N, int(self.n_targets))
        size = max(1, int(self.part_size))
        groups = _release_parts(ori[:, :-1], ctl_codes[:, :-1], asked, size, seed)
        k = int(sum(g[0].size for g in groups))
        n_swap = int(sum(g[1].size for g in groups))
        n_parts = len(groups)
        config: dict[str, Any] = {
            "game": "attribute-release",
            "secret": self.secret,
            "secret_classes": prep.labels,
            "secret_rule": None if rule is None else rule.to_config(),
            "secret_values": None if rule is None else [float(x) for x in reps],
            "quasi_ids": qi,
            "attack": _attack_config(name, attack),
            "n_targets": k,
            "n_targets_asked": asked,
            "n_control_targets": n_swap,
            "part_size": size,
            "n_parts": n_parts,
            "bins": int(self.bins),
            "bin_strategy": BinStrategy(self.bin_strategy).value,
            "utility_marginals": int(self.utility_marginals),
            "max_ci_width": float(self.max_ci_width),
            "seed": int(seed),
            "n_original": N,
            "n_synthetic": m,
            "n_control": len(ctl_codes),
            "data_sha256": hashlib.sha256(np.ascontiguousarray(prep.codes).tobytes()).hexdigest()[
                :16
            ],
        }
        limit = float(self.max_ci_width)
        nan = float("nan")
        base: dict[str, Any] = dict(
            config=config,
            attack=name,
            synthetic_size=m,
            n_classes=C,
            majority_rate=majority,
            mre_gt10=mre,
            tvd3=tvd,
            max_ci_width=limit,
        )
        if n_swap == 0:
            return ReleaseAttributeResult(
                status=Measurement.NOT_MEASURED,
                reason=(
                    "not measured: needs a control set (control), real records of the same "
                    "population that the generator never saw, to tell a leak from "
                    "population-level inference"
                    if not len(ctl_codes)
                    else "not measured: no control record shares the quasi-identifier values "
                    "of the attacked parts of the training data; give a larger control set"
                ),
                accuracy=_nan_estimate(),
                control_accuracy=_nan_estimate(1.0 / C),
                difference=accuracy_difference(np.zeros(0), np.zeros(0)),
                auc=nan,
                control_auc=nan,
                ci_width=nan,
                **base,
            )
        shared = {
            "seed": int(seed),
            "synthetic": S,
            "sizes": prep.sizes,
            "attack": attack,
            "original": ori[:, :-1],
            "control": ctl_codes[:, :-1],
            "parts": groups,
        }
        # a part's two worlds side by side, so a time limit keeps whole parts
        units = [
            u
            for p in range(n_parts)
            for u in (
                [WorkUnit(f"training-{p:05d}", (0, p))]
                + ([WorkUnit(f"control-{p:05d}", (1, p))] if groups[p][1].size else [])
            )
        ]
        if self.log is not None:
            self.log(
                f"attribute inference of '{self.secret}' on the release: {k} of {N} training "
                f"records and {n_swap} control records attacked, in {n_parts} part(s) of at "
                f"most {size} records sharing quasi-identifier values"
                + (
                    f": {len(units) * (1 if C == 2 else C)} linear programs"
                    + (
                        f" of at most {getattr(attack, 'n_queries', None)} queries"
                        if getattr(attack, "n_queries", None)
                        else ""
                    )
                    if name == "recon"
                    else ""
                )
            )
        store = rt.store(config)
        try:
            out = _run_logged(
                rt,
                _play_part,
                units,
                shared=shared,
                store=store,
                description="attribute inference on the release",
                what="linear-program units" if name == "recon" else "units",
                log=self.log,
                max_seconds=ms,
                min_units=2 if groups[0][1].size else 1,  # the first part's two worlds
            )
            if ms is not None:  # whole parts only: a part cut in half by the limit is dropped
                whole = [
                    p
                    for p in range(n_parts)
                    if f"training-{p:05d}" in out
                    and (not groups[p][1].size or f"control-{p:05d}" in out)
                ]
                keep = {f"{w}-{p:05d}" for p in whole for w in ("training", "control")}
                out = {k: v for k, v in out.items() if k in keep}
                base["config"] = {**config, "n_parts_run": len(whole)}
            failures = tuple(_reason(r.error or "") for _, r in sorted(out.items()) if not r.ok)
            values = prep.values
            judge = _Judge(
                prep,
                reps,
                (ori[:, -1], ctl_codes[:, -1]),
                (None, None) if values is None else (values[:N], values[N + m :]),
            )
            result = _release_result(base, out, failures, groups, judge, C, limit)
            if self.population_baseline and result.training is not None:
                result = replace(
                    result,
                    training=replace(
                        result.training,
                        population_right=_population_right(
                            ori, ctl_codes, prep.sizes, result.training.rows, judge, seed
                        ),
                    ),
                )
            if store is not None:
                store.write_json("result.json", result.to_dict())
        finally:
            if store is not None:
                store.close()
        return result


def _population_right(
    ori: np.ndarray,
    ctl: np.ndarray,
    sizes: np.ndarray,
    rows: np.ndarray,
    judge: _Judge,
    seed: int,
) -> np.ndarray:
    """1 where a classifier trained on the control records alone guesses the secret of the
    training record ``rows`` right (under the game's rule), else 0."""
    from synthleak.attacks.aia_inference import InferenceAttack

    rng = _RELEASE_POPULATION.rng(seed)
    C = int(sizes[-1])
    attack = InferenceAttack().fit(ori[:, :-1], sizes[:-1], rng=rng)
    scores = attack.score(ctl[:, :-1], ctl[:, -1], rows, C, rng=rng)
    _, right = judge(rows, _guess(scores, rng), control=False)
    return np.asarray(right, dtype=np.int64)


def _release_result(
    base: dict[str, Any],
    out: dict[str, Any],
    failures: tuple[str, ...],
    parts: list[_Part],
    judge: _Judge,
    C: int,
    limit: float,
) -> ReleaseAttributeResult:
    nan = float("nan")
    if failures:
        return ReleaseAttributeResult(
            status=Measurement.NOT_MEASURED,
            reason=f"not measured: the attack failed ({failures[0]})",
            accuracy=_nan_estimate(),
            control_accuracy=_nan_estimate(1.0 / C),
            difference=accuracy_difference(np.zeros(0), np.zeros(0)),
            auc=nan,
            control_auc=nan,
            ci_width=nan,
            failures=failures,
            **base,
        )

    def gather(world: str, j: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        rows, arrays = [], []
        for p, part in enumerate(parts):
            key = f"{world}-{p:05d}"
            if key in out:
                rows.append(part[0] if j == 0 else part[2])
                arrays.append(out[key].arrays)
        r = np.concatenate(rows)
        order = np.argsort(r, kind="stable")
        cat = {k: np.concatenate([a[k] for a in arrays])[order] for k in ("scores", "guess")}
        return r[order], cat

    rows_t, tr = gather("training", 0)
    rows_c, ct = gather("control", 2)
    truth_t, ok_t = judge(rows_t, tr["guess"], control=False)
    truth_c, ok_c = judge(rows_c, ct["guess"], control=True)
    control = accuracy_estimate(ok_c, baseline=1.0 / C)
    accuracy = accuracy_estimate(ok_t, baseline=control.value)
    diff = accuracy_difference(ok_t, ok_c)
    status, reason = _status(diff.width, limit, min(diff.n_a, diff.n_b))
    if status is Measurement.TOO_SMALL:
        reason = (
            f"too small to measure: the 95% interval of the difference is {diff.width:.2f} wide, "
            f"wider than the limit of {limit:.2f}; attack more records (a larger control set "
            "and training data)"
        )

    def binary_auc(truth: np.ndarray, scores: np.ndarray) -> float:
        return auc(truth, scores[:, 1]) if C == 2 and np.unique(truth).size == 2 else nan

    return ReleaseAttributeResult(
        status=status,
        reason=reason,
        accuracy=accuracy,
        control_accuracy=control,
        difference=diff,
        auc=binary_auc(truth_t, tr["scores"]),
        control_auc=binary_auc(truth_c, ct["scores"]),
        ci_width=diff.width,
        training=TargetOutcomes(
            rows_t, truth_t, tr["guess"], tr["scores"], np.asarray(ok_t, dtype=np.int64)
        ),
        control=TargetOutcomes(
            rows_c, truth_c, ct["guess"], ct["scores"], np.asarray(ok_c, dtype=np.int64)
        ),
        **base,
    )
