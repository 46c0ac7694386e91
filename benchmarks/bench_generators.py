"""Generator speed: fit + sample 1,000 records from 1,000 Adult rows, one core.

For every registered generator (``synthleak.list_generators()``, so generators added later are
picked up automatically) the script reports the median of ``--runs`` (default 20) timed runs of
``fit(train) + sample(1000)`` after one untimed warm-up run (JIT compilation, imports). In the
same run it times DataSynthesizer's correlated attribute mode (degree 2, ``epsilon=0`` = no
noise, histogram bins 20, the same 1,000 rows; ``--ds-runs``, default 3, as one run takes
seconds), the implementation the papers used for BayNet, and reports every generator's speed-up
over it (``DataSynthesizer median / generator median``).

The process is pinned to one core (``os.sched_setaffinity``) and BLAS/OpenMP/torch thread pools
are limited to one thread (environment variables set before numpy is imported, plus
``threadpoolctl``). DataSynthesizer's structure search opens a ``multiprocessing.Pool``; its
workers inherit the affinity, so they share the same single core.

Skipped, with a note in the output: generators whose optional extra is not installed, generators
that need parameters without defaults (``command``, ``python``), known-slow generators (``ctgan``:
minutes per fit; pass ``--include-slow`` to time them), and any generator whose warm-up run
exceeds ``--max-seconds``. A generator whose warm-up takes more than 2 s is timed with
``--ds-runs`` runs instead of ``--runs`` (said in the table).

Usage::

    python benchmarks/bench_generators.py                 # full run, prints a markdown table
    python benchmarks/bench_generators.py --runs 5 --skip-datasynthesizer
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import contextlib  # noqa: E402
import datetime as dt  # noqa: E402
import io  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import synthleak as sl  # noqa: E402
from synthleak.errors import InputError, MissingExtraError  # noqa: E402
from synthleak.generators import list_generators, make_generator  # noqa: E402

KNOWN_SLOW = {"ctgan": "CTGAN trains a GAN for hundreds of epochs (minutes per fit)"}
N_TRAIN = 1000
N_SYNTH = 1000


@dataclass
class Row:
    name: str
    spec: str
    median_ms: float | None
    runs: int
    note: str = ""
    cpu_ms: float | None = None


def pin_one_core(cpu: int | None = None) -> str:
    """Pin this process to one CPU and one thread per pool; returns a description."""
    cpu = min(os.sched_getaffinity(0)) if cpu is None else cpu
    os.sched_setaffinity(0, {cpu})
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        pass
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    return f"pinned to CPU {cpu}, 1 thread per BLAS/OpenMP pool"


def training_rows(seed: int) -> sl.Table:
    df = sl.datasets.load_adult()
    table = sl.Table.from_frame(df, sl.infer_schema(df))
    return table.sample(N_TRAIN, rng=np.random.default_rng(seed))


def _cpu_seconds() -> float:
    """CPU time (user + system) of this process and of its reaped children."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def time_runs(fn, runs: int) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    """Wall-clock and CPU seconds of ``runs`` calls ``fn(i)``."""
    wall, cpu = [], []
    for i in range(runs):
        c0, w0 = _cpu_seconds(), time.perf_counter()
        fn(i)
        wall.append(time.perf_counter() - w0)
        cpu.append(_cpu_seconds() - c0)
    return wall, cpu


def bench_generator(spec: str, train: sl.Table, args: argparse.Namespace) -> Row:
    name = spec.split(":", 1)[0]
    try:
        gen = make_generator(spec)
    except MissingExtraError as exc:
        return Row(name, spec, None, 0, f"skipped: extra missing ({exc})")
    except InputError as exc:
        return Row(name, spec, None, 0, f"skipped: needs parameters ({exc})")

    def run(i: int) -> None:
        rng = np.random.default_rng(1000 + i)
        g = make_generator(spec)
        g.fit(train, rng=rng)
        syn = g.sample(N_SYNTH, rng=rng)
        if len(syn) != N_SYNTH:
            raise RuntimeError(f"{spec} returned {len(syn)} records")

    del gen
    try:
        warm = time_runs(run, 1)[0][0]
    except MissingExtraError as exc:
        return Row(name, spec, None, 0, f"skipped: extra missing ({exc})")
    if warm > args.max_seconds:
        return Row(name, spec, None, 1, f"skipped: warm-up run took {warm:.1f} s")
    runs = args.runs if warm <= 2.0 else args.ds_runs
    note = "" if runs == args.runs else f"slow ({warm:.1f} s warm-up): {runs} runs"
    wall, cpu = time_runs(run, runs)
    return Row(name, spec, 1e3 * statistics.median(wall), runs, note, 1e3 * statistics.median(cpu))


def bench_datasynthesizer(train: sl.Table, runs: int) -> Row:
    try:
        from DataSynthesizer.DataDescriber import DataDescriber
        from DataSynthesizer.DataGenerator import DataGenerator
    except ImportError:
        return Row("DataSynthesizer", "", None, 0, "skipped: pip install DataSynthesizer")
    frame = train.to_frame()
    is_cat = {c.name: c.is_categorical for c in train.schema.columns}
    with tempfile.TemporaryDirectory() as tmp:
        data_csv = Path(tmp) / "train.csv"
        desc_json = Path(tmp) / "description.json"
        frame.to_csv(data_csv, index=False)

        def run(i: int) -> None:
            sink = io.StringIO()
            with contextlib.redirect_stdout(sink), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                describer = DataDescriber(histogram_bins=20, category_threshold=20)
                describer.describe_dataset_in_correlated_attribute_mode(
                    str(data_csv), k=2, epsilon=0, attribute_to_is_categorical=is_cat, seed=i
                )
                describer.save_dataset_description_to_file(str(desc_json))
                generator = DataGenerator()
                generator.generate_dataset_in_correlated_attribute_mode(
                    N_SYNTH, str(desc_json), seed=i
                )
            if len(generator.synthetic_dataset) != N_SYNTH:
                raise RuntimeError("DataSynthesizer returned the wrong number of records")

        wall, cpu = time_runs(run, runs)
    return Row(
        "DataSynthesizer",
        "correlated mode, k=2, epsilon=0",
        1e3 * statistics.median(wall),
        runs,
        "describe (reads CSV) + save description + generate; CPU includes its Pool workers",
        1e3 * statistics.median(cpu),
    )


# explicit specs for some generators (the brief's figures); others run with their defaults
EXPLICIT_SPECS = {
    "baynet": ["baynet:k=2", "baynet:k=3"],
    "privbayes": ["privbayes:epsilon=1,k=2"],
}


def default_specs(include_slow: bool) -> tuple[list[str], list[Row]]:
    specs, skipped = [], []
    for info in list_generators():
        if info.name in KNOWN_SLOW and not include_slow:
            skipped.append(Row(info.name, info.name, None, 0, f"skipped: {KNOWN_SLOW[info.name]}"))
            continue
        specs.extend(EXPLICIT_SPECS.get(info.name, [info.name]))
    return specs, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--ds-runs", type=int, default=3)
    parser.add_argument("--max-seconds", type=float, default=60.0)
    parser.add_argument("--include-slow", action="store_true")
    parser.add_argument("--skip-datasynthesizer", action="store_true")
    parser.add_argument("--spec", action="append", help="time only these specs (repeatable)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cpu", type=int, default=None, help="CPU to pin to (default: first allowed)"
    )
    args = parser.parse_args(argv)

    pinned = pin_one_core(args.cpu)
    train = training_rows(args.seed)
    if args.spec:
        specs, rows = list(args.spec), []
    else:
        specs, rows = default_specs(args.include_slow)
    for spec in specs:
        row = bench_generator(spec, train, args)
        rows.append(row)
        print(
            f"  {spec:32s} "
            f"{row.median_ms if row.median_ms is not None else float('nan'):10.2f} ms  {row.note}",
            flush=True,
        )
    ds = None
    if not args.skip_datasynthesizer:
        ds = bench_datasynthesizer(train, args.ds_runs)
        print(
            f"  {'DataSynthesizer':32s} {ds.median_ms or float('nan'):10.2f} ms  {ds.note}",
            flush=True,
        )

    print()
    print(
        f"Generator speed, {dt.date.today().isoformat()}, "
        f"{platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores on the machine, {pinned}; Python {platform.python_version()}, "
        f"numpy {np.__version__}. fit + sample {N_SYNTH} from {N_TRAIN} Adult rows "
        f"(seed {args.seed})."
    )
    print()
    print(
        "| generator | spec | median wall ms | median CPU ms | runs "
        "| wall speed-up vs DataSynthesizer | CPU speed-up | note |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|")
    ref = ds if ds is not None and ds.median_ms is not None else None

    def ratio(num: float | None, den: float | None, is_ref: bool) -> str:
        if is_ref:
            return "1x (reference)"
        if num is None or den is None or den <= 0:
            return "-"
        return f"{num / den:.3g}x"

    def ms(v: float | None) -> str:
        return f"{v:.2f}" if v is not None else "-"

    for row in [*rows, *([ds] if ds is not None else [])]:
        is_ref = ref is not None and row is ref
        wall_ratio = ratio(ref.median_ms if ref else None, row.median_ms, is_ref)
        cpu_ratio = ratio(ref.cpu_ms if ref else None, row.cpu_ms, is_ref)
        print(
            f"| {row.name} | `{row.spec}` | {ms(row.median_ms)} | {ms(row.cpu_ms)} | {row.runs} "
            f"| {wall_ratio} | {cpu_ratio} | {row.note} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
