"""Time of the audit's randomised-secret attribute game, and where it goes.

Plays the game exactly as the ``attribute_game`` stage of ``synthleak audit --generator SPEC
--secret COL`` does at the ``standard`` budget (training and synthetic size
``min(1000, records // 2)``, attacks recon with the budget's 60,000 queries per linear
program and a 120 s limit, dcr and infer; one worker), on a sample of Adult:

1. ``--pilot`` games with no time limit under cProfile: seconds per game and the share of the
   reconstruction's linear programs, the generator fits and the other attacks; the projected
   time of the budget's 200 games;
2. the stage as it now runs: the budget's allowance (``BudgetPlan.aia_seconds``) with its floor
   of games (``stages.attribute_game.AIA_MIN_GAMES``): wall time, games played and interval widths.

Both parts run in one process, so they see the same machine state.

Usage::

    python benchmarks/bench_aia_stage.py [--records 2447] [--secret marital-status]
        [--generator baynet:k=2] [--pilot 40] [--seed 0]

Results: ``benchmarks/RESULTS_aia.md``. The data folder is ``$SYNTHLEAK_SHARED_DATASETS``
(default ``../shared/datasets`` beside the repository).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from pathlib import Path

import pandas as pd

from synthleak.games.attribute import AttributeGame
from synthleak.pipeline import BUDGETS, Budget
from synthleak.stages.attribute_game import AIA_MIN_GAMES

DATA = Path(
    os.environ.get(
        "SYNTHLEAK_SHARED_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets"
    )
)

#: Functions whose cumulative time the profile reports (file suffix, function name).
PARTS = {
    "linear programs (HiGHS)": ("aia_reconstruction.py", "solve_l1"),
    "recon query answers": ("aia_reconstruction.py", "count_answers"),
    "recon query building (fit)": ("aia_reconstruction.py", "fit"),
    "generator fits": ("baynet.py", "fit"),
    "infer (random forest)": ("aia_inference.py", "score"),
    "dcr": ("aia_dcr.py", "score"),
}


def _game(args: argparse.Namespace, n_games: int, **kw: object) -> AttributeGame:
    plan = BUDGETS[Budget.STANDARD]
    n = min(plan.n, args.records // 2)
    return AttributeGame(
        args.generator,
        args.secret,
        train_size=n,
        synthetic_size=(n,),
        n_games=n_games,
        attacks=("recon", "dcr", "infer"),
        attack_params={"recon": {"time_limit": 120.0, "n_queries": plan.aia_queries}},
        **kw,  # type: ignore[arg-type]
    )


def _widths(res: object) -> str:
    return ", ".join(
        f"{a.attack} {a.accuracy.value:.3f} [{a.accuracy.ci_low:.3f}, {a.accuracy.ci_high:.3f}]"
        f" (width {a.ci_width:.3f})"
        for a in res.accuracies  # type: ignore[attr-defined]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=2447)
    ap.add_argument("--secret", default="marital-status")
    ap.add_argument("--generator", default="baynet:k=2")
    ap.add_argument("--pilot", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    df = pd.read_csv(DATA / "adult.csv.gz").sample(args.records, random_state=args.seed)
    df = df.reset_index(drop=True)
    plan = BUDGETS[Budget.STANDARD]

    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    pilot = _game(args, args.pilot).run(df, seed=args.seed)
    prof.disable()
    wall = time.perf_counter() - t0
    per_game = wall / args.pilot
    print(f"pilot: {args.pilot} games in {wall:.1f} s ({per_game:.2f} s per game)")
    print(f"  projected for the budget's {plan.aia_games} games: {per_game * plan.aia_games:.0f} s")
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    for label, (suffix, name) in PARTS.items():
        cum = sum(
            v[3] for (file, _, func), v in stats.items() if file.endswith(suffix) and func == name
        )
        print(f"  {label}: {cum:.1f} s ({cum / wall:.0%})")
    print(f"  pilot accuracies: {_widths(pilot)}")

    lines: list[str] = []
    t0 = time.perf_counter()
    stage = _game(
        args,
        plan.aia_games,
        max_seconds=plan.aia_seconds,
        min_games=min(AIA_MIN_GAMES, plan.aia_games),
        log=lines.append,
    ).run(df, seed=args.seed)
    wall = time.perf_counter() - t0
    print(
        f"stage (allowance {plan.aia_seconds} s, floor {AIA_MIN_GAMES} games): "
        f"{stage.config['n_games']} games in {wall:.1f} s"
    )
    print(f"  accuracies: {_widths(stage)}")
    for line in lines:
        print(f"  log: {line}")


if __name__ == "__main__":
    main()
