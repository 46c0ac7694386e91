"""Release-audit stages as per-partition work units, for a Dask cluster (``--cluster``).

The stages whose counting passes grow with the data run here as one work unit per partition of
the rows (:func:`partitions`): a unit receives only its partition's integer codes, so the
memory of a worker is bounded by the partition, not by the table. What a unit returns is exact
integer counts (the occupied cells of its partition, as sorted keys and counts); the driver
adds them up in partition order and, where a second pass is needed, sends the totals back to
per-partition units. Integer sums do not depend on the order they are taken in, and every
floating-point figure is then computed from the totals by the same code, in the same order, as
the local stage, so a cluster run reports the same figures as a local run, bit for bit
(``tests/test_partitioned.py`` compares the report JSON of both on a loopback LocalCluster).

Stages here:

* vulnerability, cell rarity (:func:`rank_by_rarity`): per-partition counts of every column
  and pair of columns, summed; then per-partition scores from the totals;
* utility (:func:`marginal_counter`): per-partition counts of each random 3-way marginal of
  the training records, the release and the control, summed;
* copies (:func:`copy_counter`): the 64-bit keys of every record and checked value, hashed by
  the driver one partition at a time, matched as one unit per key range; counts summed, the
  copied rows concatenated;
* near copies (:func:`nearest_by_partition`): each unit searches one partition of the original
  for the nearest record of every query (the sampled release and control records); the driver
  takes the minimum of the exact float64 distances, which does not depend on the partitions;
* linkability (:func:`neighbours_by_partition`): each unit searches one partition of the
  release (on one side's auxiliary columns) for the ``k`` nearest records of every target; the
  driver keeps the first ``k`` by (distance, global index), the local search's order, from
  exact float64 distances that do not depend on the partitions;
* singling out (:func:`requests_by_partition`): each unit indexes one partition of the
  original or the control and counts every attack's predicates in it; counts summed, the rows
  of the predicates that match few records concatenated.

Every unit is stored in the stage's run store under a key that holds a digest of its
partition (and, for the second pass, of the whole table), so an interrupted audit keeps its
finished units and a re-run with other data recomputes them.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from synthleak.attacks.linkability import NeighbourSearch, gower_knn_distances
from synthleak.attacks.predicates import (
    CountAnswer,
    CountRequest,
    Matches,
    RequestCounter,
    answer_requests,
    combine_answers,
)
from synthleak.data.encoding import Discretiser, count_keys, merge_counts, mixed_keys
from synthleak.data.table import Table
from synthleak.games.shadow import table_fingerprint
from synthleak.metrics.copies import (
    CopyCounter,
    CopyPlan,
    NearestSearch,
    copy_counts,
    copy_hashes,
    merge_copy_counts,
    nearest_distances,
)
from synthleak.metrics.utility import MarginalCounter
from synthleak.runtime import Runtime, WorkUnit
from synthleak.vulnerability import (
    CELL_RARITY_BINS,
    Ranking,
    TargetMethod,
    cell_rarity_scores,
    rank_records,
)

#: Rows of one partition. A unit holds its partition's codes (``rows x F`` integers of at most
#: 8 bytes) and a few int64 arrays of ``rows`` entries (keys, counts, scores), about
#: ``rows x (F + 4) x 8`` bytes: 46 MB for 19 columns, whatever the size of the table.
PARTITION_ROWS = 250_000

_KEY_LIMIT = 1 << 62  # mixed-radix keys below this never overflow int64


def partitions(n: int, rows: int | None = None) -> list[tuple[int, int]]:
    """``[start, stop)`` bounds of consecutive partitions of ``n`` rows, ``rows`` each (the last
    may be shorter); one partition for an empty table."""
    size = PARTITION_ROWS if rows is None else int(rows)
    if size < 1:
        raise ValueError("a partition needs at least one row")
    return [(a, min(a + size, n)) for a in range(0, max(n, 1), size)]


def _digest(arr: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(arr).tobytes(), digest_size=8).hexdigest()


def _fits(cols: Sequence[int], widths: Sequence[int]) -> bool:
    return math.prod(int(widths[c]) for c in cols) < _KEY_LIMIT


def _run(
    runtime: Runtime,
    fn: Callable[..., dict[str, np.ndarray]],
    units: list[WorkUnit],
    *,
    shared: Any,
    config: dict[str, Any],
    description: str,
) -> dict[str, dict[str, np.ndarray]]:
    """Run ``units`` (stored in the runtime's run directory) and return their arrays; a failed
    unit raises (a partial count would be a wrong figure)."""
    store = runtime.store(config)
    try:
        res = runtime.run(fn, units, shared=shared, store=store, description=description)
    finally:
        if store is not None:
            store.close()
    out = {}
    for u in units:
        r = res[u.key]
        if r.arrays is None:
            raise RuntimeError(f"work unit {u.key} failed: {r.error}")
        out[u.key] = r.arrays
    return out


def _each_partition(
    runtime: Runtime,
    fn: Callable[..., dict[str, np.ndarray]],
    table: Table,
    rows: int | None,
    *,
    prefix: str,
    shared: Any,
    store: str,
    config: dict[str, Any],
    description: str,
    with_start: bool = False,
) -> tuple[list[tuple[int, int]], list[dict[str, np.ndarray]]]:
    """``fn(shared, part)`` (``fn(shared, part, start)`` ``with_start``) on every partition of
    ``table``, one work unit each, stored in the run store ``store`` under a key holding a
    digest of the partition; the partitions' bounds and the units' arrays, in partition order."""
    bounds = partitions(len(table), rows)
    units = []
    for a, b in bounds:
        part = Table(table.schema, table.codes[a:b], table.values[a:b])
        args = (part, a) if with_start else (part,)
        units.append(WorkUnit(f"{prefix}-{a}-{table_fingerprint(part)}", args))
    found = _run(
        runtime.sub(store),
        fn,
        units,
        shared=shared,
        config={**config, "parts": len(bounds)},
        description=description,
    )
    return bounds, [found[u.key] for u in units]


# --- cell rarity ----------------------------------------------------------------------------


def _rarity_subsets(f: int, order: int) -> list[tuple[int, ...]]:
    return [c for size in range(1, order + 1) for c in itertools.combinations(range(f), size)]


def _rarity_count_unit(shared: dict[str, Any], codes: np.ndarray) -> dict[str, np.ndarray]:
    """Per-partition counts of every subset's cells: ``k{j}``/``c{j}`` for subset ``j``."""
    out: dict[str, np.ndarray] = {}
    for j, cols in enumerate(shared["subsets"]):
        out[f"k{j}"], out[f"c{j}"] = count_keys(mixed_keys(codes, cols, shared["widths"]))
    return out


def _rarity_score_unit(shared: dict[str, Any], codes: np.ndarray) -> dict[str, np.ndarray]:
    """Scores of a partition's records from the table's cell counts, summed over the subsets in
    the order :func:`~synthleak.vulnerability.cell_rarity_scores` sums them."""
    score = np.zeros(codes.shape[0], dtype=np.float64)
    for cols, (keys, counts) in zip(shared["subsets"], shared["totals"], strict=True):
        key = mixed_keys(codes, cols, shared["widths"])
        score += 1.0 / counts[np.searchsorted(keys, key)]
    return {"score": score}


def cell_rarity_partitioned(
    table: Table,
    runtime: Runtime,
    *,
    order: int = 2,
    n_bins: int = CELL_RARITY_BINS,
    rows: int | None = None,
) -> np.ndarray:
    """:func:`~synthleak.vulnerability.cell_rarity_scores` computed as per-partition work units:
    the same scores, bit for bit.

    The quantile bins are fitted on the whole table by the driver (one sort per continuous
    column), as locally; the units count and score their partition's codes.
    """
    n, f = len(table), len(table.schema)
    if n == 0 or order not in (1, 2, 3):
        return cell_rarity_scores(table, order=order, n_bins=n_bins)
    disc = Discretiser(table.schema, n_bins=int(n_bins), strategy="quantile", data=table)
    codes = disc.transform(table)
    widths = [int(w) for w in codes.max(axis=0).astype(np.int64) + 1]
    subsets = _rarity_subsets(f, order)
    if not all(_fits(c, widths) for c in subsets):  # pragma: no cover - needs > 2^20 levels
        return cell_rarity_scores(table, order=order, n_bins=n_bins)
    bounds = partitions(n, rows)
    digests = [_digest(codes[a:b]) for a, b in bounds]
    whole = hashlib.blake2b("".join(digests).encode(), digest_size=8).hexdigest()
    config = {"stage": "cell-rarity", "order": order, "n_bins": int(n_bins), "rows": bounds[0][1]}
    shared: dict[str, Any] = {"subsets": subsets, "widths": widths}
    count_units = [
        WorkUnit(f"count-{i}-{d}", (codes[a:b],))
        for i, ((a, b), d) in enumerate(zip(bounds, digests, strict=True))
    ]
    counted = _run(
        runtime.sub("counts"),
        _rarity_count_unit,
        count_units,
        shared=shared,
        config=config,
        description="cell counts by partition",
    )
    totals = [
        merge_counts([(counted[u.key][f"k{j}"], counted[u.key][f"c{j}"]) for u in count_units])
        for j in range(len(subsets))
    ]
    del counted
    score_units = [
        WorkUnit(f"score-{i}-{d}-{whole}", (codes[a:b],))
        for i, ((a, b), d) in enumerate(zip(bounds, digests, strict=True))
    ]
    scored = _run(
        runtime.sub("scores"),
        _rarity_score_unit,
        score_units,
        shared={**shared, "totals": totals},
        config=config,
        description="cell rarity by partition",
    )
    return np.concatenate([scored[u.key]["score"] for u in score_units])


def rank_by_rarity(table: Table, runtime: Runtime, *, rows: int | None = None) -> Ranking:
    """``rank_records(table, "rarity")`` with the scores of :func:`cell_rarity_partitioned`
    (the same order: decreasing score, ties by the lower row)."""
    scores = cell_rarity_partitioned(table, runtime, rows=rows)
    order = np.argsort(-scores, kind="stable").astype(np.int64)
    return Ranking(TargetMethod.RARITY, order, scores[order], len(table))


# --- utility marginals ----------------------------------------------------------------------


def _marginal_count_unit(shared: dict[str, Any], codes: np.ndarray) -> dict[str, np.ndarray]:
    """Per-partition counts of each marginal's cells: ``k{j}``/``c{j}`` for marginal ``j``."""
    out: dict[str, np.ndarray] = {}
    for j, attrs in enumerate(shared["marginals"]):
        out[f"k{j}"], out[f"c{j}"] = count_keys(mixed_keys(codes, attrs, shared["sizes"]))
    return out


def _table_marginals(
    runtime: Runtime,
    name: str,
    codes: np.ndarray,
    sizes: Sequence[int],
    marginals: np.ndarray,
    rows: int | None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    bounds = partitions(codes.shape[0], rows)
    marg = [tuple(int(a) for a in m) for m in marginals]
    mdig = hashlib.blake2b(repr(marg).encode(), digest_size=6).hexdigest()
    units = [
        WorkUnit(f"{name}-{i}-{_digest(codes[a:b])}-{mdig}", (codes[a:b],))
        for i, (a, b) in enumerate(bounds)
    ]
    counted = _run(
        runtime.sub(name),
        _marginal_count_unit,
        units,
        shared={"marginals": marg, "sizes": list(sizes)},
        config={"stage": "utility-marginals", "rows": bounds[0][1]},
        description=f"marginal counts of the {name} by partition",
    )
    return [
        merge_counts([(counted[u.key][f"k{j}"], counted[u.key][f"c{j}"]) for u in units])
        for j in range(len(marg))
    ]


def _align(
    a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Counts of two tables over the cells either holds, in increasing key order (the order of
    :func:`~synthleak.metrics.utility.joint_marginal_counts`)."""
    keys = np.union1d(a[0], b[0])
    ca = np.zeros(keys.size, dtype=np.int64)
    cb = np.zeros(keys.size, dtype=np.int64)
    ca[np.searchsorted(keys, a[0])] = a[1]
    cb[np.searchsorted(keys, b[0])] = b[1]
    return ca, cb


def marginal_counter(runtime: Runtime, *, rows: int | None = None) -> MarginalCounter:
    """A ``counter`` for :func:`~synthleak.metrics.utility.utility_estimate` that counts every
    marginal of both tables as per-partition work units (the original's counts are kept for
    the next table it is compared with)."""
    cache: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    calls = itertools.count()

    def count(
        original: np.ndarray, other: np.ndarray, sizes: np.ndarray, marginals: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]] | None:
        size_list = [int(v) for v in sizes]
        if not all(_fits(m, size_list) for m in marginals):  # pragma: no cover - huge domains
            return None
        key = _digest(original) + repr(marginals.tolist())
        if key not in cache:
            cache.clear()
            cache[key] = _table_marginals(runtime, "original", original, size_list, marginals, rows)
        other_counts = _table_marginals(
            runtime, f"other{next(calls)}", other, size_list, marginals, rows
        )
        return [_align(o, s) for o, s in zip(cache[key], other_counts, strict=True)]

    return count


# --- the copy check -------------------------------------------------------------------------


def _hash_by_partition(
    frame: pd.DataFrame, plan: CopyPlan, rows: int | None
) -> dict[str, np.ndarray]:
    """:func:`~synthleak.metrics.copies.copy_hashes` of ``frame``, one partition at a time (a
    row's keys do not depend on the other rows, so the keys are those of the whole frame)."""
    parts = [copy_hashes(frame.iloc[a:b], plan) for a, b in partitions(len(frame), rows)]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _by_key_range(keys: np.ndarray, n_ranges: int) -> tuple[np.ndarray, np.ndarray]:
    """The positions of ``keys`` grouped by key range (range ``r`` holds the keys whose top 32
    bits fall in the ``r``-th of ``n_ranges`` equal slices; stable within a range) and the
    ranges' bounds in that order. Equal keys always fall in one range."""
    r = ((keys >> np.uint64(32)) * np.uint64(n_ranges)) >> np.uint64(32)
    order = np.argsort(r, kind="stable")
    bounds = np.searchsorted(r[order], np.arange(n_ranges + 1, dtype=np.uint64))
    return order.astype(np.int64), bounds


def _payload_digest(arrays: dict[str, np.ndarray]) -> str:
    """A digest of named arrays: their names, lengths and bytes (a key that moved from one
    part to another changes it)."""
    h = hashlib.blake2b(digest_size=8)
    for name, arr in arrays.items():
        h.update(f"{name}:{arr.dtype.str}:{arr.size};".encode())
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


def _copy_match_unit(shared: Any, keys: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The exact check on one key range: ``keys`` holds the range's keys of every part
    (``original:rows``, ``synthetic:v0``, ...) and ``original_rows``, the original rows of
    ``original:rows``."""
    parts: dict[str, dict[str, np.ndarray]] = {}
    for name, arr in keys.items():
        if ":" in name:
            part, what = name.split(":", 1)
            parts.setdefault(part, {})[what] = arr
    return copy_counts(
        parts["original"], parts["synthetic"], parts.get("control"), keys["original_rows"]
    )


def copy_counter(runtime: Runtime, *, rows: int | None = None) -> CopyCounter:
    """A ``counter`` for :func:`~synthleak.metrics.copies.copy_report` whose matching runs as
    one work unit per key range.

    The driver, which holds the values it read, hashes each part one partition of ``rows`` at
    a time (its memory: one partition's temporaries and 8 bytes per row and checked value);
    the keys are then split by key range (every key of one value falls in one range), and each
    unit matches the release, the control and the original of one range. Counts are integers
    summed in range order and the copied rows are concatenated and sorted, so the report is
    the local one, bit for bit (:func:`~synthleak.metrics.copies.merge_copy_counts`).
    """

    def count(frames: list[pd.DataFrame], plan: CopyPlan) -> dict[str, np.ndarray]:
        names = ["original", "synthetic", "control"][: len(frames)]
        hashed = {n: _hash_by_partition(f, plan, rows) for n, f in zip(names, frames, strict=True)}
        total = sum(len(f) for f in frames)
        n_ranges = len(partitions(total, rows))
        payloads: list[dict[str, np.ndarray]] = [{} for _ in range(n_ranges)]
        for name, arrays in hashed.items():
            for what, arr in arrays.items():
                order, bounds = _by_key_range(arr, n_ranges)
                for r in range(n_ranges):
                    sel = order[bounds[r] : bounds[r + 1]]
                    payloads[r][f"{name}:{what}"] = arr[sel]
                    if name == "original" and what == "rows":
                        payloads[r]["original_rows"] = sel
        del hashed
        units = [WorkUnit(f"match-{r}-{_payload_digest(p)}", (p,)) for r, p in enumerate(payloads)]
        del payloads
        config = {
            "stage": "copies",
            "tallies": "multiplicity",  # units stored before the tallies are not reused
            "ranges": n_ranges,
            "rows": list(plan.row_columns),
            "values": list(plan.value_columns),
            "numeric": sorted(plan.numeric),
        }
        matched = _run(
            runtime,
            _copy_match_unit,
            units,
            shared=None,
            config=config,
            description="copies by key range",
        )
        return merge_copy_counts([matched[u.key] for u in units])

    return count


# --- the near-copy search -------------------------------------------------------------------


def _nearest_unit(queries: Table, part: Table) -> dict[str, np.ndarray]:
    """Each query's distance to its closest record of one partition of the candidates."""
    return {"distance": nearest_distances(queries, part)}


def nearest_by_partition(runtime: Runtime, *, rows: int | None = None) -> NearestSearch:
    """A ``nearest`` for :func:`~synthleak.metrics.copies.copy_report` that searches the
    candidates (the original) one partition of ``rows`` at a time, one work unit each.

    A unit receives the queries (the sampled release or control records, shared) and its
    partition (a view of the candidates' arrays, serialised for the unit), so no process builds
    the index of the whole original. Every distance is the exact float64 one the whole search
    computes, and the minimum over partitions is the whole search's minimum, bit for bit.
    """

    def search(queries: Table, candidates: Table) -> np.ndarray:
        digest = table_fingerprint(queries)  # one run store per search (release, control)
        _, found = _each_partition(
            runtime,
            _nearest_unit,
            candidates,
            rows,
            prefix="nearest",
            shared=queries,
            store=f"queries-{digest}",
            config={"stage": "near copies", "queries": digest},
            description="near copies by partition",
        )
        return np.minimum.reduce([f["distance"] for f in found])

    return search


# --- singling out's predicate counts ---------------------------------------------------------


def _requests_unit(requests: list[CountRequest], part: Table) -> dict[str, np.ndarray]:
    """Every request's answer on one partition (indexed once), as arrays."""
    out: dict[str, np.ndarray] = {}
    for i, got in enumerate(answer_requests(part, requests)):
        if isinstance(got, Matches):
            out[f"{i}-counts"], out[f"{i}-indptr"], out[f"{i}-rows"] = (
                got.counts,
                got.indptr,
                got.rows,
            )
        else:
            out[f"{i}-counts"] = got
    return out


def _requests_digest(requests: Sequence[CountRequest]) -> str:
    h = hashlib.blake2b(digest_size=8)
    for r in requests:
        h.update(f"{r.cap}-{int(r.listed)}-{len(r.predicates)};".encode())
        h.update(np.ascontiguousarray(r.predicates.ops).tobytes())
        h.update(np.ascontiguousarray(r.predicates.values).tobytes())
    return h.hexdigest()


def requests_by_partition(runtime: Runtime, *, rows: int | None = None) -> RequestCounter:
    """A ``counter`` for :meth:`~synthleak.games.singling_out.SinglingOutGame.run` that counts
    the predicates in one partition of ``rows`` rows of the table per work unit.

    A unit receives the requests (every attack's predicates and its baseline's, shared) and its
    partition, and indexes only the partition, so no process builds the index of the whole
    original (``12 F`` bytes per record with its float64 matrix). Counts are integers, summed;
    a predicate matching at most ``cap`` rows of the table matches at most ``cap`` in every
    partition, which lists them all, so the rows are exact too
    (:func:`~synthleak.attacks.predicates.combine_answers`): the same answers, bit for bit.
    """

    def count(table: Table, requests: Sequence[CountRequest]) -> list[CountAnswer]:
        asked = list(requests)
        digest = _requests_digest(asked)  # one run store per table's requests
        bounds, found = _each_partition(
            runtime,
            _requests_unit,
            table,
            rows,
            prefix="predicates",
            shared=asked,
            store=f"requests-{digest}",
            config={"stage": "singling out", "requests": digest},
            description="predicate counts by partition",
        )
        parts: list[list[CountAnswer]] = []
        for arr in found:
            parts.append(
                [
                    Matches(arr[f"{i}-counts"], arr[f"{i}-indptr"], arr[f"{i}-rows"], r.cap)
                    if r.listed
                    else arr[f"{i}-counts"]
                    for i, r in enumerate(asked)
                ]
            )
        return combine_answers(asked, parts, [a for a, _ in bounds])

    return count


# --- the linkability search ----------------------------------------------------------------

#: The index that pads a unit's answer when its partition holds fewer than ``k`` records (with
#: an infinite distance, it sorts after every record).
NO_ROW = np.iinfo(np.int64).max


def _neighbours_unit(shared: dict[str, Any], part: Table, start: int) -> dict[str, np.ndarray]:
    """Each target's ``k`` nearest records of one partition of the candidates (rows
    ``start, start + len(part)``), ordered by (distance, index): ``distance`` (float64) and
    ``row`` (global index), both ``(targets, k)``, padded with ``inf`` / :data:`NO_ROW`."""
    targets: Table = shared["targets"]
    k = int(shared["k"])
    dist, idx = gower_knn_distances(targets, part, k, shared["ranges"])
    distance = np.full((len(targets), k), np.inf)
    row = np.full((len(targets), k), NO_ROW, dtype=np.int64)
    distance[:, : dist.shape[1]] = dist
    row[:, : idx.shape[1]] = idx + int(start)
    return {"distance": distance, "row": row}


def _merge_neighbours(
    parts: Sequence[dict[str, np.ndarray]], k: int
) -> tuple[np.ndarray, np.ndarray]:
    """The first ``k`` by (distance, global index) of every target's per-partition best."""
    distance = np.concatenate([p["distance"] for p in parts], axis=1)
    row = np.concatenate([p["row"] for p in parts], axis=1)
    order = np.lexsort((row, distance), axis=1)[:, :k]
    return np.take_along_axis(distance, order, axis=1), np.take_along_axis(row, order, axis=1)


def _search_by_partition(
    runtime: Runtime,
    rows: int | None,
    targets: Table,
    candidates: Table,
    k: int,
    ranges: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~synthleak.attacks.linkability.gower_knn_distances` as one work unit per
    partition of ``candidates``: the same distances and indices."""
    k = int(k)
    ranges = np.ascontiguousarray(ranges, dtype=np.float64)
    # one run store per search (targets or controls, on aux_a or aux_b), its k and its ranges
    h = hashlib.blake2b(table_fingerprint(targets).encode(), digest_size=8)
    h.update(f"k={k};".encode() + ranges.tobytes())
    digest = h.hexdigest()
    _, found = _each_partition(
        runtime,
        _neighbours_unit,
        candidates,
        rows,
        prefix="neighbours",
        shared={"targets": targets, "k": k, "ranges": ranges},
        store=f"targets-{digest}",
        config={"stage": "linkability", "targets": digest, "k": k},
        description="linkability neighbours by partition",
        with_start=True,
    )
    return _merge_neighbours(found, min(k, len(candidates)))


def neighbours_by_partition(runtime: Runtime, *, rows: int | None = None) -> NeighbourSearch:
    """A ``search`` for :class:`~synthleak.games.linkability.LinkabilityGame` (and
    :meth:`NearestNeighbourLinkability.links
    <synthleak.attacks.linkability.NearestNeighbourLinkability.links>`) that searches the
    candidates (the release on one side's auxiliary columns) one partition of ``rows`` at a time,
    one work unit each.

    A unit receives the targets, the ranges and ``k`` (shared) and its partition, and returns
    each target's ``k`` best records of the partition by (distance, global index), padded with
    ``inf`` when the partition is shorter; the driver keeps the first ``k`` of all partitions by
    (distance, global index). A candidate's distance is the same float64 value in any partition
    (it depends on the target, the candidate and the ranges only, and the ranges are computed
    once, by the attack, over the whole release and the targets) and the local search orders by
    (distance, index) too, so the neighbours are :func:`~synthleak.attacks.linkability.gower_knn`'s,
    bit for bit; no process sorts or scales the whole release.
    """

    def search(targets: Table, candidates: Table, k: int, ranges: np.ndarray) -> np.ndarray:
        return _search_by_partition(runtime, rows, targets, candidates, k, ranges)[1]

    return search


# --- the audit's hooks ----------------------------------------------------------------------


def rank(table: Table, method: str, *, k: int, runtime: Runtime) -> Ranking:
    """The vulnerability stage's ranking: cell rarity by partition on a cluster, else
    :func:`~synthleak.vulnerability.rank_records` (``V_k`` stays local: see ARCHITECTURE.md)."""
    if runtime.cluster is not None and method == "rarity":
        return rank_by_rarity(table, runtime)
    return rank_records(table, method, k=k)


def utility_counter(runtime: Runtime) -> MarginalCounter | None:
    """The utility stage's marginal counter: by partition on a cluster, else ``None`` (local)."""
    return marginal_counter(runtime) if runtime.cluster is not None else None


def copies_counter(runtime: Runtime) -> CopyCounter | None:
    """The copies stage's exact matching: by key range on a cluster, else ``None`` (local)."""
    return copy_counter(runtime) if runtime.cluster is not None else None


def near_search(runtime: Runtime) -> NearestSearch | None:
    """The copies stage's near-copy search: by partition of the original on a cluster, else
    ``None`` (local)."""
    return nearest_by_partition(runtime) if runtime.cluster is not None else None


def predicate_counter(runtime: Runtime) -> RequestCounter | None:
    """Singling out's predicate counts: by partition of the original and the control on a
    cluster, else ``None`` (local)."""
    return requests_by_partition(runtime) if runtime.cluster is not None else None


def link_search(runtime: Runtime) -> NeighbourSearch | None:
    """The linkability stage's nearest-neighbour search: by partition of the release on a
    cluster, else ``None`` (the attack's local search)."""
    return neighbours_by_partition(runtime) if runtime.cluster is not None else None


def driver_runtime(runtime: Runtime) -> Runtime:
    """``runtime`` without its cluster, for the release games whose work units share the whole
    release and control (no-box membership, release attribute inference): on a cluster their
    shared object would be broadcast to every worker, so a worker's memory would grow with the
    data (at 10M rows it passed 4 GB). They run in the driver's process and its local workers
    instead; where a unit runs never changes its result."""
    return replace(runtime, cluster=None)
