"""Risk-map benchmark and validation: a membership AUC for every record, against V_k and baselines.

Three parts, all in one run (figures are compared within this run):

1. A reduced risk map on Adult with baynet (``--n`` records, ``--shadows``/``--tests`` datasets,
   query + distance attacks): wall time per phase, Spearman(V_k, AUC) with a bootstrap CI and
   precision of "top-10 by V_k" vs the rare-value and log-likelihood baselines.
2. Cost at the full size (n = 1000): generates the full S + T baynet datasets at n = m = 1000
   (one core, timed) and times the attacks of ``--probe-records`` records on those full-size
   pools, then EXTRAPOLATES linearly to all 1,000 records; an extrapolation, not a measurement.
3. Agreement with the single-target game: a few records of the map (highest, median and lowest
   AUC) are re-audited with :class:`~synthleak.games.membership.MembershipGame` (same n, m,
   attacks, queries, shadows and tests; its own datasets) and the two AUC CIs are compared.

Usage: ``python -m benchmarks.riskmap_validation [--n 300 --shadows 80 --tests 40 --workers 2]``

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 3, 4 and 5.2, Table 1.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks.riskmap_truth import riskmap_doc
from synthleak.attacks.base import AttackFamily, make_attack
from synthleak.data.io import load_data
from synthleak.errors import BaselineWarning
from synthleak.games.membership import MembershipGame
from synthleak.games.riskmap import RiskMap, _attack_chunk
from synthleak.games.shadow import generate_batch
from synthleak.games.targets import Targets
from synthleak.queries import TableStack
from synthleak.runtime import Runtime, unit_rng


def probe_full_cost(
    data, generator: str, n: int, probe: int, n_shadow: int, records: int, queries: int, seed: int
) -> dict:
    """Time ``probe`` generator runs at n = m = ``n`` and the attacks of ``records`` records on
    them."""
    rng = unit_rng(seed, 99)
    perm = rng.permutation(len(data))[: n + n]
    local = data.take(perm)
    half = n // 2
    rows = np.empty((probe, n), dtype=np.int64)
    labels = np.zeros((probe, n), dtype=bool)
    for s in range(probe):
        ins = rng.choice(n, half, replace=False)
        labels[s, ins] = True
        rows[s, :half] = np.sort(ins)
        rows[s, half:] = n + rng.choice(n, n - half, replace=False)
    t0, c0 = time.perf_counter(), time.process_time()
    out = generate_batch({"omega": local, "m": n, "seed": seed, "generator": generator}, 0, 0, rows)
    gen, gen_cpu = (time.perf_counter() - t0) / probe, (time.process_time() - c0) / probe
    ok = out["ok"]
    stack = TableStack(local.schema, out["codes"][ok], out["values"][ok])
    split = min(n_shadow, stack.codes.shape[0] - 2)  # S shadow, the rest (T) test datasets
    attacks = [
        (
            "query",
            make_attack(AttackFamily.MEMBERSHIP, "query", n_estimators=100, n_queries=queries),
        ),
        ("distance", make_attack(AttackFamily.MEMBERSHIP, "distance", n_estimators=100)),
    ]
    shared = {
        "private": local.take(np.arange(n)),
        "shadow": stack[:split],
        "test": stack[split:],
        "y_shadow": labels[ok][:split],
        "y_test": labels[ok][split:],
        "seed": seed,
        "attacks": attacks,
        "n_boot": 1000,
    }
    t0, c0 = time.perf_counter(), time.process_time()
    _attack_chunk(shared, 0, records)
    atk, atk_cpu = (time.perf_counter() - t0) / records, (time.process_time() - c0) / records
    return {
        "gen_seconds_per_dataset": gen,
        "attack_seconds_per_record": atk,
        "gen_cpu_seconds_per_dataset": gen_cpu,
        "attack_cpu_seconds_per_record": atk_cpu,
        "probe_datasets": int(ok.sum()),
        "probe_shadow": split,
        "probe_records": records,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--generator", default="baynet")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--shadows", type=int, default=200)
    ap.add_argument("--tests", type=int, default=100)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--probe", type=int, default=None, help="datasets generated at n=1000 (default: full S + T)"
    )
    ap.add_argument("--probe-records", type=int, default=10)
    ap.add_argument(
        "--check", type=int, default=3, help="records re-audited with the single-target game"
    )
    ap.add_argument("--full-shadows", type=int, default=200)
    ap.add_argument("--full-tests", type=int, default=100)
    ap.add_argument("--out", default="/tmp/riskmap_validation.json")
    ap.add_argument("--probe-only", action="store_true", help="only part 2 (full-size cost probe)")
    args = ap.parse_args()
    warnings.simplefilter("ignore", BaselineWarning)
    data = load_data("adult").table
    doc: dict = {"args": vars(args)}
    if args.probe_only:
        full_cost(args, data, doc)
        Path(args.out).write_text(json.dumps(doc, indent=2, default=str))
        return

    t0 = time.perf_counter()
    res = RiskMap(
        args.generator,
        train_size=args.n,
        n_shadows=args.shadows,
        n_tests=args.tests,
        n_queries=args.queries,
    ).run(data, seed=args.seed, runtime=Runtime(workers=args.workers, progress=True))
    wall = time.perf_counter() - t0
    d = riskmap_doc(res)
    doc["reduced"] = {
        "wall_seconds": wall,
        "timings": d["timings"],
        "summary": d["summary"],
        "failures": d["failures"],
    }
    print(
        f"reduced risk map: n={args.n} S={args.shadows} T={args.tests} Q={args.queries} "
        f"workers={args.workers}: {wall:.0f} s "
        f"(generation {d['timings']['generation_seconds']:.0f} s, "
        f"attacks {d['timings']['attack_seconds']:.0f} s)"
    )
    v = d["summary"]["validation"]
    print(
        f"AUC (best attack) mean {d['summary']['auc_mean']:.3f} "
        f"sd {d['summary']['auc_sd']:.3f}; "
        f"chance precision@10 {v['chance_precision']:.3f}"
    )
    for s in ("vulnerability", "rare_value", "log_likelihood"):
        print(
            f"  {s:<15} spearman {v[s]['spearman']:+.3f} "
            f"[{v[s]['spearman_ci'][0]:+.3f}, {v[s]['spearman_ci'][1]:+.3f}]"
            f"  precision@10 {v[s]['precision_at_10']:.2f}"
        )
    for a, va in d["summary"].get("validation_per_attack", {}).items():
        print(
            f"  [{a}] "
            + "; ".join(
                f"{s} rho {va[s]['spearman']:+.3f} p@10 {va[s]['precision_at_10']:.2f}"
                for s in ("vulnerability", "rare_value", "log_likelihood")
            )
        )

    # 3. agreement with the single-target game
    recs = d["records"]
    order = np.argsort([-(r["auc"] if r["auc"] is not None else -1) for r in recs], kind="stable")
    picks = [int(order[0]), int(order[len(order) // 2]), int(order[-1])][: args.check]
    rows = [recs[i]["row"] for i in picks]
    t0 = time.perf_counter()
    game = MembershipGame(
        args.generator,
        targets=Targets.rows(rows),
        train_size=args.n,
        synthetic_size=args.n,
        n_shadows=args.shadows,
        n_tests=args.tests,
        attacks=("query", "distance"),
        attack_params={"query": {"n_queries": args.queries}},
        batch_size=10,
    )
    single = game.run(
        data, seed=args.seed + 1, runtime=Runtime(workers=args.workers, progress=True)
    ).to_dict()
    agree = []
    for i, t in zip(picks, single["targets"], strict=True):
        r = recs[i]
        for a in ("query", "distance"):
            o = t["attacks"][a]
            lo1, hi1 = r[f"auc_{a}_ci_low"], r[f"auc_{a}_ci_high"]
            auc2, lo2, hi2 = o["auc"]["value"], o["auc"]["ci_low"], o["auc"]["ci_high"]
            overlap = max(lo1, lo2) <= min(hi1, hi2)
            agree.append(
                {
                    "row": r["row"],
                    "attack": a,
                    "riskmap": [r[f"auc_{a}"], lo1, hi1],
                    "single": [auc2, lo2, hi2],
                    "overlap": bool(overlap),
                }
            )
            print(
                f"  row {r['row']:>6} {a:<8} riskmap {r[f'auc_{a}']:.3f} [{lo1:.3f},{hi1:.3f}]  "
                f"single-target {auc2:.3f} [{lo2:.3f},{hi2:.3f}]  CIs overlap: {overlap}"
            )
    doc["agreement"] = {"seconds": time.perf_counter() - t0, "checks": agree}

    full_cost(args, data, doc)
    Path(args.out).write_text(json.dumps(doc, indent=2, default=str))


def full_cost(args: argparse.Namespace, data, doc: dict) -> None:
    """Part 2: time the full-size pools and a few records; extrapolate to 1,000 records."""
    full_sets = args.full_shadows + args.full_tests
    probe = probe_full_cost(
        data,
        args.generator,
        1000,
        args.probe or full_sets,
        args.full_shadows,
        args.probe_records,
        args.queries,
        args.seed,
    )
    est_1core = (
        full_sets * probe["gen_seconds_per_dataset"] + 1000 * probe["attack_seconds_per_record"]
    )
    probe["extrapolated_full_seconds_one_core"] = est_1core
    probe["extrapolated_full_seconds_two_workers"] = est_1core / 2
    doc["full_cost"] = probe
    print(
        f"probe at n=m=1000: {probe['gen_seconds_per_dataset']:.2f} s per baynet dataset, "
        f"{probe['attack_seconds_per_record']:.2f} s per record "
        f"(both attacks, {probe['probe_datasets']} datasets)"
    )
    print(
        f"EXTRAPOLATED full map (1000 records, S={args.full_shadows}, T={args.full_tests}): "
        f"{est_1core / 60:.0f} min on one core, "
        f"~{est_1core / 120:.0f} min with 2 workers (ideal split)"
    )
    cpu = (
        full_sets * probe["gen_cpu_seconds_per_dataset"]
        + 1000 * probe["attack_cpu_seconds_per_record"]
    )
    probe["extrapolated_full_cpu_seconds"] = cpu
    print(
        "  CPU time (less sensitive to machine load): "
        f"{probe['gen_cpu_seconds_per_dataset']:.2f} s per dataset, "
        f"{probe['attack_cpu_seconds_per_record']:.2f} s per record -> "
        f"{cpu / 60:.0f} CPU-min in all, "
        f"~{cpu / 120:.0f} min on 2 idle cores"
    )


if __name__ == "__main__":
    main()
