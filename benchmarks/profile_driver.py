"""What the driver of a release audit allocates, stage by stage (tracemalloc).

Runs ``synthleak audit --original --synthetic --control`` on the parts written by
``bench_census_scale.py`` (``--size``, default ``1m``; read from its ``--cache``) in this
process, and for the stages named in ``--stages`` traces every allocation made while the stage
runs (numpy's buffers included): the stage's peak above what was held when it started, and the
allocation sites (the innermost synthleak frame of each traceback) that held the most memory at
the largest snapshot taken during the stage (a snapshot is taken whenever the traced memory has
grown by ``--step-mb`` since the last one). Optionally with a cluster (``--cluster``: a
2-worker LocalCluster on loopback), so the driver's share of the per-partition stages shows.

Run:  PYTHONPATH=src python benchmarks/profile_driver.py [--size 1m]
      [--stages copies,singling_out,linkability,membership_nobox] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path


class Snapper:
    """Polls the traced memory and keeps the snapshot taken at the largest traced size."""

    def __init__(self, step: int) -> None:
        self.step = step
        self.best: tracemalloc.Snapshot | None = None
        self.best_size = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            cur, _ = tracemalloc.get_traced_memory()
            if cur > self.best_size + self.step:
                self.best = tracemalloc.take_snapshot()
                self.best_size = cur

    def stop(self) -> None:
        self._stop.set()
        self._t.join()


def sites(snap: tracemalloc.Snapshot, top: int) -> list[tuple[str, float]]:
    """The largest allocation sites: the innermost synthleak frame of each traceback (frames
    run from the oldest to the most recent)."""
    sums: dict[str, int] = {}
    for stat in snap.statistics("traceback"):
        where = next(
            (
                f"{Path(f.filename).name}:{f.lineno}"
                for f in reversed(stat.traceback)
                if "synthleak" in f.filename
            ),
            f"{Path(stat.traceback[-1].filename).name}:{stat.traceback[-1].lineno}",
        )
        sums[where] = sums.get(where, 0) + stat.size
    best = sorted(sums.items(), key=lambda kv: -kv[1])[:top]
    return [(w, round(s / 1e6, 1)) for w, s in best]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1m")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "synthleak-census"))
    ap.add_argument("--stages", default="copies,singling_out,linkability,membership_nobox")
    ap.add_argument("--step-mb", type=float, default=50)
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--cluster", action="store_true")
    ap.add_argument("--out", default="")
    a = ap.parse_args()

    from synthleak import pipeline
    from synthleak.cli.common import make_runtime, read_cli_parts

    base = Path(a.cache) / a.size
    paths = {
        p: str(base / p if (base / p).is_dir() else base / f"{p}.parquet")
        for p in ("original", "control", "synthetic")
    }
    wanted = set(a.stages.split(","))
    report: dict = {"size": a.size, "cluster": a.cluster, "stages": {}}

    def traced(st):
        if st.name not in wanted:
            return st

        def run(ctx, rng):
            tracemalloc.start(25)
            snapper = Snapper(int(a.step_mb * 1e6))
            t = time.perf_counter()
            try:
                return st.run(ctx, rng)
            finally:
                snapper.stop()
                _, peak = tracemalloc.get_traced_memory()
                rec = {
                    "seconds_traced": round(time.perf_counter() - t, 1),
                    "peak_gb_above_start": round(peak / 1e9, 3),
                    "sites_mb": [] if snapper.best is None else sites(snapper.best, a.top),
                }
                tracemalloc.stop()
                report["stages"][st.name] = rec
                print(st.name, json.dumps(rec, indent=1), flush=True)

        return replace(st, run=run)

    client = cluster = None
    if a.cluster:
        import distributed

        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            memory_limit="4GB",
            host="127.0.0.1",
            dashboard_address=None,
        )
        client = distributed.Client(cluster)
    saved = pipeline.STAGES
    pipeline.STAGES = tuple(traced(st) for st in saved)
    try:
        tracemalloc.start(25)
        snapper = Snapper(int(a.step_mb * 1e6))
        enc = read_cli_parts(
            {k: paths[k] for k in ("original", "synthetic", "control")}, min_rows=2, compact=True
        )  # as the CLI reads
        snapper.stop()
        report["stages"]["read"] = {
            "held_gb": round(tracemalloc.get_traced_memory()[0] / 1e9, 3),
            "peak_gb": round(tracemalloc.get_traced_memory()[1] / 1e9, 3),
            "sites_mb": [] if snapper.best is None else sites(snapper.best, a.top),
        }
        tracemalloc.stop()
        print("read", report["stages"]["read"], flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            runtime = make_runtime(workers=1, cluster=client, run_dir=Path(tmp) / "run")
            pipeline.audit(
                enc.frames["original"],
                synthetic=enc.frames["synthetic"],
                control=enc.frames["control"],
                encoded=enc,
                seed=0,
                runtime=runtime,
                log=lambda m: None,
            )
    finally:
        pipeline.STAGES = saved
        if client is not None:
            client.close()
            cluster.close()
    if a.out:
        Path(a.out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
