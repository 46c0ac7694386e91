"""Reproduce the target-attention columns of Table 3 of Meeus et al. (2023).

Appendix A, Table 3 of the paper: AUC of the target-attention membership attack for targets
chosen by four selectors (random, rare value, log-likelihood, distance V_k with k = 5),
generators synthpop and baynet, |D| = |D^s| = 1000, |D_aux| and |D_test| as Table 1 (Adult
10,000 and 5,000; census scaled to our 50,000 records, see ``benchmarks/meeus2023.py``). The
paper uses 4,000 shadow datasets and 10 targets per selector; ``--quick`` runs a reduced
configuration in minutes on 2 cores.

The game is :class:`synthleak.games.membership.MembershipGame` with ``attacks=["attention"]`` (add
``--attacks attention,query`` to measure the query-based attack on the same shadow datasets, as
a same-run peer). One shared pool of shadow/test datasets serves all targets of a generator
(``--pool single`` is the paper's one pool per target). With the same ``--run-dir`` as
``benchmarks.reproduce_table2`` (same data, targets, sizes and seed) the stored shadow and test
datasets are reused: only the attention networks are trained.

Prints mean ± s.d. of the AUC per selector beside the paper's values and the wall time; writes the
full result per generator to ``benchmarks/results/table3/attention_<label>_<shadows>.json``.

Usage::

    python -m benchmarks.reproduce_attention --quick
    python -m benchmarks.reproduce_attention --shadows 1000 --targets-per-selector 5
    python -m benchmarks.reproduce_attention --data census --run-dir DIR   # after reproduce_table2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks.meeus2023 import (
    DATA,
    GENERATORS,
    SELECTORS,
    add_data_argument,
    load_omega,
    paper_value,
    run_dir_name,
    selector_targets,
    spec_label,
    split_generators,
)
from benchmarks.provenance import RESULTS, Provenance
from benchmarks.reproduce_table2 import cpu_seconds, peak_rss_mb
from synthleak.cli.common import to_json
from synthleak.errors import BaselineWarning
from synthleak.games.membership import MembershipGame
from synthleak.runtime import Runtime

STUDY = "table3"


def attack_cpu_seconds(run_dir: Path, attacks: list[str]) -> dict[str, list[float]]:
    """Per-target CPU seconds (fit + score) of each attack, read from the run directory's units."""
    out: dict[str, list[float]] = {}
    for a in attacks:
        vals = []
        for f in sorted((run_dir / "units").glob(f"atk-{a}-*.npz")):
            with np.load(f) as z:
                if "cpu_seconds" in z:
                    vals.append(float(z["cpu_seconds"][0]))
        out[a] = vals
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="reduced configuration (minutes)")
    add_data_argument(ap)
    ap.add_argument("--generators", default=GENERATORS)
    ap.add_argument("--targets-per-selector", type=int, default=None)
    ap.add_argument("--shadows", type=int, default=None)
    ap.add_argument("--tests", type=int, default=None)
    ap.add_argument("--attacks", default="attention")
    ap.add_argument("--epochs", type=int, default=500)
    ap.add_argument("--patience", type=int, default=25)
    ap.add_argument("--pool", default="shared")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--results-root",
        type=Path,
        default=RESULTS,
        help=f"results go to <root>/{STUDY}/attention_<label>_<shadows>.json (default {RESULTS})",
    )
    ap.add_argument(
        "--run-dir",
        type=Path,
        default=None,
        help="resumable run directories go under here; the same directory as reproduce_table2.py's "
        "--run-dir reuses its stored shadow and test datasets (same targets, sizes and seed)",
    )
    args = ap.parse_args(argv)
    prov = Provenance.start(None if argv is None else ["reproduce_attention.py", *argv])

    per_sel = args.targets_per_selector or (3 if args.quick else 10)
    shadows = args.shadows or (400 if args.quick else 4000)
    tests = args.tests or (100 if args.quick else 200)
    attacks = [a.strip() for a in args.attacks.split(",") if a.strip()]

    t_start = time.perf_counter()
    omega = load_omega(args.data)
    spec = "+".join(f"{s}:{per_sel}" for s in SELECTORS)
    targets = selector_targets(SELECTORS, per_sel)
    rows = targets.resolve(omega, seed=args.seed).rows
    print(f"{args.data} |Omega|={len(omega)}; {rows.size} distinct targets ({spec})", flush=True)
    print(
        f"config: n=m=1000, shadows={shadows}, tests={tests}, attacks={attacks}, "
        f"epochs<={args.epochs}, patience={args.patience}, pool={args.pool}, "
        f"workers={args.workers}, |D_aux|={DATA[args.data].aux_size}, "
        f"|D_test|={DATA[args.data].test_size}",
        flush=True,
    )
    summary: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    timings: dict[str, float] = {}
    for gen in split_generators(args.generators):
        run_dir = (
            (args.run_dir / run_dir_name(gen, args.data, shadows, args.pool))
            if args.run_dir
            else None
        )
        t0, c0 = time.perf_counter(), cpu_seconds()
        game = MembershipGame(
            gen,
            targets=targets,
            train_size=1000,
            synthetic_size=1000,
            n_shadows=shadows,
            n_tests=tests,
            attacks=attacks,
            attack_params={"attention": {"epochs": args.epochs, "patience": args.patience}},
            pool=args.pool,
            aux_size=DATA[args.data].aux_size,
            test_size=DATA[args.data].test_size,
        )
        runtime = Runtime(workers=args.workers, run_dir=run_dir, progress=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            result = game.run(omega, seed=args.seed, runtime=runtime)
        timings[gen] = time.perf_counter() - t0
        doc = result.to_dict()
        doc["summary"] = {a: s.to_dict() for a, s in result.summary().items()}
        doc["summary_by_selector"] = {
            sel: {a: s.to_dict() for a, s in by.items()}
            for sel, by in result.summary_by_selector().items()
        }
        doc["timing_seconds"] = timings[gen]
        doc["cpu_seconds"] = cpu_seconds() - c0
        doc["peak_rss_mb"] = peak_rss_mb()
        doc["config"]["data"] = args.data
        if run_dir:
            cpu = attack_cpu_seconds(run_dir, attacks)
            doc["attack_cpu_seconds"] = cpu
            for a, v in cpu.items():
                if v:
                    print(
                        f"[{gen}] {a}: CPU seconds per target (fit + score, one process): "
                        f"median {np.median(v):.0f}, max {max(v):.0f} over {len(v)} targets",
                        flush=True,
                    )
        name = f"attention_{spec_label(gen, args.data)}_{shadows}{'_quick' if args.quick else ''}"
        path = prov.write(STUDY, name, json.loads(to_json(doc)), root=args.results_root)
        print(f"[{gen}] wrote {path}", flush=True)
        summary[gen] = doc["summary_by_selector"]
        print(f"[{gen}] {timings[gen]:.0f}s", flush=True)

    for attack in attacks:
        print()
        print(
            f"Table 3 ({DATA[args.data].family}), attack {attack!r}: mean ± s.d. of AUC over each "
            "selector's targets"
        )
        head = f"{'selector':<10}" + "".join(
            f"  {g + ' (ours)':>20}  {g + ' (paper)':>18}" for g in summary
        )
        print(head)
        for sel in SELECTORS:
            line = f"{sel:<10}"
            for gen, by in summary.items():
                s = by.get(sel, {}).get(attack)
                ours = f"{s['auc_mean']:.3f} ± {s['auc_sd']:.3f}" if s else "n/a"
                p = paper_value(attack, args.data, gen, sel)
                paper = f"{p[0]:.3f} ± {p[1]:.3f}" if p else "n/a"
                line += f"  {ours:>20}  {paper:>18}"
            print(line)
    total = time.perf_counter() - t_start
    print(f"\ntotal wall time {total / 60:.1f} min")
    print(json.dumps({"timings_s": timings, "total_s": total}))
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
