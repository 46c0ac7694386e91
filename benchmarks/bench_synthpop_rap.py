"""Fit + sample timings and 3-way fidelity of ``synthpop``, ``rap`` and ``rap-softmax``.

Peer in the same run: ``indhist`` (time) and ``nonprivate`` / ``indhist`` (3-TVD). One core
(BLAS threads set to 1 before numpy loads). Usage::

    python benchmarks/bench_synthpop_rap.py [--repeats-fast 20] [--repeats-slow 5]

Prints a Markdown table: median wall and CPU seconds of fit(1,000 Adult rows) + sample(1,000),
the ratio to indhist's median, and the mean 3-way TVD (Annamalai et al. (2024a), Sec. 5.3.2,
continuous columns in 10 uniform bins) against the training rows and against 1,000 held-out
rows.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import platform
import time
from datetime import UTC, datetime

import numpy as np

import synthleak as sl
from synthleak.metrics.utility import tvd_k


def three_way_tvd(real: sl.Table, syn: sl.Table, bins: int = 10) -> float:
    """Mean TVD over all 3-way marginals (Annamalai et al. (2024a), Sec. 5.3.2), continuous bins."""
    # n_marginals above C(F, 3) selects every 3-way marginal, so the rng is never drawn from
    return tvd_k(real, syn, k=3, n_marginals=10**9, bins=bins, rng=np.random.default_rng(0))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats-fast", type=int, default=20)
    ap.add_argument("--repeats-slow", type=int, default=5)
    args = ap.parse_args()
    df = sl.datasets.load_adult()
    table = sl.Table.from_frame(df, sl.infer_schema(df))
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(table))
    train, holdout = table.take(idx[:1000]), table.take(idx[1000:2000])
    specs = [
        ("indhist", args.repeats_fast),
        ("nonprivate", args.repeats_fast),
        ("synthpop", args.repeats_fast),
        ("rap", args.repeats_slow),
        ("rap:iterations=2000", max(1, args.repeats_slow // 2)),
        ("rap-softmax:epsilon=10", args.repeats_slow),
        ("rap-softmax:epsilon=100", args.repeats_slow),
    ]
    rows = []
    for spec, repeats in specs:
        wall, cpu, tvd_train, tvd_hold = [], [], [], []
        for r in range(repeats):
            w0, c0 = time.perf_counter(), time.process_time()
            gen = sl.make_generator(spec).fit(train, rng=np.random.default_rng(100 + r))
            syn = gen.sample(1000, rng=np.random.default_rng(200 + r))
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
            if r < 3:
                tvd_train.append(three_way_tvd(train, syn))
                tvd_hold.append(three_way_tvd(holdout, syn))
        rows.append(
            (spec, repeats, np.median(wall), np.median(cpu), np.mean(tvd_train), np.mean(tvd_hold))
        )
        print(f"# done {spec}", flush=True)
    base_wall, base_cpu = rows[0][2], rows[0][3]
    tvd_ref = three_way_tvd(train, holdout)
    print(
        f"\nmachine: {platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}, "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.1f}"
    )
    print("fit(1,000 Adult rows) + sample(1,000), one BLAS thread\n")
    print(
        "| generator | runs | median wall (s) | median CPU (s) | CPU / indhist | 3-TVD vs train "
        "| 3-TVD vs holdout |"
    )
    print("|---|---|---|---|---|---|---|")
    for spec, repeats, w, c, tt, th in rows:
        print(
            f"| `{spec}` | {repeats} | {w:.4f} | {c:.4f} | {c / base_cpu:.0f}x | {tt:.3f} "
            f"| {th:.3f} |"
        )
    print(
        "\nreference: 3-TVD between the 1,000 training rows and 1,000 held-out real rows = "
        f"{tvd_ref:.3f}"
    )
    print(f"indhist median wall {base_wall:.4f} s")


if __name__ == "__main__":
    main()
