"""Oracles of the attribute sweep (every column as the secret) at the audit's shapes.

For each dataset and seed, three disjoint real samples: the training data (``n_train``), a control
set (``n_train / 4``, the audit's 4:1) and another sample of the training data's size. Releases:

* null oracle: the other sample (nothing of the training records is in it). Each column's
  interval of the excess must exclude 0 from above in about 2.5 % of the columns (one-sided end
  of a 95 % interval), and a sweep must flag any column (Holm over its columns) in at most 5 %
  of the sweeps;
* copy oracle: the training data itself (every column, categorical and numeric, flagged);
* planted leak: the other sample with one column replaced by the value of that column of each
  record's nearest training record on the other columns (a release that memorised one column
  and nothing else); the sweep must rank that column first. The brief's literal "row-aligned"
  plant (the training column pasted into the rows of other people) is run once on Adult to
  show what it is: the column's values then sit beside nobody's other values, so no attribute
  inference attack can link them to anyone.

The attack is the audit's (``recon``, 20,000 queries per linear program: the ``quick`` budget).

Usage::

    python benchmarks/calibration_aia_sweep.py [--n-train 1200] [--seeds 3]
        [--out benchmarks/results/aia_sweep.json]

The data folder is ``$SYNTHLEAK_SHARED_DATASETS`` (default ``../shared/datasets``).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import synthleak as sl
from synthleak.games.sweep import attribute_sweep

try:
    from benchmarks.datasets import shared_datasets_dir
except ImportError:  # run as a script from the repository root
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.datasets import shared_datasets_dir

ROOT = Path(__file__).resolve().parents[1]
#: name -> (file, missing marker, dropped columns, continuous columns, planted column)
DATASETS = {
    "adult": ("", None, [], None, "occupation"),
    "acs_ma2018": (
        "nist_acs_ma2018.csv",
        "N",
        ["PWGTP", "WGTP"],
        ["AGEP", "PINCP", "POVPIP", "DENSITY"],
        "EDU",
    ),
    "uk_census": ("uk_census2011_teaching_50k.csv", None, ["Person ID"], [], "Occupation"),
}


def load(name: str) -> tuple[pd.DataFrame, sl.Schema]:
    file, na, drop, cont, _ = DATASETS[name]
    if name == "adult":  # the bundled copy without missing values, as every benchmark reads it
        df = sl.datasets.load_adult(complete_cases=True)
    else:
        df = pd.read_csv(shared_datasets_dir() / file, na_values=na).drop(columns=drop)
    if cont is None:
        schema = sl.infer_schema(df)
    else:
        schema = sl.infer_schema(
            df, continuous=cont, categorical=[c for c in df.columns if c not in cont]
        )
    return df, schema


def _codes(frame: pd.DataFrame, schema: sl.Schema) -> np.ndarray:
    """Every column as small integer codes (numeric columns in 10 quantile bins)."""
    out = []
    for c in frame.columns:
        v = frame[c]
        if c in schema and not schema[c].is_categorical:
            out.append(pd.qcut(v.rank(method="first"), 10, labels=False).fillna(-1).to_numpy())
        else:
            out.append(pd.factorize(v.astype(str))[0])
    return np.stack(out, 1)


def plant(train: pd.DataFrame, other: pd.DataFrame, column: str, schema: sl.Schema) -> pd.DataFrame:
    """``other`` with ``column`` replaced by that of each row's nearest training record on the
    other columns (Hamming distance on codes)."""
    codes = _codes(pd.concat([train, other], ignore_index=True), schema)
    a, b = codes[: len(train)], codes[len(train) :]
    keep = [i for i, c in enumerate(train.columns) if c != column]
    nearest = np.empty(len(other), dtype=np.int64)
    for s in range(0, len(other), 200):
        d = (b[s : s + 200, None, keep] != a[None, :, keep]).sum(-1)
        nearest[s : s + 200] = d.argmin(1)
    out = other.reset_index(drop=True).copy()
    out[column] = train[column].to_numpy()[nearest]
    return out


def sweep(
    train: pd.DataFrame,
    release: pd.DataFrame,
    control: pd.DataFrame,
    schema: sl.Schema,
    seed: int,
) -> dict:
    t = [sl.Table.from_frame(f.reset_index(drop=True), schema) for f in (train, release, control)]
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = attribute_sweep(
            sl.Release(*t), seed=seed, attack="recon", attack_params={"n_queries": 20_000}
        )
    return {
        "seconds": time.perf_counter() - started,
        "flagged": list(res.flagged),
        "skipped": sorted(res.skipped),
        "columns": [
            {
                "column": c.column,
                "status": c.status,
                "excess": c.excess.value,
                "ci_low": c.excess.ci_low,
                "ci_high": c.excess.ci_high,
                "p_value": c.p_value,
                "p_holm": c.p_holm,
            }
            for c in res.columns
        ],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-train", type=int, default=1200)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/aia_sweep.json")
    args = ap.parse_args()
    n = args.n_train
    runs = []
    for name in args.datasets.split(","):
        df, schema = load(name)
        planted = DATASETS[name][4]
        for seed in range(args.seeds):
            rows = np.random.default_rng(1000 + seed).permutation(len(df))
            train = df.iloc[rows[:n]].reset_index(drop=True)
            control = df.iloc[rows[n : n + n // 4]]
            other = df.iloc[rows[n + n // 4 : 2 * n + n // 4]].reset_index(drop=True)
            cases = {"null": other}
            if seed == 0:
                cases["copy"] = train
                cases["planted"] = plant(train, other, planted, schema)
                if name == "adult":
                    aligned = other.copy()
                    aligned[planted] = train[planted].to_numpy()
                    cases["row-aligned"] = aligned
            for oracle, release in cases.items():
                out = sweep(train, release, control, schema, seed)
                out |= {"dataset": name, "seed": seed, "oracle": oracle, "n_train": n}
                if oracle in ("planted", "row-aligned"):
                    out["planted_column"] = planted
                runs.append(out)
                top = out["columns"][0]["column"] if out["columns"] else None
                print(
                    f"{name} seed {seed} {oracle}: {out['seconds']:.0f} s, top {top}, "
                    f"flagged {out['flagged']}",
                    flush=True,
                )
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(json.dumps(runs, indent=1, default=float))


if __name__ == "__main__":
    main()
