"""Membership game: oracles (nonprivate leaks, data-independent generator does not), pools,
determinism, generator failures, resume from a run directory, input validation, metrics."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.membership import (
    MembershipGame,
    PoolMode,
    attack_outcome,
    load_membership_attacks,
    parse_targets,
)
from synthleak.generators.base import (
    BaseGenerator,
    GeneratorInfo,
    list_generators,
    register_generator,
)

FAST = {
    "query": {"n_queries": 200, "n_estimators": 25, "max_depth": 6},
    "distance": {"n_estimators": 25},
    "groundhog": {"n_estimators": 25},
}


def make_omega(n: int = 800, seed: int = 0) -> Table:
    """A mixed table whose row 0 is an outlier: a category no other row has and extreme values."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "b": rng.choice(["u", "v"], n),
            "c": rng.choice(["k", "l", "o", "z"], n, p=[0.4, 0.3, 0.3, 0.0]),
            "x": np.round(rng.normal(40, 5, n), 0),
            "y": np.round(rng.uniform(0, 10, n), 1),
        }
    )
    df.loc[0, ["a", "b", "c", "x", "y"]] = ["p", "u", "z", 95.0, 10.0]
    return Table.from_frame(
        df, sl.infer_schema(df, categorical=["a", "b", "c"], continuous=["x", "y"])
    )


class FixedSource(BaseGenerator):
    """Ignores its training data: samples a fixed reference table (data-independent oracle)."""

    reference: Table | None = None

    def fit(self, table: Table, *, rng: np.random.Generator) -> FixedSource:
        self.schema_ = table.schema
        return self

    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        assert self.reference is not None
        return self.reference.take(rng.integers(0, len(self.reference), n))


class Flaky(BaseGenerator):
    """nonprivate that fails on about a fifth of the datasets."""

    def fit(self, table: Table, *, rng: np.random.Generator) -> Flaky:
        if rng.random() < 0.2:
            raise RuntimeError("flaky generator gave up")
        self.schema_ = table.schema
        self.data_ = table
        return self

    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        return self.data_.take(rng.integers(0, len(self.data_), n))


def _register() -> None:
    names = {g.name for g in list_generators()}
    if "test-mia-fixed" not in names:
        register_generator(GeneratorInfo("test-mia-fixed", FixedSource, (), "test oracle"))
    if "test-mia-flaky" not in names:
        register_generator(GeneratorInfo("test-mia-flaky", Flaky, (), "test oracle"))


_register()


def test_nonprivate_oracle_outlier_reaches_high_auc() -> None:
    omega = make_omega()
    game = MembershipGame(
        "nonprivate",
        n=60,
        m=180,
        n_shadow=80,
        n_test=80,
        attacks=("query", "distance"),
        attack_params=FAST,
        aux_size=400,
        test_size=300,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(omega, [0, 5], seed=3, selected_by=["rows", "rows"])
    outlier = res.targets[0]
    assert outlier.row == 0
    # m = 3n: the outlier is copied with probability ~0.95 when IN and never appears when OUT
    assert outlier.attacks["query"].auc.value >= 0.9
    assert outlier.attacks["distance"].auc.value >= 0.9
    assert outlier.attacks["query"].tpr_at_fpr["0.1"] >= 0.8
    doc = res.to_dict()
    assert set(doc["summary"]) == {"query", "distance"}
    assert doc["failures"]["failed_datasets"] == 0
    json.dumps(doc)  # serialisable


def test_data_independent_generator_gives_chance_auc() -> None:
    omega = make_omega(seed=1)
    FixedSource.reference = make_omega(n=500, seed=99)
    game = MembershipGame(
        "test-mia-fixed",
        n=50,
        m=100,
        n_shadow=120,
        n_test=400,
        attacks=("distance", "groundhog"),
        attack_params=FAST,
        aux_size=400,
        test_size=300,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(omega, [0, 7, 11], seed=5)
    aucs = np.array([o.auc.value for t in res.targets for o in t.attacks.values()])
    # 400 test datasets: s.e. of one AUC ~0.03; the mean over 6 pairs is tighter still
    assert abs(aucs.mean() - 0.5) <= 0.06
    assert np.all(np.abs(aucs - 0.5) <= 0.12)


def test_same_seed_same_result_and_batches_do_not_matter() -> None:
    omega = make_omega(seed=2)
    kw = dict(
        n=40,
        m=60,
        n_shadow=24,
        n_test=20,
        attacks=("distance", "query"),
        attack_params=FAST,
        aux_size=300,
        test_size=200,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        a = MembershipGame("nonprivate", batch_size=5, **kw).run(omega, [0, 3], seed=11).to_dict()
        b = MembershipGame("nonprivate", batch_size=24, **kw).run(omega, [0, 3], seed=11).to_dict()
        c = MembershipGame("nonprivate", batch_size=5, **kw).run(omega, [0, 3], seed=12).to_dict()
    assert a == b
    assert a["targets"] != c["targets"]


def test_single_pool_is_one_pool_per_target() -> None:
    omega = make_omega(seed=4)
    game = MembershipGame(
        "nonprivate",
        n=40,
        m=120,
        n_shadow=30,
        n_test=30,
        attacks=("distance",),
        attack_params=FAST,
        pool=PoolMode.SINGLE,
        aux_size=300,
        test_size=200,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(omega, [0, 9], seed=1)
    assert res.config["pool"] == "single"
    assert res.targets[0].attacks["distance"].auc.value >= 0.9
    assert all(o.n_test == 30 for t in res.targets for o in t.attacks.values())


def test_design_shared_pool_holds_each_target_in_half_the_datasets() -> None:
    game = MembershipGame("nonprivate", n=30, n_shadow=40, n_test=10, aux_size=300, test_size=200)
    tg = np.array([0, 4, 8])
    aux = np.arange(100, 400)
    design = game._design(7, PoolMode.SHARED, tg, aux, np.arange(400, 600))
    rows, labels = design[0]
    assert rows.shape == (40, 30) and labels.shape == (40, 3)
    assert (labels.sum(axis=0) == 20).all()
    for t, r in enumerate(tg):
        assert np.array_equal((rows == r).any(axis=1), labels[:, t])
    # no duplicate records inside a training dataset
    assert all(np.unique(r).size == r.size for r in rows)


def test_generator_failures_are_counted_and_dropped() -> None:
    omega = make_omega(seed=6)
    game = MembershipGame(
        "test-mia-flaky",
        n=40,
        m=80,
        n_shadow=60,
        n_test=40,
        attacks=("distance",),
        attack_params=FAST,
        aux_size=300,
        test_size=200,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = game.run(omega, [0], seed=2)
    f = res.failures
    assert f["total_datasets"] == 100
    assert 5 <= f["failed_datasets"] <= 40
    assert any("flaky generator gave up" in k for k in f["messages"])
    assert any(
        issubclass(w.category, RuntimeWarning) and "failed on" in str(w.message) for w in caught
    )
    # the failed test datasets are dropped from the evaluation
    assert res.targets[0].attacks["distance"].n_test < 40


def test_run_dir_resume_recomputes_nothing(tmp_path) -> None:
    omega = make_omega(seed=8)
    kw = dict(
        n=40,
        m=60,
        n_shadow=20,
        n_test=20,
        attacks=("distance",),
        attack_params=FAST,
        aux_size=300,
        test_size=200,
        batch_size=10,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        first = MembershipGame("nonprivate", run_dir=tmp_path / "run", **kw).run(
            omega, [0, 2], seed=1
        )
        stamps = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "run" / "units").iterdir()}
        second = MembershipGame("nonprivate", run_dir=tmp_path / "run", **kw).run(
            omega, [0, 2], seed=1
        )
    assert first.to_dict() == second.to_dict()
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "run" / "units").iterdir()} == stamps
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    assert saved["targets"][0]["row"] == 0 and "summary" in saved
    assert json.loads((tmp_path / "run" / "schema.json").read_text())
    with pytest.raises(InputError, match="different run"):
        MembershipGame("nonprivate", run_dir=tmp_path / "run", **{**kw, "n_shadow": 30}).run(
            omega, [0, 2], seed=1
        )


@pytest.mark.parametrize(
    ("kwargs", "targets", "match"),
    [
        ({"n": 500}, [0], "larger than D_aux"),
        ({"m": 0}, [0], "--m"),
        ({"attacks": ("nope",)}, [0], "unknown membership attack"),
        ({}, [10_000], "not in the data"),
        ({}, [], "no target"),
        ({}, [1, 1], "twice"),
        ({"pool": "both"}, [0], "pool mode"),
        ({"n": 3}, [0, 1, 2], "shared pool"),
    ],
)
def test_bad_input_raises_input_error(kwargs, targets, match) -> None:
    omega = make_omega()
    base = dict(
        n=40, m=40, n_shadow=10, n_test=10, aux_size=300, test_size=200, attacks=("distance",)
    )
    with pytest.raises(InputError, match=match):
        MembershipGame("nonprivate", **{**base, **kwargs}).run(omega, targets, seed=0)
    with pytest.raises(InputError, match="unknown generator"):
        MembershipGame("no-such-gen", **base).run(omega, [0], seed=0)


def test_parse_targets_selectors_and_rows() -> None:
    omega = make_omega(n=300)
    rows, sel = parse_targets("rare:3+rows:0,5", omega, seed=0)
    assert rows.size == len(sel) >= 4
    assert 5 in rows.tolist()
    assert (
        "rare" in sel[rows.tolist().index(0)] and "rows" in sel[rows.tolist().index(0)]
    )  # outlier is rarest
    r1, _ = parse_targets("random:5", omega, seed=1)
    r2, _ = parse_targets("random:5", omega, seed=1)
    assert r1.tolist() == r2.tolist()
    top, s = parse_targets("top:2", omega)
    assert s == ["distance", "distance"] and top[0] == 0
    for bad in ("rows:abc", "rows:99999", "what:3", "top:0", "top", "loglik:x"):
        with pytest.raises(InputError):
            parse_targets(bad, omega)


def test_attack_outcome_metrics_and_baseline_warning() -> None:
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(100), np.zeros(100)]
    perfect = attack_outcome(y, y * 0.9 + 0.05, rng=rng)
    assert (
        perfect.auc.value == 1.0 and perfect.accuracy == 1.0 and perfect.tpr_at_fpr["0.01"] == 1.0
    )
    with pytest.warns(BaselineWarning, match="no better than a random guess"):
        chance = attack_outcome(y, rng.random(200), rng=rng)
    assert chance.auc.ci_low <= 0.5 <= chance.auc.ci_high


def test_builtin_attacks_registered() -> None:
    names = load_membership_attacks()
    assert {"query", "distance", "groundhog"} <= set(names)
    assert sl.MembershipGame is MembershipGame
