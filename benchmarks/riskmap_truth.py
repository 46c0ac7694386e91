"""Ground-truth risk maps: a membership AUC for every record of a 1,000-record dataset.

One map = :class:`synthleak.games.riskmap.RiskMap` on ``--n`` records ``D`` of a dataset (drawn
once by ``--rows-seed``, so replicate maps with other ``--seed`` values audit the same records),
fillers from the rest of the dataset, ``--shadows`` shadow and ``--tests`` test datasets shared
by every record, the query attack with ``--queries`` random counting queries per record (100
trees of depth 10). Two replicate maps of the same records (seeds 1 and 2) give the test-retest
reliability of per-record AUCs and an honest "true top-k" (selected on one map, measured on the
other); see ``benchmarks/selector_study.py``, which reads these files.

``--engine screening`` runs the same design with
:class:`synthleak.games.twostage.ScreeningMap` (stage 1 of the two-stage audit; records = D,
fillers = the rest of the dataset) and writes the same record format, so cheap screening maps
are evaluated by exactly the code an audit runs.

Writes ``benchmarks/results/riskmap/\
<data>_<generator>_S<shadows>_T<tests>_Q<queries>_seed<seed>.json``:
the RiskMap result (every record's row, AUC and 95 % CI, selector scores, timings) with
provenance.

Usage::

    python -m benchmarks.riskmap_truth --data adult --generator baynet --seed 1 --run-dir DIR
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import synthleak.queries
from benchmarks.datasets import DATASETS, load_table
from benchmarks.meeus2023 import spec_label
from benchmarks.provenance import RESULTS, Provenance
from benchmarks.reproduce_table2 import cpu_seconds, peak_rss_mb
from synthleak.errors import BaselineWarning
from synthleak.games.riskmap import RiskMap, RiskMapResult
from synthleak.games.twostage import STAGE1_ESTIMATORS, STAGE1_QUERIES, ScreeningMap
from synthleak.metrics.ranking import RankValidation
from synthleak.runtime import Runtime, stream_rng
from synthleak.vulnerability import cell_rarity_scores

STUDY = "riskmap"


def private_rows(n_records: int, n: int, rows_seed: int) -> np.ndarray:
    """The ``n`` audited rows (sorted), the same for every replicate map of one dataset."""
    rng = stream_rng(rows_seed, "riskmap-private-rows")
    return np.sort(rng.choice(n_records, n, replace=False)).astype(np.int64)


def map_name(
    data: str,
    generator: str,
    shadows: int,
    tests: int,
    queries: int,
    seed: int,
    engine: str,
    estimators: int = 100,
) -> str:
    label = spec_label(generator).replace(":", "-")
    tag = "" if engine == "riskmap" else f"_{engine}"
    trees = "" if estimators == 100 else f"_E{estimators}"  # the default forest has no tag
    return f"{data}_{label}_S{shadows}_T{tests}_Q{queries}{trees}_seed{seed}{tag}"


def halving_engine(args: argparse.Namespace) -> str:
    """The file-name tag of a halving run: ``halving`` or ``halving-rarity``."""
    return "halving" if args.prior == "none" else f"halving-{args.prior}"


def run_screening(args: argparse.Namespace, table, rows: np.ndarray, name: str) -> dict:
    """The stage-1 screen on the same records, in the RiskMap record format; with
    ``--engine halving``, successive halving (every record on the first half of the pools with
    the small attack, the top ``--keep`` on the whole pools)."""
    halving = args.engine == "halving"
    game = ScreeningMap(
        args.generator,
        train_size=args.n,
        n_shadows=args.shadows,
        n_tests=args.tests,
        n_queries=args.queries,
        n_estimators=args.estimators,
        records=rows,
        n_boot=1000,
        keep=args.keep if halving else None,
        stage1_shadows=args.shadows // 2,
        stage1_tests=args.tests // 2,
        stage1_queries=STAGE1_QUERIES,
        stage1_estimators=STAGE1_ESTIMATORS,
        stage1_prior=cell_rarity_scores(table.take(rows))
        if halving and args.prior == "rarity"
        else None,
    )
    rt = Runtime(
        workers=args.workers, run_dir=(args.run_dir / name) if args.run_dir else None, progress=True
    )
    res = game.run(table, seed=args.seed, runtime=rt)
    records = [
        {"row": int(r), "auc": a, "auc_query": a, "auc_query_ci_low": lo, "auc_query_ci_high": hi}
        for r, a, lo, hi in zip(
            res.rows.tolist(),
            res.auc.tolist(),
            res.ci_low.tolist(),
            res.ci_high.tolist(),
            strict=True,
        )
    ]
    if halving:
        for rec, st, a1 in zip(records, res.stage.tolist(), res.stage1_auc.tolist(), strict=True):
            rec["stage"], rec["stage1_auc"] = st, a1
    records = [
        {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in rec.items()}
        for rec in records
    ]
    auc = res.auc[~np.isnan(res.auc)]
    return {
        "config": {
            "engine": args.engine,
            "keep": args.keep if halving else None,
            "prior": args.prior if halving else None,
            "stage1": [
                res.stage1_shadows,
                res.stage1_tests,
                res.stage1_queries,
                res.stage1_estimators,
            ]
            if halving
            else None,
            "generator": args.generator,
            "n": args.n,
            "n_shadow": args.shadows,
            "n_test": args.tests,
            "n_queries": args.queries,
            "n_estimators": args.estimators,
            "seed": args.seed,
        },
        "records": records,
        "summary": {"auc_mean": float(auc.mean()), "auc_sd": float(auc.std()), "validation": {}},
        "failures": {"failed_datasets": res.failed_datasets, "total_datasets": res.total_datasets},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", choices=DATASETS, required=True)
    ap.add_argument("--generator", default="baynet")
    ap.add_argument("--n", type=int, default=1000, help="records audited (and per dataset)")
    ap.add_argument("--shadows", type=int, default=250)
    ap.add_argument("--tests", type=int, default=250)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument(
        "--estimators",
        type=int,
        default=100,
        help="screening and halving: trees of each record's forest (the second stage's)",
    )
    ap.add_argument("--attacks", default="query")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rows-seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--run-dir", type=Path, default=None)
    ap.add_argument("--results-root", type=Path, default=RESULTS)
    ap.add_argument(
        "--engine",
        choices=("riskmap", "screening", "halving"),
        default="riskmap",
        help="riskmap: synthleak.games.riskmap.RiskMap (ground truth); screening: the two-stage "
        "audit's ScreeningMap on the same records (stage 1); halving: its successive halving",
    )
    ap.add_argument(
        "--keep", type=int, default=50, help="halving: records re-screened on the whole pools"
    )
    ap.add_argument(
        "--prior",
        choices=("none", "rarity"),
        default="none",
        help="halving: keep by the first-stage AUC alone or rank-averaged with cell rarity "
        "(computed on the audited records)",
    )
    args = ap.parse_args(argv)
    prov = Provenance.start(None if argv is None else ["riskmap_truth.py", *argv])

    table = load_table(args.data)
    rows = private_rows(len(table), args.n, args.rows_seed)
    engine = halving_engine(args) if args.engine == "halving" else args.engine
    if args.engine == "riskmap" and args.estimators != 100:
        ap.error("--estimators applies to the screening and halving engines")
    name = map_name(
        args.data,
        args.generator,
        args.shadows,
        args.tests,
        args.queries,
        args.seed,
        engine,
        args.estimators,
    )
    print(f"{name}: {len(table)} records, auditing {rows.size}", flush=True)
    t0, c0 = time.perf_counter(), cpu_seconds()
    if args.engine in ("screening", "halving"):
        doc = run_screening(args, table, rows, name)
    else:
        doc = run_riskmap(args, table, rows, name)
    doc["data"] = args.data
    doc["rows_seed"] = args.rows_seed
    doc["wall_seconds"] = time.perf_counter() - t0
    doc["cpu_seconds"] = cpu_seconds() - c0
    doc["peak_rss_mb"] = peak_rss_mb()
    # the counting-query path's limit (0: bitsets always, as the earliest maps were run)
    doc["max_dense_bits"] = int(synthleak.queries.MAX_DENSE_BITS)
    path = prov.write(STUDY, name, doc, root=args.results_root)
    s = doc["summary"]
    print(
        f"{name}: AUC mean {s['auc_mean']:.3f} sd {s['auc_sd']:.3f}; "
        f"{doc['wall_seconds'] / 60:.1f} min wall, {doc['cpu_seconds'] / 60:.1f} CPU-min; {path}",
        flush=True,
    )
    return 0


def run_riskmap(args: argparse.Namespace, table, rows: np.ndarray, name: str) -> dict:
    """The ground-truth RiskMap of the records ``rows``."""
    game = RiskMap(
        args.generator,
        train_size=args.n,
        n_shadows=args.shadows,
        n_tests=args.tests,
        attacks=[a.strip() for a in args.attacks.split(",") if a.strip()],
        n_queries=args.queries,
        private_rows=rows,
    )
    rt = Runtime(
        workers=args.workers, run_dir=(args.run_dir / name) if args.run_dir else None, progress=True
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(table, seed=args.seed, runtime=rt)
    return riskmap_doc(res)


def validation_doc(v: RankValidation) -> dict:
    """A rank validation in the format of the first maps: one entry per selector score."""
    out: dict = {"n_records": v.n_records, "top_k": v.top_k, "chance_precision": v.chance_precision}
    for name, agree in v.selectors.items():
        out[name] = {
            "spearman": agree.spearman,
            "spearman_ci": list(agree.spearman_ci),
            f"precision_at_{v.top_k}": agree.precision_at_k,
        }
    return out


def riskmap_doc(res: RiskMapResult) -> dict:
    """A RiskMap result in this study's record format: one dict per record (``records``), the
    configuration (with the ``n_shadow``/``n_test`` keys of the first maps) and the summary."""
    frame = res.to_frame()
    records = [
        {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in rec.items()}
        for rec in frame.to_dict(orient="records")
    ]
    for rec in records:
        rec["row"] = int(rec["row"])
    config = res.config.to_dict()
    config.update(command="riskmap", n_shadow=res.config.n_shadows, n_test=res.config.n_tests)
    return {
        "config": config,
        "records": records,
        "summary": {
            "auc_mean": res.auc_mean(),
            "auc_sd": res.auc_sd(),
            "validation": validation_doc(res.validation),
            "validation_per_attack": {
                a: validation_doc(v) for a, v in res.validation_per_attack.items()
            },
        },
        "failures": res.failures.to_dict(),
        "timings": dict(res.timings),
    }


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
