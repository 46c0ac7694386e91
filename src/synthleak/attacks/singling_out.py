"""Singling-out attacks: predicates generated from the synthetic data only.

An attack is fitted on the released synthetic table and then proposes predicates that single out
(match exactly one record) in the synthetic data; the game
(:class:`synthleak.games.singling_out.SinglingOutGame`) checks them on the original and control
records. Three generators, as in Anonymeter (Giomi et al. (2023), Sec. 4.1) plus the contrastive one
of Plasencia Palacios (2024) (in :mod:`synthleak.attacks.contrastive`):

* **univariate** — one-column predicates from rare values: a value that occurs once in the
  synthetic data, a missing value that occurs once, and the extreme values (``<= min``,
  ``>= max``) of continuous columns;
* **multivariate** — conjunctions over ``n_cols`` random columns of a random synthetic record:
  categorical ``==`` its code, continuous ``>=`` its value when above the column median and
  ``<=`` otherwise (the direction of the tail, which makes singling out likelier), missing values
  as null tests;
* **random baseline** (:func:`random_predicates`) — ``n_cols`` random columns, a random value seen
  in the synthetic column and a random operator (``==``/``!=`` categorical, any comparison
  continuous); not filtered, it measures what guessing achieves.

Candidates are generated in vectorised batches, counted in bulk on the synthetic table
(:class:`~synthleak.attacks.predicates.PredicateSet`) and kept when they single out there and were
not proposed before.

References
----------
Giomi et al. (2023), "A unified framework for quantifying privacy risk in synthetic data",
PoPETs, Sec. 4.1 and Appendix (singling-out queries).
Cohen and Nissim (2020), "Towards formalizing the GDPR's notion of singling out", PNAS.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

import numpy as np

from synthleak.attacks.base import AttackFamily, AttackInfo, register_attack
from synthleak.attacks.predicates import Op, PredicateSet, TableIndex, encoded_matrix, unique_rows
from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted

DEFAULT_MAX_ATTEMPTS = 10_000_000
DEFAULT_BATCH = 1000


class SinglingOutMode(str, Enum):
    """How singling-out predicates are generated."""

    UNIVARIATE = "univariate"
    MULTIVARIATE = "multivariate"
    CONTRASTIVE = "contrastive"


def _check_n_cols(n_cols: int, table: Table) -> None:
    f = len(table.schema)
    if not 1 <= n_cols <= f:
        raise InputError(
            f"n_cols={n_cols} is out of range: the data has {f} columns; pick 1 to {f}"
        )


def _medians(table: Table) -> np.ndarray:
    """Per-column median (NaN-ignoring) for continuous columns, NaN for categorical ones."""
    med = np.full(len(table.schema), np.nan)
    for j, col in enumerate(table.schema.columns):
        if not col.is_categorical:
            v = table.column(col.name).astype(np.float64)
            if np.isfinite(v).any():
                med[j] = float(np.nanmedian(v))
    return med


def random_column_subsets(
    n: int, n_features: int, n_cols: int, *, rng: np.random.Generator
) -> np.ndarray:
    """Boolean matrix (n, n_features) with ``n_cols`` random columns set per row."""
    order = np.argsort(rng.random((n, n_features)), axis=1)[:, :n_cols]
    sel = np.zeros((n, n_features), dtype=bool)
    np.put_along_axis(sel, order, True, axis=1)
    return sel


def predicates_from_records(
    table: Table,
    rows: np.ndarray,
    columns: np.ndarray,
    medians: np.ndarray,
    matrix: np.ndarray | None = None,
) -> PredicateSet:
    """Conjunction predicates describing records ``rows`` of ``table`` on ``columns``.

    Parameters
    ----------
    table : Table
        The synthetic data.
    rows : ndarray (b,)
        Record index of each predicate.
    columns : ndarray (b, n_columns) bool
        Columns each predicate constrains.
    medians : ndarray (n_columns,)
        Continuous medians (see the module docstring for the direction rule).
    matrix : ndarray, optional
        :func:`~synthleak.attacks.predicates.encoded_matrix` of ``table`` if already computed.
    """
    x = (encoded_matrix(table) if matrix is None else matrix)[rows]
    cat = np.array([c.is_categorical for c in table.schema.columns])
    nan = np.isnan(x)
    ops = np.where(
        cat[None, :],
        Op.EQ,
        np.where(nan, Op.ISNULL, np.where(x > medians[None, :], Op.GE, Op.LE)),
    ).astype(np.int8)
    ops[~columns] = Op.ANY
    vals = np.where(columns & ~nan, x, np.nan)
    return PredicateSet(table.schema, ops, vals)


def collect_singling_out(
    table: Table,
    n: int,
    batch: Callable[[int], PredicateSet],
    *,
    max_attempts: int | None,
    batch_size: int = DEFAULT_BATCH,
) -> PredicateSet:
    """Draw candidate batches until ``n`` distinct predicates single out in ``table``.

    Stops early after ``max_attempts`` candidates (``None`` = no limit) and returns what it has.
    """
    kept: list[PredicateSet] = []
    seen: set[int] = set()
    index = TableIndex.build(table)
    total, attempts = 0, 0
    while total < n and (max_attempts is None or attempts < max_attempts):
        size = batch_size if max_attempts is None else min(batch_size, max_attempts - attempts)
        cand = batch(size)
        attempts += size
        cand = cand.take(cand.first_unique(seen))
        cand = cand.take(np.flatnonzero(cand.count(table, cap=2, index=index) == 1))
        if len(cand):
            cand = cand.take(np.arange(min(len(cand), n - total)))
            kept.append(cand)
            total += len(cand)
    return PredicateSet.concat(kept) if kept else PredicateSet.empty(table.schema)


class _SinglingOutBase:
    """Shared fitted state: the de-duplicated synthetic table."""

    n_cols: int = 1
    synthetic_: Table | None = None

    def _fit_table(self, synthetic: Table) -> Table:
        if len(synthetic) == 0:
            raise InputError("the synthetic data has no records: give a non-empty table")
        table = unique_rows(synthetic)
        self.synthetic_ = table
        return table

    @property
    def baseline_n_cols(self) -> int:
        """Number of columns of the random-guess baseline predicates for this attack."""
        return self.n_cols

    def get_params(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if not k.endswith("_")}


class UnivariateSinglingOut(_SinglingOutBase):
    """Univariate singling out: rare and extreme values of the synthetic data.

    Examples
    --------
    >>> attack = UnivariateSinglingOut().fit(synthetic)          # doctest: +SKIP
    >>> preds = attack.predicates_(500, rng=rng)                   # doctest: +SKIP

    References
    ----------
    Giomi et al. (2023) (Anonymeter), Sec. 4.1, "univariate" queries.
    """

    mode = SinglingOutMode.UNIVARIATE.value

    def __init__(self) -> None:
        self.n_cols = 1

    def fit(
        self, synthetic: Table, *, rng: np.random.Generator | None = None
    ) -> UnivariateSinglingOut:
        """Find the candidate predicates of ``synthetic`` (``rng`` unused; for a uniform API)."""
        table = self._fit_table(synthetic)
        x = encoded_matrix(table)
        schema = table.schema
        f = len(schema)
        ops_l: list[np.ndarray] = []
        vals_l: list[np.ndarray] = []
        cols_l: list[np.ndarray] = []

        def add(j: int, op: int, vals: np.ndarray) -> None:
            ops_l.append(np.full(vals.size, op, dtype=np.int8))
            vals_l.append(vals.astype(np.float64))
            cols_l.append(np.full(vals.size, j, dtype=np.intp))

        for j, col in enumerate(schema.columns):
            xj = x[:, j]
            nan = np.isnan(xj)
            if col.is_categorical:
                counts = np.bincount(xj.astype(np.intp), minlength=col.size)
                if col.has_missing and counts[col.missing_code] == 1:
                    add(j, Op.EQ, np.array([col.missing_code]))
                rare = np.flatnonzero(counts == 1)
                rare = rare[rare != col.missing_code] if col.has_missing else rare
                add(j, Op.EQ, rare)
                continue
            if nan.sum() == 1:
                add(j, Op.ISNULL, np.array([np.nan]))
            present = xj[~nan]
            if present.size:
                add(j, Op.LE, np.array([present.min()]))
                add(j, Op.GE, np.array([present.max()]))
                u, c = np.unique(present, return_counts=True)
                add(j, Op.EQ, u[c == 1])
        q = int(sum(o.size for o in ops_l))
        ops = np.zeros((q, f), dtype=np.int8)
        vals = np.full((q, f), np.nan)
        if q:
            rows = np.arange(q)
            cols = np.concatenate(cols_l)
            ops[rows, cols] = np.concatenate(ops_l)
            vals[rows, cols] = np.concatenate(vals_l)
        self.candidates_ = PredicateSet(schema, ops, vals)
        return self

    def predicates_(self, n: int, *, rng: np.random.Generator) -> PredicateSet:
        """Up to ``n`` distinct univariate predicates that single out in the synthetic data.

        The candidates are shuffled with ``rng`` and the first ``n`` that match exactly one
        synthetic record are returned (fewer when the data has fewer).
        """
        check_fitted(self, "synthetic_")
        assert self.synthetic_ is not None
        table = self.synthetic_
        index = TableIndex.build(table)
        order = rng.permutation(len(self.candidates_))
        kept: list[PredicateSet] = []
        seen: set[int] = set()
        total, step = 0, max(2 * n, 256)
        for s in range(0, order.size, step):  # shuffled candidates, in chunks, until n found
            cand = self.candidates_.take(order[s : s + step])
            cand = cand.take(cand.first_unique(seen))
            cand = cand.take(np.flatnonzero(cand.count(table, cap=2, index=index) == 1))
            cand = cand.take(np.arange(min(len(cand), n - total)))
            kept.append(cand)
            total += len(cand)
            if total >= n:
                break
        return PredicateSet.concat(kept) if kept else PredicateSet.empty(table.schema)


class MultivariateSinglingOut(_SinglingOutBase):
    """Multivariate singling out: conjunctions over random columns of random synthetic records.

    Parameters
    ----------
    n_cols : int, default 3
        Columns per predicate.
    max_attempts : int or None, default 10,000,000
        Cap on the number of candidate predicates tried (``None`` = no cap).
    batch_size : int, default 1000
        Candidates generated and counted per vectorised batch.

    References
    ----------
    Giomi et al. (2023) (Anonymeter), Sec. 4.1, "multivariate" queries.
    """

    mode = SinglingOutMode.MULTIVARIATE.value

    def __init__(
        self,
        n_cols: int = 3,
        max_attempts: int | None = DEFAULT_MAX_ATTEMPTS,
        batch_size: int = DEFAULT_BATCH,
    ) -> None:
        self.n_cols = n_cols
        self.max_attempts = max_attempts
        self.batch_size = batch_size

    def fit(
        self, synthetic: Table, *, rng: np.random.Generator | None = None
    ) -> MultivariateSinglingOut:
        """Store the de-duplicated synthetic table and its continuous medians."""
        table = self._fit_table(synthetic)
        _check_n_cols(self.n_cols, table)
        self.medians_ = _medians(table)
        return self

    def predicates_(self, n: int, *, rng: np.random.Generator) -> PredicateSet:
        """Up to ``n`` distinct multivariate predicates that single out in the synthetic data."""
        check_fitted(self, "synthetic_")
        table = self.synthetic_
        assert table is not None
        f = len(table.schema)
        x = encoded_matrix(table)

        def batch(size: int) -> PredicateSet:
            rows = rng.integers(0, len(table), size=size)
            cols = random_column_subsets(size, f, self.n_cols, rng=rng)
            return predicates_from_records(table, rows, cols, self.medians_, matrix=x)

        return collect_singling_out(
            table, n, batch, max_attempts=self.max_attempts, batch_size=self.batch_size
        )


def random_predicates(
    synthetic: Table, n: int, n_cols: int, *, rng: np.random.Generator
) -> PredicateSet:
    """The random-guess baseline: ``n`` predicates of ``n_cols`` random columns each.

    Each constrained column takes a value drawn uniformly from the distinct values of that
    synthetic column (missing included) and a random operator: ``==``/``!=`` for categorical
    columns, one of ``== != < <= > >=`` for continuous ones (a missing value gives a null /
    not-null test). The predicates are not checked on the synthetic data.

    References
    ----------
    Giomi et al. (2023) (Anonymeter), Sec. 4.1, baseline attack.
    """
    _check_n_cols(n_cols, synthetic)
    schema = synthetic.schema
    f = len(schema)
    cols = random_column_subsets(n, f, n_cols, rng=rng)
    ops = np.zeros((n, f), dtype=np.int8)
    vals = np.full((n, f), np.nan)
    cont_ops = np.array([Op.EQ, Op.NE, Op.GT, Op.LT, Op.GE, Op.LE], dtype=np.int8)
    for j, col in enumerate(schema.columns):
        xj = synthetic.column(col.name).astype(np.float64)
        if col.is_categorical:
            uniq = np.unique(xj)
            v = uniq[rng.integers(0, uniq.size, size=n)]
            o = np.where(rng.random(n) < 0.5, Op.EQ, Op.NE).astype(np.int8)
        else:
            present = np.unique(xj[~np.isnan(xj)])
            uniq = np.concatenate([present, [np.nan]]) if np.isnan(xj).any() else present
            v = uniq[rng.integers(0, uniq.size, size=n)]
            o = cont_ops[rng.integers(0, cont_ops.size, size=n)]
            null = np.isnan(v)
            o = np.where(null, np.where(o == Op.EQ, Op.ISNULL, Op.NOTNULL), o).astype(np.int8)
        sel = cols[:, j]
        ops[sel, j] = o[sel]
        vals[sel, j] = v[sel]
    return PredicateSet(schema, ops, vals)


SinglingOutAttack = UnivariateSinglingOut | MultivariateSinglingOut


def make_singling_out_attack(mode: SinglingOutMode | str, **params: Any) -> Any:
    """The attack for ``mode`` (``contrastive`` needs the ``torch`` extra)."""
    try:
        m = SinglingOutMode(mode)
    except ValueError:
        raise InputError(
            f"unknown singling-out mode {mode!r}: use one of "
            f"{', '.join(x.value for x in SinglingOutMode)}"
        ) from None
    if m is SinglingOutMode.UNIVARIATE:
        return UnivariateSinglingOut()
    if m is SinglingOutMode.MULTIVARIATE:
        return MultivariateSinglingOut(**params)
    from synthleak.attacks.contrastive import ContrastiveSinglingOut

    return ContrastiveSinglingOut(**params)


def _contrastive_factory(**params: Any) -> Any:
    return make_singling_out_attack(SinglingOutMode.CONTRASTIVE, **params)


register_attack(
    AttackInfo(
        "univariate",
        AttackFamily.SINGLING_OUT,
        UnivariateSinglingOut,
        "rare and extreme values of the synthetic data (Anonymeter)",
    )
)
register_attack(
    AttackInfo(
        "multivariate",
        AttackFamily.SINGLING_OUT,
        MultivariateSinglingOut,
        "conjunctions over random columns of synthetic records (Anonymeter)",
    )
)
register_attack(
    AttackInfo(
        "contrastive",
        AttackFamily.SINGLING_OUT,
        _contrastive_factory,
        "predicates from outliers of a contrastive embedding (Plasencia Palacios, 2024)",
        extra="torch",
    )
)
