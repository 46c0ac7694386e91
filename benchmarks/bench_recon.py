"""Time one Adv_recon attack over the grid of Table 2 (Annamalai et al. (2024), Sec. 6.7).

Setting: n = 1000 real ACS records (``nist_acs_ma2019.csv``, 23 quasi-identifiers, secret SEX),
synthetic data from ``nonprivate`` (as the paper), |Q| queries drawn at random from all 4-way
queries (3 quasi-identifier values + secret; 142,033 occur in X, enough for |Q| = 10^5 — with
n = 1000 there are only 7,589 3-way queries). One attack = build the queries from X + answer them
on S + solve the LP. Peers measured in the same run:

* ``naive``: the same attack written the obvious way: a dense 0/1 matrix filled one query at a
  time with boolean masks, answers by one boolean mask over S per query, and the primal LP of
  §4.2 with a dense constraint matrix in ``scipy.optimize.linprog(method="highs")``;
* ``primal-sparse``: our sparse matrix but the primal LP in ``linprog(method="highs")``
  (HiGHS's default simplex), to isolate the gain of solving the dual with the interior-point method;
* the paper's published times (Gurobi, 32 cores, FIRE dataset).

Usage: ``python benchmarks/bench_recon.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from synthleak.attacks.aia_reconstruction import (
    QueryMode,
    answer_queries,
    build_queries,
    count_answers,
    solve_l1,
)
from synthleak.data.io import load_data
from synthleak.games.secret import attribute_codes

PAPER = {  # Table 2: seconds, rows m, columns |Q|
    10: [2.10, 2.20, 2.39, 4.43, 25.2],
    100: [2.10, 2.22, 2.39, 4.47, 25.6],
    1000: [2.11, 2.21, 2.42, 4.74, 28.6],
    10_000: [2.11, 2.22, 2.50, 5.80, 39.0],
    100_000: [2.19, 2.41, 3.75, 15.4, 134],
    1_000_000: [2.82, 4.12, 16.5, 113, 1130],
}
QS = [10, 100, 1000, 10_000, 100_000]


def attack(
    X: np.ndarray, sizes: np.ndarray, S: np.ndarray, q: int, seed: int
) -> tuple[np.ndarray, float]:
    t0 = time.perf_counter()
    qs = build_queries(X, sizes[:-1], order=4, n_queries=q, rng=np.random.default_rng(seed))
    pc, tot = count_answers(qs, S[:, :-1], S[:, -1], 2)
    r = answer_queries(qs, pc, tot, 1, QueryMode.CONDITIONAL, S.shape[0])
    ok = np.isfinite(r)
    t = solve_l1(qs.matrix[np.flatnonzero(ok)], r[ok])
    return t, time.perf_counter() - t0


def naive_attack(
    X: np.ndarray, sizes: np.ndarray, S: np.ndarray, q: int, seed: int
) -> tuple[np.ndarray, float]:
    qs = build_queries(
        X, sizes[:-1], order=4, n_queries=q, rng=np.random.default_rng(seed)
    )  # same queries
    mult = []
    for c in qs.combos:
        sub = sizes[c]
        mult.append(np.array([int(np.prod(sub[j + 1 :])) for j in range(len(c))]))
    queries = []
    for j in range(qs.n_queries):
        c = qs.combos[qs.combo[j]]
        mu = mult[qs.combo[j]]
        queries.append(
            (c, [(int(qs.key[j]) // int(mu[i])) % int(sizes[c[i]]) for i in range(len(c))])
        )
    t0 = time.perf_counter()
    A = np.zeros((len(queries), X.shape[0]))
    r = np.full(len(queries), np.nan)
    for j, (attrs, vals) in enumerate(queries):
        mx = np.ones(X.shape[0], dtype=bool)
        ms = np.ones(S.shape[0], dtype=bool)
        for a, v in zip(attrs, vals, strict=True):
            mx &= X[:, a] == v
            ms &= S[:, a] == v
        A[j] = mx
        if ms.any():
            r[j] = (S[ms, -1] == 1).mean() * mx.sum()
    ok = np.isfinite(r)
    A, r = A[ok], r[ok]
    qn, n = A.shape
    M = np.hstack([A, np.eye(qn), -np.eye(qn)])
    res = linprog(
        np.concatenate([np.zeros(n), np.ones(2 * qn)]),
        A_eq=M,
        b_eq=r,
        bounds=[(0, 1)] * n + [(0, None)] * (2 * qn),
        method="highs",
    )
    return np.clip(res.x[:n], 0, 1), time.perf_counter() - t0


def primal_sparse(
    X: np.ndarray, sizes: np.ndarray, S: np.ndarray, q: int, seed: int
) -> tuple[np.ndarray, float]:
    t0 = time.perf_counter()
    qs = build_queries(X, sizes[:-1], order=4, n_queries=q, rng=np.random.default_rng(seed))
    pc, tot = count_answers(qs, S[:, :-1], S[:, -1], 2)
    r = answer_queries(qs, pc, tot, 1, QueryMode.CONDITIONAL, S.shape[0])
    ok = np.isfinite(r)
    A = qs.matrix[np.flatnonzero(ok)]
    qn, n = A.shape
    eye = sp.identity(qn, format="csr")
    M = sp.hstack([A, eye, -eye], format="csc")
    ub = np.concatenate([np.ones(n), np.full(2 * qn, np.inf)])
    res = linprog(
        np.concatenate([np.zeros(n), np.ones(2 * qn)]),
        A_eq=M,
        b_eq=r[ok],
        bounds=np.stack([np.zeros(n + 2 * qn), ub], axis=1),
        method="highs",
    )
    return np.clip(res.x[:n], 0, 1), time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    table = load_data("/work/shared/datasets/nist_acs_ma2019.csv", na_values=["N"]).table
    prep = attribute_codes(table, "SEX")
    codes, sizes = prep.codes, prep.sizes
    rng = np.random.default_rng(0)
    D = codes[rng.choice(codes.shape[0], 1000, replace=False)]
    X, y = D[:, :-1], D[:, -1]
    attack(X, sizes, D[:50], 10, 0)  # warm-up: numba compile/cache load
    ms = [1000, 1_000_000] if args.quick else list(PAPER)
    qlist = [1000, 10_000] if args.quick else QS
    print("| m | |Q| | synthleak (s) | paper (s) | paper / synthleak | recon acc (all n) |")
    print("|---|---|---|---|---|---|")
    for m in ms:
        S = D[np.random.default_rng(m).integers(0, 1000, m)]
        for q in qlist:
            t, secs = attack(X, sizes, S, q, 1)
            paper = PAPER[m][QS.index(q)]
            print(
                f"| {m:,} | {q:,} | {secs:.2f} | {paper} | {paper / secs:.1f}x "
                f"| {((t > 0.5) == y).mean():.3f} |",
                flush=True,
            )
    print("\nPeers in the same run (same queries, same S):")
    print(
        "| m | |Q| | synthleak (s) | naive dense (s) | naive / synthleak "
        "| primal sparse simplex (s) | ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for m, q in [(1000, 100), (1000, 1000), (10_000, 1000)]:
        S = D[np.random.default_rng(m).integers(0, 1000, m)]
        t1, s1 = attack(X, sizes, S, q, 1)
        t2, s2 = naive_attack(X, sizes, S, q, 1)
        _, s3 = primal_sparse(X, sizes, S, q, 1)
        same = ((t1 > 0.5) == (t2 > 0.5)).mean()
        print(
            f"| {m:,} | {q:,} | {s1:.2f} | {s2:.2f} | {s2 / s1:.1f}x | {s3:.2f} | {s3 / s1:.1f}x |"
            f" (guesses agree with naive on {same:.3f} of records)",
            flush=True,
        )


if __name__ == "__main__":
    main()
