"""Adv_recon: query construction, answering, the L1 linear program, oracles."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from synthleak.attacks import aia_dcr, aia_inference  # noqa: F401  (register dcr and infer)
from synthleak.attacks import aia_reconstruction as ar
from synthleak.attacks.aia_reconstruction import (
    QueryMode,
    ReconstructionAttack,
    ReconstructionFailure,
    answer_queries,
    build_queries,
    count_answers,
    solve_l1,
    split_blocks,
)
from synthleak.attacks.base import AttackFamily, AttributeAttack, list_attacks
from synthleak.errors import InputError, NotFittedError


# --- naive references (Python loops, dense matrices) --------------------------------------
def build_queries_dense(
    quasi_ids: np.ndarray, sizes: np.ndarray, *, order: int = 3
) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], np.ndarray]:
    """Queries by Python loops and a dense matrix, in the order of :func:`build_queries`."""
    X = np.asarray(quasi_ids)
    n, F = X.shape
    queries: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for attrs in itertools.combinations(range(F), order - 1):
        vals = sorted({tuple(int(X[i, a]) for a in attrs) for i in range(n)})
        queries.extend((attrs, v) for v in vals)
    A = np.zeros((len(queries), n))
    for j, (attrs, v) in enumerate(queries):
        for i in range(n):
            if all(X[i, a] == x for a, x in zip(attrs, v, strict=True)):
                A[j, i] = 1.0
    return queries, A


def count_answers_naive(
    queries: list, syn_qi: np.ndarray, syn_secret: np.ndarray, n_classes: int
) -> tuple[np.ndarray, np.ndarray]:
    """One boolean mask over ``S`` per query."""
    S = np.asarray(syn_qi)
    y = np.asarray(syn_secret)
    per_class = np.zeros((len(queries), n_classes))
    for j, (attrs, vals) in enumerate(queries):
        mask = np.ones(S.shape[0], dtype=bool)
        for a, v in zip(attrs, vals, strict=True):
            mask &= S[:, a] == v
        per_class[j] = np.bincount(y[mask], minlength=n_classes)
    return per_class, per_class.sum(axis=1)


def solve_l1_dense(A: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The primal LP of the paper with a dense constraint matrix (scipy's linprog)."""
    from scipy.optimize import linprog

    q, n = A.shape
    M = np.hstack([A, np.eye(q), -np.eye(q)])
    cost = np.concatenate([np.zeros(n), np.ones(2 * q)])
    bounds = [(0.0, 1.0)] * n + [(0.0, None)] * (2 * q)
    res = linprog(cost, A_eq=M, b_eq=r, bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return np.clip(res.x[:n], 0.0, 1.0)


def _population(
    rng: np.random.Generator, n: int, sizes: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    X = rng.integers(0, sizes, size=(n, len(sizes)))
    p = 0.2 + 0.6 * (X[:, 0] % 2)
    y = (rng.random(n) < p).astype(np.int64)
    return X, y


@pytest.mark.parametrize("order", [2, 3, 4])
def test_sparse_queries_equal_dense_naive(order: int) -> None:
    rng = np.random.default_rng(0)
    sizes = np.array([3, 4, 2, 5, 3])
    X = rng.integers(0, sizes, size=(40, 5))
    qs = build_queries(X, sizes, order=order)
    queries, dense = build_queries_dense(X, sizes, order=order)
    assert qs.n_queries == len(queries)
    np.testing.assert_array_equal(qs.matrix.toarray(), dense)
    np.testing.assert_array_equal(qs.counts_x, dense.sum(axis=1))
    for j, (attrs, _vals) in enumerate(queries):
        assert tuple(qs.combos[qs.combo[j]]) == attrs


@pytest.mark.parametrize("fallback", [False, True])
def test_counts_equal_naive_mask_counts(fallback: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if fallback:
        monkeypatch.setattr(ar, "_HIST_MAX", 0)
    rng = np.random.default_rng(1)
    sizes = np.array([3, 4, 2, 5])
    X = rng.integers(0, sizes, size=(30, 4))
    qs = build_queries(X, sizes, order=3)
    queries, _ = build_queries_dense(X, sizes, order=3)
    for m in (50, 500):  # 500 > 4n exercises the distinct-row compression
        S = rng.integers(0, sizes, size=(m, 4))
        ys = rng.integers(0, 3, size=m)
        pc, tot = count_answers(qs, S, ys, 3)
        pc2, tot2 = count_answers_naive(queries, S, ys, 3)
        np.testing.assert_array_equal(pc, pc2)
        np.testing.assert_array_equal(tot, tot2)


def test_query_subset_is_random_subset() -> None:
    rng = np.random.default_rng(2)
    sizes = np.array([4, 4, 4, 4])
    X = rng.integers(0, sizes, size=(60, 4))
    full = build_queries(X, sizes)
    sub = build_queries(X, sizes, n_queries=10, rng=np.random.default_rng(3))
    assert sub.n_queries == 10
    full_rows = {tuple(r) for r in full.matrix.toarray().astype(int)}
    assert all(tuple(r) in full_rows for r in sub.matrix.toarray().astype(int))


def test_answers_conditional_and_marginal() -> None:
    qs = build_queries(np.array([[0, 0], [0, 1], [1, 1], [1, 1]]), np.array([2, 2]), order=3)
    per_class = np.array([[1.0, 3.0], [0.0, 0.0], [2.0, 2.0]])
    total = per_class.sum(axis=1)
    r = answer_queries(qs, per_class, total, 1, QueryMode.CONDITIONAL, m=10)
    np.testing.assert_allclose(r[[0, 2]], [0.75 * qs.counts_x[0], 0.5 * qs.counts_x[2]])
    assert np.isnan(r[1])  # never seen in S: undefined
    rm = answer_queries(qs, per_class, total, 1, QueryMode.MARGINAL, m=10)
    np.testing.assert_allclose(rm, per_class[:, 1] * 4 / 10)


def test_lp_recovers_exact_answers() -> None:
    rng = np.random.default_rng(4)
    X, y = _population(rng, 60, [4, 4, 3, 5, 4])
    qs = build_queries(X, np.array([4, 4, 3, 5, 4]))
    t = solve_l1(qs.matrix, qs.matrix @ y)
    # exact answers: the objective at the true y is 0, so the LP optimum is 0 too
    assert np.abs(qs.matrix @ t - qs.matrix @ y).sum() < 1e-5
    assert ((t > 0.5) == y).mean() > 0.9


def test_lp_matches_dense_and_brute_force() -> None:
    rng = np.random.default_rng(5)
    A = (rng.random((12, 6)) < 0.5).astype(float)
    r = rng.random(12) * 3
    t_sparse = solve_l1(sp.csr_matrix(A), r)
    t_dense = solve_l1_dense(A, r)
    obj = lambda t: np.abs(A @ t - r).sum()  # noqa: E731
    assert obj(t_sparse) == pytest.approx(obj(t_dense), abs=1e-6)
    assert np.all((t_sparse >= 0) & (t_sparse <= 1))
    # the LP relaxation is at least as good as every binary vector (brute force over 2^6)
    best_binary = min(obj(np.array(b, dtype=float)) for b in itertools.product([0, 1], repeat=6))
    assert obj(t_sparse) <= best_binary + 1e-7
    # and no point of a fine random sample of the box beats it
    pts = rng.random((2000, 6))
    assert obj(t_sparse) <= np.abs(pts @ A.T - r).sum(axis=1).min() + 1e-7


def test_the_solver_prints_nothing() -> None:
    """HiGHS prints a banner to stdout (at C level, once per process) unless told not to before
    anything else: a fresh process that solves an LP writes nothing."""
    import subprocess
    import sys

    code = (
        "import numpy as np, scipy.sparse as sp\n"
        "from synthleak.attacks.aia_reconstruction import solve_l1\n"
        "A = sp.csr_matrix(np.eye(3)); solve_l1(A, np.ones(3)); solve_l1(A, np.zeros(3))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "" and out.stderr == ""


def test_lp_time_limit_reports_failure() -> None:
    rng = np.random.default_rng(6)
    A = sp.csr_matrix((rng.random((400, 200)) < 0.1).astype(float))
    with pytest.raises(ReconstructionFailure, match="time limit"):
        solve_l1(A, rng.random(400) * 5, time_limit=0.0)


def test_nonprivate_oracle_high_accuracy() -> None:
    rng = np.random.default_rng(7)
    sizes = np.array([5, 5, 4, 6, 5, 4])
    X, y = _population(rng, 200, list(sizes))
    idx = rng.integers(0, 200, 50_000)
    attack = ReconstructionAttack().fit(X, sizes, rng=rng)
    t = attack.reconstruct(X[idx], y[idx], 2)
    np.testing.assert_allclose(t[:, 0] + t[:, 1], 1.0)
    assert ((t[:, 1] > 0.5) == y).mean() > 0.9
    scores = attack.score(X[idx], y[idx], np.array([0, 5]), 2, rng=rng)
    assert scores.shape == (2, 2)


def test_conditional_beats_or_matches_marginal_on_nonprivate() -> None:
    rng = np.random.default_rng(8)
    sizes = np.array([5, 5, 4, 6, 5, 4])
    X, y = _population(rng, 200, list(sizes))
    idx = rng.integers(0, 200, 1000)
    acc = {}
    for mode in QueryMode:
        t = (
            ReconstructionAttack(query_mode=mode)
            .fit(X, sizes, rng=rng)
            .reconstruct(X[idx], y[idx], 2)
        )
        acc[mode] = ((t[:, 1] > 0.5) == y).mean()
    assert acc[QueryMode.CONDITIONAL] >= acc[QueryMode.MARGINAL] - 0.02
    assert acc[QueryMode.CONDITIONAL] > 0.7


def test_non_binary_one_vs_rest() -> None:
    rng = np.random.default_rng(9)
    sizes = np.array([5, 5, 4, 6, 5, 4])
    X = rng.integers(0, sizes, size=(150, 6))
    y = (X[:, 0] + rng.integers(0, 2, 150)) % 3
    idx = rng.integers(0, 150, 30_000)
    t = ReconstructionAttack().fit(X, sizes, rng=rng).reconstruct(X[idx], y[idx], 3)
    assert t.shape == (150, 3)
    assert (t.argmax(axis=1) == y).mean() > 0.85  # baseline 1/3


def test_not_fitted_and_bad_order() -> None:
    with pytest.raises(NotFittedError):
        ReconstructionAttack().reconstruct(np.zeros((1, 2)), np.zeros(1), 2)
    with pytest.raises(InputError):
        build_queries(np.zeros((3, 1), dtype=int), np.array([2]), order=3)


def test_registered_as_attribute_attack() -> None:
    names = {i.name for i in list_attacks(AttackFamily.ATTRIBUTE)}
    assert {"recon", "dcr", "infer"} <= names


def test_is_an_attribute_attack_and_validates_its_parameters() -> None:
    X = np.zeros((4, 3), dtype=int)
    assert isinstance(ReconstructionAttack(), AttributeAttack)
    with pytest.raises(InputError, match="query_mode"):
        ReconstructionAttack(query_mode="weird").fit(X, np.full(3, 2), rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="max_records"):
        ReconstructionAttack(max_records=0).fit(X, np.full(3, 2), rng=np.random.default_rng(0))


def test_split_blocks_partitions_by_values() -> None:
    rng = np.random.default_rng(10)
    X = rng.integers(0, [2, 3, 5, 4], size=(500, 4))
    blocks = split_blocks(X, 60)
    rows = np.concatenate([b for b, _ in blocks])
    np.testing.assert_array_equal(np.sort(rows), np.arange(500))  # a partition
    for b, fixed in blocks:
        for j, v in fixed:
            assert (X[b, j] == v).all()
        assert b.size <= 60 or len(fixed) == 4
    ((whole, fixed),) = split_blocks(X, 500)
    np.testing.assert_array_equal(whole, np.arange(500))
    assert fixed == ()
    # identical rows cannot be split
    same = np.zeros((10, 2), dtype=int)
    assert [b.size for b, _ in split_blocks(same, 3)] == [10]


def test_one_block_is_the_papers_attack() -> None:
    rng = np.random.default_rng(11)
    sizes = np.array([5, 5, 4, 6, 5, 4])
    X, y = _population(rng, 200, list(sizes))
    idx = rng.integers(0, 200, 3000)
    a = ReconstructionAttack(max_records=200).fit(X, sizes, rng=np.random.default_rng(0))
    qs = build_queries(X, sizes)
    assert a.blocks_[0].queries.n_queries == qs.n_queries and len(a.blocks_) == 1
    pc, tot = count_answers(qs, X[idx], y[idx], 2)
    r = answer_queries(qs, pc, tot, 1, QueryMode.CONDITIONAL, 3000)
    ok = np.isfinite(r)
    want = solve_l1(qs.matrix[np.flatnonzero(ok)], r[ok])
    np.testing.assert_allclose(a.reconstruct(X[idx], y[idx], 2)[:, 1], want)


@pytest.mark.parametrize("mode", list(QueryMode))
def test_blocks_reconstruct_a_copy(mode: QueryMode) -> None:
    # 1,200 records split into blocks of at most 150: a copy is still reconstructed
    rng = np.random.default_rng(12)
    sizes = np.array([3, 4, 5, 6, 4, 5, 3])
    X = rng.integers(0, sizes, size=(1200, 7))
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 2, 1200)) % 2).astype(np.int64)
    attack = ReconstructionAttack(max_records=150, query_mode=mode).fit(
        X, sizes, rng=np.random.default_rng(0)
    )
    assert len(attack.blocks_) > 1
    t = attack.reconstruct(X, y, 2)
    assert t.shape == (1200, 2)
    np.testing.assert_allclose(t.sum(axis=1), 1.0)
    assert ((t[:, 1] > 0.5) == y).mean() > 0.9
    # an independent sample of the same population gives population-level accuracy only
    other = rng.integers(0, sizes, size=(1200, 7))
    yo = ((other[:, 0] + other[:, 1] + rng.integers(0, 2, 1200)) % 2).astype(np.int64)
    acc_ind = ((attack.reconstruct(other, yo, 2)[:, 1] > 0.5) == y).mean()
    assert acc_ind < 0.65


def test_declared_constraints_reject_bad_hyperparameters_by_name() -> None:
    """The hyperparameters are declared (``_parameter_constraints``) and checked when ``fit``
    starts, before any input is looked at: a bad value raises InputError naming it."""
    import numpy as np

    from synthleak.attacks.aia_reconstruction import ReconstructionAttack
    from synthleak.errors import InputError

    cases = [
        (ReconstructionAttack(query_mode="joint"), "query_mode"),
        (ReconstructionAttack(max_records=0), "max_records"),
        (ReconstructionAttack(order=1), "order"),
        (ReconstructionAttack(n_queries=0), "n_queries"),
        (ReconstructionAttack(time_limit=0.0), "time_limit"),
    ]
    for attack, parameter in cases:
        with pytest.raises(InputError, match=f"^{parameter}=") as exc:
            attack.fit(None, None, rng=np.random.default_rng(0))
        assert exc.value.parameter == parameter
