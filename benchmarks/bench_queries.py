"""All 2^15 counting-query answers for one 1,000-record synthetic Adult dataset.

Peer (same run): a per-query numpy loop (for every attribute subset A, AND the match columns of A
and count). Ours: one match-mask histogram + superset-sum (zeta) transform
(:func:`synthleak.queries.all_subset_counts`), and the bitset path used when F > 20
(:func:`synthleak.queries.subset_counts` forced to bitsets) on the same queries. Also times a batch
of 256 datasets (how the attacks call it). Then the sampled queries of the query attack at the
risk maps' and screen's size (1,000 queries on 100 datasets of 500 records; Adult, F = 15, and
UK Census, F = 17, when the shared datasets are there): the dense transform against bitsets, and
which of the two :func:`synthleak.queries.subset_counts` chooses. Prints milliseconds and ratios.

Usage: ``python benchmarks/bench_queries.py [--repeats 50]``
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from datetime import UTC, datetime

import numpy as np

import synthleak as sl
from synthleak.queries import (
    TableStack,
    _bitset_counts,
    all_subset_counts,
    match_bitsets,
    match_matrix,
)


def best_of(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), float(np.min(times))  # type: ignore[return-value]


def per_query_loop(stack: TableStack, target: sl.Table) -> np.ndarray:
    match = match_matrix(stack, target)[0]  # (m, F)
    f = match.shape[1]
    out = np.empty(1 << f, dtype=np.int64)
    for a in range(1 << f):
        cols = [j for j in range(f) if (a >> j) & 1]
        out[a] = int(match[:, cols].all(axis=1).sum()) if cols else match.shape[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=50)
    args = ap.parse_args()
    df = sl.datasets.load_adult()
    omega = sl.Table.from_frame(df, sl.infer_schema(df))
    rng = np.random.default_rng(0)
    one = TableStack.from_tables([omega.sample(1000, rng=rng)])
    target = omega.take([int(rng.integers(len(omega)))])
    every = np.arange(1 << 15, dtype=np.uint64)

    ref = per_query_loop(one, target)
    assert np.array_equal(all_subset_counts(one, target)[0], ref)
    assert np.array_equal(_bitset_counts(match_bitsets(one, target), every, 1000)[0], ref)

    t0 = time.perf_counter()
    per_query_loop(one, target)
    loop_s = time.perf_counter() - t0
    zeta_med, zeta_min = best_of(lambda: all_subset_counts(one, target), args.repeats)
    bits_med, bits_min = best_of(
        lambda: _bitset_counts(match_bitsets(one, target), every, 1000), max(3, args.repeats // 10)
    )
    batch = TableStack.from_tables([omega.sample(1000, rng=rng) for _ in range(256)])
    batch_med, _ = best_of(lambda: all_subset_counts(batch, target), 3)

    print(
        f"# bench_queries — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
        f"{platform.processor() or platform.machine()}, load avg {os.getloadavg()[0]:.1f}"
    )
    print("all 2^15 = 32768 counting queries, one Adult synthetic dataset of 1000 records (F = 15)")
    print(f"per-query numpy loop (peer)     : {loop_s * 1e3:9.1f} ms")
    print(
        f"match masks + zeta (ours)       : {zeta_med * 1e3:9.3f} ms median, "
        f"{zeta_min * 1e3:.3f} ms best"
        f"  -> {loop_s / zeta_med:,.0f}x faster than the loop"
    )
    print(
        f"bitsets, same 32768 queries     : {bits_med * 1e3:9.3f} ms median, "
        f"{bits_min * 1e3:.3f} ms best"
        f"  -> {loop_s / bits_med:,.0f}x faster than the loop, "
        f"zeta is {bits_med / zeta_med:.1f}x faster than bitsets"
    )
    print(f"zeta, batch of 256 datasets     : {batch_med / 256 * 1e3:9.3f} ms per dataset")
    sampled(omega, "Adult", args.repeats)
    try:
        from benchmarks.datasets import load_table

        census = load_table("census")
    except (ImportError, SystemExit):
        print("UK Census not found (the shared datasets): skipped")
    else:
        sampled(census, "UK Census", args.repeats)


def sampled(table: sl.Table, name: str, repeats: int) -> None:
    """1,000 sampled queries on 100 baynet datasets of 500 records: both paths and the choice."""
    import synthleak.queries as queries

    rng = np.random.default_rng(1)
    sets = []
    for _ in range(100):
        rows = rng.choice(len(table), 500, replace=False)
        sets.append(sl.make_generator("baynet").fit(table.take(rows), rng=rng).sample(500, rng=rng))
    stack = TableStack.from_tables(sets)
    target = table.take([int(rng.integers(len(table)))])
    f = queries.n_attributes(stack.schema)
    q = queries.sample_subsets(f, 1000, rng=rng)
    dense = all_subset_counts(stack, target)[:, q.astype(np.int64)]
    assert np.array_equal(_bitset_counts(match_bitsets(stack, target), q, 500), dense)
    reps = max(3, repeats // 10)
    dense_s, _ = best_of(lambda: all_subset_counts(stack, target)[:, q.astype(np.int64)], reps)
    bits_s, _ = best_of(lambda: _bitset_counts(match_bitsets(stack, target), q, 500), reps)
    chosen, _ = best_of(lambda: queries.subset_counts(stack, target, q), reps)
    print(
        f"{name} (F = {f}), 1000 sampled queries, 100 datasets of 500 records: dense "
        f"{dense_s * 1e3:.1f} ms, bitsets {bits_s * 1e3:.1f} ms ({dense_s / bits_s:.1f}x faster), "
        f"subset_counts {chosen * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
