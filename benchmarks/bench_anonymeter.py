"""Cross-check and speed of synthleak's singling-out and linkability games against Anonymeter.

Peer: the PyPI ``anonymeter`` package (``SinglingOutEvaluator``, ``LinkabilityEvaluator``), run on
the same inputs with the same number of attacks, in the same process and run.

Data: Anonymeter's Adult example (``../shared/datasets/anonymeter_adults_*.csv``, missing marker
``?``): the reconstructed training split as the original, its CTGAN synthetic data, the control
split. For each of univariate singling out, multivariate singling out (3 columns) and linkability
(Anonymeter's notebook auxiliary columns, 10 neighbours) it prints both risks with their
confidence intervals, whether the intervals overlap, and the wall-clock ratio
anonymeter / synthleak. synthleak's time includes encoding the DataFrames into Tables.

Run:  python benchmarks/bench_anonymeter.py [--attacks 500] [--link-attacks 2000] [--seeds 3]
"""

from __future__ import annotations

import argparse
import datetime
import logging
import os
import platform
import time
import warnings
from pathlib import Path

import pandas as pd

from synthleak.data.io import encode_frames
from synthleak.data.release import Release
from synthleak.games.linkability import LinkabilityGame
from synthleak.games.singling_out import SinglingOutGame

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets"
AUX = (
    ["type_employer", "education", "hr_per_week", "capital_loss", "capital_gain"],
    ["race", "sex", "fnlwgt", "age", "country"],
)


def _frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    read = lambda name: pd.read_csv(DATA / f"anonymeter_adults_{name}.csv", na_values=["?"])  # noqa: E731
    return read("train_reconstructed"), read("syn_ctgan"), read("control")


def _anonymeter(kind: str, ori, syn, ctl, n_attacks: int, seed: int):
    from anonymeter.evaluators import LinkabilityEvaluator, SinglingOutEvaluator

    t = time.perf_counter()
    if kind == "linkability":
        ev = LinkabilityEvaluator(
            ori=ori, syn=syn, control=ctl, n_attacks=n_attacks, aux_cols=AUX, n_neighbors=10
        )
        ev.evaluate(n_jobs=-1)
    else:
        ev = SinglingOutEvaluator(
            ori=ori, syn=syn, control=ctl, n_attacks=n_attacks, n_cols=3, seed=seed
        )
        ev.evaluate(mode=kind)
    risk = ev.risk()
    res = ev.results()
    return time.perf_counter() - t, risk.value, tuple(risk.ci), res


def _ours(kind: str, ori, syn, ctl, n_attacks: int, seed: int):
    t = time.perf_counter()
    _, enc = encode_frames({"original": ori, "synthetic": syn, "control": ctl})
    o, s, c = enc["original"], enc["synthetic"], enc["control"]
    if kind == "linkability":
        game = LinkabilityGame(*AUX, n_attacks=n_attacks, n_neighbors=10)
        r = game.run(Release(o, s, c), seed=seed).attacks[0]
    else:
        game = SinglingOutGame([kind], n_attacks=n_attacks)
        r = game.run(Release(o, s, c), seed=seed).attacks[0]
    return time.perf_counter() - t, r.risk.value, (r.risk.ci_low, r.risk.ci_high), r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--attacks", type=int, default=500)
    ap.add_argument("--link-attacks", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--kinds", default="univariate,multivariate,linkability")
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    print(
        f"# bench_anonymeter  {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC  "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    )
    ori, syn, ctl = _frames()
    print(f"original {ori.shape}, synthetic {syn.shape}, control {ctl.shape}")
    # warm-up: numba compilation and imports are not counted for either side
    small = [f.head(3000) for f in (ori, syn, ctl)]
    for kind in ("univariate", "multivariate", "linkability"):
        _ours(kind, small[0], small[1], small[2], 20, 0)
        _anonymeter(kind, small[0], small[1], small[2], 20, 0)
    print(
        "| kind | seed | n | anonymeter risk [CI] | synthleak risk [CI] | overlap "
        "| anonymeter s | synthleak s | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    totals: dict[str, list[float]] = {}
    for kind in args.kinds.split(","):
        n = args.link_attacks if kind == "linkability" else args.attacks
        for seed in range(args.seeds):
            ta, ra, cia, _ = _anonymeter(kind, ori, syn, ctl, n, seed)
            to, ro, cio, _ = _ours(kind, ori, syn, ctl, n, seed)
            overlap = cia[0] <= cio[1] and cio[0] <= cia[1]
            totals.setdefault(kind, [0.0, 0.0])
            totals[kind][0] += ta
            totals[kind][1] += to
            print(
                f"| {kind} | {seed} | {n} | {ra:.4f} [{cia[0]:.4f}, {cia[1]:.4f}] | "
                f"{ro:.4f} [{cio[0]:.4f}, {cio[1]:.4f}] | {'yes' if overlap else 'NO'} | "
                f"{ta:.2f} | {to:.2f} | {ta / to:.1f}x |",
                flush=True,
            )
    for kind, (ta, to) in totals.items():
        print(f"total {kind}: anonymeter {ta:.1f} s, synthleak {to:.1f} s, ratio {ta / to:.1f}x")


if __name__ == "__main__":
    main()
