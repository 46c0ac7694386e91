"""Shadow modelling: run a generator on many designed training sets, keep the releases compactly.

A *design* maps a pool id to the rows of every training dataset of that pool (``(S, n)`` row indices
into a table; ``-1`` pads a dataset that has one record fewer) and their labels.
:func:`generate_pools` fits the generator on each dataset and samples ``synthetic_size`` records, in
work units of ``batch_size`` datasets run by the :class:`~synthleak.runtime.Runtime` (processes or
Dask; resumable through the run store), and returns one compact
:class:`~synthleak.queries.TableStack` per pool. Every dataset draws its generator's randomness from
the stream ``shadow/dataset``, unit ``(pool, index)``, so the same seed gives the same releases
whatever the number of workers. A generator that fails on a dataset is counted and reported;
the dataset is dropped and the run goes on.

Both the membership game and the risk map use it; several attacks and targets share one set of
shadow datasets (DESIGN.md, performance rules).

References
----------
Meeus et al. (2023), Sec. 2.3 (shadow modelling). Carlini et al. (2022) (shared shadow models).
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass, field

import numpy as np

from synthleak.data.table import Table
from synthleak.errors import InputError, raise_if_interrupted
from synthleak.generators import make_generator
from synthleak.queries import TableStack
from synthleak.runtime import RunStore, Runtime, WorkUnit
from synthleak.runtime.seeding import stream
from synthleak.serde import Result

#: The stream of the generator run on one shadow dataset, unit ``(pool, index)``.
DATASET = stream("shadow/dataset", key=2)

Design = dict[int, tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True, repr=False)
class GeneratorFailures(Result):
    """Datasets the generator failed on (dropped), with the most frequent messages."""

    failed_datasets: int = 0
    total_datasets: int = 0
    messages: dict[str, int] = field(default_factory=dict)


def table_fingerprint(table: Table) -> str:
    """A hash of a table's schema and contents."""
    h = hashlib.sha256(table.schema.to_json().encode())
    h.update(np.ascontiguousarray(table.codes).data)  # the bytes, without a copy of them
    h.update(np.ascontiguousarray(table.values).data)
    return h.hexdigest()[:16]


def generate_batch(
    shared: dict[str, object], pool_id: int, start: int, rows: np.ndarray
) -> dict[str, np.ndarray]:
    """Work unit: fit the generator on each dataset ``rows[j]`` and sample ``m`` records."""
    omega: Table = shared["omega"]  # type: ignore[assignment]
    m, seed, spec = int(shared["m"]), int(shared["seed"]), str(shared["generator"])  # type: ignore[call-overload]
    b = rows.shape[0]
    n_cat, n_cont = omega.codes.shape[1], omega.values.shape[1]
    codes = np.zeros((b, m, n_cat), dtype=omega.codes.dtype)
    values = np.zeros((b, m, n_cont), dtype=np.float32)
    ok = np.zeros(b, dtype=bool)
    errors = np.full(b, "", dtype="<U200")
    for j in range(b):
        rng = DATASET.rng(seed, pool_id, start + j)
        members = rows[j][rows[j] >= 0]  # -1 pads a dataset one record short (add/remove)
        try:
            syn = make_generator(spec).fit(omega.take(members), rng=rng).sample(m, rng=rng)
            if len(syn) != m or syn.schema != omega.schema:
                raise ValueError(f"generator returned {len(syn)} records or another schema")
            codes[j] = syn.codes
            values[j] = syn.values
            ok[j] = True
        except Exception as exc:  # counted and reported; the dataset is dropped
            raise_if_interrupted(exc)
            msg = str(exc).splitlines()[0] if str(exc) else ""
            errors[j] = f"{type(exc).__name__}: {msg}"[:200]
    return {"codes": codes, "values": values, "ok": ok, "errors": errors}


def _check_unit_size(unit: WorkUnit, stored: int) -> None:
    """A unit read from a run directory holds as many datasets as this run's unit of that key
    (units of another ``batch_size`` share their keys, not their datasets)."""
    if stored != unit.args[2].shape[0]:
        raise InputError(
            f"the run directory holds work unit {unit.key!r} with {stored} shadow datasets where "
            f"this run has {unit.args[2].shape[0]}: resume with the same batch size, or use "
            "another run directory"
        )


def generate_pools(
    omega: Table,
    design: Design,
    *,
    generator: str,
    synthetic_size: int,
    seed: int,
    batch_size: int,
    runtime: Runtime,
    store: RunStore | None,
) -> tuple[dict[int, TableStack], dict[int, np.ndarray], GeneratorFailures]:
    """Releases of every designed dataset: stacks and labels per pool (failed datasets dropped)."""
    units = [
        WorkUnit(f"gen-p{pool_id}-s{start}", (pool_id, start, rows[start : start + batch_size]))
        for pool_id, (rows, _) in design.items()
        for start in range(0, rows.shape[0], batch_size)
    ]
    if store is not None:  # a run directory of another unit size fails before any new run
        stored = store.done()
        for u in units:
            if u.key in stored:
                _check_unit_size(u, store.get(u.key)["ok"].shape[0])
                break
    shared = {"omega": omega, "m": int(synthetic_size), "seed": int(seed), "generator": generator}
    res = runtime.run(
        generate_batch,
        units,
        shared=shared,
        store=store,
        description=f"shadow models ({generator})",
    )
    m = int(synthetic_size)
    n_cat, n_cont = omega.codes.shape[1], omega.values.shape[1]
    stacks: dict[int, TableStack] = {}
    labels: dict[int, np.ndarray] = {}
    messages: dict[str, int] = {}
    n_failed = 0
    for pool_id, (_rows, lab) in design.items():
        codes, values, ok = [], [], []
        for u in units:
            if u.args[0] != pool_id:
                continue
            r = res[u.key]
            if r.arrays is None:  # the whole unit failed (e.g. a worker crashed)
                b = u.args[2].shape[0]
                codes.append(np.zeros((b, m, n_cat), dtype=omega.codes.dtype))
                values.append(np.zeros((b, m, n_cont), dtype=np.float32))
                ok.append(np.zeros(b, dtype=bool))
                messages[str(r.error)] = messages.get(str(r.error), 0) + b
                continue
            okb = r.arrays["ok"].astype(bool)
            _check_unit_size(u, okb.shape[0])
            codes.append(r.arrays["codes"])
            values.append(r.arrays["values"])
            ok.append(okb)
            for e in r.arrays["errors"][~okb].tolist():
                messages[e] = messages.get(e, 0) + 1
        okv = np.concatenate(ok)
        n_failed += int((~okv).sum())
        stacks[pool_id] = TableStack(
            omega.schema, np.concatenate(codes)[okv], np.concatenate(values)[okv]
        )
        labels[pool_id] = lab[okv]
    total = sum(r.shape[0] for r, _ in design.values())
    top = dict(sorted(messages.items(), key=lambda kv: -kv[1])[:10])
    if n_failed:
        warnings.warn(
            f"the generator failed on {n_failed} of {total} datasets (dropped): "
            + "; ".join(list(top)[:2]),
            RuntimeWarning,
            stacklevel=3,
        )
    return stacks, labels, GeneratorFailures(n_failed, int(total), top)
