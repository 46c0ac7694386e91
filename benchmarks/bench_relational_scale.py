"""Scale of a relational audit: ``synthleak audit --relational`` on 1M child rows.

Data (synthetic, built here and written as Parquet under ``--cache``, default
``$TMPDIR/synthleak-relscale``): three parts (original, release, control), each ``--persons``
persons (default 100,000) with ``--children`` child rows each on average (default 10; a count
drawn from 1..2*children-1), so the release holds about 1M child rows. A person (table ``person``,
key ``pid``) has an age, a region (12 values) and an income; a child row (table ``visit``, key
``vid``, foreign key ``pid``) has a day (the order), a kind (8 values), a cost and a duration.
The three parts are independent draws of one population (disjoint keys), so the release is a
null release: a sound audit finds no leak.

The audit runs as the command line runs it (``python -m synthleak.cli.main audit --relational
META --original DIR --synthetic DIR --control DIR``, the ``standard`` budget, one worker) in a
child process under ``/usr/bin/time -v``; the wall time, the peak resident memory and the
stage lines it logs are recorded, with the per-stage wall times from the result JSON.

Run:  nice -n 10 python benchmarks/bench_relational_scale.py [--persons 100000] [--children 10]
      [--out benchmarks/results/relational_scale.json] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

META = {
    "tables": {
        "person": {
            "primary_key": "pid",
            "columns": {
                "pid": {"sdtype": "id"},
                "age": {"sdtype": "numerical"},
                "region": {"sdtype": "categorical"},
                "income": {"sdtype": "numerical"},
            },
        },
        "visit": {
            "primary_key": "vid",
            "columns": {
                "vid": {"sdtype": "id"},
                "pid": {"sdtype": "id"},
                "day": {"sdtype": "numerical"},
                "kind": {"sdtype": "categorical"},
                "cost": {"sdtype": "numerical"},
                "duration": {"sdtype": "numerical"},
            },
        },
    },
    "relationships": [
        {
            "parent_table_name": "person",
            "parent_primary_key": "pid",
            "child_table_name": "visit",
            "child_foreign_key": "pid",
        }
    ],
}


def make_part(n: int, children: int, offset: int, seed: int) -> dict[str, pd.DataFrame]:
    """``n`` persons with keys from ``offset`` and their visits (one population, any seed)."""
    rng = np.random.default_rng(seed)
    pid = np.arange(offset, offset + n, dtype=np.int64)
    age = rng.integers(18, 90, n)
    region = rng.choice([f"r{i:02d}" for i in range(12)], n)
    income = np.round(rng.lognormal(10, 0.6, n), 0)
    person = pd.DataFrame({"pid": pid, "age": age, "region": region, "income": income})
    k = rng.integers(1, 2 * children, n)
    owner = np.repeat(pid, k)
    m = len(owner)
    age_of = np.repeat(age, k)
    visit = pd.DataFrame(
        {
            "vid": np.arange(offset * 3 * children, offset * 3 * children + m, dtype=np.int64),
            "pid": owner,
            "day": rng.integers(0, 3650, m),
            "kind": rng.choice([f"k{i}" for i in range(8)], m, p=np.r_[[0.3, 0.2], [0.5 / 6] * 6]),
            "cost": np.round(rng.gamma(2.0, 50.0, m) + age_of, 2),
            "duration": rng.integers(5, 240, m).astype(float),
        }
    )
    return {"person": person, "visit": visit}


def build(cache: Path, n: int, children: int) -> dict[str, Path]:
    folders = {}
    for i, part in enumerate(("original", "synthetic", "control")):
        d = cache / f"{n}x{children}" / part
        if not (d / "visit.parquet").is_file():
            d.mkdir(parents=True, exist_ok=True)
            for t, df in make_part(n, children, offset=i * n, seed=100 + i).items():
                df.to_parquet(d / f"{t}.parquet", index=False)
        folders[part] = d
    meta = cache / "metadata.json"
    meta.write_text(json.dumps(META))
    folders["meta"] = meta
    return folders


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--persons", type=int, default=100_000)
    ap.add_argument("--children", type=int, default=10)
    ap.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "synthleak-relscale"
    )
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/relational_scale.json"))
    ap.add_argument("--profile", action="store_true", help="run the audit under cProfile")
    args = ap.parse_args()
    t0 = time.time()
    f = build(args.cache, args.persons, args.children)
    n_child = len(pd.read_parquet(f["synthetic"] / "visit.parquet", columns=["pid"]))
    print(f"data built in {time.time() - t0:.1f} s: {n_child} child rows in the release")
    out_dir = Path(tempfile.mkdtemp(prefix="relscale-audit-"))
    audit = [
        sys.executable,
        *(["-m", "cProfile", "-o", str(out_dir / "audit.prof")] if args.profile else []),
        "-m",
        "synthleak.cli.main",
        "audit",
        "--relational",
        str(f["meta"]),
        "--original",
        str(f["original"]),
        "--synthetic",
        str(f["synthetic"]),
        "--control",
        str(f["control"]),
        "--out-dir",
        str(out_dir / "report"),
        "--workers",
        "1",
    ]
    t1 = time.time()
    proc = subprocess.run(
        ["/usr/bin/time", "-v", *audit], capture_output=True, text=True, env=dict(os.environ)
    )
    wall = time.time() - t1
    rss_kb = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    user = re.search(r"User time \(seconds\): ([\d.]+)", proc.stderr)
    res = {
        "persons_per_part": args.persons,
        "child_rows_release": n_child,
        "returncode": proc.returncode,
        "wall_s": round(wall, 1),
        "cpu_user_s": float(user.group(1)) if user else None,
        "peak_rss_gb": round(int(rss_kb.group(1)) / 1e6, 3) if rss_kb else None,
        "log": [ln for ln in proc.stderr.splitlines() if not ln.startswith("\t")][-60:],
        "report": str(out_dir / "report"),
    }
    result_json = next((out_dir / "report").glob("*.json"), None)
    if result_json is not None:
        doc = json.loads(result_json.read_text())
        res["stages"] = {s["name"]: [s["status"], s.get("seconds")] for s in doc.get("stages", [])}
    print(json.dumps({k: v for k, v in res.items() if k != "log"}, indent=1))
    print("\n".join(res["log"][-30:]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
