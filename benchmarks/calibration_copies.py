"""Calibration of the row-level copy figures (the ``copies`` stage,
:func:`synthleak.stages.copies.copy_findings`) under the null oracle, at the command line's size
ratio: an original four times its control, a release as large as the original.

Per seed, three disjoint random samples of one real table are drawn: the original (training
records), the control (a quarter of its size) and the release (as large as the original: other
people, so nothing of the original is in it beyond chance). The stage's checks are run on them
as an audit runs them (:func:`~synthleak.metrics.copies.copy_report` on every column,
:func:`~synthleak.metrics.copies.rare_values` on the schema's categorical columns, then
:func:`~synthleak.stages.copies.copy_findings`), near copies left out (not a difference of two
rates). A calibrated figure's 95 % interval lies wholly above 0 (the verdict's rule,
``ci_low > 0``) in at most 2.5 % of seeds. Each figure's flag rate is computed from the seed's
counts with Newcombe's hybrid score interval uncorrected (method 10) and continuity-corrected
(method 11, :func:`~synthleak.metrics.privacy.rate_excess`), beside the stage's own verdict (the
script checks that it equals one of the two) and Fisher's one-sided p <= 0.025.

Tables (real data, read at run time): ``adult`` (every column: copies by chance are almost
never seen), ``census`` (the UK census 10k teaching file without its identifiers: about a tenth
of the control's records equal a training record) and ``adult_coarse`` (Adult's sex, race,
relationship, workclass and income: about 95 % do, the rates where the uncorrected interval
errs most).

Usage::

    nice -n 15 python -m benchmarks.calibration_copies --table adult_coarse --seeds 5000 \\
        --name adult_coarse_5000
    python -m benchmarks.calibration_copies --exact   # exact sums at the same sizes, no data

writes ``benchmarks/results/copies/<name>.json``: the summary, the seeds any figure flagged and
the run's provenance (``benchmarks/provenance.py``). Results: ``benchmarks/RESULTS_copies.md``
(row-level section).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.calibration_person_copies import binomial_tail  # noqa: E402
from benchmarks.provenance import Provenance  # noqa: E402
from synthleak.data.profile import infer_schema  # noqa: E402
from synthleak.datasets import load_adult  # noqa: E402
from synthleak.metrics.copies import copy_report, rare_values  # noqa: E402
from synthleak.metrics.privacy import rate_excess, wilson_interval  # noqa: E402
from synthleak.stages.copies import copy_findings  # noqa: E402
from synthleak.verdicts import ALPHA  # noqa: E402

CENSUS = Path("/work/shared/datasets/uk_census2011_teaching_nano_10k.csv")
COARSE = ["sex", "race", "relationship", "workclass", "income"]


def table(name: str) -> pd.DataFrame:
    """The real table a run samples from (module docstring)."""
    if name == "adult":
        return load_adult()
    if name == "adult_coarse":
        return load_adult()[COARSE]
    if name == "census":
        return pd.read_csv(CENSUS).drop(columns=["row_index_in_full_file", "Person ID"])
    raise SystemExit(f"unknown table {name!r}: give adult, adult_coarse or census")


def _excess_flags(counts: tuple[int, int, int, int], confidence: float = 0.95) -> dict[str, Any]:
    """Both intervals' verdicts (``ci_low > 0``) and Fisher's p of one excess's counts."""
    plain = rate_excess(*counts, confidence=confidence)
    corrected = rate_excess(*counts, confidence=confidence, continuity=True)
    return {
        "counts": list(counts),
        "value": plain.value,
        "uncorrected": bool(plain.ci_low > 0),
        "corrected": bool(corrected.ci_low > 0),
        "fisher": bool(plain.p_value <= 0.025),
        "lows": [plain.ci_low, corrected.ci_low],
    }


def one_seed(df: pd.DataFrame, categorical: list[str], n: int, m: int, seed: int) -> dict:
    """The three copy figures of one null draw (module docstring)."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(df))
    parts = [df.iloc[perm[a:b]].reset_index(drop=True) for a, b in ((0, n), (n, n + m))]
    original, control = parts
    release = df.iloc[perm[n + m : 2 * n + m]].reset_index(drop=True)
    rep = copy_report(original, release, control, near_quantile=0.0)
    rep = replace(rep, rare_values=rare_values(original, release, control, categorical))
    stage = {f.key: f.estimate for f in copy_findings(rep)}
    e, b = rep.synthetic_in_original, rep.control_in_original
    assert b is not None
    row: dict[str, Any] = {"seed": seed}
    row["exact"] = _excess_flags(
        (round(e.value * e.n_trials), e.n_trials, round(b.value * b.n_trials), b.n_trials)
    )
    rv = rep.rare_values
    assert rv is not None
    if rv.n_original and rv.n_control:
        row["rare_values"] = _excess_flags(
            (rv.released_original, rv.n_original, rv.released_control, rv.n_control)
        )
    cols = [c for c in rep.columns if c.synthetic_in_original_m and c.synthetic_in_control_m]
    if cols:  # any column's Bonferroni interval above 0 flags the finding
        conf = 1 - ALPHA / len(cols)
        per = []
        for c in cols:
            o, k = c.synthetic_in_original_m, c.synthetic_in_control_m
            assert o is not None and k is not None
            cnt = (round(o.value * o.n_trials), o.n_trials, round(k.value * k.n_trials), k.n_trials)
            per.append(_excess_flags(cnt, conf))
        row["columns"] = {
            key: any(p[key] for p in per) for key in ("uncorrected", "corrected", "fisher")
        } | {"value": max(p["value"] for p in per), "n_columns": len(cols)}
    for key, fig in (("copies.exact", "exact"), ("copies.rare_values", "rare_values")):
        if fig in row and key in stage:
            row[fig]["stage"] = bool(stage[key].ci_low > 0)
            low = stage[key].ci_low
            assert low in row[fig]["lows"], (seed, fig, low, row[fig]["lows"])  # one of the two
    if "columns" in row:
        row["columns"]["stage"] = bool(stage["copies.columns"].ci_low > 0)
    return row


def summarise(rows: list[dict], fig: str) -> dict[str, Any]:
    """Flag rates of one figure over the seeds that measured it, with Wilson intervals."""
    got = [r[fig] for r in rows if fig in r]
    n = len(got)
    out: dict[str, Any] = {"seeds_measured": n}
    if not n:
        return out
    vals = [g["value"] for g in got]
    mean = sum(vals) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / max(1, n - 1))
    out |= {"mean_value": mean, "se_mean": sd / math.sqrt(n)}
    if "counts" in got[0]:
        out["mean_control_rate"] = sum(g["counts"][2] / g["counts"][3] for g in got) / n
    for key in ("uncorrected", "corrected", "stage", "fisher"):
        k = sum(bool(g.get(key)) for g in got)
        lo, hi = wilson_interval(k, n)
        out[key] = {
            "flagged": k,
            "rate": k / n,
            "wilson_95": [lo, hi],
            "p_binomial_at_0.025": binomial_tail(k, n, 0.025),
        }
    return out


def print_exact(n: int, m: int) -> None:
    """P(the excess's lower end > 0) when both rates are ``p``, summed exactly over every pair
    of binomial counts of ``n`` and ``m`` trials (no sampling), for both intervals."""
    from tests.metrics.test_privacy import _exact_flag_rate

    for p in (0.005, 0.02, 0.2, 0.5, 0.8, 0.95, 0.99):
        plain, corrected = (_exact_flag_rate(n, m, p, c) for c in (False, True))
        print(f"rate {p:<6} uncorrected {plain:.2%}  corrected {corrected:.2%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", default="adult_coarse")
    ap.add_argument("--seeds", type=int, default=500)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--n-original", type=int, default=2000)
    ap.add_argument("--ratio", type=int, default=4, help="original records per control record")
    ap.add_argument("--name", default=None, help="write results/copies/NAME.json")
    ap.add_argument(
        "--exact",
        action="store_true",
        help="print instead the exact flag rates of both intervals at these sizes (no data)",
    )
    args = ap.parse_args()
    if args.exact:
        print_exact(args.n_original, args.n_original // args.ratio)
        return
    prov = Provenance.start()
    df = table(args.table)
    categorical = infer_schema(df).categorical_names
    n, m = args.n_original, args.n_original // args.ratio
    if 2 * n + m > len(df):
        raise SystemExit(f"{args.table} has {len(df)} rows: fewer than 2 x {n} + {m}")
    t0 = time.perf_counter()
    rows = [
        one_seed(df, categorical, n, m, s)
        for s in range(args.first_seed, args.first_seed + args.seeds)
    ]
    summary: dict[str, Any] = {
        "table": args.table,
        "seeds": len(rows),
        "n_original": n,
        "n_control": m,
        "n_release": n,
        "figures": {f: summarise(rows, f) for f in ("exact", "rare_values", "columns")},
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    for fig, figs in summary["figures"].items():  # one line per figure and interval
        print(fig, {k: v for k, v in figs.items() if not isinstance(v, dict)})
        for key in ("uncorrected", "corrected", "stage", "fisher"):
            if key in figs:
                f = figs[key]
                lo, hi = f["wilson_95"]
                print(
                    f"  {key:<12} {f['flagged']:>5} of {figs['seeds_measured']}: "
                    f"{f['rate']:.2%} [{lo:.2%}, {hi:.2%}], "
                    f"P(>= at 2.5%) {f['p_binomial_at_0.025']:.3g}"
                )
    print("wall_s", summary["wall_s"])
    if args.name:
        flagged = [
            r
            for r in rows
            if any(
                r.get(f, {}).get(k)
                for f in ("exact", "rare_values", "columns")
                for k in ("uncorrected", "corrected", "stage")
            )
        ]
        prov.write("copies", args.name, {"summary": summary, "flagged_seeds": flagged})


if __name__ == "__main__":
    main()
