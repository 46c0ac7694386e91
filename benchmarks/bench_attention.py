"""Speed of the target-attention membership attack (Meeus et al. (2023), appendix A).

Budget: at most 3 minutes of training per target on one core with 4,000 shadow
datasets of 1,000 synthetic records.

What is measured, all in one run on one torch thread unless stated:

1. Real shadow data: ``--real`` (default 1,000) shadow datasets made by a real generator
   (``baynet:k=2``): 1,000 records drawn from 10,000 auxiliary Adult records, the target
   (the most vulnerable record by the distance score V_5 among 2,000 Adult records) added in half
   of them; the generator's 1,000 synthetic records form the dataset. 200 more datasets are held
   out to score the attack (its AUC is a sanity figure, not a reproduction).
2. Preprocessing time for 4,000 datasets (unique records, eq. 5 distances, top 100).
3. Time per epoch with 4,000 shadow datasets (the real ones tiled up to 4,000: the epoch cost
   depends on shapes only), at the paper's batch size 20 against peers: batch 200; 2 torch
   threads; ``scoring=values``.
4. A full fit on the real shadow datasets with the default early stopping (patience 25, at most
   500 epochs): epochs run, best epoch, and the projection to 4,000 datasets
   ``preprocess(4000) + epochs x epoch_time(4000)``.

The machine is shared: CPU seconds of this process (``time.process_time``) are reported beside
wall seconds; the budget is judged on CPU seconds.

Usage::

    python benchmarks/bench_attention.py               # ~10-20 min on a loaded 2-core machine
    python benchmarks/bench_attention.py --real 300    # faster, fewer real datasets
"""

from __future__ import annotations

import argparse
import json
import pickle
import platform
import sys
import time
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

import synthleak as sl
from synthleak.attacks.mia_attention import TargetAttentionAttack, preprocess
from synthleak.metrics.privacy import auc
from synthleak.vulnerability import select_targets


@contextmanager
def clock(out: dict[str, float], key: str) -> Any:
    w, c = time.perf_counter(), time.process_time()
    yield
    out[key + "_wall"] = time.perf_counter() - w
    out[key + "_cpu"] = time.process_time() - c


def make_datasets(
    gen_spec: str, aux: sl.Table, target: sl.Table, n_datasets: int, rng: np.random.Generator
) -> tuple[list[sl.Table], np.ndarray]:
    gen = sl.make_generator(gen_spec)
    labels = rng.permutation(np.arange(n_datasets) % 2)
    out = []
    for y in labels:
        train = aux.sample(1000, rng=rng)
        if y:
            train = sl.Table.concat([train.take(np.arange(999)), target])
        out.append(gen.fit(train, rng=rng).sample(1000, rng=rng))
    return out, labels


def epoch_time(
    target: sl.Table, datasets: list[sl.Table], labels: np.ndarray, epochs: int, **kw: Any
) -> dict[str, float]:
    """CPU/wall seconds per epoch (training only), from a fit of ``epochs`` epochs."""
    attack = TargetAttentionAttack(epochs=epochs, patience=None, **kw)
    attack.fit(target, datasets, labels, rng=np.random.default_rng(0))
    return {
        "wall": attack.timings_["train_s"] / epochs,
        "cpu": attack.timings_["train_cpu_s"] / epochs,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--generator", default="baynet:k=2")
    ap.add_argument("--real", type=int, default=1000, help="real shadow datasets to generate")
    ap.add_argument("--n-shadow", type=int, default=4000)
    ap.add_argument("--timing-epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", type=Path, default=None, help="pickle of generated datasets")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    res: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="minutes"),
        "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores (shared)",
        "generator": args.generator,
    }

    df = sl.datasets.load_adult()
    omega = sl.Table.from_frame(df, sl.infer_schema(df))
    pool = rng.permutation(len(omega))
    cand = omega.take(pool[:2000])
    t_idx = int(select_targets(cand, "distance", 1, k=5)[0])
    target = cand.take([t_idx])
    aux = omega.take(pool[2000:12000])
    print(f"target: Adult row {int(pool[t_idx])} (most vulnerable by V_5 among 2,000)", flush=True)

    cache = args.cache
    if cache is not None and cache.exists():
        real, y_real = pickle.loads(cache.read_bytes())
        res["generate_wall"] = float("nan")
    else:
        with clock(res, "generate"):
            real, y_real = make_datasets(args.generator, aux, target, args.real + 200, rng)
        if cache is not None:
            cache.write_bytes(pickle.dumps((real, y_real)))
    test, y_test = real[args.real :], y_real[args.real :]
    real, y_real = real[: args.real], y_real[: args.real]
    print(f"generated {args.real + 200} datasets in {res['generate_wall']:.0f}s wall", flush=True)

    reps = -(-args.n_shadow // len(real))
    tiled = (real * reps)[: args.n_shadow]
    y_tiled = np.tile(y_real, reps)[: args.n_shadow]
    with clock(res, "preprocess_4000"):
        preprocess(target, tiled, 100)
    print(f"preprocess {args.n_shadow}: {res['preprocess_4000_cpu']:.1f}s CPU", flush=True)

    e = args.timing_epochs
    variants = {
        "batch20_1thread_keys": {},
        "batch200_1thread_keys": {"batch_size": 200},
        "batch20_2threads_keys": {"n_threads": 2},
        "batch20_1thread_values": {"scoring": "values"},
    }
    res["epoch"] = {}
    for name, kw in variants.items():
        res["epoch"][name] = epoch_time(target, tiled, y_tiled, e, **kw)
        print(f"epoch ({args.n_shadow} datasets) {name}: {res['epoch'][name]}", flush=True)
    base = res["epoch"]["batch20_1thread_keys"]

    attack = TargetAttentionAttack()
    attack.fit(target, real, y_real, rng=np.random.default_rng(1))
    res["full_fit_real"] = {
        "n_datasets": len(real),
        "cpu_s": attack.timings_["preprocess_cpu_s"] + attack.timings_["train_cpu_s"],
        "wall_s": sum(attack.timings_.values()),
        "epochs_run": attack.n_epochs_,
        "best_epoch": attack.best_epoch_,
        "auc_heldout": auc(y_test, attack.score(test)),
    }
    print(f"full fit on {len(real)} real datasets: {res['full_fit_real']}", flush=True)
    proj = res["preprocess_4000_cpu"] + attack.n_epochs_ * base["cpu"]
    worst = res["preprocess_4000_cpu"] + 500 * base["cpu"]
    res["projection_4000_cpu_s"] = {"early_stopped": proj, "all_500_epochs": worst}

    print()
    print(f"## target attention speed ({res['machine']}, {res['date']})")
    print(
        f"epoch with {args.n_shadow} datasets, batch 20, 1 thread: {base['cpu']:.2f}s CPU "
        f"({base['wall']:.2f}s wall)"
    )
    for name, v in res["epoch"].items():
        print(
            f"  {name:<26} {v['cpu']:.2f}s CPU  ratio to batch20/1 thread: "
            f"{v['cpu'] / base['cpu']:.2f} (wall {v['wall'] / base['wall']:.2f})"
        )
    print(f"preprocessing {args.n_shadow} datasets: {res['preprocess_4000_cpu']:.1f}s CPU")
    print(
        f"early-stopped fit on {len(real)} real datasets: {attack.n_epochs_} epochs "
        f"(best {attack.best_epoch_}), {res['full_fit_real']['cpu_s']:.0f}s CPU, "
        f"held-out AUC {res['full_fit_real']['auc_heldout']:.3f}"
    )
    print(
        f"projected per-target fit with {args.n_shadow} datasets: {proj:.0f}s CPU at "
        f"{attack.n_epochs_} epochs (budget 180s: ratio {proj / 180:.2f}); all 500 epochs "
        f"{worst:.0f}s"
    )
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
