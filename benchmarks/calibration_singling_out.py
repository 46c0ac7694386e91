"""Calibration of the singling-out and linkability games: null and leak oracles on real data.

For every dataset, original:control ratio, scenario and seed, one random draw of disjoint real
samples (``tests/games/calibration.py``): the original (``--n-original`` rows), the control
(``n_original / ratio`` rows), an oracle control as large as the original, and for the null
scenario an independent real sample as the "synthetic" data. Scenarios: ``null`` (nothing can
leak: a calibrated game flags a leak, i.e. its interval excludes 0, in at most 2.5 % of runs),
``copy`` (the release is the original) and ``noisy<p>`` (each cell resampled with probability
``p``). For the leak scenarios the same game is also played with the oracle control: its risk is
the equal-size truth the estimate is compared with.

Usage::

    python benchmarks/calibration_singling_out.py --seeds 20 --out benchmarks/RESULTS_calibration.md
    python benchmarks/calibration_singling_out.py --datasets adult --ratios 1,4 --seeds 5

The shared datasets are read from ``../shared/datasets`` (or ``$SYNTHLEAK_SHARED_DATASETS``).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import shared_datasets_dir  # noqa: E402
from tests.games.calibration import draw, load_population, release  # noqa: E402

from synthleak.data.release import Release  # noqa: E402
from synthleak.errors import BaselineWarning  # noqa: E402
from synthleak.games.linkability import LinkabilityGame  # noqa: E402
from synthleak.games.singling_out import SinglingOutGame  # noqa: E402


def link_columns(names: list[str]) -> tuple[list[str], list[str]]:
    """Two overlapping halves of the columns (the first column in both)."""
    half = max(2, len(names) // 2)
    return names[:half], [names[0], *names[half:]]


def run(args: argparse.Namespace) -> pd.DataFrame:
    rows = []
    directory = shared_datasets_dir()
    for name in args.datasets:
        pop = load_population(name, directory)
        for ratio in args.ratios:
            # original, oracle control and independent release (n_o each) and the control
            n_o = min(args.n_original, int(len(pop) / (3 + 1 / ratio)))
            n_c = max(1, round(n_o / ratio))
            for scenario in args.scenarios:
                for seed in range(args.seeds):
                    rng = np.random.default_rng([seed, round(100 * ratio), len(scenario)])
                    d = draw(pop, n_o, n_c, rng)
                    syn = release(d, scenario, rng)
                    t0 = time.perf_counter()
                    games: list[tuple[str, object]] = []
                    if "singling-out" in args.games:
                        games.append(
                            ("so", SinglingOutGame(args.attacks, n_attacks=args.n_attacks))
                        )
                    if "linkability" in args.games:
                        a, b = link_columns(list(pop.schema.names))
                        games.append(("link", LinkabilityGame(a, b, n_attacks=args.n_attacks)))
                    for kind, game in games:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", BaselineWarning)
                            res = game.run(Release(d.original, syn, d.control), seed=seed)  # type: ignore[attr-defined]
                            truth = (
                                game.run(Release(d.original, syn, d.oracle_control), seed=seed)  # type: ignore[attr-defined]
                                if scenario != "null"
                                else None
                            )
                        for i, att in enumerate(res.attacks):
                            measured = getattr(att, "measured", True)
                            rows.append(
                                {
                                    "dataset": name,
                                    "n_original": n_o,
                                    "n_control": n_c,
                                    "ratio": ratio,
                                    "scenario": scenario,
                                    "seed": seed,
                                    "game": kind,
                                    "attack": att.attack,
                                    "measured": measured,
                                    "risk": att.risk.value,
                                    "ci_low": att.risk.ci_low,
                                    "ci_high": att.risk.ci_high,
                                    "flagged": bool(att.risk.ci_low > 0),
                                    "truth": truth.attacks[i].risk.value if truth else 0.0,
                                    "seconds": time.perf_counter() - t0,
                                }
                            )
                    done = [
                        r
                        for r in rows
                        if (r["dataset"], r["ratio"], r["scenario"], r["seed"])
                        == (name, ratio, scenario, seed)
                    ]
                    print(
                        f"{name} {ratio:g}:1 {scenario} seed {seed}: "
                        + ", ".join(f"{r['attack']} {r['risk']:.3f}" for r in done),
                        file=sys.stderr,
                        flush=True,
                    )
                if args.csv:  # keep what is done if a later setting fails
                    pd.DataFrame(rows).to_csv(args.csv, index=False)
    return pd.DataFrame(rows)


def md_table(df: pd.DataFrame) -> str:
    """A Markdown table (no optional dependency)."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


def summarise(df: pd.DataFrame) -> str:
    m = df[df.measured]
    out = []
    null = m[m.scenario == "null"]
    if len(null):
        g = null.groupby(["game", "attack", "dataset", "ratio"])
        t = pd.DataFrame(
            {
                "runs": g.size(),
                "flagged (ci_low > 0)": g.flagged.mean().map("{:.1%}".format),
                "mean risk": g.risk.mean().map("{:.3f}".format),
                "mean CI width": (g.ci_high.mean() - g.ci_low.mean()).map("{:.3f}".format),
            }
        ).reset_index()
        out += [
            "### Null oracle (independent real data as the release)",
            "",
            md_table(t),
            "",
        ]
        pooled = null.groupby(["game", "ratio"]).flagged.agg(["size", "mean"]).reset_index()
        pooled["mean"] = pooled["mean"].map("{:.1%}".format)
        out += ["Pooled over datasets and attacks:", "", md_table(pooled), ""]
    leak = m[m.scenario != "null"]
    if len(leak):
        g = leak.groupby(["game", "attack", "scenario", "dataset", "ratio"])
        t = pd.DataFrame(
            {
                "runs": g.size(),
                "flagged": g.flagged.mean().map("{:.0%}".format),
                "risk (mean)": g.risk.mean().map("{:.3f}".format),
                "equal-size truth (mean)": g.truth.mean().map("{:.3f}".format),
                "risk - truth": (g.risk.mean() - g.truth.mean()).map("{:+.3f}".format),
                "mean CI width": (g.ci_high.mean() - g.ci_low.mean()).map("{:.3f}".format),
            }
        ).reset_index()
        out += [
            "### Leak oracles (copy / noisy copy of the original as the release)",
            "",
            md_table(t),
            "",
        ]
    not_measured = df[~df.measured].groupby(["attack", "dataset"]).size()
    if len(not_measured):
        out += ["Not measured (no predicate singles out a synthetic record):", ""]
        out += [f"- {a} on {d}: {n} runs" for (a, d), n in not_measured.items()]
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--datasets", type=lambda s: s.split(","), default=["adult", "acs", "census", "compas"]
    )
    p.add_argument(
        "--ratios", type=lambda s: [float(x) for x in s.split(",")], default=[1, 2, 3, 4, 0.5]
    )
    p.add_argument(
        "--scenarios",
        type=lambda s: s.split(","),
        default=["null", "copy", "noisy0.1", "noisy0.25"],
    )
    p.add_argument("--games", type=lambda s: s.split(","), default=["singling-out", "linkability"])
    p.add_argument("--attacks", type=lambda s: s.split(","), default=["univariate", "multivariate"])
    p.add_argument("--n-original", type=int, default=2000)
    p.add_argument("--n-attacks", type=int, default=500)
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--csv", type=Path, default=None, help="also write the per-run rows here")
    p.add_argument("--out", type=Path, default=None, help="Markdown summary file")
    args = p.parse_args()
    t0 = time.time()
    df = run(args)
    if args.csv:
        df.to_csv(args.csv, index=False)
    text = summarise(df)
    head = (
        f"Command: `python benchmarks/calibration_singling_out.py {' '.join(sys.argv[1:])}`; "
        f"{len(df)} attack results in {time.time() - t0:.0f} s.\n\n"
    )
    print(head + text)
    if args.out:
        args.out.write_text(head + text + "\n")


if __name__ == "__main__":
    main()
