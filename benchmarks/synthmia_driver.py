"""Driver that runs Synth-MIA's attacks (Ward, Lin, Wang, Cheng 2025) on given files.

Our own glue code, run by ``benchmarks/crosscheck_synthmia.py`` in a child process of a separate
virtual environment that holds Synth-MIA's dependencies; Synth-MIA itself is imported from a
fetched copy of its public repository (``--synthmia``) and never enters this project. It calls
only Synth-MIA's public API: ``synth_mia.utils.TabularPreprocessor`` (as its README and tutorial
configure it: fitted on the synthetic data, one-hot categories, standardised numbers) and each
attacker's ``attack(mem, non_mem, synth, ref)``, with default parameters.

Inputs: a folder with ``members.csv``, ``non_members.csv``, ``reference.csv``, ``synthetic.csv``
and ``kinds.json`` (``{column: "categorical" | "continuous"}``). Categorical columns are read as
strings (a missing value is its own category); Synth-MIA has no treatment of missing numbers, so
a missing continuous value is replaced by the synthetic data's median of that column (the same
for every file). Output (stdout): JSON with each attack's scores of the candidates (members then
non-members), its wall time, the encoding used and any error. An attack that fails with the
one-hot encoding (a Gaussian KDE on one-hot columns has a singular covariance) is retried with
Synth-MIA's ordinal encoding, and the output says so.

Usage: ``python synthmia_driver.py --synthmia /tmp/synthmia --data DIR --seed 0``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

ATTACKS = (
    "DCR",
    "DCRDiff",
    "DOMIAS",
    "LocalNeighborhood",
    "Classifier",
    "GenLRA",
    "DensityEstimate",
    "MC",
    "DPI",
    "LOGAN",
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--synthmia", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--attacks", nargs="*", default=list(ATTACKS))
    args = ap.parse_args()
    sys.path.insert(0, args.synthmia)

    import numpy as np
    import pandas as pd
    import torch

    torch.set_num_threads(1)  # one thread, as synthleak's game runs in the same benchmark
    from synth_mia import attackers
    from synth_mia.utils import TabularPreprocessor

    data = Path(args.data)
    kinds = json.loads((data / "kinds.json").read_text())
    cat = [c for c, k in kinds.items() if k == "categorical"]
    con = [c for c, k in kinds.items() if k != "categorical"]
    dtypes = {c: str for c in cat}
    parts = {
        p: pd.read_csv(data / f"{p}.csv", dtype=dtypes, keep_default_na=False, na_values=[""])
        for p in ("members", "non_members", "reference", "synthetic")
    }
    med = {c: float(pd.to_numeric(parts["synthetic"][c], errors="coerce").median()) for c in con}
    for p, df in parts.items():
        for c in cat:
            df[c] = df[c].fillna("<missing>").astype(object)
        for c in con:
            df[c] = pd.to_numeric(df[c], errors="coerce").astype("float64").fillna(med[c])
        parts[p] = df[list(kinds)]

    def encoded(encoding: str):  # type: ignore[no-untyped-def]
        prep = TabularPreprocessor(
            fit_target="synth", categorical_encoding=encoding, numeric_encoding="standard"
        )
        prep.fit(parts["members"], parts["non_members"], parts["synthetic"], parts["reference"])
        mem, non, syn, ref, _ = prep.transform(
            parts["members"], parts["non_members"], parts["synthetic"], parts["reference"]
        )
        return mem, non, syn, ref

    cache = {}
    out = {}
    for name in args.attacks:
        rec: dict = {}  # type: ignore[type-arg]
        for encoding in ("one-hot", "ordinal"):
            t0 = time.perf_counter()
            if encoding not in cache:
                cache[encoding] = encoded(encoding)
            mem, non, syn, ref = cache[encoding]
            np.random.seed(args.seed)  # noqa: NPY002 - their LOGAN draws from the global state
            torch.manual_seed(args.seed)
            try:
                attacker = getattr(attackers, name)()
                y, scores = attacker.attack(mem, non, syn, ref)
                scores = np.asarray(scores, dtype=float)
                rec.update(
                    scores=[float(s) if np.isfinite(s) else None for s in scores],
                    non_finite=int((~np.isfinite(scores)).sum()),
                    labels=[int(v) for v in y],
                    seconds=time.perf_counter() - t0,
                    encoding=encoding,
                )
                break
            except Exception as exc:  # reported, then retried or left out
                rec.setdefault("errors", {})[encoding] = (
                    f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
                )
                rec["traceback"] = traceback.format_exc()[-1500:]
        out[name] = rec
    print(json.dumps(out))


if __name__ == "__main__":
    main()
