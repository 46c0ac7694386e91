"""Reproduce the attribute-inference experiments of Annamalai et al. (2024), Sec. 6, on real ACS
records.

Data: NIST Diverse Communities excerpt of ACS PUMS, Massachusetts 2019
(``/work/shared/datasets/nist_acs_ma2019.csv``, missing marker ``N``), secret ``SEX``, the 17
other discrete-ish columns as quasi-identifiers (AGEP binned in 10 uniform bins; the paper used
ACS California 2018 Employment, 16 discrete attributes, which is not available offline).

For each generator: the synthetic-size sweep (Fig. 3), the attack comparison (Fig. 2), utility
(Fig. 4) and the privacy-utility table (Fig. 5, Acc_max vs MRE_{>10} and 3-TVD).

Usage::

    python benchmarks/reproduce_aia.py [--quick] [--workers 2] [--out benchmarks/out/aia]

The full paper grid (500 games x 6 sizes up to 10^6 x 6 generators) takes days on 2 cores; the
default grid here (about 52 min on 2 idle cores) is the one in RESULTS_aia.md.
``--only SPEC[,SPEC]`` runs some of its rows.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.provenance import Provenance
from synthleak.data.io import load_data
from synthleak.games.attribute import AttributeGame
from synthleak.runtime import Runtime

DATA = "/work/shared/datasets/nist_acs_ma2019.csv"
QUASI_IDS = [
    "PUMA",
    "AGEP",
    "MSP",
    "HISP",
    "RAC1P",
    "NOC",
    "NPF",
    "HOUSING_TYPE",
    "OWN_RENT",
    "INDP_CAT",
    "EDU",
    "PINCP_DECILE",
    "DVET",
    "DREM",
    "DPHY",
    "DEYE",
    "DEAR",
]

# (generator, sizes, games, targets per game, attacks): the grid behind RESULTS_aia.md. indhist
# plays the paper's one-target game 500 times; rap attacks 5 unique targets per game (our
# amortisation) over 60 games up to m = 10^6, and so do nonprivate and baynet.
SIZES = [100, 1000, 10_000, 100_000, 1_000_000]
GRID = [
    ("indhist", [100_000], 500, 1, ("recon", "dcr")),
    ("rap:marginals=40", SIZES, 60, 5, ("recon", "dcr", "infer")),
    ("nonprivate", SIZES, 60, 5, ("recon", "dcr", "infer")),
    ("baynet:k=3", SIZES, 60, 5, ("recon", "dcr", "infer")),
]
QUICK = [
    ("nonprivate", [1000, 100_000], 4, 2, ("recon", "dcr", "infer")),
    ("indhist", [1000], 4, 2, ("recon", "dcr", "infer")),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="benchmarks/out/aia")
    ap.add_argument("--only", default=None, help="comma-separated generator specs to run")
    args = ap.parse_args()
    prov = Provenance.start()
    table = load_data(DATA, na_values=["N"]).table
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    grid = QUICK if args.quick else GRID
    if args.only:
        grid = [g for g in grid if g[0] in args.only.split(",")]
    rows = []
    for spec, ms, games, tpg, attacks in grid:
        t0 = time.perf_counter()
        name = spec.replace(":", "_").replace("=", "")
        game = AttributeGame(
            spec,
            "SEX",
            QUASI_IDS,
            train_size=1000,
            synthetic_size=ms,
            n_games=games,
            targets_per_game=tpg,
            attacks=attacks,
        )
        res = game.run(table, seed=0, runtime=Runtime(workers=args.workers, run_dir=out / name))
        secs = time.perf_counter() - t0
        res.to_json(out / f"{name}.json")
        (out / f"{name}.provenance.json").write_text(json.dumps(prov.to_dict(), indent=1) + "\n")
        print(
            f"## {spec}: {games} games x {tpg} targets, {secs:.0f} s, {len(res.failures)} failures",
            flush=True,
        )
        for size in res.sizes:
            m = size.synthetic_size
            cells = []
            for k in ("recon", "dcr", "infer"):
                if k not in attacks or res.accuracy(k, m).accuracy.n_trials == 0:
                    cells.append("-")
                    continue
                e = res.accuracy(k, m).accuracy
                cells.append(f"{e.value:.3f} [{e.ci_low:.2f}, {e.ci_high:.2f}]")
            line = (
                f"| {spec} | {m} | "
                + " | ".join(cells)
                + f" | {res.accuracy('recon', m).auc:.3f} | {size.acc_max:.3f} | "
                f"{size.mre_gt10:.3f} | {size.tvd3:.3f} |"
            )
            rows.append(line)
            print(line, flush=True)
    print(
        "\n| generator | m | recon acc [95% CI] | dcr acc | infer acc | recon AUC | Acc_max "
        "| MRE>10 | 3-TVD |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
