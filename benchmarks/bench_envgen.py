"""A shadow-model pool through the env route vs the same generator in-process.

The same numpy/pandas generator (``envgen_chowliu.ChowLiu``, a Chow-Liu tree sampler) fits
``--fits`` shadow datasets of ``--n`` Adult records and samples ``--n`` records from each, with
``synthleak.games.shadow.generate_pools`` on ``--workers`` local worker processes: once as
``python:envgen_chowliu:ChowLiu`` (in each worker process) and once as
``env:ENV:/path/envgen_chowliu.py:ChowLiu`` (in a worker of the other environment that each
local worker starts once). Both routes run once untimed first (the local pool's start-up), then
``--repeats`` timed runs each, alternating; the env route's untimed run also pays its environment
start-up, which is reported on its own. The number of env worker processes that fitted is counted
from the process ids the generator logs.

Usage: ``python benchmarks/bench_envgen.py --env PATH_OR_NAME [--fits 200] [--workers 2]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import synthleak as sl
from synthleak.games.shadow import generate_pools
from synthleak.runtime.context import Runtime

HERE = Path(__file__).resolve().parent


def run(
    spec: str, omega: sl.Table, fits: int, n: int, workers: int, seed: int
) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    rows = np.stack([rng.choice(len(omega), n, replace=False) for _ in range(fits)])
    design = {0: (rows, np.zeros(fits, dtype=bool))}
    t0 = time.perf_counter()
    _, _, failures = generate_pools(
        omega,
        design,
        generator=spec,
        synthetic_size=n,
        seed=seed,
        batch_size=max(1, fits // (4 * workers)),
        runtime=Runtime(workers=workers),
        store=None,
    )
    secs = time.perf_counter() - t0
    if failures.failed_datasets:
        print(f"  {spec}: {failures.failed_datasets} failed: {failures.messages}")
    return secs, fits - failures.failed_datasets


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", required=True, help="environment name, venv folder or python")
    ap.add_argument("--fits", type=int, default=200)
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    sys.path.insert(0, str(HERE))
    log = Path(tempfile.mkdtemp(prefix="envgen-bench-")) / "pids.txt"
    os.environ["ENVGEN_PID_LOG"] = str(log)

    df = sl.datasets.load_adult()
    omega = sl.Table.from_frame(df, sl.infer_schema(df))
    specs = {
        "in-process": "python:envgen_chowliu:ChowLiu",
        "env": f"env:{args.env}:{HERE / 'envgen_chowliu.py'}:ChowLiu",
    }
    first = {}
    for route, spec in specs.items():  # untimed: local pool start-up (and env start-up)
        log.write_text("")
        first[route], _ = run(spec, omega, 4 * args.workers, args.n, args.workers, 99)
    times: dict[str, list[float]] = {k: [] for k in specs}
    counts = {}
    for rep in range(args.repeats):
        for route, spec in specs.items():
            log.write_text("")
            secs, ok = run(spec, omega, args.fits, args.n, args.workers, rep)
            times[route].append(secs)
            counts[route] = (ok, len(set(log.read_text().split())))
    print(f"fits={args.fits} n={args.n} workers={args.workers} repeats={args.repeats}")
    for route in specs:
        ok, pids = counts[route]
        runs = [round(t, 2) for t in times[route]]
        print(
            f"{route:>10}: {min(times[route]):7.2f} s best, runs {runs},"
            f" {ok} datasets ok, {pids} process(es) fitted"
        )
    ratio = min(times["env"]) / min(times["in-process"])
    per_fit = (min(times["env"]) - min(times["in-process"])) * args.workers / args.fits
    print(f"ratio env / in-process: {ratio:.2f}  (overhead {1000 * per_fit:.1f} ms per fit)")
    print(
        f"first (untimed) runs of {4 * args.workers} fits: in-process {first['in-process']:.2f} s,"
        f" env {first['env']:.2f} s (env start-up paid there, once per local worker)"
    )


if __name__ == "__main__":
    main()
