"""Identity check: the same seeds give the same results before and after a refactoring.

Runs, with fixed seeds, small cells of what users run and prints one digest per cell of its
JSON result, without what depends on the machine or the moment (wall times, the creation
time, the package versions and the command line, :func:`synthleak.serde.without_timings`):

* ``demo``: the demo's audit (``synthleak demo``: generator ``baynet:k=2`` fit on a part of
  Adult, the rest held out as control, secret ``income``) on a 1,200-record sample of Adult
  at a small budget, every stage of a generator audit (split, release, vulnerability ranking,
  copies, singling out, linkability, no-box membership, attribute inference on the release,
  utility, the attribute game, the two-stage screen and the membership game);
* ``nobox``: a release audited without its generator (the no-box cell): 800 training and 600
  control records of Adult, the release a bootstrap resample of the training records;
* ``attribute``: the same release with every column swept as the secret (the attribute cell);
* ``mia-black-box`` and ``mia-no-box``: ``synthleak mia`` in its two forms, JSON output.

Run it on two trees and compare the digests::

    PYTHONPATH=/path/to/before/src python benchmarks/identity.py [--dump DIR]
    PYTHONPATH=/path/to/after/src python benchmarks/identity.py [--dump DIR]

``--dump DIR`` writes each cell's normalised JSON there, to diff when digests differ. Takes a
few minutes on one core.

When two versions differ on purpose in some fields (a field added by another change, p-values
computed by a new test), ``--diff BEFORE.json AFTER.json [--ignore KEY,...]`` tells a changed
value from an added field: it prints every path whose value changed (keys in ``--ignore`` left
out, wherever they sit) and counts the fields only the second holds. The 1M-row audit is dumped
for it by ``benchmarks/bench_census_scale.py --dump DIR``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import synthleak
from synthleak.data.datasets import load_adult
from synthleak.pipeline import audit
from synthleak.results import BudgetPlan
from synthleak.serde import without_timings

#: What a report holds that two runs of the same audit do not share.
PROVENANCE = ("versions", "command_line", "created")

PLAN = BudgetPlan(
    n_attacks=150,
    mia_targets=1,
    mia_controls=1,
    shadows=40,
    tests=40,
    n=150,
    mia_attacks=("distance",),
    aia_games=6,
    screen_datasets=8,
    aia_records=200,
    aia_queries=2000,
)


def _adult(n: int, seed: int) -> pd.DataFrame:
    return load_adult().sample(n=n, random_state=seed).reset_index(drop=True)


def _release_parts() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    df = _adult(1400, 2)
    train, control = df.iloc[:800].reset_index(drop=True), df.iloc[800:].reset_index(drop=True)
    rows = np.random.default_rng(3).integers(0, len(train), len(train))
    return train, train.iloc[rows].reset_index(drop=True), control


def demo() -> dict[str, Any]:
    r = audit(_adult(1200, 1), generator="baynet:k=2", secret="income", plan=PLAN, seed=0)
    return r.to_dict()


def nobox() -> dict[str, Any]:
    train, synthetic, control = _release_parts()
    r = audit(train, synthetic=synthetic, control=control, secret="income", plan=PLAN, seed=0)
    return r.to_dict()


def attribute() -> dict[str, Any]:
    train, synthetic, control = _release_parts()
    r = audit(train, synthetic=synthetic, control=control, secret="all", plan=PLAN, seed=0)
    return r.to_dict()


def _cli(args: list[str], out: Path) -> dict[str, Any]:
    from synthleak.cli.main import main

    code = main([*args, "--format", "json", "--out", str(out), "--seed", "0"])
    if code != 0:
        raise SystemExit(f"synthleak {' '.join(args)} exited {code}")
    return json.loads(out.read_text())


def mia_black_box() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "adult.csv"
        _adult(1200, 4).to_csv(data, index=False)
        args = ["mia", str(data), "--generator", "baynet:k=2", "--targets", "top:2+random:1"]
        args += ["--train-size", "150", "--shadows", "30", "--tests", "30"]
        args += ["--attacks", "distance,query", "--n-queries", "2000"]
        return _cli(args, Path(tmp) / "mia.json")


def mia_no_box() -> dict[str, Any]:
    train, synthetic, control = _release_parts()
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, frame in (("original", train), ("synthetic", synthetic), ("control", control)):
            paths[name] = Path(tmp) / f"{name}.csv"
            frame.to_csv(paths[name], index=False)
        args = ["mia", *(x for n, p in paths.items() for x in (f"--{n}", str(p)))]
        return _cli(args, Path(tmp) / "nobox.json")


CELLS: dict[str, Callable[[], dict[str, Any]]] = {
    "demo": demo,
    "nobox": nobox,
    "attribute": attribute,
    "mia-black-box": mia_black_box,
    "mia-no-box": mia_no_box,
}


def _named(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, dict) and "name" in v for v in value)


def changed_values(
    before: Any, after: Any, ignore: frozenset[str], path: str = ""
) -> tuple[list[str], int]:
    """Paths whose value differs between two JSON documents, and the count of added fields.

    A key present only in ``after`` counts as added (not changed); a key of ``ignore`` is skipped
    at any depth; lists of named records (the stage records) are matched by name, so a stage
    only ``after`` has is added; other lists of different lengths are one change at their path.
    """
    if _named(before) and _named(after):
        before = {item["name"]: item for item in before}
        after = {item["name"]: item for item in after}
    if isinstance(before, dict) and isinstance(after, dict):
        changed: list[str] = [f"{path}/{k}" for k in before if k not in after and k not in ignore]
        added = sum(1 for k in after if k not in before and k not in ignore)
        for key in before.keys() & after.keys() - ignore:
            more, more_added = changed_values(before[key], after[key], ignore, f"{path}/{key}")
            changed += more
            added += more_added
        return changed, added
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        changed, added = [], 0
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            more, more_added = changed_values(b, a, ignore, f"{path}[{i}]")
            changed += more
            added += more_added
        return changed, added
    return ([] if before == after else [path or "/"]), 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default=",".join(CELLS), help="comma-separated cells")
    parser.add_argument("--dump", type=Path, help="write each cell's normalised JSON here")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--ignore", default="", help="comma-separated keys --diff leaves out")
    args = parser.parse_args()
    if args.diff is not None:
        before, after = (json.loads(p.read_text()) for p in args.diff)
        ignore = frozenset(k for k in args.ignore.split(",") if k)
        changed, added = changed_values(before, after, ignore)
        for path in changed:
            print(f"changed: {path}")
        print(f"{len(changed)} changed values, {added} added fields")
        return
    print(f"synthleak from {Path(synthleak.__file__).parent}")
    for name in args.cells.split(","):
        started = time.perf_counter()
        doc = without_timings(CELLS[name](), PROVENANCE)
        text = json.dumps(doc, sort_keys=True)
        if args.dump is not None:
            args.dump.mkdir(parents=True, exist_ok=True)
            (args.dump / f"{name}.json").write_text(json.dumps(doc, sort_keys=True, indent=1))
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        print(f"{name:<14} {digest}  ({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
