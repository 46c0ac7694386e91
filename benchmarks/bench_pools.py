"""Shared vs single shadow pools: per-target AUCs agree statistically; shared costs 1/T of the runs.

Same targets, generator, attack and seed; ``pool=shared`` (one pool of shadow/test datasets for
all T targets, each target IN with probability 1/2) against ``pool=single`` (the paper: one pool
per target). For every target, z = (AUC_shared - AUC_single) / sqrt(se_shared^2 + se_single^2)
with se from the bootstrap CIs; consistent pools give |z| < 2 for about 95% of targets. Also prints
the wall time of both (same run) and their ratio.

Usage: ``python benchmarks/bench_pools.py [--generator baynet] [--shadows 300] [--workers 2]``
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from datetime import UTC, datetime

import numpy as np

import synthleak as sl
from synthleak.errors import BaselineWarning
from synthleak.games.membership import MembershipGame, parse_targets


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--generator", default="baynet")
    ap.add_argument("--targets", default="distance:4+random:4")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--shadows", type=int, default=300)
    ap.add_argument("--tests", type=int, default=150)
    ap.add_argument("--attack", default="query")
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    df = sl.datasets.load_adult()
    omega = sl.Table.from_frame(df, sl.infer_schema(df))
    rows, sel = parse_targets(args.targets, omega, seed=args.seed)
    res = {}
    secs = {}
    for pool in ("shared", "single"):
        game = MembershipGame(
            args.generator,
            n=args.n,
            m=args.n,
            n_shadow=args.shadows,
            n_test=args.tests,
            attacks=(args.attack,),
            attack_params={"query": {"n_queries": args.queries}},
            pool=pool,
            aux_size=10_000,
            test_size=5_000,
            workers=args.workers,
            progress=True,
        )
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            res[pool] = game.run(omega, rows, seed=args.seed, selected_by=sel)
        secs[pool] = time.perf_counter() - t0

    print(
        f"# bench_pools — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
        f"load avg {os.getloadavg()[0]:.1f}"
    )
    print(
        f"Adult, {args.generator}, n=m={args.n}, shadows={args.shadows}, tests={args.tests}, "
        f"attack={args.attack}, {rows.size} targets ({args.targets})"
    )
    print(f"{'row':>7} {'selected_by':<12} {'AUC shared':>18} {'AUC single':>18} {'z':>6}")
    zs = []
    for ts, tp in zip(res["shared"].targets, res["single"].targets, strict=True):
        a, b = ts.attacks[args.attack].auc, tp.attacks[args.attack].auc
        se = np.hypot((a.ci_high - a.ci_low) / 3.92, (b.ci_high - b.ci_low) / 3.92)
        z = (a.value - b.value) / se if se > 0 else 0.0
        zs.append(z)
        print(
            f"{ts.row:>7} {ts.selected_by:<12} {a.value:.3f} [{a.ci_low:.2f},{a.ci_high:.2f}]"
            f" {b.value:.3f} [{b.ci_low:.2f},{b.ci_high:.2f}] {z:6.2f}"
        )
    za = np.abs(np.array(zs))
    sa = np.array([t.attacks[args.attack].auc.value for t in res["shared"].targets])
    pa = np.array([t.attacks[args.attack].auc.value for t in res["single"].targets])
    print(
        f"|z| < 2 for {int((za < 2).sum())}/{za.size} targets; mean AUC shared {sa.mean():.3f} "
        f"vs single {pa.mean():.3f}; Pearson r of per-target AUCs {np.corrcoef(sa, pa)[0, 1]:.2f}"
    )
    print(
        f"wall time: shared {secs['shared']:.0f}s, single {secs['single']:.0f}s "
        f"-> shared is {secs['single'] / secs['shared']:.1f}x faster "
        f"({args.shadows + args.tests} vs {rows.size * (args.shadows + args.tests)} generator runs)"
    )


if __name__ == "__main__":
    main()
