"""The likelihood-ratio attack (``lira``) against ``query`` and ``distance`` on identical datasets.

One :class:`~synthleak.games.membership.MembershipGame` per generator on the paper's Adult (the
45,222 complete rows): the 10 records ``V_5`` ranks first as targets, one shared pool of
``--shadows`` shadow and ``--tests`` test datasets (|D| = |D^s| = 1,000, |D_aux| = 10,000,
|D_test| = 5,000), and every attack fitted per target on the same shadow datasets and scored on
the same test datasets:

* ``query``: 100,000 counting queries (all 32,767 subsets of Adult's 15 attributes), random
  forest of 100 trees of depth 10 (Meeus et al. (2023), Sec. 5.5);
* ``distance``: 5 nearest distances + 5 radius counts, random forest;
* ``lira``: the registered default (one covariance shared by the IN and OUT Gaussians);
* ``liraseparate``: the same statistics with one covariance per Gaussian.

Reported: each target's AUC with its bootstrap interval, the mean over targets of the TPR at
FPR 0.1 and 0.01 (with 100 OUT test datasets, 0.01 rests on one dataset), and per attack pair
the mean AUC difference with (a) a paired t interval over the 10 targets and (b) a stratified
bootstrap interval over the test datasets (the fitted attacks held fixed), plus a Wilcoxon
signed-rank p-value; and each attack's CPU seconds per target (fit + score, read from the run
directory).

Usage::

    python -m benchmarks.bench_lira --generators baynet --shadows 500 --tests 200
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.meeus2023 import DATA, load_omega, spec_label
from benchmarks.provenance import RESULTS, Provenance
from benchmarks.reproduce_attention import attack_cpu_seconds
from synthleak.attacks.mia_lira import LikelihoodRatioAttack
from synthleak.cli.common import to_json
from synthleak.errors import BaselineWarning
from synthleak.games.membership import MembershipGame
from synthleak.games.targets import Targets
from synthleak.metrics.privacy import auc
from synthleak.runtime import Runtime

STUDY = "lira"


class SeparateLira(LikelihoodRatioAttack):
    """``lira`` with one covariance for the IN and one for the OUT Gaussian."""

    name = "liraseparate"

    def __init__(self) -> None:
        super().__init__(variance="separate")


def paired(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Mean of ``a - b`` over targets with a paired t 95% interval and a Wilcoxon p-value."""
    from scipy import stats

    d = np.asarray(a) - np.asarray(b)
    n = d.size
    half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
    p = float(stats.wilcoxon(d).pvalue) if n > 1 and np.any(d != 0) else 1.0
    return {
        "mean_diff": float(d.mean()),
        "t_low": float(d.mean() - half),
        "t_high": float(d.mean() + half),
        "wilcoxon_p": p,
        "n_better": int((d > 0).sum()),
        "n_worse": int((d < 0).sum()),
    }


def bootstrap_mean_diff(
    outcomes: list[dict[str, Any]], a: str, b: str, n_boot: int, rng: np.random.Generator
) -> tuple[float, float]:
    """95% interval of the mean (over targets) AUC difference, resampling test datasets.

    The test pool is shared, so one resample of dataset indices serves every target; it is
    stratified per target by that target's IN/OUT labels.
    """
    diffs = np.empty(n_boot)
    for i in range(n_boot):
        per = []
        for o in outcomes:
            y = o["labels"]
            pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
            idx = np.r_[rng.choice(pos, pos.size), rng.choice(neg, neg.size)]
            per.append(auc(y[idx], o[a][idx]) - auc(y[idx], o[b][idx]))
        diffs[i] = np.mean(per)
    lo, hi = np.quantile(diffs, [0.025, 0.975])
    return float(lo), float(hi)


def compare_attacks(
    argv: list[str] | None,
    *,
    doc: str | None,
    script: str,
    study: str,
    tuned: str,
    attacks: list[Any],
    names: list[str],
    pairs: list[tuple[str, str]],
) -> int:
    """One Adult membership game per generator, every attack on the same datasets, compared.

    ``tuned`` is the registered attack whose parameters ``--<tuned>-params`` overrides; ``pairs``
    are the (a, b) attack pairs whose AUC differences are reported; results go to ``study``.
    """
    ap = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--generators", default="baynet")
    ap.add_argument("--shadows", type=int, default=500)
    ap.add_argument("--tests", type=int, default=200)
    ap.add_argument("--targets", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--results-root", type=Path, default=RESULTS)
    ap.add_argument(
        "--run-dir",
        type=Path,
        default=None,
        help="keep the generated datasets here (a re-run with other attacks reuses them)",
    )
    ap.add_argument(
        f"--{tuned}-params",
        dest="tuned_params",
        type=json.loads,
        default={},
        help=f"JSON parameters of the registered {tuned} attack, e.g. '{{\"n_select\": 16}}'",
    )
    args = ap.parse_args(argv)
    prov = Provenance.start(None if argv is None else [script, *argv])
    omega = load_omega("complete")
    rng = np.random.default_rng(args.seed)
    for gen in [g.strip() for g in args.generators.split(";") if g.strip()]:
        t0 = time.perf_counter()
        game = MembershipGame(
            gen,
            targets=Targets.top(args.targets),
            train_size=1000,
            synthetic_size=1000,
            n_shadows=args.shadows,
            n_tests=args.tests,
            attacks=attacks,
            attack_params={tuned: args.tuned_params},
            aux_size=DATA["complete"].aux_size,
            test_size=DATA["complete"].test_size,
        )
        with tempfile.TemporaryDirectory() as tmp:
            run_dir = args.run_dir / spec_label(gen) if args.run_dir else Path(tmp)
            runtime = Runtime(workers=args.workers, run_dir=run_dir, progress=False)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", BaselineWarning)
                result = game.run(omega, seed=args.seed, runtime=runtime)
            cpu = attack_cpu_seconds(run_dir, names)
        wall = time.perf_counter() - t0
        outcomes = []
        for t in result.targets:
            o: dict[str, Any] = {"row": t.row, "labels": next(iter(t.attacks.values())).labels}
            for a in names:
                out = t.attacks[a]
                o[a] = out.scores
                o[a + "_auc"] = (out.auc.value, out.auc.ci_low, out.auc.ci_high)
                o[a + "_tpr"] = dict(out.tpr_at_fpr)
            outcomes.append(o)
        print(
            f"\n{gen}: {len(outcomes)} targets, {args.shadows} shadow / {args.tests} test datasets"
        )
        print(f"{'row':>7} " + " ".join(f"{a:>22}" for a in names))
        for o in outcomes:
            cells = " ".join(
                f"{o[a + '_auc'][0]:.3f} [{o[a + '_auc'][1]:.3f},{o[a + '_auc'][2]:.3f}]"
                for a in names
            )
            print(f"{o['row']:>7} {cells}")
        aucs = {a: np.array([o[a + "_auc"][0] for o in outcomes]) for a in names}
        print("mean   " + " ".join(f"{aucs[a].mean():>22.3f}" for a in names))
        tprs = {
            a: {f: float(np.mean([o[a + "_tpr"][f] for o in outcomes])) for f in ("0.1", "0.01")}
            for a in names
        }
        for f in ("0.1", "0.01"):
            print(f"TPR@{f:<4}" + " ".join(f"{tprs[a][f]:>22.3f}" for a in names))
        comparisons = {}
        for a, b in pairs:
            c = paired(aucs[a], aucs[b])
            c["boot_low"], c["boot_high"] = bootstrap_mean_diff(outcomes, a, b, args.bootstrap, rng)
            comparisons[f"{a}-{b}"] = c
            print(
                f"{a} - {b}: mean {c['mean_diff']:+.3f}, paired t [{c['t_low']:+.3f}, "
                f"{c['t_high']:+.3f}], test bootstrap [{c['boot_low']:+.3f}, "
                f"{c['boot_high']:+.3f}], "
                f"Wilcoxon p = {c['wilcoxon_p']:.3f}, better on {c['n_better']}/{len(outcomes)}"
            )
        cpu_summary = {
            a: {"median": float(np.median(v)), "total": float(np.sum(v))}
            for a, v in cpu.items()
            if v
        }
        for a, s in cpu_summary.items():
            print(f"{a}: CPU s per target median {s['median']:.2f}, total {s['total']:.1f}")
        doc = {
            "config": result.config.to_dict(),
            "per_target": [
                {"row": o["row"], **{a: list(o[a + "_auc"]) for a in names}} for o in outcomes
            ],
            "mean_auc": {a: float(v.mean()) for a, v in aucs.items()},
            "mean_tpr_at_fpr": tprs,
            "comparisons": comparisons,
            "attack_cpu_seconds": cpu,
            "wall_seconds": wall,
        }
        path = prov.write(
            study,
            f"{tuned}_{spec_label(gen)}_{args.shadows}_seed{args.seed}",
            json.loads(to_json(doc)),
            root=args.results_root,
        )
        print(f"wrote {path} ({wall:.0f}s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    return compare_attacks(
        argv,
        doc=__doc__,
        script="bench_lira.py",
        study=STUDY,
        tuned="lira",
        attacks=["query", "distance", "lira", SeparateLira()],
        names=["query", "distance", "lira", "liraseparate"],
        pairs=[("lira", "query"), ("lira", "distance"), ("lira", "liraseparate")],
    )


if __name__ == "__main__":
    raise SystemExit(main())
