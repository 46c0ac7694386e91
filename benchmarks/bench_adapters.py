"""Speed and fidelity of the adapter generators (ctgan, mst, command) against in-process peers.

Peers, measured in the same run on the same 1,000 Adult training records (seed 0):

* speed: fit + sample(1000) wall-clock of each adapter divided by that of ``indhist`` (the
  cheapest built-in); ``command`` (an external Python resampler, process start + CSV round trip)
  is compared with ``nonprivate`` (the same resampling in process), so the ratio is the overhead
  of running a generator as a program. MST is timed twice: the first fit includes JAX
  compilation, the second (same shapes) does not.
* fidelity: mean total variation distance over all 2-way marginals (continuous columns in 10
  uniform bins) between the training records and 5,000 synthetic records, as a ratio to
  ``indhist`` (which keeps the 1-way marginals and no correlations) -- below 1 means the
  generator keeps correlations that indhist loses.

Run:  python benchmarks/bench_adapters.py [--ctgan-epochs 10] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import os
import shlex
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

import synthleak as sl
from synthleak.data.encoding import Discretiser

PROGRAM = textwrap.dedent(
    """
    import csv, random, sys
    inp, out, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rows = list(csv.reader(open(inp, newline="")))
    rnd = random.Random(seed)
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(rows[0])
        w.writerows(rows[1 + rnd.randrange(len(rows) - 1)] for _ in range(n))
    """
)


def mean_2way_tvd(a: sl.Table, b: sl.Table) -> float:
    disc = Discretiser(a.schema, 10)
    ca, cb = disc.transform(a).astype(np.int64), disc.transform(b).astype(np.int64)
    tvds = []
    for i, j in itertools.combinations(range(len(disc.sizes)), 2):
        si, sj = int(disc.sizes[i]), int(disc.sizes[j])
        pa = np.bincount(ca[:, i] * sj + ca[:, j], minlength=si * sj) / len(a)
        pb = np.bincount(cb[:, i] * sj + cb[:, j], minlength=si * sj) / len(b)
        tvds.append(0.5 * np.abs(pa - pb).sum())
    return float(np.mean(tvds))


def timed(spec: str, train: sl.Table, n: int, seed: int) -> tuple[float, sl.Table]:
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    out = sl.make_generator(spec).fit(train, rng=rng).sample(n, rng=rng)
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctgan-epochs", type=int, default=10, help="0 skips ctgan")
    ap.add_argument("--mst-eps", default="1", help="comma-separated epsilons for mst")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    adult = sl.datasets.load_adult()
    full = sl.Table.from_frame(adult, sl.infer_schema(adult))
    train = full.sample(1000, rng=np.random.default_rng(0))

    tmp = Path(tempfile.mkdtemp(prefix="bench-adapters-"))
    (tmp / "prog.py").write_text(PROGRAM)
    command = (
        f'command:"{shlex.quote(sys.executable)} {shlex.quote(str(tmp / "prog.py"))} '
        '{input} {output} {n} {seed}"'
    )
    lines = [
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; "
        f"date {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        "",
        "| generator | fit+sample(1000) s | peer | peer s | ratio "
        "| mean 2-way TVD (5000 rec.) | TVD / indhist |",
        "|---|---|---|---|---|---|---|",
    ]
    t_ind, _ = timed("indhist", train, 1000, 0)
    t_ind = min(t_ind, timed("indhist", train, 1000, 1)[0])
    t_np = min(timed("nonprivate", train, 1000, s)[0] for s in (0, 1))
    tvd_ind = mean_2way_tvd(train, timed("indhist", train, 5000, 0)[1])
    tvd_np = mean_2way_tvd(train, timed("nonprivate", train, 5000, 0)[1])
    rows = [
        ("indhist", t_ind, "indhist", t_ind, tvd_ind),
        ("nonprivate", t_np, "indhist", t_ind, tvd_np),
    ]
    specs = [("command (python resampler)", command, "nonprivate", t_np)]
    for eps in [e for e in args.mst_eps.split(",") if e]:
        specs.append(
            (f"mst:epsilon={eps} (1st fit, JAX compiles)", f"mst:epsilon={eps}", "indhist", t_ind)
        )
        specs.append(
            (f"mst:epsilon={eps} (2nd fit, compiled)", f"mst:epsilon={eps}", "indhist", t_ind)
        )
    if args.ctgan_epochs > 0:
        spec = f"ctgan:epochs={args.ctgan_epochs}"
        specs.append((spec, spec, "indhist", t_ind))
    for label, spec, peer, t_peer in specs:
        t, _ = timed(spec, train, 1000, 0)
        _, syn = timed(spec, train, 5000, 0)
        rows.append((label, t, peer, t_peer, mean_2way_tvd(train, syn)))
        print(f"{label}: {t:.2f} s", flush=True)
    for label, t, peer, t_peer, tvd in rows:
        lines.append(
            f"| {label} | {t:.3f} | {peer} | {t_peer:.4f} | {t / t_peer:.1f}x | {tvd:.3f} "
            f"| {tvd / tvd_ind:.2f} |"
        )
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
