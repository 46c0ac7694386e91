"""Why the singling-out game compares original and control at equal size: five designs compared.

On the same predicates, original, control and oracle control (a control as large as the
original; ``tests/games/calibration.py``), each design estimates the excess ``attack_rate -
control_rate`` at the original's size (the risk's numerator):

* ``oracle`` — the control as large as the original: the truth (its mean over runs);
* ``none`` — the control's rate at its own size, no correction;
* ``anonymeter`` — the control's successes rescaled by Anonymeter's model of singling-out
  probability against size (Cohen and Nissim), fitted on random subsamples of the control of
  ``linspace(min(1000, n_c), n_c, 10)`` rows, 5 each (the game's former correction);
* ``npmle`` — empirical Bayes: a nonparametric prior of predicate frequencies fitted to the
  control's match counts (EM on a log grid) and the expected chance of singling out at the
  original's size under it;
* ``subset`` — the original evaluated at the control's size (exact expectation over subsets),
  not rescaled: calibrated, but a leak shows diluted by ``n_c / n_o``;
* ``subset/scale`` — the same divided by ``n_c / n_o`` (the game's design without its weight
  for predicates matching two or more rows);
* ``equal-size`` — the game's design (:class:`synthleak.metrics.risk.EqualSizeDesign`): the
  same comparison rescaled to the original's size.

For each design: mean estimate and, for the null scenario (an independent real sample as the
release: the truth is 0), the mean estimate in units of its spread (a bias that does not shrink
with more predicates shows as a large |z|). ``equal-size`` is also reported with the game's
interval (share of null runs whose interval excludes 0).

Usage: ``python benchmarks/calibration_designs.py --seeds 10 --out
benchmarks/calibration_designs.md`` (``--n-cols 2`` or ``--synthetic-share 0.5`` for the settings
where the NPMLE is biased)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import shared_datasets_dir  # noqa: E402
from tests.games.calibration import draw, load_population, release  # noqa: E402

from synthleak.attacks.singling_out import MultivariateSinglingOut, UnivariateSinglingOut  # noqa: E402
from synthleak.metrics.risk import EqualSizeDesign, hypergeom_one, singling_out_risk  # noqa: E402


def anonymeter_factor(
    ctl_rows: list[np.ndarray], n_c: int, n_o: int, rng: np.random.Generator
) -> float:
    """The former correction: Cohen-Nissim model fitted to subsample success counts."""
    if n_c == n_o:
        return 1.0
    sizes = np.repeat(np.linspace(min(1000, n_c), n_c, 10).astype(int), 5)
    succ = []
    for size in sizes:
        keep = np.zeros(n_c, dtype=bool)
        keep[rng.choice(n_c, size=size, replace=False)] = True
        succ.append(sum(int(keep[r].sum() == 1) for r in ctl_rows))
    y = np.asarray(succ, dtype=float)
    x = sizes.astype(float)

    def integral(n: np.ndarray | float, w: np.ndarray | float) -> np.ndarray:
        return (1.0 - (n * w + 1.0) * (1.0 - w) ** n) / (n + 1.0)

    grid = np.logspace(-9, 0, 1801)
    g = integral(x[None, :], grid[:, None])
    gg = (g * g).sum(axis=1)
    norm = np.where(gg > 0, (g * y[None, :]).sum(axis=1) / np.where(gg > 0, gg, 1.0), 0.0)
    best = int(np.argmin(((norm[:, None] * g - y[None, :]) ** 2).sum(axis=1)))
    w, c = float(grid[best]), float(norm[best])
    den = c * float(integral(float(n_c), w))
    return 1.0 if den <= 0 else c * float(integral(float(n_o), w)) / den


def npmle_rate(x: np.ndarray, n_c: int, n_o: int, iters: int = 2000) -> float:
    """Empirical-Bayes chance of singling out at ``n_o`` rows from counts at ``n_c`` rows."""
    vals, cnt = np.unique(x, return_counts=True)
    grid = np.concatenate([[0.0], np.logspace(-7, 0, 300)])
    lik = stats.binom.pmf(vals[:, None], n_c, grid[None, :])
    pi = np.full(grid.size, 1.0 / grid.size)
    for _ in range(iters):
        pi = pi * (lik.T @ (cnt / (lik @ pi))) / cnt.sum()
    return float((n_o * grid * (1 - grid) ** (n_o - 1)) @ pi)


def run(args: argparse.Namespace) -> pd.DataFrame:
    rows = []
    for name in args.datasets:
        pop = load_population(name, shared_datasets_dir())
        n_o = min(args.n_original, len(pop) // 4)
        for ratio in args.ratios:
            n_c = round(n_o / ratio)
            design = EqualSizeDesign(n_o, n_c)
            cap = design.list_cap()
            for scenario in args.scenarios:
                for seed in range(args.seeds):
                    rng = np.random.default_rng([seed, round(10 * ratio), len(scenario), 17])
                    d = draw(pop, n_o, n_c, rng)
                    syn = release(d, scenario, rng)
                    if args.synthetic_share < 1:  # a release smaller than the original
                        syn = syn.take(np.arange(round(args.synthetic_share * len(syn))))
                    for attack in args.attacks:
                        a = (
                            UnivariateSinglingOut()
                            if attack == "univariate"
                            else MultivariateSinglingOut(n_cols=args.n_cols)
                        )
                        preds = a.fit(syn, rng=rng).predicates(args.n_attacks, rng=rng)
                        if len(preds) < 20:
                            continue
                        mo = preds.matches(d.original, cap=cap)
                        mc = preds.matches(d.control, cap=max(cap, 50))
                        y = preds.count(d.oracle_control)
                        s = (mo.counts == 1).mean()
                        c_obs = (mc.counts == 1).mean()
                        ctl_rows = [mc.rows_of(i) for i in range(len(preds)) if mc.counts[i] <= 50]
                        est = singling_out_risk(mo, mc, design)
                        rows.append(
                            {
                                "dataset": name,
                                "ratio": ratio,
                                "scenario": scenario,
                                "attack": attack,
                                "seed": seed,
                                "oracle": s - (y == 1).mean(),
                                "none": s - c_obs,
                                "anonymeter": s
                                - min(c_obs * anonymeter_factor(ctl_rows, n_c, n_o, rng), 1.0),
                                "npmle": s - npmle_rate(mc.counts, n_c, n_o)
                                if n_c < n_o
                                else s - c_obs,
                                "subset": float(
                                    np.mean(hypergeom_one(mo.counts, n_o, min(n_o, n_c)))
                                    - np.mean(hypergeom_one(mc.counts, n_c, min(n_o, n_c)))
                                ),
                                "subset/scale": float(
                                    np.mean(hypergeom_one(mo.counts, n_o, min(n_o, n_c)))
                                    - np.mean(hypergeom_one(mc.counts, n_c, min(n_o, n_c)))
                                )
                                / design.scale,
                                "equal-size": est.excess,
                                "flagged": bool(est.risk.ci_low > 0),
                            }
                        )
                print(f"{name} {ratio}:1 done", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


DESIGNS = ["oracle", "none", "anonymeter", "npmle", "subset", "subset/scale", "equal-size"]


def summarise(df: pd.DataFrame) -> str:
    out = []
    for scenario, part in df.groupby("scenario", sort=False):
        g = part.groupby(["ratio"])
        mean = g[DESIGNS].mean()
        lines = [f"### {scenario}: mean excess at the original's size (truth: 'oracle')", ""]
        lines.append("| ratio | runs | " + " | ".join(DESIGNS) + " | equal-size flagged |")
        lines.append("|---|---|" + "---|" * (len(DESIGNS) + 1))
        for ratio, row in mean.iterrows():
            sub = part[part.ratio == ratio]
            cells = []
            for dsg in DESIGNS:
                v = sub[dsg]
                z = (
                    v.mean() / (v.std(ddof=1) / np.sqrt(len(v)))
                    if scenario == "null" and v.std() > 0
                    else None
                )
                cells.append(f"{row[dsg]:+.3f}" + (f" (z {z:+.1f})" if z is not None else ""))
            lines.append(
                f"| {ratio:g}:1 | {len(sub)} | "
                + " | ".join(cells)
                + f" | {sub.flagged.mean():.1%} |"
            )
        out += [*lines, ""]
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--datasets", type=lambda s: s.split(","), default=["adult", "acs", "census", "compas"]
    )
    p.add_argument("--ratios", type=lambda s: [float(x) for x in s.split(",")], default=[1, 2, 4])
    p.add_argument("--scenarios", type=lambda s: s.split(","), default=["null", "copy", "noisy0.1"])
    p.add_argument("--attacks", type=lambda s: s.split(","), default=["univariate", "multivariate"])
    p.add_argument("--n-original", type=int, default=2000)
    p.add_argument("--n-cols", type=int, default=3, help="columns per multivariate predicate")
    p.add_argument(
        "--synthetic-share", type=float, default=1.0, help="release size / original size (<= 1)"
    )
    p.add_argument("--n-attacks", type=int, default=300)
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--csv", type=Path, default=None)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    t0 = time.time()
    df = run(args)
    if args.csv:
        df.to_csv(args.csv, index=False)
    head = (
        f"Command: `python benchmarks/calibration_designs.py {' '.join(sys.argv[1:])}`; "
        f"{len(df)} attack runs in {time.time() - t0:.0f} s; datasets {', '.join(args.datasets)}; "
        f"{args.n_original} original records, {args.n_attacks} predicates per attack.\n\n"
    )
    text = head + summarise(df)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
