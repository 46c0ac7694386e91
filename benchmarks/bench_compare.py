"""Benchmark of ``synthleak.compare``: its speed against one audit, and its null oracle.

Part 1 (speed). Adult (the bundled table): 10,000 original and 10,000 control records; five
candidate releases of 10,000 records, ``baynet:k=1`` fit on the original with seeds 0-4
(generated before the clock starts). One warm-up audit on 500 records first (the numba JIT),
then, for each number of workers of ``--workers`` (default 1 and 2), ``audit()`` of the first
candidate alone and ``compare()`` of all five with that runtime, both at the budget
``--budget`` (default ``standard``) and one seed, after a warm-up audit and a warm-up
comparison of two candidates on 500 records with that runtime (the numba JIT; the worker
pool, which a process starts once and a lone audit's partitioned counts use too; the
libraries the workers load on their first candidate). With two workers or more, ``compare``
audits the candidates side by side on the workers. With one worker the CPU time of the
process is printed too: on a loaded machine it says more about the work than the wall time.
The issue's must-reach is compare <= 3x the single audit. Wall times depend on the machine's
load (printed with the load average before and after each run).

Part 2 (the commands, ``--commands N``). The same data written to CSV files, then
``synthleak audit`` of the first candidate and ``synthleak compare`` of all five, each run as
a data owner runs it (a new process: imports, reading the files, starting the workers, the
audit, writing the reports), alternated N times after one warm-up of each (the numba cache,
the file system's cache), with the largest of ``--workers``: each pair's ratio and the
medians. Nothing is shared between the runs but the files.

Part 3 (null oracle, ``--oracle N``). N comparisons of three seeds of one generator
(``baynet:k=1``, 500 original and 500 control records, a tiny plan as in the tests), each under
its own audit seed: how many call any pair different after Holm (at most 5 % each).

    PYTHONPATH=src nice -n 10 python benchmarks/bench_compare.py [--budget quick] [--commands 5]
        [--oracle 10]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

import synthleak as sl
from synthleak.comparison import compare
from synthleak.generators import make_generator
from synthleak.pipeline import audit
from synthleak.results import AuditOptions, BudgetPlan
from synthleak.runtime import Runtime

TINY = BudgetPlan(
    n_attacks=150,
    mia_targets=1,
    mia_controls=1,
    shadows=40,
    tests=40,
    n=150,
    mia_attacks=("distance",),
    aia_games=6,
)


def candidates(n: int, k: int) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame]]:
    """The benchmark's data: ``n`` Adult original and ``n`` control records, and ``k``
    ``baynet:k=1`` releases of ``n`` records fit on the original (seeds 0 to ``k - 1``)."""
    df = sl.datasets.load_adult()
    rows = np.random.default_rng(0).choice(len(df), 2 * n, replace=False)
    ori = df.iloc[rows[:n]].reset_index(drop=True)
    ctl = df.iloc[rows[n:]].reset_index(drop=True)
    t = sl.Table.from_frame(ori, sl.infer_schema(ori))
    releases = {}
    for s in range(k):
        rng = np.random.default_rng(s)
        releases[f"baynet@seed{s}"] = (
            make_generator("baynet:k=1").fit(t, rng=rng).sample(n, rng=rng).to_frame()
        )
    return ori, ctl, releases


def speed(budget: str, n: int, k: int, workers: list[int]) -> None:
    ori, ctl, releases = candidates(n, k)
    first = next(iter(releases.values()))
    print(f"cores {os.cpu_count()}")
    for w in workers:
        rt = Runtime(workers=w)
        # warm-up: the numba JIT and, with two workers or more, the worker pool (started once
        # per process; a lone audit's partitioned counts run on it too), so neither run pays it
        audit(ori.head(500), synthetic=ori.tail(500), control=ctl.head(500), plan=TINY, runtime=rt)
        small = {name: r.head(500) for name, r in list(releases.items())[:2]}
        opts = AuditOptions(plan=TINY)
        compare(ori.head(500), control=ctl.head(500), releases=small, options=opts, runtime=rt)
        load = os.getloadavg()[0]
        t0, c0 = time.perf_counter(), time.process_time()
        audit(ori, synthetic=first, control=ctl, budget=budget, seed=1, runtime=rt)
        one, one_cpu = time.perf_counter() - t0, time.process_time() - c0
        mid = os.getloadavg()[0]
        t0, c0 = time.perf_counter(), time.process_time()
        opts = AuditOptions(budget=budget)
        compare(ori, control=ctl, releases=releases, options=opts, seed=1, runtime=rt)
        many, many_cpu = time.perf_counter() - t0, time.process_time() - c0
        end = os.getloadavg()[0]
        print(
            f"workers {w}: one audit ({n} records, budget {budget}) {one:.1f} s "
            f"(load {load:.1f}-{mid:.1f}); compare of {k} candidates {many:.1f} s "
            f"(load {mid:.1f}-{end:.1f}) = {many / one:.2f} x one audit"
        )
        if w == 1:  # everything ran in this process: its CPU time is all the work
            print(
                f"  CPU of this process: one audit {one_cpu:.1f} s, compare {many_cpu:.1f} s "
                f"= {many_cpu / one_cpu:.2f} x"
            )


def commands(budget: str, n: int, k: int, workers: int, reps: int) -> None:
    """The two commands as a data owner runs them, end to end (start, imports, reading the
    files, the workers' start, the audit, the reports, exit): ``synthleak audit`` of the first
    candidate and ``synthleak compare`` of all ``k``, alternated ``reps`` times on the same
    CSV files; each pair's ratio and the medians."""
    import shutil
    import statistics
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    ori, ctl, releases = candidates(n, k)
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as tmp:
        d = Path(tmp)
        ori.to_csv(d / "ori.csv", index=False)
        ctl.to_csv(d / "ctl.csv", index=False)
        for s, syn in enumerate(releases.values()):
            syn.to_csv(d / f"c{s}.csv", index=False)
        common = ["--original", str(d / "ori.csv"), "--control", str(d / "ctl.csv")]
        common += ["--budget", budget, "--workers", str(workers)]
        one = [*common, "--synthetic", str(d / "c0.csv")]
        many = [*common, *(f for s in range(k) for f in ("--release", f"c{s}={d}/c{s}.csv"))]

        def timed(command: str, args: list[str]) -> float:
            out = d / f"out-{command}"
            shutil.rmtree(out, ignore_errors=True)  # a kept run would be resumed, not redone
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "synthleak.cli.main", command, *args, "--out-dir", str(out)],
                check=True,
                capture_output=True,
            )
            return time.perf_counter() - t0

        timed("audit", one)  # warm-ups: the numba cache, the file system's cache
        timed("compare", many)
        ratios, audits, compares = [], [], []
        for r in range(reps):
            a, c = timed("audit", one), timed("compare", many)
            audits.append(a)
            compares.append(c)
            ratios.append(c / a)
            print(
                f"commands, run {r + 1}: audit {a:.1f} s, compare of {k} {c:.1f} s = {c / a:.2f} x"
            )
        print(
            f"commands, {workers} workers, medians of {reps}: audit "
            f"{statistics.median(audits):.1f} s, compare {statistics.median(compares):.1f} s, "
            f"ratio {statistics.median(ratios):.2f} x (range {min(ratios):.2f}-{max(ratios):.2f})"
        )


def oracle(reps: int) -> None:
    df = sl.datasets.load_adult()
    cols = ["age", "workclass", "fnlwgt", "education", "marital-status", "sex", "hours-per-week"]
    rows = np.random.default_rng(11).choice(len(df), 1000, replace=False)
    ori = df[cols].iloc[rows[:500]].reset_index(drop=True)
    ctl = df[cols].iloc[rows[500:]].reset_index(drop=True)
    called, tests = 0, 0
    for seed in range(reps):
        r = compare(
            ori,
            control=ctl,
            generator_specs=[f"baynet:k=1,seed={3 * seed},{3 * seed + 1},{3 * seed + 2}"],
            options=AuditOptions(plan=TINY),
            seed=seed,
        )
        tests += len(r.differences)
        hit = any(d.significant for d in r.differences)
        called += hit
        low = min(d.p_holm for d in r.differences)
        print(f"comparison {seed}: {len(r.differences)} tests, min Holm p {low:.3f}, called {hit}")
    print(f"null oracle: {called} of {reps} comparisons called a pair different ({tests} tests)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", default="standard")
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--candidates", type=int, default=5)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--oracle", type=int, default=0)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--commands", type=int, default=0, metavar="REPS")
    a = ap.parse_args()
    if not a.skip_speed:
        speed(a.budget, a.n, a.candidates, a.workers)
    if a.commands:
        commands(a.budget, a.n, a.candidates, max(a.workers), a.commands)
    if a.oracle:
        oracle(a.oracle)
