"""Reduced reproductions of Fig. 3a (robustness of V_k to k) and Fig. 4 (PrivBayes epsilon sweep)
of Meeus et al. (2023), query-based MIA on Adult.

Fig. 3a: for each k, the ``--targets`` most vulnerable Adult records by V_k (cosine, eq. 5);
all targets share one pool of shadow/test datasets through ``--fig3a-generator`` (default
``synthpop:predictors=onehot``, the paper's synthpop); the mean AUC of each k's targets is
reported (the paper: stable across k = 1..50).
Fig. 4: for each epsilon, ``privbayes:epsilon=E`` with ``--targets`` records of each of
``--fig4-selectors`` (default distance only; the paper plots all four: random, rare, loglik,
distance), one shared pool per epsilon (the paper: AUC falls as epsilon shrinks, towards 0.5).

Omega is the 45,222-record Adult without missing values (``--data complete``, the paper's; see
``benchmarks/reproduce_table2.py``) or all 48,842 rows (``--data full``).
|D| = |D^s| = 1000, |D_aux| = 10,000, |D_test| = 5,000 as Table 1; ``--shadows`` and ``--tests``
reduced from the paper's 4,000 / 200 (stated in the output).

Usage::

    python -m benchmarks.reproduce_sweeps --shadows 300 --tests 100 --targets 10 --workers 2
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks.meeus2023 import DATA, add_data_argument, load_omega, selector_targets
from benchmarks.provenance import Provenance
from synthleak.errors import BaselineWarning
from synthleak.games.membership import MembershipGame
from synthleak.games.targets import Targets
from synthleak.runtime import Runtime
from synthleak.vulnerability import select_targets

K_VALUES = (1, 2, 5, 10, 20, 50)
EPSILONS = (1.0, 10.0, 100.0, 1000.0)


def _game(generator: str, targets: Targets, args: argparse.Namespace) -> MembershipGame:
    return MembershipGame(
        generator,
        targets=targets,
        train_size=1000,
        synthetic_size=1000,
        n_shadows=args.shadows,
        n_tests=args.tests,
        attacks=("query",),
        aux_size=DATA[args.data].aux_size,
        test_size=DATA[args.data].test_size,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shadows", type=int, default=300)
    ap.add_argument("--tests", type=int, default=100)
    ap.add_argument("--targets", type=int, default=10)
    add_data_argument(ap)
    ap.add_argument("--fig3a-generator", default="synthpop:predictors=onehot")
    ap.add_argument(
        "--fig4-selectors", default="distance", help="comma-separated: random,rare,loglik,distance"
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/mia/sweeps.json"))
    args = ap.parse_args()
    prov = Provenance.start()
    warnings.simplefilter("ignore", BaselineWarning)
    omega = load_omega(args.data)
    out: dict = {"config": vars(args) | {"out": str(args.out)}, "fig3a": {}, "fig4": {}}

    t0 = time.perf_counter()
    per_k = {k: select_targets(omega, "distance", args.targets, k=k).tolist() for k in K_VALUES}
    union = sorted({r for rows in per_k.values() for r in rows})
    runtime = Runtime(workers=args.workers)
    res = _game(args.fig3a_generator, Targets.rows(union), args).run(
        omega, seed=args.seed, runtime=runtime
    )
    auc = {t.row: t.attacks["query"].auc.value for t in res.targets}
    for k, rows in per_k.items():
        vals = np.array([auc[r] for r in rows])
        out["fig3a"][str(k)] = {
            "rows": rows,
            "auc_mean": float(vals.mean()),
            "auc_sd": float(vals.std()),
        }
        print(
            f"Fig 3a  k={k:>2}  AUC {vals.mean():.3f} ± {vals.std():.3f}  rows {rows}", flush=True
        )
    out["fig3a_seconds"] = time.perf_counter() - t0

    selectors = [sel.strip() for sel in args.fig4_selectors.split(",") if sel.strip()]
    targets = selector_targets(selectors, args.targets)
    for eps in EPSILONS:
        t1 = time.perf_counter()
        res = _game(f"privbayes:epsilon={eps:g},k=2", targets, args).run(
            omega, seed=args.seed, runtime=runtime
        )
        by_selector = res.summary_by_selector()
        cell: dict = {sel: by_selector[sel]["query"].to_dict() for sel in selectors}
        for sel in selectors:
            print(
                f"Fig 4   epsilon={eps:g}  {sel:<8}  "
                f"AUC {cell[sel]['auc_mean']:.3f} ± {cell[sel]['auc_sd']:.3f}",
                flush=True,
            )
        cell["seconds"] = time.perf_counter() - t1
        out["fig4"][f"{eps:g}"] = cell
    args.out.parent.mkdir(parents=True, exist_ok=True)
    out = {"provenance": prov.to_dict(), **out}
    args.out.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
