"""The given-release attack against the best no-box attack on the same candidates (issue 53).

On synthleak's own releases of ``--dataset``, for each generator: a target trained on ``--train``
records of a population (the first 20,000 complete records of Adult, shuffled by ``--seed``, or
all records of an ACS excerpt, e.g. ``acs-tx18``: 8,775 Texas records of the 2018 ACS),
its release of the same size, ``--members`` of its training records and as many population
records outside its training set as candidates; ``--shadows`` shadow releases made with the same
generator, each trained on ``--train`` population records outside the target's training set (as
a data owner makes them with ``--generator`` on the control records).

Scored on the same candidates:

* ``shadow-release``: :class:`synthleak.attacks.mia_shadow_release.ShadowReleaseAttack`
  (defaults; ``--column-errors`` adds the per-column prediction errors) learned on the shadows;
* the ten no-box attacks, each fitted on the target release and a reference of ``--reference``
  population records (outside the target's training set and the candidates); the best of them
  by TPR at FPR 0.1 **on these candidates** (chosen after the fact, which favours the no-box
  side).

The paired difference of TPR at FPR 0.1 (given-release minus best no-box) comes with a 95 %
stratified bootstrap interval over the candidates (both attacks resampled together), and the
AUC difference likewise.

Usage::

    OMP_NUM_THREADS=1 nice -n 15 python benchmarks/shadow_release_pairs.py \
        --generators baynet,synthpop --out benchmarks/results/shadow_release/pairs_adult.json
    OMP_NUM_THREADS=1 nice -n 15 python benchmarks/shadow_release_pairs.py --dataset acs-tx18 \
        --generators baynet,synthpop --out benchmarks/results/shadow_release/pairs_acs_tx18.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from synthleak.attacks.base import AttackFamily, list_attacks, resolve_attack
from synthleak.attacks.mia_shadow_release import ShadowReleaseAttack
from synthleak.data.datasets import load_adult
from synthleak.data.io import encode_frames
from synthleak.data.shadow_releases import ShadowRelease
from synthleak.data.table import Table
from synthleak.generators.base import make_generator
from synthleak.metrics.privacy import auc, tpr_at_fpr, tpr_at_fpr_estimate


def paired(y: np.ndarray, a: np.ndarray, b: np.ndarray, seed: int, n_boot: int = 1000) -> dict:
    """Differences ``a - b`` of TPR at FPR 0.1 and of AUC, with stratified bootstrap intervals."""
    rng = np.random.default_rng([seed, 7])
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    d_tpr, d_auc = [], []
    for _ in range(n_boot):
        idx = np.r_[rng.choice(pos, pos.size), rng.choice(neg, neg.size)]
        yy = y[idx]
        d_tpr.append(tpr_at_fpr(yy, a[idx], 0.1) - tpr_at_fpr(yy, b[idx], 0.1))
        d_auc.append(auc(yy, a[idx]) - auc(yy, b[idx]))
    return {
        "tpr_at_fpr_0.1_difference": tpr_at_fpr(y, a, 0.1) - tpr_at_fpr(y, b, 0.1),
        "tpr_difference_ci": [float(np.quantile(d_tpr, 0.025)), float(np.quantile(d_tpr, 0.975))],
        "auc_difference": auc(y, a) - auc(y, b),
        "auc_difference_ci": [float(np.quantile(d_auc, 0.025)), float(np.quantile(d_auc, 0.975))],
    }


def summary(y: np.ndarray, s: np.ndarray) -> dict:
    est = tpr_at_fpr_estimate(y, s, 0.1)
    return {"tpr_at_fpr_0.1": est.value, "ci": [est.ci_low, est.ci_high], "auc": auc(y, s)}


def population(dataset: str, seed: int) -> Table:
    """The population: the first 20,000 complete records of Adult shuffled by ``seed``, or a
    whole dataset of ``benchmarks/datasets.py`` (``acs-tx18``: 8,775 records, 22 columns)."""
    if dataset == "adult":
        adult = load_adult(complete_cases=True).sample(frac=1.0, random_state=seed)
        adult = adult.iloc[:20000].reset_index(drop=True)
        return encode_frames({"population": adult}).tables["population"]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.datasets import load_table

    return load_table(dataset)


def run(generator: str, args: argparse.Namespace) -> dict:
    pop = population(args.dataset, args.seed)
    needed = args.train + args.members + args.reference
    if needed > len(pop):
        raise SystemExit(f"{args.dataset} has {len(pop)} records; the run needs {needed}")
    rng = np.random.default_rng([args.seed, 53])
    order = rng.permutation(len(pop))
    target_idx = order[: args.train]
    outside = order[args.train :]
    members = target_idx[: args.members]
    non_members = outside[: args.members]
    rest = outside[args.members :]
    reference_idx = rest[: args.reference]
    t0 = time.perf_counter()

    def release_of(idx: np.ndarray, k: int):
        gen = make_generator(generator)
        train = pop.take(idx)
        gen.fit(train, rng=np.random.default_rng([args.seed, k]))
        return gen.sample(len(idx), rng=np.random.default_rng([args.seed, k, 1])).to_frame()

    target_release = release_of(target_idx, 0)
    # the shadows' training sets leave the candidates out, as the audit's stage leaves out the
    # candidates a shadow holds: a non-member some shadow was trained on would have releases it
    # was in, which no member has, a difference between the two that the release does not make
    shadow_pool = outside[args.members :]
    shadows = []
    for j in range(args.shadows):
        idx = rng.choice(shadow_pool, args.train, replace=False)
        shadows.append(ShadowRelease(f"s{j}", release_of(idx, j + 1), pop.take(idx).to_frame()))
    gen_seconds = time.perf_counter() - t0
    cand_idx = np.r_[members, non_members]
    y = np.r_[np.ones(members.size, bool), np.zeros(non_members.size, bool)]
    candidates = pop.take(cand_idx).to_frame()

    t0, c0 = time.perf_counter(), time.process_time()
    attack = ShadowReleaseAttack(
        column_errors=args.column_errors,
        marginals=args.marginals,
        normal_scores=args.normal_scores,
    )
    s_shadow = attack.fit_score(shadows, target_release, candidates, seed=args.seed)
    shadow_cost = {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0}

    release_t = encode_frames({"release": target_release}, schema=pop.schema).tables["release"]
    cand_t = pop.take(cand_idx)
    ref_t = pop.take(reference_idx)
    nobox: dict[str, dict] = {}
    nobox_scores: dict[str, np.ndarray] = {}
    for info in list_attacks(AttackFamily.NOBOX_MEMBERSHIP):
        t0 = time.perf_counter()
        _, atk = resolve_attack(AttackFamily.NOBOX_MEMBERSHIP, info.name)
        atk.fit(release_t, ref_t, rng=np.random.default_rng([args.seed, 3]))
        s = np.asarray(atk.score(cand_t), dtype=np.float64)
        nobox_scores[info.name] = s
        nobox[info.name] = summary(y, s) | {"seconds": time.perf_counter() - t0}
    best = max(nobox, key=lambda n: tpr_at_fpr(y, nobox_scores[n], 0.1))
    out = {
        "dataset": args.dataset,
        "generator": generator,
        "train": args.train,
        "shadows": args.shadows,
        "candidates": int(y.size),
        "generation_seconds": gen_seconds,
        "shadow-release": summary(y, s_shadow) | shadow_cost,
        "verbatim": attack.verbatim_.to_dict(),
        "nobox": nobox,
        "best_nobox": best,
        "paired_vs_best_nobox": paired(y, s_shadow, nobox_scores[best], args.seed),
        "load_average": os.getloadavg()[0],
    }
    print(generator, json.dumps(out, default=float), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="adult", help="adult, or a name of benchmarks/datasets.py")
    ap.add_argument(
        "--generators",
        default="baynet,synthpop",
        help="generator specs separated by ',' (e.g. ctgan:epochs=50)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train", type=int, default=1000, help="training records of each model")
    ap.add_argument("--members", type=int, default=400, help="member candidates (as many non)")
    ap.add_argument("--shadows", type=int, default=8)
    ap.add_argument("--reference", type=int, default=2000)
    ap.add_argument(
        "--column-errors",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="per-column prediction errors as signals of the given-release attack",
    )
    ap.add_argument(
        "--marginals",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="per-column distances as signals of the given-release attack",
    )
    ap.add_argument(
        "--normal-scores",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="distances on the release's normal scores as signals of the given-release attack",
    )
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.members > args.train:
        raise SystemExit("--members must not exceed --train")
    if os.environ.get("OMP_NUM_THREADS") != "1":
        print("note: OMP_NUM_THREADS is not 1; set it to use one core", file=sys.stderr)
    results = {
        "seed": args.seed,
        "column_errors": args.column_errors,
        "marginals": args.marginals,
        "normal_scores": args.normal_scores,
        "runs": [run(g, args) for g in args.generators.split(",")],
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2, default=float) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
