"""Per-partition stages: the same figures as the local stages, bit for bit, inline and on a
Dask LocalCluster on loopback; units kept in the run directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.stages.audit_helpers import TINY

import synthleak as sl
from synthleak import partitioned
from synthleak.metrics.utility import utility_estimate
from synthleak.pipeline import audit
from synthleak.runtime import Runtime
from synthleak.runtime.store import finished_units
from synthleak.serde import without_timings
from synthleak.vulnerability import cell_rarity_scores, rank_records


def _mixed(n: int, seed: int) -> sl.Table:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(2)
    x[rng.random(n) < 0.05] = np.nan
    df = pd.DataFrame(
        {
            "a": rng.choice([f"v{i}" for i in range(40)], n),
            "b": rng.choice(["u", "v", "w"], n, p=[0.8, 0.15, 0.05]),
            "x": x,
            "y": rng.integers(0, 1000, n).astype(float),
        }
    )
    schema = sl.infer_schema(df, categorical=["a", "b"], continuous=["x", "y"])
    return sl.Table.from_frame(df, schema)


def test_partitions_cover_the_rows_once() -> None:
    assert partitioned.partitions(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert partitioned.partitions(8, 4) == [(0, 4), (4, 8)]
    assert partitioned.partitions(0, 4) == [(0, 0)]
    assert partitioned.partitions(3) == [(0, 3)]
    with pytest.raises(ValueError):
        partitioned.partitions(3, 0)


@pytest.mark.parametrize("rows", [1, 37, 10_000])
@pytest.mark.parametrize("order", [1, 2, 3])
def test_cell_rarity_by_partition_equals_local_bit_for_bit(rows: int, order: int) -> None:
    table = _mixed(300, 1)
    local = cell_rarity_scores(table, order=order)
    parted = partitioned.cell_rarity_partitioned(table, Runtime(), order=order, rows=rows)
    np.testing.assert_array_equal(parted, local)
    ranked = partitioned.rank_by_rarity(table, Runtime(), rows=rows) if order == 2 else None
    if ranked is not None:
        ref = rank_records(table, "rarity")
        np.testing.assert_array_equal(ranked.rows, ref.rows)
        np.testing.assert_array_equal(ranked.scores, ref.scores)


@pytest.mark.parametrize("rows", [7, 64, 10_000])
def test_utility_by_partition_equals_local_bit_for_bit(rows: int) -> None:
    o, s, c = _mixed(400, 1), _mixed(250, 2), _mixed(500, 3)
    local = utility_estimate(o, s, c, rng=np.random.default_rng(4), n_boot=50)
    counter = partitioned.marginal_counter(Runtime(), rows=rows)
    parted = utility_estimate(o, s, c, rng=np.random.default_rng(4), n_boot=50, counter=counter)
    assert json.dumps(parted, default=str) == json.dumps(local, default=str)
    assert parted["n_reference"] == 250  # the control was subsampled to the release's size


def _copy_frames(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.integers(0, 4, n),
            "x": rng.choice([0.5, 1.0, np.nan, 2.0], n),
            "s": rng.choice(["u", "v", None], n),
            "id": [f"p{v}" for v in rng.integers(0, 3 * n, n)],
            "t": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 3, n), unit="D"),
        }
    )


@pytest.mark.parametrize("rows", [1, 45, 10_000])
@pytest.mark.parametrize("with_control", [True, False])
def test_copies_by_key_range_equal_local_bit_for_bit(
    rows: int, with_control: bool, tmp_path: Path
) -> None:
    from synthleak.metrics.copies import copy_report

    ori = _copy_frames(400, 1)
    syn = pd.concat([ori.sample(60, random_state=1), _copy_frames(200, 2)], ignore_index=True)
    syn.loc[:9, "x"] = syn.loc[:9, "x"].astype(float)  # 1 and 1.0 are one number
    syn["a"] = syn["a"].astype(float)  # numeric in every part: compared as numbers
    ctl = pd.concat([ori.sample(20, random_state=3), _copy_frames(150, 4)], ignore_index=True)
    kw: dict[str, Any] = {"row_columns": ["a", "x", "s", "t"], "value_columns": ["id"]}
    kw["near_quantile"] = 0.0
    control = ctl if with_control else None
    local = copy_report(ori, syn, control, **kw)
    counter = partitioned.copy_counter(Runtime(run_dir=tmp_path), rows=rows)
    parted = copy_report(ori, syn, control, counter=counter, **kw)
    assert parted.to_json() == local.to_json()
    assert local.copied_rows.size >= 60 and [c.column for c in local.columns] == ["id"]
    ranges = len(
        partitioned.partitions(len(ori) + len(syn) + (len(ctl) if with_control else 0), rows)
    )
    assert finished_units(tmp_path) == ranges  # one stored unit per key range


def _near_units(run: Path) -> int:
    """Stored near-copy units: one run store per search, under ``queries-<digest>``."""
    return sum(finished_units(d) for d in run.glob("queries-*"))


@pytest.mark.parametrize("rows", [1, 97, 10_000])
@pytest.mark.parametrize("with_control", [True, False])
def test_near_copies_by_partition_equal_local_bit_for_bit(
    rows: int, with_control: bool, tmp_path: Path
) -> None:
    """The near-copy search split over partitions of the original: the same distances (the
    minimum of exact ones), so the same threshold, rates and report."""
    from synthleak.metrics.copies import copy_report

    ori = _mixed(300, 5).to_frame()
    syn = pd.concat([ori.sample(40, random_state=1), _mixed(200, 6).to_frame()], ignore_index=True)
    ctl = _mixed(150, 7).to_frame()
    control = ctl if with_control else None
    kw: dict[str, Any] = {"near_sample": 120, "near_quantile": 0.2}
    local = copy_report(ori, syn, control, rng=np.random.default_rng(0), **kw)
    search = partitioned.nearest_by_partition(Runtime(run_dir=tmp_path), rows=rows)
    parted = copy_report(ori, syn, control, rng=np.random.default_rng(0), nearest=search, **kw)
    assert parted.to_json() == local.to_json()
    assert local.near_synthetic is not None and local.near_synthetic.value > 0.1  # the copies
    searches = 2 if with_control else 1  # without a control the baseline stays local
    assert _near_units(tmp_path) == searches * len(partitioned.partitions(len(ori), rows))


def _request_units(run: Path) -> int:
    """Stored predicate-count units: one run store per table's requests, ``requests-<digest>``."""
    return sum(finished_units(d) for d in run.glob("requests-*"))


@pytest.mark.parametrize("rows", [1, 13, 10_000])
def test_predicate_counts_by_partition_equal_local(rows: int, tmp_path: Path) -> None:
    """Capped counts, exact counts and the listed rows of predicates counted one partition at
    a time equal the whole table's, for predicates matching 0, 1, a few and many rows (the
    table has duplicated records and missing values)."""
    from synthleak.attacks.predicates import CountRequest, Matches, answer_requests
    from synthleak.attacks.singling_out import random_predicates

    base = _mixed(120, 3)
    table = base.take(np.concatenate([np.arange(120), np.arange(30), np.arange(5)]))
    rng = np.random.default_rng(4)
    requests = [
        CountRequest(random_predicates(table, 200, n, rng=rng), cap, listed)
        for n, cap, listed in [(1, 2, False), (2, 0, False), (3, 2, True), (1, 7, True)]
    ]
    counter = partitioned.requests_by_partition(Runtime(run_dir=tmp_path), rows=rows)
    whole = answer_requests(table, requests)
    parted = counter(table, requests)
    for w, p in zip(whole, parted, strict=True):
        if isinstance(w, Matches):
            assert isinstance(p, Matches) and p.cap == w.cap
            for a, b in ((w.counts, p.counts), (w.indptr, p.indptr), (w.rows, p.rows)):
                assert a.dtype == b.dtype and np.array_equal(a, b)
        else:
            assert np.asarray(p).dtype == w.dtype and np.array_equal(p, w)
    listed = whole[3]
    assert isinstance(listed, Matches)
    assert {0, 1, 2}.issubset(set(listed.counts.tolist())) and listed.counts.max() > 7
    assert _request_units(tmp_path) == len(partitioned.partitions(len(table), rows))


@pytest.mark.parametrize("rows", [1, 64, 10_000])
def test_singling_out_by_partition_equals_local_bit_for_bit(rows: int, tmp_path: Path) -> None:
    """The singling-out game with its predicates counted by partition of the original and the
    control: the same result, bit for bit, on a release that leaks (copied records)."""
    from synthleak.data.release import Release
    from synthleak.games.singling_out import SinglingOutGame

    ori = _mixed(400, 8)
    syn = ori.take(np.arange(150)).to_frame()
    ctl = _mixed(100, 9).to_frame()
    release = Release(ori.to_frame(), syn, ctl)
    game = SinglingOutGame(n_attacks=150)
    local = game.run(release, seed=3)
    counter = partitioned.requests_by_partition(Runtime(run_dir=tmp_path), rows=rows)
    parted = game.run(release, seed=3, counter=counter)
    assert parted.to_json() == local.to_json()
    assert local["multivariate"].n_success > 0 and local["multivariate"].risk.value > 0
    # the original's requests (predicates and baselines) and the control's, one unit a partition
    n_parts = len(partitioned.partitions(400, rows)) + len(partitioned.partitions(100, rows))
    assert _request_units(tmp_path) == n_parts


def _ties(n: int, seed: int) -> sl.Table:
    """Categorical columns of two or three levels only: distances 0 to 3, massively tied."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {c: rng.choice(list("pqr")[:w], n) for c, w in zip("abc", (2, 3, 2), strict=True)}
    )
    return sl.Table.from_frame(df, sl.infer_schema(df, categorical=list("abc")))


def _gaps(n: int, seed: int) -> sl.Table:
    """Coarse continuous values (exact ties) with many missing cells, and the first 20 rows
    missing ``x`` altogether (a partition there has no value to walk on)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, n).astype(float)
    y = rng.integers(0, 3, n).astype(float)
    x[rng.random(n) < 0.3] = np.nan
    y[rng.random(n) < 0.2] = np.nan
    x[:20] = np.nan
    df = pd.DataFrame({"a": rng.choice(list("pq"), n), "x": x, "y": y})
    return sl.Table.from_frame(df, sl.infer_schema(df, categorical=["a"], continuous=["x", "y"]))


def _link_ranges(targets: sl.Table, candidates: sl.Table) -> np.ndarray:
    """The ranges the attack computes: each continuous column's over both tables."""
    both = np.concatenate([candidates.values, targets.values]).astype(np.float64)
    spread = np.nanmax(both, axis=0) - np.nanmin(both, axis=0)
    return np.where(spread > 0, spread, 1.0)


def _link_case(kind: str, adult: sl.Table) -> tuple[sl.Table, sl.Table]:
    if kind == "adult":
        rows = np.random.default_rng(3).choice(len(adult), 360, replace=False)
        return adult.take(rows[:60]), adult.take(rows[60:])
    if kind == "ties":
        return _ties(60, 1), _ties(300, 2)
    return _gaps(60, 1), _gaps(300, 2)


@pytest.mark.parametrize("kind", ["adult", "ties", "gaps"])
@pytest.mark.parametrize("rows", [1, 7, 10_000])
@pytest.mark.parametrize("k", [1, 3])
def test_linkability_search_by_partition_equals_local_bit_for_bit(
    kind: str, rows: int, k: int, adult_table: sl.Table, tmp_path: Path
) -> None:
    """The release split into partitions of 1, 7 and all rows: the same neighbours as the
    local search (ties by the lower index) and the same float64 distances."""
    from synthleak.attacks.linkability import gower_knn, gower_knn_distances

    targets, candidates = _link_case(kind, adult_table)
    ranges = _link_ranges(targets, candidates)
    runtime = Runtime(run_dir=tmp_path)
    local = gower_knn(targets, candidates, k, ranges)
    search = partitioned.neighbours_by_partition(runtime, rows=rows)
    np.testing.assert_array_equal(search(targets, candidates, k, ranges), local)
    dist, idx = partitioned._search_by_partition(runtime, rows, targets, candidates, k, ranges)
    ref_dist, ref_idx = gower_knn_distances(targets, candidates, k, ranges)
    np.testing.assert_array_equal(idx, ref_idx)
    assert dist.dtype == np.float64 and dist.tobytes() == ref_dist.tobytes()
    # one stored unit per partition (the second search replayed them)
    assert finished_units(tmp_path) == len(partitioned.partitions(len(candidates), rows))
    if kind == "ties":  # every neighbour is at distance 0: the tie rule alone decides
        assert (dist == 0).all()


def test_linkability_by_partition_through_the_attack_and_the_game(adult_table: sl.Table) -> None:
    """The attack's ranges and both halves: the same links and the same game result."""
    from synthleak.attacks.linkability import NearestNeighbourLinkability
    from synthleak.data.release import Release
    from synthleak.games.linkability import LinkabilityGame

    rows = np.random.default_rng(4).choice(len(adult_table), 900, replace=False)
    ori, syn, ctl = (adult_table.take(r) for r in np.split(rows, [300, 600]))
    names = adult_table.schema.names
    aux_a, aux_b = names[: len(names) // 2], names[len(names) // 2 :]
    search = partitioned.neighbours_by_partition(Runtime(), rows=45)
    attack = NearestNeighbourLinkability(aux_a, aux_b, n_neighbors=3).fit(syn)
    for cols in (aux_a, aux_b):
        np.testing.assert_array_equal(
            attack.neighbors(ori, cols, search=search), attack.neighbors(ori, cols)
        )
    game = LinkabilityGame(aux_a, aux_b, n_attacks=200, n_neighbors=3)
    release = Release(ori.to_frame(), syn.to_frame(), ctl.to_frame())
    local = game.run(release, seed=1)
    assert game.run(release, seed=1, search=search).to_json() == local.to_json()
    assert local.attacks[0].n_success > 0


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(0, 30),
    st.integers(1, 5),
    st.integers(1, 12),
    st.integers(0, 2**32 - 1),
)
def test_linkability_search_by_partition_property(
    n: int, t: int, k: int, rows: int, seed: int
) -> None:
    """Random small tables (fewer candidates than k included), coarse values, missing cells."""
    from synthleak.attacks.linkability import gower_knn_distances

    rng = np.random.default_rng(seed)

    x = rng.integers(0, 3, t + n).astype(float)
    x[rng.random(t + n) < 0.3] = np.nan
    df = pd.DataFrame({"a": rng.choice(list("pq"), t + n), "x": x})
    schema = sl.infer_schema(
        pd.DataFrame({"a": ["p", "q", "p"], "x": [0.0, 2.0, np.nan]}),
        categorical=["a"],
        continuous=["x"],
    )
    targets = sl.Table.from_frame(df.iloc[:t], schema)
    candidates = sl.Table.from_frame(df.iloc[t:], schema)
    ranges = np.array([float(rng.choice([1.0, 2.0, 3.0]))])
    dist, idx = partitioned._search_by_partition(Runtime(), rows, targets, candidates, k, ranges)
    ref_dist, ref_idx = gower_knn_distances(targets, candidates, k, ranges)
    assert idx.shape == ref_idx.shape == (t, min(k, n))
    np.testing.assert_array_equal(idx, ref_idx)
    assert dist.tobytes() == ref_dist.tobytes()


def test_a_failed_linkability_unit_fails_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(shared: Any, part: sl.Table, start: int) -> dict[str, np.ndarray]:
        raise ValueError("lost")

    monkeypatch.setattr(partitioned, "_neighbours_unit", broken)
    targets, candidates = _ties(5, 1), _ties(30, 2)
    search = partitioned.neighbours_by_partition(Runtime(), rows=10)
    with pytest.raises(RuntimeError, match="failed: ValueError: lost"):
        search(targets, candidates, 1, np.ones(0))


def test_a_key_range_unit_is_keyed_by_where_its_keys_are() -> None:
    key = np.array([7], dtype=np.uint64)
    empty = np.zeros(0, dtype=np.uint64)
    a = partitioned._payload_digest({"original:rows": key, "synthetic:rows": empty})
    b = partitioned._payload_digest({"original:rows": empty, "synthetic:rows": key})
    assert a != b and a == partitioned._payload_digest(
        {"original:rows": key, "synthetic:rows": empty}
    )


def test_release_games_run_in_the_driver_on_a_cluster(tmp_path: Path) -> None:
    rt = Runtime(workers=2, cluster="tcp://127.0.0.1:9", run_dir=tmp_path)
    local = partitioned.driver_runtime(rt.sub("nobox"))
    assert local.cluster is None and local.workers == 2 and local.run_dir == tmp_path / "nobox"


def test_a_partial_count_is_never_a_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(shared: Any, codes: np.ndarray) -> dict[str, np.ndarray]:
        raise ValueError("lost")

    monkeypatch.setattr(partitioned, "_rarity_count_unit", broken)
    with pytest.raises(RuntimeError, match="failed: ValueError: lost"):
        partitioned.cell_rarity_partitioned(_mixed(50, 1), Runtime(), rows=20)


def _figures(result: Any) -> dict[str, Any]:
    """The report JSON without what measures the machine (stage times, the budget's clock)."""
    figures: dict[str, Any] = without_timings(json.loads(result.to_json()))
    return figures


def test_release_audit_on_a_loopback_cluster_reports_what_the_local_run_reports(
    split: tuple[sl.Table, sl.Table, sl.Table],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    distributed = pytest.importorskip("distributed")
    train, ctl, other = split
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 256)  # 4 partitions of the original
    local = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2)
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            protocol="tcp://",
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        run = tmp_path / "run"
        rt = Runtime(cluster=client, run_dir=run)
        dasked = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2, runtime=rt)
        stages = ("vulnerability", "utility", "copies")
        kept = sum(finished_units(run / s) for s in stages)
        # counts and scores of 4 partitions; the original's marginals once, release, control;
        # the copy check's 12 key ranges (3,000 records in partitions of 256)
        assert kept == 4 + 4 + 4 + 4 + 4 + 12
        near = _near_units(run / "near-copies")
        assert near == 2 * 4  # the release's and the control's searches, 4 partitions each
        counted = _request_units(run / "singling-out")
        assert counted == 4 + 4  # singling out's predicates: the original's 4, the control's 4
        # linkability: the release's 4 partitions, searched for the original's and the
        # control's targets on each half (4 searches)
        link = finished_units(run / "linkability")
        assert link == 4 * 4

        def lost(shared: Any, codes: np.ndarray) -> dict[str, np.ndarray]:
            raise ValueError("recomputed")

        # a re-run after Ctrl-C or kill -9 inside each stage (so that no stage was kept whole,
        # only its units) reads every finished unit back from the run directory: units that
        # would now fail are never called
        shutil.rmtree(run / "stages")
        monkeypatch.setattr(partitioned, "_rarity_count_unit", lost)
        monkeypatch.setattr(partitioned, "_rarity_score_unit", lost)
        monkeypatch.setattr(partitioned, "_marginal_count_unit", lost)
        monkeypatch.setattr(partitioned, "_copy_match_unit", lost)
        monkeypatch.setattr(partitioned, "_nearest_unit", lost)
        monkeypatch.setattr(partitioned, "_requests_unit", lost)
        # linkability's unit also takes its partition's start
        monkeypatch.setattr(partitioned, "_neighbours_unit", lambda s, p, a: lost(s, p))
        again = audit(train, synthetic=other, control=ctl, plan=TINY, seed=2, runtime=rt)
        assert finished_units(run / "linkability") == link
        assert sum(finished_units(run / s) for s in stages) == kept
        assert _near_units(run / "near-copies") == near
        assert _request_units(run / "singling-out") == counted
    assert local.copies is not None and local.copies.copied_rows.size > 0
    assert _figures(dasked) == _figures(local)
    assert _figures(again) == _figures(local)
    assert local.vulnerability is not None and local.utility is not None
    assert "vulnerability" in _figures(local) and "utility" in _figures(local)


@pytest.fixture(scope="module")
def split(adult_table: sl.Table) -> tuple[sl.Table, sl.Table, sl.Table]:
    rng = np.random.default_rng(5)
    rows = rng.choice(len(adult_table), 3000, replace=False)
    return (
        adult_table.take(rows[:1000]),
        adult_table.take(rows[1000:2000]),
        adult_table.take(np.concatenate([rows[:50], rows[2050:]])),  # 50 copied records
    )


def test_audit_command_with_cluster_writes_the_local_report(
    adult_df: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``synthleak audit --cluster ADDRESS`` with the original as a directory of Parquet parts:
    the report of the local command, the units kept in OUT_DIR/run."""
    distributed = pytest.importorskip("distributed")
    from synthleak import pipeline
    from synthleak.cli.main import main

    monkeypatch.setitem(pipeline.BUDGETS, pipeline.Budget.QUICK, TINY)
    monkeypatch.setattr(partitioned, "PARTITION_ROWS", 200)
    rng = np.random.default_rng(0)
    rows = rng.choice(len(adult_df), 1500, replace=False)
    parts = tmp_path / "original"
    parts.mkdir()
    for i in range(3):
        adult_df.iloc[rows[200 * i : 200 * (i + 1)]].to_parquet(
            parts / f"part-{i}.parquet", index=False
        )
    adult_df.iloc[rows[600:1200]].to_csv(tmp_path / "syn.csv", index=False)
    adult_df.iloc[rows[1200:]].to_csv(tmp_path / "ctl.csv", index=False)
    args = ["audit", "--original", str(parts), "--synthetic", str(tmp_path / "syn.csv")]
    args += ["--control", str(tmp_path / "ctl.csv"), "--budget", "quick"]
    assert main([*args, "--out-dir", str(tmp_path / "local")]) == 0
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        protocol="tcp://",
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        address = cluster.scheduler_address
        code = main([*args, "--cluster", address, "--out-dir", str(tmp_path / "dask")])
    assert code == 0
    assert finished_units(tmp_path / "dask" / "run" / "vulnerability") == 3 + 3
    assert finished_units(tmp_path / "dask" / "run" / "copies") == 8  # 1,500 records / 200

    def report(name: str) -> dict[str, Any]:
        doc = json.loads((tmp_path / name / "report.json").read_text())
        doc["config"].pop("command_line", None)
        return without_timings(doc)

    assert report("dask") == report("local")
