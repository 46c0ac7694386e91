"""Runtime at scale: inline == process pool == Dask LocalCluster; resume after ``kill -9``;
an unreachable scheduler is a clear InputError."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.membership import MembershipGame
from synthleak.games.shadow import generate_batch as _generate_batch
from synthleak.runtime import Runtime, WorkUnit, run_units
from synthleak.runtime.executor import connect_cluster

FAST = {"query": {"n_queries": 40, "n_estimators": 10}, "distance": {"n_estimators": 10}}


def _omega(seed: int = 0, n: int = 500) -> sl.Table:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "b": rng.choice(["u", "v"], n),
            "x": rng.normal(size=n).round(2),
        }
    )
    return sl.Table.from_frame(df, sl.infer_schema(df, categorical=["a", "b"], continuous=["x"]))


def _game(**kw: object) -> MembershipGame:
    base: dict[str, object] = dict(
        targets=[0, 1],
        train_size=30,
        synthetic_size=40,
        n_shadows=16,
        n_tests=12,
        attacks=("distance", "query"),
        attack_params=FAST,
        aux_size=250,
        test_size=150,
        batch_size=4,
    )
    base.update(kw)
    return MembershipGame("baynet", **base)  # type: ignore[arg-type]


def test_inline_processes_and_dask_give_identical_results() -> None:
    distributed = pytest.importorskip("distributed")
    omega = _omega()
    rows = np.stack([np.arange(i, i + 30, dtype=np.int64) for i in range(0, 240, 30)])
    units = [WorkUnit(f"u{i}", (0, 2 * i, rows[2 * i : 2 * i + 2])) for i in range(4)]
    shared = {"omega": omega, "m": 20, "seed": 1, "generator": "baynet"}
    inline_units = run_units(_generate_batch, units, shared=shared)
    pooled_units = run_units(_generate_batch, units, shared=shared, workers=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        inline = _game().run(omega, seed=3)
        # a real scheduler on loopback TCP (worker threads in this process keep the test fast)
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
            assert cluster.scheduler_address.startswith("tcp://127.0.0.1")
            dasked = _game().run(omega, seed=3, runtime=Runtime(cluster=client))
            by_addr = run_units(
                _generate_batch, units, shared=shared, cluster=cluster.scheduler_address
            )
    assert inline.same_as(dasked)
    for u in units:
        ref = inline_units[u.key].arrays
        assert ref is not None and ref["ok"].all()
        for other in (pooled_units, by_addr):
            got = other[u.key].arrays
            assert got is not None
            np.testing.assert_array_equal(got["codes"], ref["codes"])
            np.testing.assert_array_equal(got["values"], ref["values"])


_SCRIPT = """
import sys, warnings
import numpy as np, pandas as pd
import synthleak as sl
from synthleak.games.membership import MembershipGame
rng = np.random.default_rng(0)
n = 500
df = pd.DataFrame({"a": rng.choice(["p", "q", "r"], n), "b": rng.choice(["u", "v"], n), "x": rng.normal(size=n).round(2)})
omega = sl.Table.from_frame(df, sl.infer_schema(df, categorical=["a", "b"], continuous=["x"]))
game = MembershipGame("baynet", targets=[0, 1, 2], train_size=30, synthetic_size=40, n_shadows=100,
                      n_tests=30, attacks=("distance",), attack_params={"distance": {"n_estimators": 10}},
                      aux_size=250, test_size=150, batch_size=1)
warnings.simplefilter("ignore")
game.run(omega, seed=7, runtime=sl.Runtime(run_dir=sys.argv[1]))
"""


def _catalogue(run: Path) -> dict[str, float]:
    con = sqlite3.connect(run / "catalogue.sqlite")
    try:
        return dict(con.execute("SELECT key, finished FROM units WHERE status = 'ok'").fetchall())
    finally:
        con.close()


def test_resume_after_sigkill_recomputes_nothing_and_matches_fresh_run(tmp_path: Path) -> None:
    script = tmp_path / "run_game.py"
    script.write_text(_SCRIPT)
    run = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, str(script), str(run)])
    total = 130 + 3  # generation units (batch 1) + attack units
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if (run / "catalogue.sqlite").exists():
                try:
                    if len(_catalogue(run)) >= 20:
                        break
                except sqlite3.OperationalError:
                    pass
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    before = _catalogue(run)
    assert 20 <= len(before) < total  # killed mid-run

    rng = np.random.default_rng(0)
    n = 500
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "b": rng.choice(["u", "v"], n),
            "x": rng.normal(size=n).round(2),
        }
    )
    omega = sl.Table.from_frame(df, sl.infer_schema(df, categorical=["a", "b"], continuous=["x"]))
    kw = dict(
        targets=[0, 1, 2],
        train_size=30,
        synthetic_size=40,
        n_shadows=100,
        n_tests=30,
        attacks=("distance",),
        attack_params={"distance": {"n_estimators": 10}},
        aux_size=250,
        test_size=150,
        batch_size=1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resumed = MembershipGame("baynet", **kw).run(omega, seed=7, runtime=Runtime(run_dir=run))  # type: ignore[arg-type]
        after = _catalogue(run)
        fresh = MembershipGame("baynet", **kw).run(omega, seed=7)  # type: ignore[arg-type]
    assert len(after) == total
    assert {k: after[k] for k in before} == before  # nothing finished was recomputed
    assert resumed.same_as(fresh)
    assert (
        json.loads((run / "result.json").read_text())["targets"]
        == json.loads(resumed.to_json())["targets"]
    )


def test_unreachable_cluster_is_a_clear_input_error() -> None:
    pytest.importorskip("distributed")
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        connect_cluster("tcp://127.0.0.1:9", timeout=1)
