"""The attack cost of the screening designs: CPU seconds of one record's query attack by size.

A screen fits one query-attack forest per screened record on the shadow pool and scores the test
pool; the pools (generator runs) are shared by every record and every design. So a design's cost
is its generator runs (the same 200 for every candidate of ``RESULTS_selectors.md``) plus the
sum, over its attack sizes, of records screened at that size times the CPU seconds of one such
attack. This script measures the second factor on the risk maps' shape (datasets of ``--n``
records, half of them drawn from ``2 --n`` audited records, 100 shadow and 100 test datasets of
one generator), alternating the order of the sizes on each repeat so that a shared machine's
load falls on all of them alike, and reports each size's CPU seconds per record and its ratio to
the full attack (1,000 queries, 100 trees). CPU time of the process, not wall time: the attack
runs in one thread.

Usage::

    python -m benchmarks.screen_cost --data adult --generator baynet [--write]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks.datasets import DATASETS, load_table
from benchmarks.meeus2023 import spec_label
from benchmarks.provenance import RESULTS, Provenance
from synthleak.attacks.base import AttackFamily, make_attack
from synthleak.generators import make_generator
from synthleak.queries import TableStack

STUDY = "selectors"
#: (queries, trees) of the attack sizes the designs use; the first is the full attack
SIZES = ((1000, 100), (200, 20), (100, 10))


def measure(data: str, generator: str, n: int, records: int, repeats: int) -> dict:
    table = load_table(data)
    rng = np.random.default_rng(0)
    pool = min(2 * n, len(table))
    audited = table.take(np.sort(rng.choice(len(table), pool, replace=False)))
    member = np.zeros((200, pool), dtype=bool)
    sets = []
    t0 = time.process_time()
    for k in range(200):
        r = np.random.default_rng(k)
        rows = r.choice(pool, n, replace=False)
        member[k, rows] = True
        sets.append(make_generator(generator).fit(audited.take(rows), rng=r).sample(n, rng=r))
    gen_cpu = time.process_time() - t0
    shadow, test = TableStack.from_tables(sets[:100]), TableStack.from_tables(sets[100:])
    cpu = dict.fromkeys(SIZES, 0.0)
    for rep in range(repeats):
        for size in SIZES if rep % 2 == 0 else SIZES[::-1]:
            q, e = size
            t0 = time.process_time()
            for i in range(records):
                model = make_attack(AttackFamily.MEMBERSHIP, "query", n_queries=q, n_estimators=e)
                y = member[:100, i].astype(np.int64)
                model.fit(audited.take([i]), shadow, y, rng=np.random.default_rng(i))
                model.score(test)
            cpu[size] += time.process_time() - t0
    per = {s: cpu[s] / (records * repeats) for s in SIZES}
    full = per[SIZES[0]]
    return {
        "data": data,
        "generator": generator,
        "n": n,
        "records_timed": records,
        "repeats": repeats,
        "generator_cpu_seconds_per_run": gen_cpu / 200,
        "attack_cpu_seconds_per_record": {f"{q}q_{e}t": per[(q, e)] for q, e in SIZES},
        "ratio_to_full": {f"{q}q_{e}t": per[(q, e)] / full for q, e in SIZES},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", choices=DATASETS, default="adult")
    ap.add_argument("--generator", default="baynet")
    ap.add_argument("--n", type=int, default=500, help="records per dataset")
    ap.add_argument("--records", type=int, default=15, help="records timed per size and repeat")
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    prov = Provenance.start(None if argv is None else ["screen_cost.py", *argv])
    doc = measure(args.data, args.generator, args.n, args.records, args.repeats)
    for size, sec in doc["attack_cpu_seconds_per_record"].items():
        print(f"{size}: {sec:.4f} CPU s per record, {doc['ratio_to_full'][size]:.3f} of the full")
    if args.write:
        label = spec_label(args.generator).replace(":", "-")
        path = prov.write(STUDY, f"screen_cost_{args.data}_{label}", doc, root=RESULTS)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
