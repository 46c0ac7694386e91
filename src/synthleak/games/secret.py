"""The secret of attribute inference, and what both attribute games share.

Both games of attribute inference (:mod:`synthleak.games.attribute`, against a generator, and
:mod:`synthleak.games.attribute_release`, on a given release) attack one secret column from
quasi-identifiers, and share everything about that secret:

* :class:`SecretRule`, when a guess of a numeric secret counts as right (a tolerance, absolute or
  relative, or the right quantile bin), with the best constant guess as its baseline;
* :func:`validate_secret`, the cheap checks of a secret and its quasi-identifiers before any
  attack runs (the CLI and the audit call it first);
* :func:`attribute_codes`, the table as discrete ``[X | y]`` codes (:class:`AttributeCodes`):
  continuous columns cut into bins, a numeric secret into quantile bins, classes re-coded to
  those present; :func:`discretise` and :func:`singleton_rows` (rows with unique
  quasi-identifiers);
* :class:`Measurement` and the documented limits :data:`MAX_CLASSES` and :data:`MAX_CI_WIDTH`:
  whether a figure is measured, too small to measure or not measured;
* the pieces of a game both play the same way: the highest-scoring guess with ties broken at
  random, an attack's recorded configuration and early check, a failed unit's plain reason, and
  work units run with projected time and progress lines.

References
----------
Annamalai, Gadotti and Rocher (2024), "A Linear Reconstruction Approach for Attribute Inference
Attacks against Synthetic Data", USENIX Security: Sec. 3 (discrete domain), 7.6 (non-binary
secrets).
"""

from __future__ import annotations

import copy
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import numpy as np

from synthleak.attacks.base import AttributeAttack
from synthleak.data.encoding import Discretiser
from synthleak.data.schema import Column, ColumnKind, Schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.modes import BinStrategy, ToleranceKind
from synthleak.runtime import WorkUnit
from synthleak.serde import Result

if TYPE_CHECKING:
    from synthleak.runtime import Runtime


MAX_CLASSES = 20
"""Most secret classes an attack is run on (Adv_recon solves one linear program per class)."""

MAX_CI_WIDTH = 0.2
"""Widest 95% interval read as a measurement. A judgement: an interval wider than 0.2 cannot tell
an attack at its baseline from one 10 points above it, so the figure is "too small to measure";
about 100 attacked secrets reach it at an accuracy of 0.5."""


class Measurement(StrEnum):
    """Whether a figure could be read."""

    MEASURED = "measured"
    TOO_SMALL = "too small to measure"
    NOT_MEASURED = "not measured"


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


# --- what both games play alike -----------------------------------------------------------------
def guess_from_scores(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Highest-scoring class per row, ties broken uniformly at random."""
    best = scores.max(axis=1, keepdims=True)
    tie = np.isclose(scores, best, rtol=0, atol=1e-9)
    pick = rng.random(scores.shape) * tie
    return np.argmax(pick, axis=1)


def measurement_status(width: float, limit: float, n: int) -> tuple[Measurement, str]:
    """Whether a figure over ``n`` attacked secrets with a 95% interval ``width`` wide is
    measured, too small (wider than ``limit``) or not measured, and why in words."""
    if n == 0 or not np.isfinite(width):
        return Measurement.NOT_MEASURED, "no secret was attacked"
    if width > limit:
        return (
            Measurement.TOO_SMALL,
            f"the 95% interval is {width:.2f} wide, wider than the limit of {limit:.2f}: "
            "attack more secrets (more games, targets or records)",
        )
    return Measurement.MEASURED, ""


def attack_config(name: str, attack: AttributeAttack) -> dict[str, Any]:
    """A JSON-able description of an attack (its name and hyperparameters)."""
    params = {
        k: (v if isinstance(v, bool | int | float | str | type(None)) else str(v))
        for k, v in vars(attack).items()
        if not k.endswith("_")
    }
    return {"name": name, "class": type(attack).__name__, "params": params}


def check_attacks(
    attacks: list[tuple[str, AttributeAttack]], X: np.ndarray, sizes: np.ndarray
) -> None:
    """Fit a copy of every attack on a few rows: bad hyperparameters fail before any game."""
    few = X[: min(len(X), 8)]
    for _, attack in attacks:
        copy.deepcopy(attack).fit(few, sizes, rng=np.random.default_rng(0))


def failure_reason(error: str) -> str:
    """A unit's error as a plain reason: known failures without their class, no source line."""
    head, _, rest = error.partition(": ")
    msg = rest if head in ("GameFailure", "ReconstructionFailure") else error
    return re.sub(r" at [\w.]+\.py:\d+$", "", msg)


def run_logged(
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
