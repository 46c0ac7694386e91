"""Shadow pools on more cores: a black-box membership game with a slow generator (CTGAN).

The same game (same seed) runs three ways, one after the other in the same run:

* ``Runtime(workers=1)``: inline, one process;
* ``Runtime(workers=2)``: two local worker processes;
* ``Runtime(cluster=LocalCluster(n_workers=2, threads_per_worker=1))``: a Dask cluster on loopback.

It prints the wall time of each, the speed-up over one worker as a ratio, and checks that the
results are identical (same seed, same result, whatever the workers). Every process uses one
torch/BLAS thread (``OMP_NUM_THREADS=1``), so the comparison is of processes, not of threads
inside one fit. The generator's fit+sample dominates the game: that is what the workers share.

Run:  python -m benchmarks.bench_scaling [--shadows 24] [--tests 12] [--epochs 5] [--n 300]
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import datetime
import platform
import time
import warnings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shadows", type=int, default=24)
    parser.add_argument("--tests", type=int, default=12)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--n", type=int, default=300, help="training and synthetic records")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--batch-size", type=int, default=4, help="datasets per work unit (what workers share)"
    )
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    import synthleak as sl
    from synthleak.errors import BaselineWarning

    data = sl.datasets.load_adult().dropna().reset_index(drop=True)
    spec = f"ctgan:epochs={args.epochs},batch_size=100"
    game = sl.MembershipGame(
        spec,
        targets=sl.Targets.rows([0, 1]),
        train_size=args.n,
        synthetic_size=args.n,
        n_shadows=args.shadows,
        n_tests=args.tests,
        attacks=("query", "distance"),
        aux_size=4 * args.n,
        test_size=2 * args.n,
        batch_size=args.batch_size,
    )
    print(
        f"# bench_scaling  {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, "
        f"{platform.machine()}, {os.cpu_count()} cores; {spec}, {args.shadows} shadow + "
        f"{args.tests} test datasets of {args.n} records, {args.batch_size} per unit, 2 targets, "
        f"seed {args.seed}"
    )
    timings: dict[str, float] = {}
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        for name in ("1 worker", "2 workers", "LocalCluster 2x1"):
            if name == "LocalCluster 2x1":
                cluster = LocalCluster(
                    n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
                )
                client = Client(cluster)
                runtime = sl.Runtime(cluster=client)
            else:
                cluster = client = None
                runtime = sl.Runtime(workers=1 if name == "1 worker" else 2)
            try:
                start = time.perf_counter()
                results[name] = game.run(data, seed=args.seed, runtime=runtime)
                timings[name] = time.perf_counter() - start
            finally:
                if client is not None:
                    client.close()
                if cluster is not None:
                    cluster.close()
            print(f"{name}: {timings[name]:.1f} s", flush=True)
    base = timings["1 worker"]
    print("| runtime | wall s | speed-up over 1 worker |")
    print("|---|---|---|")
    for name, secs in timings.items():
        print(f"| {name} | {secs:.1f} | {base / secs:.2f}x |")
    ref = results["1 worker"].to_frame()
    same = all(r.to_frame().equals(ref) for r in results.values())
    print(f"identical results across runtimes: {same}")
    if not same:
        raise SystemExit("results differ between runtimes")


if __name__ == "__main__":
    main()
