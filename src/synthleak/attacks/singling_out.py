"""Singling-out attacks: predicates learnt from the synthetic data only.

An attack is fitted on the released synthetic table and proposes predicates that single out
(match exactly one record of) the synthetic data; the game
(:class:`synthleak.games.singling_out.SinglingOutGame`) counts how many of them single out one
real person of the original and of the control data. Attacks of the ``singling-out`` family
(:class:`~synthleak.attacks.base.SinglingOutAttack`):

* ``univariate`` — one-column predicates from rare values: a value that occurs once in the
  synthetic data, a missing value that occurs once, and the extreme values (``<= min``,
  ``>= max``) of continuous columns;
* ``multivariate`` — conjunctions over ``n_cols`` random columns of a random synthetic record
  (:func:`~synthleak.attacks.predicates.predicates_from_records`);
* ``contrastive`` — the same conjunctions built from the outliers of a contrastive embedding
  (:mod:`synthleak.attacks.contrastive`, needs the ``torch`` extra).

The random-guess baseline (:func:`random_predicates`) draws ``n_cols`` random columns, a random
value seen in the synthetic column and a random operator; it is not filtered on the synthetic
data and measures what guessing achieves.

The synthetic data is de-duplicated before predicates are drawn (as Anonymeter does): a record
the generator emitted twice still gives predicates that isolate one *distinct* synthetic record,
which is what a generator that memorised one person and oversampled it produces. The game counts
people (rows) on the real data, without de-duplication. Candidates are generated in vectorised
batches, counted in bulk on the synthetic table
(:class:`~synthleak.attacks.predicates.PredicateSet`) and kept when they single out there and
were not proposed before.

Notes
-----
Threat model: no-box. The adversary sees only the released synthetic data and knows nothing of
the generator or of the original records.

References
----------
Giomi et al. (2023), Sec. 4.1 and Appendix (singling-out queries). Cohen and Nissim (2020)
(singling out as predicate isolation).
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np

from synthleak.attacks.base import AttackFamily, AttackInfo, SinglingOutAttack, register_attack
from synthleak.attacks.predicates import (
    Op,
    PredicateSet,
    TableIndex,
    check_n_cols,
    collect_singling_out,
    column_medians,
    encoded_matrix,
    predicates_from_records,
    random_column_subsets,
    unique_rows,
)
from synthleak.constraints import Interval, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError, check_fitted

DEFAULT_MAX_ATTEMPTS = 10_000_000
DEFAULT_BATCH = 1000


def _distinct_synthetic(synthetic: Table) -> Table:
    if not isinstance(synthetic, Table):
        raise InputError(
            f"synthetic must be a synthleak Table, got {type(synthetic).__name__}: "
            "encode it with Table.from_frame"
        )
    if len(synthetic) == 0:
        raise InputError("the synthetic data has no records: give a non-empty table")
    return unique_rows(synthetic)


def _check_n(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise InputError(f"n={n!r} predicates were asked for: ask for at least 1")


class UnivariateSinglingOut(SinglingOutAttack):
    """Univariate singling out: rare and extreme values of the synthetic data.

    Examples
    --------
    >>> attack = UnivariateSinglingOut().fit(synthetic, rng=rng)   # doctest: +SKIP
    >>> preds = attack.predicates(500, rng=rng)                     # doctest: +SKIP

    Notes
    -----
    Threat model: no-box (the synthetic data only).

    References
    ----------
    Giomi et al. (2023), Sec. 4.1, "univariate" queries.
    """

    name = "univariate"

    def __init__(self) -> None:
        self.candidates_: PredicateSet | None = None

    @property
    def baseline_n_cols(self) -> int:
        """One column, as the attack's predicates."""
        return 1

    def fit(self, synthetic: Table, *, rng: np.random.Generator) -> UnivariateSinglingOut:
        """Find the candidate predicates of ``synthetic`` (``rng`` unused: deterministic)."""
        table = _distinct_synthetic(synthetic)
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
        self.synthetic_ = table
        self.candidates_ = PredicateSet(schema, ops, vals)
        return self

    def predicates(self, n: int, *, rng: np.random.Generator) -> PredicateSet:
        """Up to ``n`` distinct univariate predicates that single out in the synthetic data.

        The candidates are shuffled with ``rng`` and the first ``n`` that match exactly one
        distinct synthetic record are returned (fewer when the data has fewer).
        """
        check_fitted(self, "candidates_")
        _check_n(n)
        assert self.candidates_ is not None
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


class RecordSinglingOut(SinglingOutAttack):
    """Conjunctions over ``n_cols`` random columns of chosen synthetic records.

    The shared machinery of the record-based attacks: a subclass chooses which distinct synthetic
    records the predicates describe (:meth:`_record_rows`); the predicates are built with
    :func:`~synthleak.attacks.predicates.predicates_from_records` and kept when they single out
    (:func:`~synthleak.attacks.predicates.collect_singling_out`).

    Parameters
    ----------
    n_cols : int, default 3
        Columns per predicate.
    max_attempts : int or None, default 10,000,000
        Cap on the number of candidate predicates tried (``None`` = no cap).
    batch_size : int, default 1000
        Candidates generated and counted in the first vectorised batch; the later batches grow
        to what the share found so far says the rest need
        (:func:`~synthleak.attacks.predicates.next_batch`).
    """

    # n_cols is also bounded by the columns of the data: check_n_cols, when fit starts
    _parameter_constraints = constraints(
        n_cols=Interval(int, 1, None),
        max_attempts=(Interval(int, 1, None), None),
        batch_size=Interval(int, 1, None),
    )

    def __init__(
        self,
        n_cols: int = 3,
        max_attempts: int | None = DEFAULT_MAX_ATTEMPTS,
        batch_size: int = DEFAULT_BATCH,
    ) -> None:
        self.n_cols = n_cols
        self.max_attempts = max_attempts
        self.batch_size = batch_size
        self.medians_: np.ndarray | None = None

    @property
    def baseline_n_cols(self) -> int:
        """``n_cols``, as the attack's predicates."""
        return self.n_cols

    def _fit_records(self, synthetic: Table) -> Table:
        """Validate the hyperparameters, store the distinct synthetic records and medians."""
        table = _distinct_synthetic(synthetic)
        check_n_cols(self.n_cols, table)
        self.synthetic_ = table
        self.medians_ = column_medians(table)
        return table

    @abstractmethod
    def _record_rows(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Indices of ``size`` distinct synthetic records to describe (with repeats)."""

    def predicates(self, n: int, *, rng: np.random.Generator) -> PredicateSet:
        """Up to ``n`` distinct predicates that single out in the synthetic data."""
        check_fitted(self, "medians_")
        _check_n(n)
        table = self.synthetic_
        f = len(table.schema)
        x = encoded_matrix(table)
        medians = self.medians_
        assert medians is not None

        def batch(size: int) -> PredicateSet:
            rows = self._record_rows(size, rng)
            cols = random_column_subsets(size, f, self.n_cols, rng=rng)
            return predicates_from_records(table, rows, cols, medians, matrix=x)

        return collect_singling_out(
            table, n, batch, max_attempts=self.max_attempts, batch_size=int(self.batch_size)
        )


class MultivariateSinglingOut(RecordSinglingOut):
    """Multivariate singling out: conjunctions over random columns of random synthetic records.

    Parameters
    ----------
    n_cols : int, default 3
        Columns per predicate.
    max_attempts : int or None, default 10,000,000
        Cap on the number of candidate predicates tried (``None`` = no cap).
    batch_size : int, default 1000
        Candidates generated and counted in the first vectorised batch; the later batches grow
        to what the share found so far says the rest need
        (:func:`~synthleak.attacks.predicates.next_batch`).

    Notes
    -----
    Threat model: no-box (the synthetic data only).

    References
    ----------
    Giomi et al. (2023), Sec. 4.1, "multivariate" queries.
    """

    name = "multivariate"

    def fit(self, synthetic: Table, *, rng: np.random.Generator) -> MultivariateSinglingOut:
        """Store the distinct synthetic records and their continuous medians."""
        self._fit_records(synthetic)
        return self

    def _record_rows(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(0, len(self.synthetic_), size=size)


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
    Giomi et al. (2023), Sec. 4.1, baseline attack.
    """
    check_n_cols(n_cols, synthetic)
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


register_attack(
    AttackInfo(
        "univariate",
        AttackFamily.SINGLING_OUT,
        UnivariateSinglingOut,
        "rare and extreme values of the synthetic data (Anonymeter)",
        references=("giomi2023",),
    )
)
register_attack(
    AttackInfo(
        "multivariate",
        AttackFamily.SINGLING_OUT,
        MultivariateSinglingOut,
        "conjunctions over random columns of synthetic records (Anonymeter)",
        references=("giomi2023",),
    )
)
