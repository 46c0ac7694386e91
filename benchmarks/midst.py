"""MIDST black-box single-table track, reproduced on the dev split with the official rule.

MIDST (SaTML 2025, Vector Institute): 20 TabDDPM and 20 TabSyn models trained on 20,000-row
samples of the Berka transactions table; each with its synthetic release and 200 challenge
points (half members); 30 shadow models per generator with their training sets. The score of a
generator is the TPR at FPR < 0.1 over the pooled challenge points of its 20 models (the
scoring program's ``max(tpr[fpr < 0.1])`` of ``sklearn.metrics.roc_curve``).

Data layout read (``--data``, outside the repository)::

    DATA/<generator>/train/<generator>_<n>/{train_with_id,trans_synthetic,challenge_with_id,challenge_label}.csv
    DATA/<generator>/dev/<generator>_<n>/{trans_synthetic,challenge_with_id,challenge_label}.csv

(the files of CRCHUM-CITADEL/ensemble-mia ``input/<generator>_black_box/{train,dev}`` and the dev
labels of VectorInstitute/MIDST's codabench bundle). Only ``train`` and ``dev`` are read: the
final split is kept for an independent check and this script refuses a path naming it.

Attacks scored:

* ``shadow-release``: :class:`synthleak.attacks.mia_shadow_release.ShadowReleaseAttack`, fitted
  once on the 30 shadow releases, then scoring every dev release;
* the ten no-box attacks, each fitted on the dev release and a reference of population records
  (drawn from the shadows' training sets, challenge points excluded);
* ``shadow-release+nobox``: the shadow-release attack with every no-box score as a calibrated
  signal too (the ensemble, learned on the shadows).

``--only cv`` chooses a configuration without the dev split (which it does not read):
leave-shadows-out, the 30 shadows in ``--folds`` folds, the attack fitted on the other folds'
shadows and scored on each held-out shadow's labelled challenge points, pooled under the same
rule (``--max-folds`` scores only the first folds).

Usage::

    OMP_NUM_THREADS=1 nice -n 15 python benchmarks/midst.py --data MIDST_DIR \
        --generator tabddpm --out benchmarks/results_midst_tabddpm.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_curve

from synthleak.attacks.base import AttackFamily, list_attacks, resolve_attack
from synthleak.attacks.mia_shadow_release import ShadowReleaseAttack
from synthleak.data.io import encode_frames
from synthleak.data.shadow_releases import read_shadow_releases
from synthleak.metrics.privacy import tpr_at_fpr_estimate


def official_tpr_at_fpr(labels: np.ndarray, scores: np.ndarray, max_fpr: float = 0.1) -> float:
    """MIDST's scoring rule: the best TPR among ROC points with FPR strictly below ``max_fpr``."""
    fpr, tpr, _ = roc_curve(labels, scores)
    return float(np.max(tpr[fpr < max_fpr]))


def load(data: Path, generator: str, dev_too: bool = True) -> tuple[list, list]:
    for part in (data, data / generator):
        if "final" in str(part.resolve()).lower():
            raise SystemExit(
                "refusing a path naming the final split: it is kept for an independent check"
            )
    shadows = read_shadow_releases(data / generator / "train")
    if not dev_too:  # choosing a configuration on the shadows: the dev split is not read
        return shadows, []
    dev = read_shadow_releases(data / generator / "dev", need_training=False)
    for d in dev:
        if d.challenge is None or d.labels is None:
            raise SystemExit(f"dev model {d.name} lacks its challenge points or labels")
    return shadows, dev


def pooled(scores: list[np.ndarray], labels: list[np.ndarray]) -> dict:
    s, y = np.concatenate(scores), np.concatenate(labels)
    est = tpr_at_fpr_estimate(y, s, 0.1)
    return {
        "official_tpr_at_fpr_0.1": official_tpr_at_fpr(y, s),
        "tpr_at_fpr_0.1_ci": [est.ci_low, est.ci_high],
        "auc": float(_auc(y, s)),
        "n_members": int(y.sum()),
        "n_non_members": int((~y).sum()),
    }


def _auc(y: np.ndarray, s: np.ndarray) -> float:
    from synthleak.metrics.privacy import auc

    return auc(y, s)


def run_shadow(shadows, dev, seed: int, params: dict) -> dict:
    attack = ShadowReleaseAttack(**params)
    t0, c0 = time.perf_counter(), time.process_time()
    attack.fit_shadows(shadows, seed=seed)
    fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    scores = [attack.score(d.release, d.challenge) for d in dev]
    score_s, score_cpu = time.perf_counter() - t0, time.process_time() - c0
    out = pooled(scores, [d.labels for d in dev])
    return out | {
        "train_seconds": fit_s,
        "train_cpu_seconds": fit_cpu,
        "score_seconds": score_s,
        "score_cpu_seconds": score_cpu,
        "n_examples": attack.n_examples_,
        "load_average": os.getloadavg()[0],
    }


def run_cv(shadows, seed: int, folds: int, params: dict, max_folds: int | None = None) -> dict:
    """Leave-shadows-out: fit on the other folds' shadows, score each held-out shadow's labelled
    challenge points; the official rule on all of them pooled. Chooses a configuration without
    reading the dev split."""
    order = np.random.default_rng([seed, 53]).permutation(len(shadows))
    parts = np.array_split(order, folds)
    scores, labels = [], []
    t0, c0 = time.perf_counter(), time.process_time()
    for f, held in enumerate(parts[:max_folds]):
        fit_on = [shadows[i] for i in order if i not in set(held.tolist())]
        attack = ShadowReleaseAttack(**params)
        attack.fit_shadows(fit_on, seed=seed)
        for i in held:
            s = shadows[i]
            if s.challenge is None or s.labels is None:
                raise SystemExit(f"shadow {s.name} lacks labelled challenge points")
            scores.append(attack.score(s.release, s.challenge))
            labels.append(s.labels)
        print(f"fold {f}: {pooled(scores, labels)}", flush=True)
    return pooled(scores, labels) | {
        "folds": folds,
        "folds_run": len(parts[:max_folds]),
        "params": params,
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - c0,
        "load_average": os.getloadavg()[0],
    }


def run_nobox(shadows, dev, seed: int, names: list[str], reference_size: int) -> dict:
    """Each no-box attack on each dev release, reference drawn from the shadows' training sets."""
    population = pd.concat([s.training for s in shadows], ignore_index=True)
    challenge = pd.concat([d.challenge for d in dev], ignore_index=True)
    parts = {"population": population, "challenge": challenge} | {
        f"r{i}": d.release for i, d in enumerate(dev)
    }
    enc = encode_frames(parts)
    pop = enc.tables["population"]
    ch_keys = set(enc.tables["challenge"].row_keys().tolist())
    free = np.flatnonzero([k not in ch_keys for k in pop.row_keys().tolist()])
    rng = np.random.default_rng(seed)
    reference = pop.take(rng.choice(free, reference_size, replace=False))
    n = [len(d.challenge) for d in dev]
    starts = np.concatenate([[0], np.cumsum(n)])
    results = {}
    for name in names:
        t0, c0 = time.perf_counter(), time.process_time()
        scores = []
        for i in range(len(dev)):
            _, atk = resolve_attack(AttackFamily.NOBOX_MEMBERSHIP, name)
            atk.fit(enc.tables[f"r{i}"], reference, rng=np.random.default_rng([seed, i]))
            cand = enc.tables["challenge"].take(np.arange(starts[i], starts[i + 1]))
            scores.append(np.asarray(atk.score(cand), dtype=np.float64))
        results[name] = pooled(scores, [d.labels for d in dev]) | {
            "train_seconds": 0.0,
            "score_seconds": time.perf_counter() - t0,
            "score_cpu_seconds": time.process_time() - c0,
            "load_average": os.getloadavg()[0],
        }
        print(name, json.dumps(results[name]), flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--generator", choices=("tabddpm", "tabsyn"), required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--records", type=int, default=500, help="training records drawn per shadow as examples"
    )
    ap.add_argument("--negatives", type=int, default=2, help="non-member examples per drawn record")
    ap.add_argument(
        "--source-examples",
        action="store_true",
        help="each drawn record is a member example of the shadow it was drawn from too",
    )
    ap.add_argument("--reference-size", type=int, default=5000)
    ap.add_argument(
        "--nobox",
        default="dcr-diff",
        help="no-box signals of the shadow-release attack (comma list)",
    )
    ap.add_argument("--only", choices=("shadow", "nobox", "ensemble", "cv"), action="append")
    ap.add_argument("--folds", type=int, default=3, help="folds of the shadows for --only cv")
    ap.add_argument("--max-folds", type=int, help="held-out folds scored (all by default)")
    ap.add_argument(
        "--no-column-errors",
        action="store_true",
        help="leave out the per-column prediction errors (the attack before issue 53)",
    )
    ap.add_argument(
        "--no-marginals",
        action="store_true",
        help="leave out the per-column distances (the attack before they were added)",
    )
    ap.add_argument(
        "--no-normal-scores",
        action="store_true",
        help="leave out the distances on normal scores (the attack before they were added)",
    )
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        if os.environ.get(var) != "1":
            print(f"note: {var} is not 1; set it to use one core", file=sys.stderr)
    only = set(args.only or ("shadow", "nobox", "ensemble"))
    shadows, dev = load(args.data, args.generator, dev_too=bool(only - {"cv"}))
    names = [a.name for a in list_attacks(AttackFamily.NOBOX_MEMBERSHIP)]
    out: dict = {"generator": args.generator, "split": "dev", "seed": args.seed, "attacks": {}}
    if args.out and args.out.exists():
        out = json.loads(args.out.read_text())
    params = {
        "nobox": tuple(n for n in args.nobox.split(",") if n),
        "records_per_shadow": args.records,
        "negatives_per_record": args.negatives,
        "source_examples": args.source_examples,
        "column_errors": not args.no_column_errors,
        "marginals": not args.no_marginals,
        "normal_scores": not args.no_normal_scores,
    }
    if "cv" in only:
        key = "cv:" + ("no-errors" if args.no_column_errors else "errors")
        key += f":records={args.records}:negatives={args.negatives}"
        key += ":source" if args.source_examples else ""
        key += ":no-marginals" if args.no_marginals else ""
        key += ":no-normal-scores" if args.no_normal_scores else ""
        out.setdefault("cv", {})[key] = run_cv(
            shadows, args.seed, args.folds, params, args.max_folds
        )
        print(key, json.dumps(out["cv"][key], default=str), flush=True)
        only = only - {"cv"} if args.only else set()
    if "shadow" in only:
        out["attacks"]["shadow-release"] = run_shadow(shadows, dev, args.seed, params)
        print("shadow-release", json.dumps(out["attacks"]["shadow-release"]), flush=True)
    if "nobox" in only:
        out["attacks"] |= run_nobox(shadows, dev, args.seed, names, args.reference_size)
    if "ensemble" in only:
        out["attacks"]["shadow-release+nobox"] = run_shadow(
            shadows, dev, args.seed, params | {"nobox": tuple(names)}
        )
        print(
            "shadow-release+nobox", json.dumps(out["attacks"]["shadow-release+nobox"]), flush=True
        )
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
