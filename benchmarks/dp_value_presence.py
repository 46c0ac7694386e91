"""The domain flaw's own test on a DP-study row: does a release hold a value only the target has?

``benchmarks/dp_repro_synthcity_domain.py`` shows that synthcity's DP generators learn each
column's values from the training records outside the budget, so a value only the target
holds can appear in a release only when the target was trained on. On the study's screen
target (its training records' only ``race = Other``) that gives a test fixed before any
release is seen: call a release IN when it holds at least one row with the target's value.
It needs no shadow datasets, so every test release of the row is an evaluation trial (the
study's own attacks spend half of them choosing a threshold).

This script reads a row's stored test releases from its run directory (the study's
``--run-dir``), counts the rows holding the value in each, and bounds epsilon with the study's
estimator (``synthleak.metrics.epsilon.epsilon_lower_bound``, two-sided Clopper-Pearson ends,
the row's claim and relation)::

    python -m benchmarks.dp_value_presence RUN_DIR/screen--synthcity_dpgan_epsilon=1_delta=1e-5 \\
        --column race --value Other --epsilon 1 --delta 1e-5

The test releases are the game's second pool of the target (``gen-p3-*`` units: the shadow
pool is ``p2``) and their labels are the ones the game scored (any ``atk-*-t0`` unit), failed
generator runs left out as the game leaves them out. ``benchmarks/dp_libraries_study.py`` runs
the same test after every row on the screen target (``presence_test``, on the target's race,
which no other record of its training datasets holds) and records it in the row's JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from synthleak.metrics.epsilon import epsilon_ceiling, epsilon_lower_bound

TEST_POOL = 3  # pool id of target 0's test datasets in an exact-knowledge game (2 t + 2 + 1)


def presence_counts(row_dir: Path, cells: list[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Rows holding any of ``cells`` in each test release the game scored, and its IN/OUT
    label (releases whose generator run failed are left out, as the game leaves them out)."""
    schema = json.loads((row_dir / "schema.json").read_text())
    columns = [c for c in schema["columns"] if c["kind"] != "continuous"]
    names = [c["name"] for c in columns]
    codes = [
        (names.index(col), [str(v) for v in columns[names.index(col)]["categories"]].index(val))
        for col, val in cells
    ]
    units = sorted(
        (row_dir / "units").glob(f"gen-p{TEST_POOL}-s*.npz"),
        key=lambda p: int(p.stem.rsplit("-s", 1)[1]),
    )
    counts: list[int] = []
    for path in units:
        with np.load(path, allow_pickle=False) as z:
            held = np.zeros(z["codes"].shape[:2], dtype=bool)
            for j, code in codes:
                held |= z["codes"][:, :, j] == code
            counts.extend(int(n) for n, ok in zip(held.sum(1), z["ok"], strict=True) if ok)
    scored = sorted((row_dir / "units").glob("atk-*-t0.npz"))
    if not scored:
        raise SystemExit(f"no scored attack in {row_dir / 'units'}: run the study's row first")
    with np.load(scored[0], allow_pickle=False) as z:
        labels = np.asarray(z["labels"], dtype=int)
    if labels.size != len(counts):
        raise SystemExit(f"{len(counts)} test releases but {labels.size} labels")
    return np.asarray(counts), labels


def presence_test(
    row_dir: Path,
    cells: list[tuple[str, str]],
    *,
    epsilon: float,
    delta: float = 0.0,
    neighbouring: str = "add_remove",
) -> dict[str, Any]:
    """The test on a row's run directory (module docstring): counts, bounds and verdict."""
    counts, labels = presence_counts(row_dir, cells)
    inside, outside = counts[labels == 1], counts[labels == 0]
    tp, fp = int((inside > 0).sum()), int((outside > 0).sum())
    kw: dict[str, Any] = dict(
        delta=delta, neighbouring=neighbouring, game_neighbouring=neighbouring
    )
    bounds, ceilings = {}, {}
    for conf in (0.95, 0.9):
        bounds[str(conf)] = float(
            epsilon_lower_bound(tp, inside.size, fp, outside.size, confidence=conf, **kw)
        )
        ceilings[str(conf)] = epsilon_ceiling(inside.size, outside.size, confidence=conf, **kw)
    return {
        "cells": [list(c) for c in cells],
        "rows_per_in_release": sorted(inside.tolist()),
        "rows_per_out_release": sorted(outside.tolist()),
        "tp": tp,
        "n_in": int(inside.size),
        "fp": fp,
        "n_out": int(outside.size),
        "bounds": bounds,
        "ceilings": ceilings,
        "verdict": "violation" if bounds["0.95"] > epsilon else "no violation shown",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("row_dir", type=Path, help="the row's folder in the study's run directory")
    ap.add_argument("--column", required=True)
    ap.add_argument("--value", required=True)
    ap.add_argument("--epsilon", type=float, required=True, help="the claimed epsilon")
    ap.add_argument("--delta", type=float, default=0.0)
    ap.add_argument("--neighbouring", default="add_remove")
    args = ap.parse_args(argv)
    res = presence_test(
        args.row_dir,
        [(args.column, args.value)],
        epsilon=args.epsilon,
        delta=args.delta,
        neighbouring=args.neighbouring,
    )
    what = f"{args.column} = {args.value}"
    print(f"rows with {what} per IN release:  {res['rows_per_in_release']}")
    print(f"rows with {what} per OUT release: {res['rows_per_out_release']}")
    print(
        f"releases holding it: {res['tp']} of {res['n_in']} IN, {res['fp']} of {res['n_out']} OUT"
    )
    for conf in ("0.95", "0.9"):
        print(
            f"epsilon lower bound at {float(conf):.0%}: {res['bounds'][conf]:.2f} "
            f"(ceiling {res['ceilings'][conf]:.2f})"
        )
    print(f"against the claim epsilon = {args.epsilon:g}, delta = {args.delta:g}: {res['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
