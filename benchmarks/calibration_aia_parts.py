"""Null calibration of the release attribute game over value-grouped parts, and the candidate
design effect over parts.

:class:`~synthleak.games.attribute_release.ReleaseAttributeGame` attacks the training records in
parts that share quasi-identifier values (one linear program per part and world), and its
interval (Newcombe's, of two proportions) treats the attacked records as independent. This
script measures that interval on the null release the audit faces when the generator leaks
nothing, and beside it a cluster-aware candidate computed from the same outcomes
(:func:`part_difference`: a cluster-robust design effect over the parts, Newcombe's interval
and the score test at the effective sizes). The "release" is a disjoint real sample of the same
size as the training data, the original four times the control (as the CLI's split), and the
game runs at the audit's settings scaled down (a budget's records attacked in parts of
``--part-size``, at most 2,000 queries per linear program). Each seed draws the three samples
and plays the game once. A verbatim copy of the training data (seeds 0 to
``--copy-seeds - 1``) checks that each interval still finds copies.

Reported per dataset and interval: the false-flag rate (one-sided: the interval's lower end
above 0, nominal 2.5 %), the coverage of the null (0 inside the two-sided 95 % interval, nominal
95 %), the spread of the null difference over seeds against the mean standard error the
interval implies, the share of p-values at most 0.05 (nominal 5 %), a Kolmogorov-Smirnov test
of the p-values against the uniform law, the design effects, and the copies flagged and
measured (an interval wider than ``MAX_CI_WIDTH`` reads "too small to measure").

Usage::

    nice -n 10 python benchmarks/calibration_aia_parts.py [--seeds 100] [--datasets acs_tx,adult]
        [--n-train 1200] [--n-targets 300] [--part-size 100] [--out FILE.md]

Results: ``benchmarks/RESULTS_aia_release.md`` (section "Parts as clusters"). Data folder:
``$SYNTHLEAK_SHARED_DATASETS`` (see ``benchmarks/calibration_aia.py``).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from statistics import NormalDist

import numpy as np
from scipy.stats import kstest

from benchmarks.calibration_aia import load
from synthleak.data.release import Release
from synthleak.games.attribute_release import ReleaseAttributeGame, ReleaseAttributeResult
from synthleak.games.secret import MAX_CI_WIDTH
from synthleak.metrics.privacy import AccuracyDifference

Z = NormalDist().inv_cdf(0.975)


def _wilson(k: float, n: float) -> tuple[float, float]:
    """Wilson's interval of ``k`` successes in ``n`` trials (effective, possibly fractional)."""
    p = k / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom
    return (0.0 if k <= 0 else max(0.0, centre - half)), (1.0 if k >= n else centre + half)


def part_difference(
    right_a: np.ndarray, part_a: np.ndarray, right_b: np.ndarray, part_b: np.ndarray
) -> tuple[AccuracyDifference, float]:
    """The candidate: the game's difference with a design effect over its parts.

    ``D = A / N - B / M`` is a difference of two ratio estimators over the parts as clusters;
    its cluster-robust (linearisation) variance is ``G / (G - 1) * sum_p e_p ** 2`` over the
    ``G`` parts, ``e_p = (A_p - pA * N_p) / N - (B_p - pB * M_p) / M`` (Kish 1965). The design
    effect is its ratio to ``pA (1 - pA) / N + pB (1 - pB) / M``, floored at 1 (1 with one part);
    Newcombe's interval and the pooled score test are taken at the effective sizes ``N / deff``
    and ``M / deff``. With ``deff = 1`` this is the game's own interval.
    """
    a, b = np.asarray(right_a, dtype=float), np.asarray(right_b, dtype=float)
    na, nb = a.size, b.size
    pa, pb = a.mean(), b.mean()
    ids, inv = np.unique(np.concatenate([part_a, part_b]), return_inverse=True)
    G = ids.size
    resid = (
        np.bincount(inv[:na], weights=a - pa, minlength=G) / na
        - np.bincount(inv[na:], weights=b - pb, minlength=G) / nb
    )
    v_parts = G / (G - 1) * float(np.sum(resid**2)) if G > 1 else 0.0
    v_records = pa * (1 - pa) / na + pb * (1 - pb) / nb
    deff = max(1.0, v_parts / v_records) if G > 1 and v_records > 0 else 1.0
    ea, eb = na / deff, nb / deff
    la, ua = _wilson(pa * ea, ea)
    lb, ub = _wilson(pb * eb, eb)
    d = pa - pb
    lo = d - math.sqrt((pa - la) ** 2 + (ub - pb) ** 2)
    hi = d + math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2)
    pooled = (a.sum() + b.sum()) / (na + nb)
    se = math.sqrt(pooled * (1 - pooled) * (1 / ea + 1 / eb))
    p = (0.0 if d > 0 else 1.0 if d < 0 else 0.5) if se == 0 else 1 - NormalDist().cdf(d / se)
    return AccuracyDifference(d, max(-1.0, lo), min(1.0, hi), p, na, nb), deff


def _candidate(res: ReleaseAttributeResult) -> tuple[AccuracyDifference, float]:
    t, c = res.training, res.control
    assert t is not None and c is not None and t.right is not None and c.right is not None
    assert t.part is not None and c.part is not None
    return part_difference(t.right, t.part, c.right, c.part)


def _split(n_rows: int, n_train: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Disjoint training, control (a quarter of the training data) and other rows."""
    perm = np.random.default_rng(5000 + seed).permutation(n_rows)
    nc = n_train // 4
    return perm[:n_train], perm[n_train : n_train + nc], perm[n_train + nc : 2 * n_train + nc]


def _summary(ds: list[AccuracyDifference]) -> dict[str, float]:
    p = np.array([d.p_value for d in ds])
    return {
        "flagged": int(sum(d.ci_low > 0 for d in ds)),
        "covered": int(sum(d.ci_low <= 0 <= d.ci_high for d in ds)),
        "mean_se": float(np.mean([d.width / (2 * Z) for d in ds])),
        "p05": int(np.sum(p <= 0.05)),
        "ks_p": float(kstest(p, "uniform").pvalue),
    }


def calibrate(
    name: str, seeds: int, n_train: int, n_targets: int, part_size: int, copy_seeds: int
) -> dict[str, object]:
    """The null runs and the copy oracle of one dataset, under both intervals."""
    table, secret = load(name)
    game = ReleaseAttributeGame(
        secret,
        attack_params={"time_limit": 120.0, "n_queries": 2000},
        n_targets=n_targets,
        part_size=part_size,
    )
    game_null, cand_null, deffs, parts = [], [], [], []
    for seed in range(seeds):
        t, c, o = _split(len(table), n_train, seed)
        res = game.run(Release(table.take(t), table.take(o), table.take(c)), seed=seed)
        game_null.append(res.difference)
        d, deff = _candidate(res)
        cand_null.append(d)
        deffs.append(deff)
        parts.append(res.config["n_parts"])
        if (seed + 1) % 10 == 0:
            print(f"{name}: {seed + 1} of {seeds} null runs", file=sys.stderr, flush=True)
    game_copy, cand_copy, copy_deffs = [], [], []
    for seed in range(copy_seeds):
        t, c, _ = _split(len(table), n_train, seed)
        res = game.run(Release(table.take(t), table.take(t), table.take(c)), seed=seed)
        game_copy.append(res.difference)
        d, deff = _candidate(res)
        cand_copy.append(d)
        copy_deffs.append(deff)
    diffs = np.array([d.difference for d in game_null])

    def copies(ds: list[AccuracyDifference]) -> str:
        found = sum(d.ci_low > 0 and d.width <= MAX_CI_WIDTH for d in ds)
        lows = ", ".join(f"{d.ci_low:+.3f}" for d in ds)
        widths = ", ".join(f"{d.width:.2f}" for d in ds)
        return f"{found} of {len(ds)} (lower ends {lows}; widths {widths})"

    return {
        "dataset": name,
        "secret": secret,
        "seeds": seeds,
        "parts": (int(min(parts)), float(np.mean(parts)), int(max(parts))),
        "sd_diff": float(diffs.std(ddof=1)),
        "mean_diff": float(diffs.mean()),
        "deff": (float(np.min(deffs)), float(np.median(deffs)), float(np.max(deffs))),
        "deff_above_1": int(sum(d > 1 for d in deffs)),
        "copy_deffs": copy_deffs,
        "game": _summary(game_null),
        "candidate": _summary(cand_null),
        "game_copies": copies(game_copy),
        "candidate_copies": copies(cand_copy),
    }


HEADER = (
    "| dataset (secret) | parts (min/mean/max) | null mean diff | null s.d. | interval | "
    "flagged (2.5 %) | 0 covered (95 %) | mean s.e. | p <= 0.05 | KS p | design effect on the "
    "null (min/median/max; > 1) | copies flagged and measured |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def rows(r: dict) -> list[str]:  # type: ignore[type-arg]
    n = r["seeds"]
    lo, mean, hi = r["parts"]
    d0, d1, d2 = r["deff"]
    out = []
    for which, label in (("game", "records independent"), ("candidate", "design effect")):
        s = r[which]
        deff = (
            f"{d0:.2f} / {d1:.2f} / {d2:.2f}; {r['deff_above_1']} of {n}"
            if which == "candidate"
            else "1"
        )
        copies = r[f"{which}_copies"] + (
            "; design effects " + ", ".join(f"{d:.2f}" for d in r["copy_deffs"])
            if which == "candidate"
            else ""
        )
        out.append(
            f"| {r['dataset']} ({r['secret']}) | {lo} / {mean:.1f} / {hi} | "
            f"{r['mean_diff']:+.4f} | {r['sd_diff']:.4f} | {label} | {s['flagged']} of {n} | "
            f"{s['covered']} of {n} | {s['mean_se']:.4f} | {s['p05']} of {n} | "
            f"{s['ks_p']:.2f} | {deff} | {copies} |"
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--datasets", default="acs_tx,adult")
    ap.add_argument("--n-train", type=int, default=1200)
    ap.add_argument("--n-targets", type=int, default=300)
    ap.add_argument("--part-size", type=int, default=100)
    ap.add_argument("--copy-seeds", type=int, default=3)
    ap.add_argument("--out", default=None, help="append the table to this Markdown file")
    args = ap.parse_args()
    t0 = time.perf_counter()
    lines = [HEADER]
    print(HEADER, flush=True)
    for name in args.datasets.split(","):
        r = calibrate(
            name, args.seeds, args.n_train, args.n_targets, args.part_size, args.copy_seeds
        )
        for line in rows(r):
            print(line, flush=True)
            lines.append(line)
    took = f"{time.perf_counter() - t0:.0f} s"
    print(took, flush=True)
    if args.out:
        with open(args.out, "a") as fh:
            fh.write("\n" + "\n".join(lines) + f"\n\n{took} for these rows.\n")


if __name__ == "__main__":
    main()
