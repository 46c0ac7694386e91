"""Does the two-stage audit of a 1,000-record dataset fit in the standard budget's time?

``synthleak audit`` (``synthleak.pipeline.audit``) picks the targets of its shadow-model
membership game with ``selector``. ``distance`` attacks the 5 training records with the highest
``V_k`` (Meeus et al. 2023) and 5 random controls with the ``standard`` budget's game (1,000
shadow and 200 test datasets of ``n = min(1000, (N - 10) // 3)`` records; the budget's
membership attacks). ``screen`` (the default) first screens the training records as
:func:`~synthleak.games.twostage.screen_design` says (the 200 rarest with a small attack on 100
shadow and 100 test datasets, then the 20 it ranks riskiest on a second pool of as many) and
gives the game the 5 records it ranks riskiest, with the budget's ``screened_shadows`` (600)
shadow datasets instead of 1,000, so that screen and game together take no more than the time
of the game alone.

This script runs both audits of the same 1,000-record sample of Adult (the paper's Adult: no
missing values), every stage, same seed, ``--repeats`` times in alternating order (the machine
is shared: interleaving gives both the same load), and records per run: wall time, the time of
each stage, the screen's time, the shadow datasets used, and the membership AUC (best attack,
95 % interval) of the 5 selected targets. Writes
``benchmarks/results/twostage/audit_<generator>.json``.

Usage::

    python -m benchmarks.twostage_budget --generator baynet --workers 2 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks.datasets import adult_sample, alternating, wall_ratios
from benchmarks.meeus2023 import spec_label
from benchmarks.provenance import RESULTS, Provenance
from synthleak.errors import BaselineWarning
from synthleak.pipeline import BUDGETS, Budget, audit
from synthleak.runtime import Runtime

STUDY = "twostage"
SELECTORS = ("distance", "screen")
#: ``screen:<prefilter>`` runs the two-stage audit with that prefilter of
#: :func:`~synthleak.games.twostage.screen_records` (``halving`` or ``rarity``) instead of its
#: default, to time two screens in the same run.
PREFILTERS = ("halving", "rarity")


def one_audit(data, variant: str, args: argparse.Namespace) -> dict:  # type: ignore[no-untyped-def]
    """Wall time, stage times and the selected targets' AUCs of one standard audit."""
    import functools

    import synthleak.games.twostage as twostage

    selector, _, prefilter = variant.partition(":")
    original = twostage.screen_records
    if prefilter:
        if prefilter not in PREFILTERS:
            raise SystemExit(f"unknown prefilter {prefilter!r}: use one of {PREFILTERS}")
        twostage.screen_records = functools.partial(original, prefilter=prefilter)  # type: ignore[assignment]
    t0 = time.perf_counter()
    try:
        res = audit(
            data,
            generator=args.generator,
            budget="standard",
            seed=args.seed,
            selector=selector,
            runtime=Runtime(workers=args.workers),
        )
    finally:
        twostage.screen_records = original  # type: ignore[assignment]
    wall = time.perf_counter() - t0
    assert res.membership is not None and res.budget is not None
    chosen = [t for t in res.membership.targets if t.selected_by == selector]

    def best(t):  # type: ignore[no-untyped-def]
        return max(t.attacks.values(), key=lambda o: o.auc.value).auc

    return {
        "wall": wall,
        "load": os.getloadavg()[0],
        "stages": {s.name: s.seconds for s in res.stages},
        "screen_seconds": res.budget.screen_seconds,
        "game_seconds": res.budget.measured_seconds,
        "n_shadows": res.budget.n_shadows,
        "targets": [t.row for t in chosen],
        "best_auc": [best(t).value for t in chosen],
        "best_auc_ci": [(best(t).ci_low, best(t).ci_high) for t in chosen],
        "mean_best_auc": float(np.mean([best(t).value for t in chosen])),
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
    ap.add_argument("--results-root", type=Path, default=RESULTS)
    ap.add_argument(
        "--variants",
        default=",".join(SELECTORS),
        help="comma-separated: distance, screen, screen:halving, screen:rarity",
    )
    ap.add_argument("--name", default=None, help="results file name (default audit_<generator>)")
    args = ap.parse_args(argv)
    variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    prov = Provenance.start(None if argv is None else ["twostage_budget.py", *argv])
    warnings.simplefilter("ignore", BaselineWarning)

    data = adult_sample(args.records, args.seed)
    plan = BUDGETS[Budget.STANDARD]
    print(f"{args.records}-record Adult sample, {args.generator}; standard plan {plan}", flush=True)

    def report(rep: int, sel: str, r: dict) -> None:  # type: ignore[type-arg]
        print(
            f"[{rep}] {sel:<8} audit {r['wall']:.0f} s (screen {r['screen_seconds']:.0f} s, "
            f"game {r['game_seconds']:.0f} s, {r['n_shadows']} shadows, load "
            f"{r['load']:.1f}); mean best AUC of its 5 targets {r['mean_best_auc']:.3f}",
            flush=True,
        )

    runs = alternating(variants, args.repeats, lambda sel: one_audit(data, sel, args), report)
    ratios, medians = wall_ratios(runs, variants[-1], variants[0])
    doc = {
        "records": args.records,
        "generator": args.generator,
        "workers": args.workers,
        "plan": {k: (list(v) if isinstance(v, tuple) else v) for k, v in plan.__dict__.items()},
        "runs": runs,
        "variants": list(variants),
        f"wall_ratio_{variants[-1]}_to_{variants[0]}": ratios,
        "median_wall": medians,
    }
    for v in variants[1:-1]:
        doc[f"wall_ratio_{v}_to_{variants[0]}"] = wall_ratios(runs, v, variants[0])[0]
    print(
        f"{variants[-1]} / {variants[0]} audit wall time: {', '.join(f'{x:.2f}' for x in ratios)} "
        f"(median audits: {', '.join(f'{v} {m:.0f} s' for v, m in medians.items())})"
    )
    name = args.name or f"audit_{spec_label(args.generator)}"
    path = prov.write(STUDY, name, doc, root=args.results_root)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
