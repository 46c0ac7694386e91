"""Does the two-stage membership audit of a 1,000-record dataset fit in the standard budget's time?

The ``standard`` budget of ``synthleak audit`` (``BUDGETS`` in ``synthleak/pipeline.py``) attacks
the 5 records with the highest ``V_k`` and 5 random controls with the full shadow-model game
(1,000 shadow and 200 test datasets of ``n = min(1000, (N - 10) // 3)`` records; attacks query,
distance and groundhog). The two-stage audit first screens the records
(:func:`~synthleak.games.twostage.screen_records`: the 10 % with the highest cell rarity, 100
shadow and 100 test datasets) and gives the full game the 5 records it ranks highest instead
(same controls, same game).

This script times, on a 1,000-record sample of Adult (the paper's Adult: no missing values):

1. the standard budget's membership stage (V_k top 5 + 5 controls);
2. the two-stage screen (library defaults);
3. with ``--full-screen``, the screen of all 1,000 records, with the counting-query path as the
   library chooses it and, with ``--bitsets``, with bitsets (one worker; identical answers);
4. the full game on the two-stage screen's top 5 + the same controls.

CPU seconds (this process and its workers) are the primary measure: the machine is shared, so
wall times are given with the load average next to them. Writes
``benchmarks/results/twostage/budget_<generator>.json``.

Usage::

    python -m benchmarks.twostage_budget --generator baynet --workers 2 --run-dir DIR
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import synthleak.queries
from benchmarks.datasets import load_table
from benchmarks.meeus2023 import spec_label
from benchmarks.provenance import RESULTS, Provenance
from benchmarks.reproduce_table2 import cpu_seconds, peak_rss_mb
from synthleak.errors import BaselineWarning
from synthleak.games.membership import MembershipGame
from synthleak.games.targets import Targets
from synthleak.games.twostage import ScreeningMap, screen_records
from synthleak.pipeline import BUDGETS, Budget
from synthleak.runtime import Runtime, stream_rng
from synthleak.vulnerability import rank_records

STUDY = "twostage"


def timed(fn):  # type: ignore[no-untyped-def]
    """Run ``fn()``; return its value, wall seconds, CPU seconds and the 1-min load average."""
    t0, c0 = time.perf_counter(), cpu_seconds()
    out = fn()
    return out, time.perf_counter() - t0, cpu_seconds() - c0, os.getloadavg()[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--generator", default="baynet")
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--screen-shadows", type=int, default=100)
    ap.add_argument("--screen-tests", type=int, default=100)
    ap.add_argument("--screen-queries", type=int, default=1000)
    ap.add_argument("--full-screen", action="store_true", help="also screen every record")
    ap.add_argument("--bitsets", action="store_true", help="with --full-screen: also bitsets")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--run-dir", type=Path, default=None)
    ap.add_argument(
        "--audit-only",
        action="store_true",
        help="only time the whole standard audit (synthleak.audit, every stage) of the sample",
    )
    ap.add_argument("--results-root", type=Path, default=RESULTS)
    args = ap.parse_args(argv)
    prov = Provenance.start(None if argv is None else ["twostage_budget.py", *argv])
    warnings.simplefilter("ignore", BaselineWarning)

    full = load_table("adult")
    rows = np.sort(stream_rng(args.seed, "budget-sample").choice(len(full), args.records, False))
    data = full.take(rows)
    plan = BUDGETS[Budget.STANDARD]
    n = min(plan.n, (len(data) - plan.mia_targets - plan.mia_controls) // 3)

    def rt(name: str) -> Runtime:
        return Runtime(
            workers=args.workers, run_dir=(args.run_dir / name) if args.run_dir else None
        )

    # the controls are the same for both audits: random records outside both top-5 lists
    vk_top = rank_records(data, "distance", top=plan.mia_targets).rows

    def game(targets: np.ndarray, name: str):  # type: ignore[no-untyped-def]
        g = MembershipGame(
            args.generator,
            targets=Targets.rows(targets.tolist()),
            train_size=n,
            synthetic_size=n,
            n_shadows=plan.shadows,
            n_tests=plan.tests,
            attacks=plan.mia_attacks,
        )
        return g.run(data, seed=args.seed, runtime=rt(name))

    screen = ScreeningMap(
        args.generator,
        train_size=n,
        n_shadows=args.screen_shadows,
        n_tests=args.screen_tests,
        n_queries=args.screen_queries,
    )
    doc: dict = {
        "records": args.records,
        "n_train": n,
        "plan": {k: (list(v) if isinstance(v, tuple) else v) for k, v in plan.__dict__.items()},
        "screen": {
            "n_shadow": args.screen_shadows,
            "n_test": args.screen_tests,
            "n_queries": args.screen_queries,
        },
        "library_max_dense_bits": int(synthleak.queries.MAX_DENSE_BITS),
    }
    print(f"1,000-record Adult sample, {args.generator}, n = {n}; standard plan {plan}", flush=True)
    if args.audit_only:
        doc.update(time_audit(data, args, rt("audit")))
        # the chosen screen right after, under the same load, for the ratio
        chosen, wall, cpu, load = timed(
            lambda: screen_records(
                data, args.generator, seed=args.seed, runtime=rt("screen-after-audit")
            )
        )
        doc["screen_chosen"] = {"wall": wall, "cpu": cpu, "load": load}
        print(
            f"two-stage screen after the audit: {cpu:.0f} CPU-s, "
            f"{wall:.0f} s wall (load {load:.1f})"
        )
        path = prov.write(STUDY, f"audit_{spec_label(args.generator)}", doc, root=args.results_root)
        print(f"wrote {path}")
        return 0

    chosen, wall, cpu, load = timed(
        lambda: screen_records(data, args.generator, seed=args.seed, runtime=rt("screen-chosen"))
    )
    doc["screen_chosen"] = {
        "wall": wall,
        "cpu": cpu,
        "load": load,
        "screened": int(chosen.rows.size),
        "datasets": chosen.total_datasets,
    }
    print(
        f"two-stage screen ({chosen.rows.size} records after the cell-rarity prefilter): "
        f"{cpu:.0f} CPU-s, {wall:.0f} s wall (load {load:.1f})",
        flush=True,
    )
    screen_top = chosen.top(plan.mia_targets)
    if args.full_screen:
        res, wall, cpu, load = timed(lambda: screen.run(data, seed=args.seed, runtime=rt("screen")))
        doc["screen_every_record"] = {"wall": wall, "cpu": cpu, "load": load}
        print(f"screen of every record: {cpu:.0f} CPU-s, {wall:.0f} s wall (load {load:.1f})")
        doc["screen_every_record"]["top"] = res.top(plan.mia_targets).tolist()
        if args.bitsets:
            dense = synthleak.queries.MAX_DENSE_BITS
            synthleak.queries.MAX_DENSE_BITS = 0  # inline only: workers would not see it
            one = Runtime(
                workers=1, run_dir=(args.run_dir / "screen-bitsets") if args.run_dir else None
            )
            res2, wall, cpu, load = timed(lambda: screen.run(data, seed=args.seed, runtime=one))
            synthleak.queries.MAX_DENSE_BITS = dense
            if not res2.same_as(res):
                raise SystemExit("the bitset screen differs from the dense one")
            doc["screen_every_record_bitsets_one_worker"] = {"wall": wall, "cpu": cpu}
            print(f"screen of every record, bitsets, 1 worker: {cpu:.0f} CPU-s, {wall:.0f} s")

    pool = np.setdiff1d(np.arange(len(data)), np.union1d(vk_top, screen_top))
    controls = stream_rng(args.seed, "budget-controls").choice(pool, plan.mia_controls, False)
    std, wall, cpu, load = timed(lambda: game(np.concatenate([vk_top, controls]), "standard"))
    doc["standard"] = {"wall": wall, "cpu": cpu, "load": load, "targets": vk_top.tolist()}
    print(f"standard game (V_k top 5 + 5): {cpu:.0f} CPU-s, {wall:.0f} s wall", flush=True)
    two, wall, cpu, load = timed(lambda: game(np.concatenate([screen_top, controls]), "stage2"))
    doc["stage2"] = {"wall": wall, "cpu": cpu, "load": load, "targets": screen_top.tolist()}
    print(f"stage 2 game (screen top 5 + 5): {cpu:.0f} CPU-s, {wall:.0f} s wall", flush=True)

    def top_auc(result, k: int) -> list[float]:  # type: ignore[no-untyped-def]
        return [max(o.auc.value for o in t.attacks.values()) for t in result.targets[:k]]

    doc["standard"]["best_auc"] = top_auc(std, plan.mia_targets)
    doc["stage2"]["best_auc"] = top_auc(two, plan.mia_targets)
    doc["controls"] = controls.tolist()
    doc["screen_auc_of_targets"] = [float(a) for a in chosen.auc[chosen.order()[: len(screen_top)]]]
    doc["peak_rss_mb"] = peak_rss_mb()
    s1 = doc["screen_chosen"]["cpu"]
    st, s2 = doc["standard"]["cpu"], doc["stage2"]["cpu"]
    doc["ratio_two_stage_to_standard_cpu"] = (s1 + s2) / st
    print(
        f"two-stage / standard CPU: ({s1:.0f} + {s2:.0f}) / {st:.0f} = {(s1 + s2) / st:.2f}; "
        f"mean best AUC of the 5 targets: V_k {np.mean(doc['standard']['best_auc']):.3f}, "
        f"screen {np.mean(doc['stage2']['best_auc']):.3f}",
        flush=True,
    )
    path = prov.write(STUDY, f"budget_{spec_label(args.generator)}", doc, root=args.results_root)
    print(f"wrote {path}")
    return 0


def time_audit(data, args: argparse.Namespace, runtime: Runtime) -> dict:  # type: ignore[no-untyped-def]
    """Wall and CPU time of the whole standard audit of ``data`` (every stage), per stage."""
    from synthleak.pipeline import audit

    res, wall, cpu, load = timed(
        lambda: audit(
            data.to_frame(),
            generator=args.generator,
            budget="standard",
            seed=args.seed,
            runtime=runtime,
            log=lambda line: print(f"  audit: {line}", flush=True),
        )
    )
    stages = {s.name: {"status": s.status.value, "seconds": s.seconds} for s in res.stages}
    print(f"standard audit, every stage: {cpu:.0f} CPU-s, {wall:.0f} s wall (load {load:.1f})")
    for name, st in stages.items():
        print(f"  {name:<24} {st['status']:<14} {st['seconds']:.0f} s")
    return {"audit_standard": {"wall": wall, "cpu": cpu, "load": load, "stages": stages}}


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
