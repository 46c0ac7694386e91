"""Calibration of the person-level copy figures (:mod:`synthleak.games.person_copies`) under the
null oracle: a release of other people's histories, at the audit's real size ratio (four
original persons per control person).

Per seed, one population of persons with coarse child rows (``tests/games/person_parts.py``: an
amount to one decimal and one of three kinds, so about half the child rows recur by chance) is
split at random into the original, the control and other people, whose histories under new keys
are the release. Nothing of the original is in the release beyond chance, so a calibrated
figure's 95 % interval lies wholly above 0 (the verdict's rule, ``ci_low > 0``) in at most 2.5 %
of seeds. Both figures are recorded (``copies.person_history``, whole histories replayed, and
``copies.person_rows``, a share of a history copied), with Fisher's one-sided p-value beside the
interval.

Usage::

    nice -n 15 python -m benchmarks.calibration_person_copies --seeds 5000 --name null_5000

writes ``benchmarks/results/person_copies/<name>.json``: the summary, the seeds either figure
flagged, and the run's provenance (``benchmarks/provenance.py``). Results:
``benchmarks/RESULTS_copies.md`` (person-level section).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.games.person_parts import parts  # noqa: E402

from benchmarks.provenance import Provenance  # noqa: E402
from synthleak.games.person_copies import play_person_copies  # noqa: E402


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    from scipy.stats import binom

    return float(binom.sf(k - 1, n, p))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=600)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--n-control", type=int, default=100)
    ap.add_argument("--name", default=None, help="write results/person_copies/NAME.json")
    args = ap.parse_args()
    prov = Provenance.start()
    rows = []
    t0 = time.perf_counter()
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        original, control, others = parts(seed, n_control=args.n_control)
        r = play_person_copies(original, others, control)
        rows.append(
            {
                "seed": seed,
                "whole": [r.whole.value, r.whole.ci_low, r.whole.ci_high, r.whole.p_value],
                "share": [r.share.value, r.share.ci_low, r.share.ci_high, r.share.p_value],
                "share_counts": [
                    r.n_share,
                    r.n_persons_with_rows,
                    r.n_share_control,
                    r.n_control_persons_with_rows,
                ],
                "whole_counts": [r.n_whole, r.n_persons, r.n_whole_control, r.n_control_persons],
            }
        )
    n = len(rows)
    summary: dict[str, object] = {"seeds": n, "n_control": args.n_control, "wall_s": 0.0}
    for fig in ("whole", "share"):
        vals = [row[fig][0] for row in rows]  # type: ignore[index]
        mean = sum(vals) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / max(1, n - 1))
        flagged = sum(row[fig][1] > 0 for row in rows)  # type: ignore[index]
        fisher = sum(row[fig][3] <= 0.025 for row in rows)  # type: ignore[index]
        summary[fig] = {
            "mean_excess": mean,
            "se_mean": sd / math.sqrt(n),
            "ci_low_above_0": flagged,
            "rate": flagged / n,
            "p_binomial_at_0.025": binomial_tail(flagged, n, 0.025),
            "fisher_p_le_0.025": fisher,
        }
    summary["wall_s"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(summary, indent=1))
    if args.name:
        flagged = [r for r in rows if r["whole"][1] > 0 or r["share"][1] > 0]  # type: ignore[index]
        prov.write("person_copies", args.name, {"summary": summary, "flagged_seeds": flagged})


if __name__ == "__main__":
    main()
