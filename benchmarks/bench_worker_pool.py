"""What does keeping the worker processes between stages save on a whole audit?

Every stage of ``synthleak audit`` (screen, membership game, attribute inference, singling out,
linkability, ...) hands its work units to :func:`synthleak.runtime.run_units`. A spawned worker
spends seconds importing the library before its first unit, so a pool started per stage pays
that start-up once per stage. synthleak keeps one pool for the life of the process
(``synthleak.runtime.executor._pool``); the peer measured here is the same code with the pool
shut down after every run, which is how every run worked before.

Each audit runs in a fresh Python process, as from the command line (a warm pool from an
earlier audit in the same process would flatter the persistent pool): a standard audit of the
same 1,000-record Adult sample with baynet, same seed, on ``--workers`` workers, the two
variants alternating ``--repeats`` times so machine noise hits both. Records per audit the wall
time, each stage's time and a fingerprint of the result (the two variants must agree exactly).
Writes ``benchmarks/results/worker_pool/audit_<generator>.json``.

Usage::

    python -m benchmarks.bench_worker_pool --generator baynet --workers 2 --repeats 3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks.datasets import alternating, wall_ratios
from benchmarks.meeus2023 import spec_label
from benchmarks.provenance import RESULTS, ROOT, Provenance

STUDY = "worker_pool"
VARIANTS = ("per-run", "persistent")


def _one(variant: str, generator: str, records: int, workers: int, seed: int) -> dict:  # type: ignore[type-arg]
    """One standard audit in this process; the peer shuts the pool down after every run."""
    from benchmarks.datasets import adult_sample
    from synthleak.errors import BaselineWarning
    from synthleak.pipeline import audit
    from synthleak.runtime import Runtime, executor

    warnings.simplefilter("ignore", BaselineWarning)
    if variant == "per-run":
        run_processes = executor._run_processes

        def per_run(*args, **kwargs):  # type: ignore[no-untyped-def]
            try:
                run_processes(*args, **kwargs)
            finally:
                executor.close_pool()

        executor._run_processes = per_run  # type: ignore[assignment]
    data = adult_sample(records, seed)
    t0 = time.perf_counter()
    res = audit(
        data, generator=generator, budget="standard", seed=seed, runtime=Runtime(workers=workers)
    )
    wall = time.perf_counter() - t0
    digest = hashlib.sha256(json.dumps(res.to_dict()["membership"], sort_keys=True).encode())
    return {
        "wall": wall,
        "stages": {s.name: s.seconds for s in res.stages},
        "membership_sha256": digest.hexdigest(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--generator", default="baynet")
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--one", choices=VARIANTS, help=argparse.SUPPRESS)  # a child process
    ap.add_argument("--results-root", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    if args.one:
        out = _one(args.one, args.generator, args.records, args.workers, args.seed)
        print(json.dumps(out))
        return 0
    prov = Provenance.start(None if argv is None else ["bench_worker_pool.py", *argv])

    def one(variant: str) -> dict:  # type: ignore[type-arg]
        cmd = [sys.executable, "-m", "benchmarks.bench_worker_pool", "--one", variant]
        cmd += ["--generator", args.generator, "--records", str(args.records)]
        cmd += ["--workers", str(args.workers), "--seed", str(args.seed)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        r["process_wall"] = time.perf_counter() - t0
        return r

    def report(rep: int, variant: str, r: dict) -> None:  # type: ignore[type-arg]
        print(
            f"[{rep}] {variant:<10} audit {r['wall']:.1f} s (process {r['process_wall']:.1f} "
            f"s)  " + ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items()),
            flush=True,
        )

    runs = alternating(VARIANTS, args.repeats, one, report)
    digests = {r["membership_sha256"] for rs in runs.values() for r in rs}
    ratios, medians = wall_ratios(runs, "persistent", "per-run")
    doc = {
        "records": args.records,
        "generator": args.generator,
        "workers": args.workers,
        "runs": runs,
        "identical_results": len(digests) == 1,
        "wall_ratio_persistent_to_per_run": ratios,
        "median_wall": medians,
    }
    print(
        f"persistent / per-run pool audit wall time: {', '.join(f'{x:.2f}' for x in ratios)} "
        f"(median {medians['persistent']:.1f} s against {medians['per-run']:.1f} s); "
        f"identical results: {len(digests) == 1}"
    )
    path = prov.write(STUDY, f"audit_{spec_label(args.generator)}", doc, root=args.results_root)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
