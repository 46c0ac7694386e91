"""Copy and null oracles through the command line on every shared real dataset.

For each file of the shared datasets folder, three disjoint samples of its rows are written as
CSV text exactly as the source holds them (no parsing round trip): the original (``--n``
rows), a control a quarter of its size (the ratio users run) and another sample as large as the
original. Each dataset is then audited three times with ``synthleak audit --budget quick``:

* ``copy``: the release is the original's own rows, shuffled (a verbatim copy);
* ``null``: the release is the disjoint sample (people the generator never saw);
* ``generator``: no release, ``--generator nonprivate`` (every synthetic record resampled from
  the training records), so the copies pass through the audit's own encoding.

Reported per run: the exact-copy rate and its baseline, the copy findings' verdicts and every
finding that reads as a leak. Pass criteria: an exact-copy rate of 1.0 on every copy and
generator run, and false alarms on the null runs at most at the nominal rate.

Usage::

    python -m benchmarks.harness_copies [--n 1000] [--datasets adult,german_credit]
        [--null-splits 5]

Further data splits (``--null-splits``) add null runs only, each on its own draw of the three
samples (the runs of one split share that draw, so they are not independent trials).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.datasets import shared_datasets_dir
from benchmarks.provenance import Provenance

FILES = {
    "adult": "adult.csv.gz",
    "census_nano": "uk_census2011_teaching_nano_10k.csv",
    "acs_ma2019": "nist_acs_ma2019.csv",
    "acs_tx2019": "nist_acs_tx2019.csv",
    "german_credit": "german_credit.csv",
    "compas": "compas_two_years_noids.csv",
    "anonymeter_control": "anonymeter_adults_control.csv",
}
LEAKS = ("measurable leakage", "severe leakage")


def _write_parts(src: Path, n: int, seed: int, folder: Path) -> dict[str, Path]:
    df = pd.read_csv(src, dtype=str, keep_default_na=False)  # the text as the file holds it
    n = min(n, len(df) * 4 // 9)
    rows = np.random.default_rng(seed).permutation(len(df))
    cuts = {"original": rows[:n], "control": rows[n : n + n // 4], "other": rows[n + n // 4 :][:n]}
    out = {}
    for name, idx in cuts.items():
        out[name] = folder / f"{name}.csv"
        df.iloc[idx].to_csv(out[name], index=False)
    out["copy"] = folder / "copy.csv"
    df.iloc[np.random.default_rng(seed + 1).permutation(cuts["original"])].to_csv(
        out["copy"], index=False
    )
    return out


def _audit(parts: dict[str, Path], kind: str, folder: Path) -> dict[str, object]:
    out = folder / f"audit_{kind}"
    cmd = ["synthleak", "audit", "--original", str(parts["original"]), "--budget", "quick"]
    cmd += ["--out-dir", str(out), "--seed", "0"]
    if kind == "generator":
        cmd += ["--generator", "nonprivate", "--selector", "rarity"]
    else:
        release = parts["copy"] if kind == "copy" else parts["other"]
        cmd += ["--synthetic", str(release), "--control", str(parts["control"])]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    row: dict[str, object] = {"kind": kind, "exit": done.returncode}
    row["seconds"] = round(time.perf_counter() - t0, 1)
    if done.returncode != 0:
        row["error"] = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        return row
    doc = json.loads((out / "report.json").read_text())
    findings = {f["key"]: f for f in doc["findings"]}
    exact = findings.get("copies.exact", {})
    row["exact_rate"] = exact.get("details", {}).get("rate")
    row["exact_baseline"] = exact.get("details", {}).get("baseline_rate")
    row["copies.exact"] = exact.get("verdict")
    row["copies.columns"] = findings.get("copies.columns", {}).get("verdict")
    row["leaks"] = sorted(k for k, f in findings.items() if f["verdict"] in LEAKS)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="original rows per dataset")
    ap.add_argument("--datasets", default=",".join(FILES), help="comma-separated names")
    ap.add_argument(
        "--null-splits", type=int, default=1, help="data splits per dataset for the null runs"
    )
    args = ap.parse_args(argv)
    prov = Provenance.start()
    rows = []
    for i, name in enumerate(args.datasets.split(",")):
        for split in range(args.null_splits):
            with tempfile.TemporaryDirectory() as tmp:
                seed = 100 * split + i
                parts = _write_parts(shared_datasets_dir() / FILES[name], args.n, seed, Path(tmp))
                kinds = ("copy", "null", "generator") if split == 0 else ("null",)
                for kind in kinds:
                    row = {"dataset": name, "split": split, **_audit(parts, kind, Path(tmp))}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    copies_ok = all(r.get("exact_rate") == 1.0 for r in rows if r["kind"] in ("copy", "generator"))
    nulls = [r for r in rows if r["kind"] == "null"]
    false_alarms = sum(bool(r.get("leaks")) for r in nulls)
    crashes = sum(r["exit"] != 0 for r in rows)
    summary = {
        "copy_rate_1_on_every_copy": copies_ok,
        "null_runs": len(nulls),
        "null_runs_with_a_leak_verdict": false_alarms,
        "crashes": crashes,
    }
    print(json.dumps(summary))
    prov.write(
        "harness_copies", f"n{args.n}_splits{args.null_splits}", {"runs": rows, "summary": summary}
    )
    return 0 if copies_ok and not crashes else 1


if __name__ == "__main__":
    sys.exit(main())
