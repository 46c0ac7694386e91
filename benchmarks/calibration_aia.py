"""Calibration of the release audit of attribute inference (ReleaseAttributeGame) on real data.

For each dataset, training:control ratio and seed, three disjoint samples are drawn from the real
records: the training data (``--n-train`` records), the control set (``n_train / ratio``) and
another sample of the same size as the training data. Then

* null oracle: the "release" is the other real sample (it reveals nothing about the training
  records); the audit must flag it in at most about 2.5% of the runs (one-sided 95% interval);
* copy oracle: the release is the training data itself; it must be flagged every time;
* resample: the release is a bootstrap resample of the training data (``nonprivate`` at
  ``m = n``, a generator that memorises), also a leak.

Usage::

    python benchmarks/calibration_aia.py [--n-train 1000] [--ratios 1,4,10] [--seeds 20]
        [--datasets adult,acs_ma,...] [--attack recon] [--out benchmarks/RESULTS_aia_release.md]

Results: ``benchmarks/RESULTS_aia_release.md``. The data folder is ``$SYNTHLEAK_SHARED_DATASETS``
(default ``../shared/datasets`` beside the repository).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

import synthleak as sl
from synthleak.data.profile import infer_schema
from synthleak.data.release import Release
from synthleak.data.table import Table
from synthleak.games.attribute_release import ReleaseAttributeGame
from synthleak.games.secret import Measurement

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("SYNTHLEAK_SHARED_DATASETS", ROOT.parent / "shared" / "datasets"))
COMPAS = ["sex", "age", "race", "juv_fel_count", "decile_score", "priors_count", "c_charge_degree"]
DATASETS = {  # file, missing marker, secret, columns (None: all but DROP)
    "adult": ("adult", None, "income", None),
    "adult-sex": ("adult", None, "sex", None),
    "acs_ma": ("nist_acs_ma2019.csv", "N", "SEX", None),
    "acs_tx": ("nist_acs_tx2019.csv", "N", "SEX", None),
    "census": ("uk_census2011_teaching_50k.csv", None, "Sex", None),
    "german": ("german_credit.csv", None, "credit", None),
    "compas": ("compas_two_years_noids.csv", None, "two_year_recid", [*COMPAS, "two_year_recid"]),
}
DROP = ["Person ID", "PWGTP", "WGTP", "INDP", "DENSITY", "PINCP", "POVPIP"]


def load(name: str) -> tuple[Table, str]:
    """A dataset of :data:`DATASETS` as a Table, and its secret column."""
    file, na, secret, cols = DATASETS[name]
    if file == "adult":
        df = sl.datasets.load_adult()
    else:
        df = pd.read_csv(DATA / file, na_values=[na] if na else None)
    df = df[cols] if cols else df.drop(columns=[c for c in DROP if c in df.columns])
    return Table.from_frame(df, infer_schema(df, categorical=[secret])), secret


def split(table: Table, n_train: int, ratio: int, seed: int) -> tuple[Table, Table, Table]:
    """Disjoint training, control (``n_train / ratio``) and other samples; shrinks ``n_train``
    when the data is too small for all three."""
    n = min(n_train, int(len(table) / (2 + 1 / ratio)))
    nc = max(1, n // ratio)
    perm = np.random.default_rng(1000 + seed).permutation(len(table))
    return table.take(perm[:n]), table.take(perm[n : n + nc]), table.take(perm[n + nc : 2 * n + nc])


def calibrate(
    name: str, n_train: int, ratio: int, seeds: int, attack: str = "recon"
) -> dict[str, object]:
    """Null, copy and resample oracles of one dataset and ratio."""
    table, secret = load(name)
    game = ReleaseAttributeGame(secret, attack=attack)
    null = []
    for seed in range(seeds):
        train, control, other = split(table, n_train, ratio, seed)
        null.append(game.run(Release(train, other, control), seed=seed))
    train, control, _ = split(table, n_train, ratio, 0)
    resample = train.take(np.random.default_rng(7).integers(0, len(train), len(train)))
    copy_ = game.run(Release(train, train, control), seed=0)
    boot = game.run(Release(train, resample, control), seed=0)
    diffs = np.array([r.difference.difference for r in null])
    return {
        "dataset": name,
        "secret": secret,
        "ratio": ratio,
        "n_train": len(train),
        "n_control": len(control),
        "seeds": seeds,
        "flagged": int(sum(r.difference.ci_low > 0 for r in null)),
        "measured": int(sum(r.status is Measurement.MEASURED for r in null)),
        "mean_diff": float(diffs.mean()),
        "sd_diff": float(diffs.std(ddof=1)) if seeds > 1 else float("nan"),
        "mean_se": float(np.mean([r.difference.width / (2 * 1.959964) for r in null])),
        "control_acc": float(np.mean([r.control_accuracy.value for r in null])),
        "majority": float(np.mean([r.majority_rate for r in null])),
        "copy": copy_.difference,
        "resample": boot.difference,
    }


def row(r: dict[str, object]) -> str:
    c, b = r["copy"], r["resample"]
    return (
        f"| {r['dataset']} ({r['secret']}) | {r['ratio']}:1 | {r['n_train']} / {r['n_control']} | "
        f"{r['flagged']}/{r['seeds']} | {r['mean_diff']:+.4f} | {r['sd_diff']:.4f} | "
        f"{r['mean_se']:.4f} | {r['control_acc']:.3f} ({r['majority']:.3f}) | "
        f"{c.difference:+.3f} [{c.ci_low:+.3f}, {c.ci_high:+.3f}] | "  # type: ignore[attr-defined]
        f"{b.difference:+.3f} [{b.ci_low:+.3f}, {b.ci_high:+.3f}] |"  # type: ignore[attr-defined]
    )


HEADER = (
    "| dataset (secret) | training:control | records | null flagged | null mean diff | "
    "null s.d. | mean s.e. (Newcombe) | control acc (majority) | copy diff [95% CI] | "
    "resample diff [95% CI] |\n|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-train", type=int, default=1000)
    ap.add_argument("--ratios", default="1,4,10")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--attack", default="recon")
    ap.add_argument("--out", default=None, help="append the table to this Markdown file")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows = []
    print(HEADER, flush=True)
    for name in args.datasets.split(","):
        for ratio in (int(r) for r in args.ratios.split(",")):
            rows.append(row(calibrate(name, args.n_train, ratio, args.seeds, args.attack)))
            print(rows[-1], flush=True)
    print(f"\n{time.perf_counter() - t0:.0f} s", flush=True)
    if args.out:
        with open(args.out, "a") as fh:
            fh.write(f"\n{HEADER}\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
