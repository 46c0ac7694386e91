"""Calibration of attribute inference of numeric secrets on a release (ReleaseAttributeGame).

For each dataset, success rule and seed, three disjoint real samples: training data, a control set
(``n_train / ratio``) and another sample of the training data's size. Null oracle: the release is
the other sample (the interval of the excess over the control world must exclude 0 in about 2.5 %
of the runs); copy oracle: the release is the training data (flagged every time). The ACS files
keep ``PINCP_DECILE`` beside the income ``PINCP``: the secret is then predictable from the
population (the control accuracy is high), which must not read as a leak.

Usage::

    python benchmarks/calibration_aia_numeric.py [--n-train 800] [--ratio 4] [--seeds 6]
        [--out benchmarks/RESULTS_aia_numeric.md]

The data folder is ``$SYNTHLEAK_SHARED_DATASETS`` (default ``../shared/datasets``).
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
from synthleak.games.secret import SecretRule

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("SYNTHLEAK_SHARED_DATASETS", ROOT.parent / "shared" / "datasets"))
ACS_DROP = ["PWGTP", "WGTP", "INDP", "DENSITY", "POVPIP"]
#: name -> (file, missing marker, secret, dropped columns, absolute tolerance)
DATASETS = {
    "adult-age": ("adult", None, "age", [], 5.0),
    "adult-hours": ("adult", None, "hours-per-week", [], 5.0),
    "acs_ma-income": ("nist_acs_ma2019.csv", "N", "PINCP", ACS_DROP, 5000.0),
    "acs_tx-income": ("nist_acs_tx2019.csv", "N", "PINCP", ACS_DROP, 5000.0),
}


def rules(absolute: float) -> dict[str, SecretRule]:
    return {
        "5 bins": SecretRule(bins=5),
        "relative 0.2": SecretRule(tolerance=0.2, kind="relative"),
        f"absolute {absolute:g}": SecretRule(tolerance=absolute),
    }


def load(name: str) -> tuple[Table, str, float]:
    file, na, secret, drop, absolute = DATASETS[name]
    if file == "adult":
        df = sl.datasets.load_adult()
    else:
        df = pd.read_csv(DATA / file, na_values=[na] if na else None)
    df = df.drop(columns=[c for c in drop if c in df.columns])
    return Table.from_frame(df, infer_schema(df)), secret, absolute


def split(table: Table, n: int, ratio: int, seed: int) -> tuple[Table, Table, Table]:
    nc = max(1, n // ratio)
    perm = np.random.default_rng(2000 + seed).permutation(len(table))
    return table.take(perm[:n]), table.take(perm[n : n + nc]), table.take(perm[n + nc : 2 * n + nc])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-train", type=int, default=800)
    ap.add_argument("--ratio", type=int, default=4)
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    head = (
        "| dataset (secret) | rule | null flagged | null mean excess | control acc "
        "(best constant) | copy excess [95% CI] |\n|---|---|---|---|---|---|"
    )
    print(head, flush=True)
    rows, t0 = [], time.perf_counter()
    total = flagged = 0
    for name in args.datasets.split(","):
        table, secret, absolute = load(name)
        for label, rule in rules(absolute).items():
            game = ReleaseAttributeGame(secret, secret_rule=rule)
            null = []
            for seed in range(args.seeds):
                train, control, other = split(table, args.n_train, args.ratio, seed)
                null.append(game.run(Release(train, other, control), seed=seed))
            train, control, _ = split(table, args.n_train, args.ratio, 0)
            c = game.run(Release(train, train, control), seed=0).difference
            f = sum(r.difference.ci_low > 0 for r in null)
            total, flagged = total + len(null), flagged + f
            rows.append(
                f"| {name} ({secret}) | {label} | {f}/{len(null)} | "
                f"{np.mean([r.difference.difference for r in null]):+.4f} | "
                f"{np.mean([r.control_accuracy.value for r in null]):.3f} "
                f"({np.mean([r.majority_rate for r in null]):.3f}) | "
                f"{c.difference:+.3f} [{c.ci_low:+.3f}, {c.ci_high:+.3f}] |"
            )
            print(rows[-1], flush=True)
    tail = f"\nnull runs flagged: {flagged} of {total}; {time.perf_counter() - t0:.0f} s"
    print(tail, flush=True)
    if args.out:
        with open(args.out, "a") as fh:
            fh.write(f"\n{head}\n" + "\n".join(rows) + "\n" + tail + "\n")


if __name__ == "__main__":
    main()
