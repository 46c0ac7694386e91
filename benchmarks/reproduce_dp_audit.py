"""Empirical epsilon of PrivBayes: mechanism oracles and the black-box audit of Annamalai et al.

Three parts (``--part``), each written to ``benchmarks/results/dp_audit/<part>.json`` with a
provenance block (synthleak version, git commit, command line, machine, library versions, dates):

``oracles``
    The full-size version of ``tests/games/test_membership_dp.py``: exact knowledge, the most
    vulnerable record (``Targets.top(1)``) of a 2,000-record sample of the categorical Adult,
    ``train_size`` 100, ``synthetic_size`` 200, distance and query attacks (all 2,047 non-empty
    attribute subsets), 1,000 shadow and 2,000 test datasets (1,000 per class; 500 per class
    evaluated). ``privbayes:epsilon=1`` with 20 seeds (20 known datasets D), the two broken
    generators (``mutant-privbayes:epsilon=1``, ``leaky:fraction=0.5,base=privbayes:epsilon=1``)
    with 3. Every generator's own claim (epsilon = 1, pure DP) is audited for add/remove
    neighbours, the relation of the exact-knowledge game.
``power``
    The same setting with ``privbayes:epsilon=E`` for E in 4, 10, 100, 1000 (3 seeds each), each
    audited against its own claim E and against a claim of 1: a PrivBayes that runs at E while
    claiming 1 stands for a calibration bug (noise for probabilities added to counts is n = 100
    times too small: E = 100). How far below the truth a black-box bound stays.
``annamalai``
    The black-box setting of Annamalai et al. (2024b) as far as this game can play it: the whole
    categorical Adult (45,222 records, their preprocessing), D of 1,000 records, 1,000 synthetic
    records, the most vulnerable record as target, the query attack over every attribute subset
    (their Querybased) and the distance attack (their DCR's family), ``privbayes:epsilon=E`` for E
    in 1 and 4 (5 seeds each: 5 known datasets D, as their 5 folds give a mean and s.d.) and the
    mutant at 1 (2 seeds); 2,000 shadow and 4,000 test datasets (their 1,000 threshold and 1,000
    evaluation datasets per class). Deviations: REPRODUCTION.md.

Usage::

    nice -n 10 python -m benchmarks.reproduce_dp_audit --part oracles
    nice -n 10 python -m benchmarks.reproduce_dp_audit --part all
    python -m benchmarks.reproduce_dp_audit --part oracles --quick     # smoke test, seconds

References
----------
Annamalai et al. (2024b) (audits of DP synthetic-data generators, black-box setting).
Jagielski et al. (2020) (Clopper-Pearson bounds). Houssiau et al. (2022) (exact knowledge,
query attack). Meeus et al. (2023) (``V_k`` targets).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shlex
import subprocess
import sys
import time
import warnings
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

import synthleak as sl
from synthleak.errors import BaselineWarning
from synthleak.findings import membership_epsilon
from synthleak.games.membership import MembershipGame, MembershipResult
from synthleak.games.targets import Targets
from synthleak.generators import claimed_delta, claimed_epsilon, make_generator
from synthleak.runtime import Runtime, stream_rng

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "dp_audit"

ATTACKS = ("distance", "query")
ATTACK_PARAMS = {"query": {"n_queries": 2048}}  # all 2^11 - 1 subsets of the 11 attributes

PRIVBAYES = "privbayes:epsilon=1"
MUTANT = "mutant-privbayes:epsilon=1"
LEAKY = "leaky:fraction=0.5,base=privbayes:epsilon=1"

#: part -> (data records, game sizes, [(generator, seeds, claims)]); claims None = the generator's
PARTS: dict[str, dict[str, Any]] = {
    "oracles": {
        "records": 2000,
        "sizes": {"train_size": 100, "synthetic_size": 200, "n_shadows": 1000, "n_tests": 2000},
        "runs": [(PRIVBAYES, 20, None), (MUTANT, 3, None), (LEAKY, 3, None)],
    },
    "power": {
        "records": 2000,
        "sizes": {"train_size": 100, "synthetic_size": 200, "n_shadows": 1000, "n_tests": 2000},
        "runs": [(f"privbayes:epsilon={e:g}", 3, (e, 1.0)) for e in (4.0, 10.0, 100.0, 1000.0)],
    },
    "annamalai": {
        "records": None,
        "sizes": {"train_size": 1000, "synthetic_size": 1000, "n_shadows": 2000, "n_tests": 4000},
        "runs": [
            ("privbayes:epsilon=1", 5, None),
            ("privbayes:epsilon=4", 5, None),
            (MUTANT, 2, None),
        ],
    },
}
QUICK_SIZES = {"n_shadows": 40, "n_tests": 80}


def adult_categorical(n_records: int | None) -> sl.Table:
    """The complete-case Adult with the preprocessing of Annamalai et al. (2024b).

    Age and hours per week rounded to tens; fnlwgt, education-num, capital gain and capital loss
    dropped; the 11 remaining columns categorical. ``n_records``: a fixed random sample of that
    size (the one of ``tests/games/test_membership_dp.py``), or all 45,222 rows.
    """
    df = sl.datasets.load_adult(complete_cases=True)
    df = df.drop(columns=["fnlwgt", "education-num", "capital-gain", "capital-loss"])
    for col in ("age", "hours-per-week"):
        df[col] = (df[col] / 10).round().astype(int) * 10
    if n_records is not None:
        rows = np.sort(np.random.default_rng(0).choice(len(df), n_records, replace=False))
        df = df.iloc[rows].reset_index(drop=True)
    return sl.Table.from_frame(df, sl.infer_schema(df, categorical=list(df.columns)))


# --- provenance (the fields of benchmarks/provenance.py on the census branch) ------------------


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=20, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def code_state() -> dict[str, Any]:
    """The git commit of the code about to run, and whether tracked files had uncommitted edits
    (taken when a part starts: later commits do not change what ran)."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
    }


def provenance(started: str, code: dict[str, Any]) -> dict[str, Any]:
    """synthleak version, git commit (and uncommitted changes), command, machine, versions."""
    vers = {}
    for pkg in ("synthleak", "numpy", "pandas", "scipy", "scikit-learn", "numba"):
        try:
            vers[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        mem = None
    return {
        "synthleak_version": vers.get("synthleak"),
        **code,
        "command": "python -m benchmarks.reproduce_dp_audit "
        + " ".join(shlex.quote(a) for a in sys.argv[1:]),
        "started": started,
        "finished": _now(),
        "machine": {
            "cores": os.cpu_count(),
            "memory_gib": mem,
            "cpu": cpu,
            "os": platform.platform(),
            "python": platform.python_version(),
            "load_average_at_end": list(os.getloadavg()),
        },
        "versions": vers,
    }


# --- one audit ----------------------------------------------------------------------------------


def play(
    table: sl.Table, generator: str, sizes: dict[str, int], seed: int, runtime: Runtime
) -> MembershipResult:
    if runtime.run_dir is not None:  # one resumable run directory per game
        safe = "".join(c if c.isalnum() or c in "=.-" else "_" for c in generator)
        runtime = runtime.sub(f"{safe}-seed{seed}")
    game = MembershipGame(
        generator,
        targets=Targets.top(1),
        knowledge="exact",
        attacks=ATTACKS,
        attack_params=ATTACK_PARAMS,
        **sizes,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        return game.run(table, seed=seed, runtime=runtime)


def audit_record(result: MembershipResult, claim: float, delta: float, seed: int) -> dict[str, Any]:
    est = membership_epsilon(
        result,
        rng=stream_rng(seed, "benchmark.epsilon"),
        claimed=claim,
        delta=delta,
        neighbouring="add_remove",
    )
    return {
        "claimed": claim,
        "delta": delta,
        "verdict": est.verdict.value,
        "lower_bound_95": est.lower_bound,
        "bounds": est.bounds,
        "ceilings": est.ceilings,
        "attack": est.attack,
        "tp": est.tp,
        "fp": est.fp,
        "n_evaluation_per_class": [est.n_evaluation_in, est.n_evaluation_out],
        "selection_lower_bound": est.selection_lower_bound,
        "mu": est.mu,
        "mu_ci": list(est.mu_ci),
        "auc_most_exposed": est.auc,
        "message": est.message,
    }


def run_part(name: str, *, quick: bool, runtime: Runtime) -> dict[str, Any]:
    spec = PARTS[name]
    sizes = dict(spec["sizes"], **(QUICK_SIZES if quick else {}))
    table = adult_categorical(spec["records"])
    rows = []
    for generator, n_seeds, claims in spec["runs"]:
        gen = make_generator(generator)
        own, delta = claimed_epsilon(gen), claimed_delta(gen)
        assert own is not None and delta is not None
        for seed in range(2 if quick else n_seeds):
            t0 = time.perf_counter()
            result = play(table, generator, sizes, seed, runtime)
            seconds = time.perf_counter() - t0
            target = result.targets[0]
            base = {
                "generator": generator,
                "seed": seed,
                "target_row": target.row,
                "auc": {k: o.auc.value for k, o in target.attacks.items()},
                "auc_ci": {k: [o.auc.ci_low, o.auc.ci_high] for k, o in target.attacks.items()},
                "failed_datasets": result.failures.failed_datasets,
                "seconds": round(seconds, 1),
            }
            for claim in claims or (own,):
                rec = {**base, **audit_record(result, float(claim), float(delta), seed)}
                rows.append(rec)
                print(
                    f"[{name}] {generator:<46} seed {seed:>2} claim {claim:>6g}: "
                    f"eps_lb95 {rec['lower_bound_95']:.3f} (90%: {rec['bounds']['0.9']:.3f}) "
                    f"ceiling {rec['ceilings']['0.95']:.2f} {rec['verdict']:<12} "
                    f"tp {rec['tp']}/{rec['n_evaluation_per_class'][0]} "
                    f"fp {rec['fp']}/{rec['n_evaluation_per_class'][1]} "
                    f"auc {json.dumps({k: round(v, 3) for k, v in base['auc'].items()})} "
                    f"({seconds:.0f} s)",
                    flush=True,
                )
    setting = {
        "data": "complete-case Adult, categorical preprocessing of Annamalai et al. (2024b)"
        + (f", fixed sample of {spec['records']} records" if spec["records"] else ""),
        "n_records": len(table),
        "targets": "top:1 (V_5)",
        "knowledge": "exact (add/remove neighbours)",
        "attacks": list(ATTACKS),
        "attack_params": ATTACK_PARAMS,
        "neighbouring_of_the_claim": "add_remove",
        "confidence": 0.95,
        **sizes,
    }
    return {"part": name, "quick": quick, "setting": setting, "runs": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=[*PARTS, "all"], default="oracles")
    parser.add_argument("--quick", action="store_true", help="smoke test: tiny budgets, 2 seeds")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--run-dir", type=Path, default=None, help="resumable run directory")
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    parts = list(PARTS) if args.part == "all" else [args.part]
    for name in parts:
        started, code = _now(), code_state()
        runtime = Runtime(
            workers=args.workers,
            run_dir=None if args.run_dir is None else args.run_dir / name,
        )
        doc = run_part(name, quick=args.quick, runtime=runtime)
        out = {"provenance": provenance(started, code), **doc}
        args.out_dir.mkdir(parents=True, exist_ok=True)
        path = args.out_dir / f"{name}{'_quick' if args.quick else ''}.json"
        path.write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {path}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
