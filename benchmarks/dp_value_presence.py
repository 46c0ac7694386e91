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
pool is ``p2``) and their labels are the ones the game scored (any ``atk-*-t0`` unit); a run
with failed generator runs is refused (their labels would no longer line up).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from synthleak.metrics.epsilon import epsilon_ceiling, epsilon_lower_bound

TEST_POOL = 3  # pool id of target 0's test datasets in an exact-knowledge game (2 t + 2 + 1)


def presence_counts(row_dir: Path, column: str, value: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows holding ``column = value`` in each test release, and the release's IN/OUT label."""
    schema = json.loads((row_dir / "schema.json").read_text())
    names = [c["name"] for c in schema["columns"] if c["kind"] != "continuous"]
    col = next(c for c in schema["columns"] if c["name"] == column)
    code = [str(v) for v in col["categories"]].index(value)
    units = sorted(
        (row_dir / "units").glob(f"gen-p{TEST_POOL}-s*.npz"),
        key=lambda p: int(p.stem.rsplit("-s", 1)[1]),
    )
    counts: list[int] = []
    for path in units:
        with np.load(path, allow_pickle=False) as z:
            if not bool(np.all(z["ok"])):
                raise SystemExit(f"{path.name}: failed generator runs; labels would not line up")
            counts.extend(int(n) for n in (z["codes"][:, :, names.index(column)] == code).sum(1))
    scored = sorted((row_dir / "units").glob("atk-*-t0.npz"))
    if not scored:
        raise SystemExit(f"no scored attack in {row_dir / 'units'}: run the study's row first")
    with np.load(scored[0], allow_pickle=False) as z:
        labels = np.asarray(z["labels"], dtype=int)
    if labels.size != len(counts):
        raise SystemExit(f"{len(counts)} test releases but {labels.size} labels")
    return np.asarray(counts), labels


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
    counts, labels = presence_counts(args.row_dir, args.column, args.value)
    inside, outside = counts[labels == 1], counts[labels == 0]
    tp, fp = int((inside > 0).sum()), int((outside > 0).sum())
    kw = dict(delta=args.delta, neighbouring=args.neighbouring, game_neighbouring=args.neighbouring)
    print(f"rows with {args.column} = {args.value} per IN release:  {sorted(inside.tolist())}")
    print(f"rows with {args.column} = {args.value} per OUT release: {sorted(outside.tolist())}")
    print(f"releases holding it: {tp} of {inside.size} IN, {fp} of {outside.size} OUT")
    for conf in (0.95, 0.9):
        lb = float(epsilon_lower_bound(tp, inside.size, fp, outside.size, confidence=conf, **kw))
        ceil = epsilon_ceiling(inside.size, outside.size, confidence=conf, **kw)
        print(f"epsilon lower bound at {conf:.0%}: {lb:.2f} (ceiling {ceil:.2f})")
    lb95 = float(epsilon_lower_bound(tp, inside.size, fp, outside.size, **kw))
    verdict = "violation" if lb95 > args.epsilon else "no violation shown"
    print(f"against the claim epsilon = {args.epsilon:g}, delta = {args.delta:g}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
