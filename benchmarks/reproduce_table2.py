"""Reproduce Table 2 of Meeus et al. (2023): query-based MIA AUC per target selector.

For each generator (synthpop, baynet) and each target selector (random, rare, loglik, distance;
10 targets each, selected on the full dataset Omega with k = 5), play the membership game with
|D| = |D^s| = 1000, n_shadow shadow and n_test test datasets, N = 100,000 counting queries (on
Adult all 2^15 - 1 subsets of its 15 attributes; on the census 100,000 of the 2^17 - 1) and a
random forest of 100 trees of depth 10; |D_aux| and |D_test| as Table 1 (Adult 10,000 and
5,000; census scaled to our 50,000 records, see ``benchmarks/meeus2023.py``). One shared pool of
shadow/test datasets serves all 40 targets of a generator (``--pool single`` = the paper's one
pool per target, 40x the cost).

Prints mean ± s.d. of the AUC per selector beside the paper's values, wall time and peak RSS, and
writes the full result per generator to ``benchmarks/results/table2/<label>_<shadows>.json``
(with provenance: version, commit, command, machine, date).

``--data complete`` (default) is the paper's Adult (45,222 rows without a missing value);
``--data full`` all 48,842 rows; ``--data census`` the UK Census 50k teaching-file subset.

Usage::

    python -m benchmarks.reproduce_table2 --quick          # minutes: 200 shadows, \
3 targets/selector
    python -m benchmarks.reproduce_table2                  # the paper's configuration (Adult)
    python -m benchmarks.reproduce_table2 --data census --run-dir DIR   # UK Census columns
    python -m benchmarks.reproduce_table2 --summarise benchmarks/results/table2/census_*.json
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks.meeus2023 import (
    DATA,
    GENERATORS,
    SELECTORS,
    add_data_argument,
    load_omega,
    paper_value,
    run_dir_name,
    selector_targets,
    spec_label,
    split_generators,
)
from benchmarks.provenance import RESULTS, Provenance
from synthleak.cli.common import to_json
from synthleak.errors import BaselineWarning
from synthleak.games.membership import MembershipGame
from synthleak.runtime import Runtime

STUDY = "table2"


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0


def print_table(summary: dict[str, dict[str, dict[str, dict[str, float]]]], data: str) -> None:
    """Our mean ± s.d. of the query attack's AUC per selector beside the paper's."""
    print()
    print(
        f"Table 2 ({DATA[data].family}), query-based attack: mean ± s.d. of AUC over the targets "
        "of each selector"
    )
    print(
        f"{'selector':<10}"
        + "".join(f"  {g + ' (ours)':>18}  {g + ' (paper)':>18}" for g in summary)
    )
    for sel in SELECTORS:
        line = f"{sel:<10}"
        for gen, by in summary.items():
            s = by.get(sel, {}).get("query")
            ours = f"{s['auc_mean']:.3f} ± {s['auc_sd']:.3f}" if s else "n/a"
            p = paper_value("query", data, gen, sel)
            paper = f"{p[0]:.3f} ± {p[1]:.3f}" if p else "n/a"
            line += f"  {ours:>18}  {paper:>18}"
        print(line)


def per_target_aucs(docs: list[dict]) -> dict[str, list[float]]:
    """Query-attack AUC of every target of each selector, averaged over the runs (seeds) given.

    Runs of one generator and data share their distance, rare and loglik targets (those selectors
    are deterministic), so those targets' AUCs are averaged over the seeds; random targets differ
    per seed and each counts as a target of its own.
    """
    aucs: dict[str, dict[tuple[int, int], list[float]]] = {}
    for doc in docs:
        seed = int(doc["config"]["seed"])
        for t in doc["targets"]:
            for sel in t["selected_by"].split("+"):
                key = (seed if sel == "random" else -1, int(t["row"]))
                aucs.setdefault(sel, {}).setdefault(key, []).append(
                    auc_value(t["attacks"]["query"]["auc"])
                )
    return {sel: [float(np.mean(v)) for v in by.values()] for sel, by in aucs.items()}


def auc_value(auc: float | dict) -> float:
    """An AUC of a results file: a number (first files) or a RiskEstimate dict (``value``)."""
    return float(auc["value"] if isinstance(auc, dict) else auc)


def n_shadows(doc: dict) -> int:
    cfg = doc["config"]
    return int(cfg["n_shadows"] if "n_shadows" in cfg else cfg["n_shadow"])


def n_tests(doc: dict) -> int:
    cfg = doc["config"]
    return int(cfg["n_tests"] if "n_tests" in cfg else cfg["n_test"])


def data_of(doc: dict) -> str:
    """The ``--data`` option a result was run with (older files name it ``adult``)."""
    return str(doc["config"].get("data", doc["config"].get("adult", "full")))


def summarise(docs: list[dict]) -> None:
    """Print Table 2 from result files; runs of the same generator and data are combined over
    their seeds, and distance is compared with each other selector (Welch t on per-target AUCs)."""
    from scipy.stats import ttest_ind

    groups: dict[str, list[dict]] = {}
    for d in docs:
        groups.setdefault(f"{d['config']['generator']} [{data_of(d)}]", []).append(d)
    summary: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for g, runs in groups.items():
        per = per_target_aucs(runs)
        summary[g] = {
            sel: {"query": {"auc_mean": float(np.mean(v)), "auc_sd": float(np.std(v))}}
            for sel, v in per.items()
        }
        seeds = sorted(int(d["config"]["seed"]) for d in runs)
        failed = sum(d["failures"]["failed_datasets"] for d in runs)
        total = sum(d["failures"]["total_datasets"] for d in runs)
        minutes = [round(d.get("timing_seconds", float("nan")) / 60, 1) for d in runs]
        print(
            f"[{g}] seeds {seeds}, shadows={n_shadows(runs[0])} tests={n_tests(runs[0])}, "
            f"minutes per run {minutes}, failed datasets {failed}/{total}"
        )
        for sel in SELECTORS:
            if sel != "distance" and sel in per and "distance" in per:
                t = ttest_ind(per["distance"], per[sel], equal_var=False)
                print(
                    f"    distance - {sel}: {np.mean(per['distance']) - np.mean(per[sel]):+.3f} "
                    f"(Welch t = {t.statistic:.2f}, p = {t.pvalue:.3g})"
                )
    for data in sorted({data_of(d) for d in docs}):
        print_table(
            {g.split(" [")[0]: v for g, v in summary.items() if g.endswith(f"[{data}]")}, data
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="small configuration (minutes)")
    add_data_argument(ap)
    ap.add_argument(
        "--generators",
        default=GENERATORS,
        help="generator specs, comma-separated (parameters allowed: synthpop,baynet:k=1,bins=10); "
        "the default synthpop uses one-hot predictors, as the Python port the paper ran "
        "(via reprosyn)",
    )
    ap.add_argument("--targets-per-selector", type=int, default=None)
    ap.add_argument("--shadows", type=int, default=None)
    ap.add_argument("--tests", type=int, default=200)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--attacks", default="query")
    ap.add_argument("--pool", default="shared")
    ap.add_argument(
        "--selectors",
        default=",".join(SELECTORS),
        help="comma-separated subset of the four selectors",
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--run-dir", type=Path, default=None, help="resumable run directories go under here"
    )
    ap.add_argument(
        "--results-root",
        type=Path,
        default=RESULTS,
        help=f"results go to <root>/{STUDY}/<label>_<shadows>.json (default {RESULTS})",
    )
    ap.add_argument(
        "--summarise",
        type=Path,
        nargs="+",
        default=None,
        help="only print the table from result JSON files written by earlier runs (runs of one "
        "generator and data with different seeds are combined)",
    )
    args = ap.parse_args(argv)
    prov = Provenance.start(None if argv is None else ["reproduce_table2.py", *argv])
    if args.summarise:
        summarise([json.loads(p.read_text()) for p in args.summarise])
        return 0

    per_sel = args.targets_per_selector or (3 if args.quick else 10)
    shadows = args.shadows or (200 if args.quick else 4000)
    tests = 100 if args.quick and args.tests == 200 else args.tests
    t_start = time.perf_counter()
    omega = load_omega(args.data)
    t0 = time.perf_counter()
    selectors = [x.strip() for x in args.selectors.split(",") if x.strip()]
    if not selectors or any(x not in SELECTORS for x in selectors):
        ap.error(f"--selectors takes a subset of {','.join(SELECTORS)}")
    spec = "+".join(f"{s}:{per_sel}" for s in selectors)
    targets = selector_targets(selectors, per_sel)
    rows = targets.resolve(omega, seed=args.seed).rows
    t_select = time.perf_counter() - t0
    print(
        f"{args.data} |Omega|={len(omega)}; {rows.size} distinct targets ({spec}) "
        f"selected in {t_select:.1f}s",
        flush=True,
    )
    print(
        f"config: n=m=1000, shadows={shadows}, tests={tests}, queries={args.queries}, "
        f"pool={args.pool}, "
        f"workers={args.workers}, |D_aux|={DATA[args.data].aux_size}, "
        f"|D_test|={DATA[args.data].test_size}",
        flush=True,
    )

    summary: dict[str, dict[str, dict[str, float]]] = {}
    timings: dict[str, float] = {}
    for gen in split_generators(args.generators):
        label = spec_label(gen, args.data)
        t0, c0 = time.perf_counter(), cpu_seconds()
        game = MembershipGame(
            gen,
            targets=targets,
            train_size=1000,
            synthetic_size=1000,
            n_shadows=shadows,
            n_tests=tests,
            attacks=[a.strip() for a in args.attacks.split(",")],
            attack_params={"query": {"n_queries": args.queries}},
            pool=args.pool,
            aux_size=DATA[args.data].aux_size,
            test_size=DATA[args.data].test_size,
        )
        runtime = Runtime(
            workers=args.workers,
            run_dir=(args.run_dir / run_dir_name(gen, args.data, shadows, args.pool))
            if args.run_dir
            else None,
            progress=True,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            result = game.run(omega, seed=args.seed, runtime=runtime)
        timings[gen] = time.perf_counter() - t0
        doc = result.to_dict()
        doc["summary"] = {a: s.to_dict() for a, s in result.summary().items()}
        doc["summary_by_selector"] = {
            sel: {a: s.to_dict() for a, s in by.items()}
            for sel, by in result.summary_by_selector().items()
        }
        doc["timing_seconds"] = timings[gen]
        doc["cpu_seconds"] = cpu_seconds() - c0
        doc["peak_rss_mb"] = peak_rss_mb()
        doc["config"]["data"] = args.data
        suffix = ("" if args.pool == "shared" else "_" + args.pool) + (
            "_quick" if args.quick else ""
        )
        suffix += f"_seed{args.seed}" if args.seed else ""
        path = prov.write(
            STUDY, f"{label}_{shadows}{suffix}", json.loads(to_json(doc)), root=args.results_root
        )
        print(f"[{gen}] wrote {path}", flush=True)
        summary[gen] = doc["summary_by_selector"]
        print(
            f"[{gen}] {timings[gen]:.0f}s, failed datasets {doc['failures']['failed_datasets']}"
            f"/{doc['failures']['total_datasets']}, peak RSS so far {peak_rss_mb():.0f} MB",
            flush=True,
        )

    print_table(summary, args.data)
    total = time.perf_counter() - t_start
    print(
        f"\ntotal wall time {total / 60:.1f} min (target selection {t_select:.0f}s); "
        f"peak RSS {peak_rss_mb():.0f} MB (largest single process)"
    )
    print(json.dumps({"timings_s": timings, "total_s": total, "peak_rss_mb": peak_rss_mb()}))
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
