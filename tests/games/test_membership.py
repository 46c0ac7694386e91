"""Membership game: oracles (nonprivate leaks, data-independent generator does not), pools,
determinism, generator failures, resume from a run directory, input validation, metrics."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.attacks.base import AttackFamily, list_attacks
from synthleak.attacks.mia_rmia import RelativeMembershipAttack
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.membership import MembershipGame, MembershipResult, PoolMode, attack_outcome
from synthleak.games.targets import Targets
from synthleak.generators.base import BaseGenerator, GeneratorInfo
from synthleak.runtime import Runtime

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


@pytest.fixture
def oracles(temporary_generators) -> None:
    temporary_generators(
        GeneratorInfo("test-mia-fixed", FixedSource, (), "test oracle"),
        GeneratorInfo("test-mia-flaky", Flaky, (), "test oracle"),
    )


def test_nonprivate_oracle_outlier_reaches_high_auc() -> None:
    omega = make_omega()
    game = MembershipGame(
        "nonprivate",
        targets=[0, 5],
        train_size=60,
        synthetic_size=180,
        n_shadows=80,
        n_tests=80,
        attacks=("query", "distance"),
        attack_params=FAST,
        aux_size=400,
        test_size=300,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(omega, seed=3)
    outlier = res.targets[0]
    assert outlier.row == 0
    # m = 3n: the outlier is copied with probability ~0.95 when IN and never appears when OUT
    assert outlier.attacks["query"].auc.value >= 0.9
    assert outlier.attacks["distance"].auc.value >= 0.9
    assert outlier.attacks["query"].tpr_at_fpr["0.1"] >= 0.8
    assert set(res.summary()) == {"query", "distance"}
    assert res.failures.failed_datasets == 0
    assert outlier.selected_by == "rows"
    back = MembershipResult.from_json(res.to_json())  # lossless JSON round trip
    assert back.same_as(res) and back.targets[0].attacks["query"].scores.size == 80
    frame = res.to_frame()
    assert len(frame) == 4 and set(frame["attack"]) == {"query", "distance"}
    top, attack = res.most_exposed()
    assert top.attacks[attack].auc.value == frame["auc"].max()
    assert len(repr(res)) < 300


def test_data_independent_generator_gives_chance_auc(oracles) -> None:
    omega = make_omega(seed=1)
    FixedSource.reference = make_omega(n=500, seed=99)
    game = MembershipGame(
        "test-mia-fixed",
        targets=[0, 7, 11],
        train_size=50,
        synthetic_size=100,
        n_shadows=120,
        n_tests=400,
        attacks=("distance", "groundhog"),
        attack_params=FAST,
        aux_size=400,
        test_size=300,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(omega, seed=5)
    aucs = np.array([o.auc.value for t in res.targets for o in t.attacks.values()])
    # 400 test datasets: s.e. of one AUC ~0.03; the mean over 6 pairs is tighter still
    assert abs(aucs.mean() - 0.5) <= 0.06
    assert np.all(np.abs(aucs - 0.5) <= 0.12)


def test_same_seed_same_result_and_batches_do_not_matter() -> None:
    omega = make_omega(seed=2)
    kw = dict(
        targets=[0, 3],
        train_size=40,
        synthetic_size=60,
        n_shadows=24,
        n_tests=20,
        attacks=("distance", "query"),
        attack_params=FAST,
        aux_size=300,
        test_size=200,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        a = MembershipGame("nonprivate", batch_size=5, **kw).run(omega, seed=11)
        b = MembershipGame("nonprivate", batch_size=24, **kw).run(omega, seed=11)
        c = MembershipGame("nonprivate", batch_size=5, **kw).run(omega, seed=12)
        d = MembershipGame("nonprivate", batch_size=5, **kw).run(
            omega, seed=11, runtime=Runtime(workers=2)
        )
    assert a.same_as(b) and a.same_as(d)
    assert a.to_dict()["targets"] != c.to_dict()["targets"]


def test_meta_sees_a_copy_and_gives_the_same_result_whatever_the_workers() -> None:
    """The cross-fitted meta attack in the game: a copying generator exposes the outlier, and
    one or two workers give the same result (every fold's stream comes from the target's)."""
    omega = make_omega(seed=6)
    kw = dict(
        targets=[0, 5],
        train_size=60,
        synthetic_size=180,
        n_shadows=40,
        n_tests=40,
        attacks=("meta",),
        attack_params={"meta": {"query_queries": 200, "rmia_population": 16}},
        aux_size=400,
        test_size=300,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        a = MembershipGame("nonprivate", **kw).run(omega, seed=2)
        b = MembershipGame("nonprivate", **kw).run(omega, seed=2, runtime=Runtime(workers=2))
    assert a.same_as(b)
    assert a.targets[0].row == 0 and a.targets[0].attacks["meta"].auc.value >= 0.9


def test_rmia_gets_the_auxiliary_data_as_population_and_sees_a_copy() -> None:
    """The game passes D_aux to rmia: a copying generator exposes the outlier, whatever the
    workers; the population records are auxiliary records, never a target or a test record."""
    omega = make_omega(seed=6)
    kw = dict(
        targets=[0, 5],
        train_size=60,
        synthetic_size=180,
        n_shadows=40,
        n_tests=40,
        attacks=("rmia",),
        attack_params={"rmia": {"n_queries": 200, "n_population": 16, "n_reference": 16}},
        aux_size=400,
        test_size=300,
    )
    seen: list[Table] = []
    real_fit = RelativeMembershipAttack.fit

    def spy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(kwargs["population"])
        return real_fit(self, *args, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(RelativeMembershipAttack, "fit", spy)
            a = MembershipGame("nonprivate", **kw).run(omega, seed=2)
        b = MembershipGame("nonprivate", **kw).run(omega, seed=2, runtime=Runtime(workers=2))
    assert a.same_as(b)
    assert a.targets[0].row == 0 and a.targets[0].attacks["rmia"].auc.value >= 0.9
    # the population is D_aux: 400 records, neither target among them
    assert len(seen) == 2 and all(len(p) == 400 for p in seen)
    keys = {tuple(r) for r in seen[0].codes.tolist()}
    assert tuple(omega.codes[0].tolist()) not in keys  # the outlier's category is unique


def test_single_pool_is_one_pool_per_target() -> None:
    omega = make_omega(seed=4)
    game = MembershipGame(
        "nonprivate",
        targets=[0, 9],
        train_size=40,
        synthetic_size=120,
        n_shadows=30,
        n_tests=30,
        attacks=("distance",),
        attack_params=FAST,
        pool=PoolMode.SINGLE,
        aux_size=300,
        test_size=200,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(omega, seed=1)
    assert res.config.pool is PoolMode.SINGLE
    assert res.targets[0].attacks["distance"].auc.value >= 0.9
    assert all(o.n_tests == 30 for t in res.targets for o in t.attacks.values())


def test_design_shared_pool_holds_each_target_in_half_the_datasets() -> None:
    game = MembershipGame(
        "nonprivate", train_size=30, n_shadows=40, n_tests=10, aux_size=300, test_size=200
    )
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


def test_generator_failures_are_counted_and_dropped(oracles) -> None:
    omega = make_omega(seed=6)
    game = MembershipGame(
        "test-mia-flaky",
        targets=[0],
        train_size=40,
        synthetic_size=80,
        n_shadows=60,
        n_tests=40,
        attacks=("distance",),
        attack_params=FAST,
        aux_size=300,
        test_size=200,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = game.run(omega, seed=2)
    f = res.failures
    assert f.total_datasets == 100
    assert 5 <= f.failed_datasets <= 40
    assert any("flaky generator gave up" in k for k in f.messages)
    assert any(
        issubclass(w.category, RuntimeWarning) and "failed on" in str(w.message) for w in caught
    )
    # the failed test datasets are dropped from the evaluation
    assert res.targets[0].attacks["distance"].n_tests < 40


def test_run_dir_resume_recomputes_nothing(tmp_path, monkeypatch) -> None:
    omega = make_omega(seed=8)
    kw = dict(
        targets=[0, 2],
        train_size=40,
        synthetic_size=60,
        n_shadows=20,
        n_tests=20,
        attacks=("distance",),
        attack_params=FAST,
        aux_size=300,
        test_size=200,
        batch_size=10,
    )
    rt = Runtime(run_dir=tmp_path / "run")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        first = MembershipGame("nonprivate", **kw).run(omega, seed=1, runtime=rt)
        # the second run must not call a single work unit: make every unit call fail
        import synthleak.runtime.executor as executor

        def no_work(fn, *args):  # type: ignore[no-untyped-def]
            raise AssertionError(f"work unit recomputed: {fn.__name__}")

        monkeypatch.setattr(executor, "_call", no_work)
        monkeypatch.setattr(executor, "_call_pooled", no_work)
        second = MembershipGame("nonprivate", **kw).run(omega, seed=1, runtime=rt)
    assert first.same_as(second)
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    assert saved["targets"][0]["row"] == 0
    assert json.loads((tmp_path / "run" / "schema.json").read_text())
    with pytest.raises(InputError, match="different run"):
        MembershipGame("nonprivate", **{**kw, "n_shadows": 30}).run(omega, seed=1, runtime=rt)
    # work units of another size share their keys, not their datasets: the game says so
    # before any new run (units still fail if called) rather than read 10 datasets as 5 or 20
    for other in (5, 20):
        with pytest.raises(InputError, match="work unit 'gen-p0-s0' with 10 shadow datasets"):
            MembershipGame("nonprivate", **{**kw, "batch_size": other}).run(
                omega, seed=1, runtime=rt
            )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"train_size": 500}, "larger than D_aux"),
        ({"synthetic_size": 0}, "synthetic_size"),
        ({"attacks": ("nope",)}, "unknown membership attack"),
        ({"attacks": ()}, "attacks is empty"),
        ({"attacks": ("distance", "distance")}, "more than once"),
        ({"attacks": (object(),)}, "MembershipAttack objects"),
        ({"targets": [10_000]}, "not in the data"),
        ({"targets": "top:3"}, "Targets object"),
        ({"pool": "both"}, "unknown pool"),
        ({"train_size": 3, "targets": [0, 1, 2]}, "shared pool"),
        ({"n_shadows": 2}, "n_shadows"),
    ],
)
def test_bad_input_raises_input_error_naming_the_parameter(kwargs, match) -> None:
    omega = make_omega()
    base = dict(
        targets=[0],
        train_size=40,
        synthetic_size=40,
        n_shadows=10,
        n_tests=10,
        aux_size=300,
        test_size=200,
        attacks=("distance",),
    )
    with pytest.raises(InputError, match=match) as exc:
        MembershipGame("nonprivate", **{**base, **kwargs}).run(omega, seed=0)
    assert "--" not in str(exc.value)  # API errors name API parameters, not CLI flags
    with pytest.raises(InputError, match="unknown generator"):
        MembershipGame("no-such-gen", **base).run(omega, seed=0)


def test_runs_from_a_dataframe_and_with_attack_objects() -> None:
    from synthleak.attacks.mia_distance import DistanceAttack

    df = make_omega().to_frame()
    game = MembershipGame(
        "nonprivate",
        targets=Targets.rows([0]) + Targets.random(1),
        train_size=40,
        synthetic_size=120,
        n_shadows=30,
        n_tests=30,
        attacks=(DistanceAttack(n_estimators=10),),
        aux_size=300,
        test_size=200,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(df, seed=0)
    assert res.config.attacks == ("distance",)
    assert [t.selected_by for t in res.targets] == ["rows", "random"]
    assert res.targets[0].attacks["distance"].auc.value >= 0.9


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
    names = {i.name for i in list_attacks(AttackFamily.MEMBERSHIP)}
    assert {"query", "distance", "groundhog", "attention", "lira", "rmia"} <= names
    assert sl.MembershipGame is MembershipGame


def test_exact_knowledge_datasets_differ_only_in_the_target() -> None:
    from synthleak.games.membership import Knowledge

    game = MembershipGame(
        "nonprivate", train_size=30, n_shadows=20, n_tests=10, knowledge=Knowledge.EXACT
    )
    tg = np.array([0, 4])
    design = game._design(7, PoolMode.SINGLE, tg, np.arange(5, 400), np.arange(0))
    assert set(design) == {2, 3, 4, 5}  # a shadow and a test pool per target
    for t, target in enumerate(tg):
        shadow, y = design[2 * t + 2]
        test, _ = design[2 * t + 3]
        known = shadow[0, :-1]
        assert (shadow[:, :-1] == known).all() and (test[:, :-1] == known).all()
        assert (shadow[y, -1] == target).all() and (shadow[~y, -1] == -1).all()  # add/remove
        assert target not in known


def test_exact_knowledge_can_substitute_the_target() -> None:
    """neighbouring='substitute': OUT holds one fixed other record where IN holds the target
    (same size), so a "bounded" DP claim (one record replaced) can be tested."""
    from synthleak.games.membership import Knowledge

    game = MembershipGame(
        "nonprivate",
        train_size=30,
        n_shadows=20,
        n_tests=10,
        knowledge=Knowledge.EXACT,
        neighbouring="substitute",
    )
    tg = np.array([0, 4])
    design = game._design(7, PoolMode.SINGLE, tg, np.arange(5, 400), np.arange(0))
    for t, target in enumerate(tg):
        shadow, y = design[2 * t + 2]
        test, y_test = design[2 * t + 3]
        known = shadow[0, :-1]
        other = shadow[~y, -1]
        assert (shadow[:, :-1] == known).all() and (test[:, :-1] == known).all()
        assert (shadow[y, -1] == target).all() and (other == other[0]).all() and other[0] >= 0
        assert (test[~y_test, -1] == other[0]).all()  # the same replacement in both pools
        assert other[0] not in known and other[0] not in tg
    # the add/remove default is unchanged (same known records for the same seed)
    plain = MembershipGame("nonprivate", train_size=30, n_shadows=20, n_tests=10, knowledge="exact")
    d0 = plain._design(7, PoolMode.SINGLE, tg, np.arange(5, 400), np.arange(0))
    assert (d0[2][0][~d0[2][1], -1] == -1).all()
    with pytest.raises(InputError, match="needs knowledge='exact'"):
        MembershipGame("nonprivate", neighbouring="add_remove")._relation(Knowledge.AUXILIARY)
    with pytest.raises(InputError, match="unknown neighbouring"):
        MembershipGame("nonprivate", knowledge="exact", neighbouring="edit")._relation(
            Knowledge.EXACT
        )


def test_substitute_game_records_its_relation_and_tests_a_bounded_claim() -> None:
    from synthleak.findings import membership_epsilon

    omega = make_omega(n=60, seed=9)
    game = MembershipGame(
        "nonprivate",
        targets=[0],
        train_size=40,
        synthetic_size=120,
        n_shadows=20,
        n_tests=40,
        attacks=("distance",),
        attack_params=FAST,
        knowledge="exact",
        neighbouring="substitute",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(omega, seed=0)
    assert res.config.neighbouring == "substitute"
    assert MembershipResult.from_json(res.to_json()).config.neighbouring == "substitute"
    assert res.targets[0].attacks["distance"].auc.value >= 0.9  # nonprivate: the outlier shows
    est = membership_epsilon(
        res, rng=np.random.default_rng(0), claimed=1.0, delta=0.0, neighbouring="substitute"
    )
    assert est.lower_bound > 0.5
    # train_size must leave a replacement besides the known records
    with pytest.raises(InputError, match="and the replacement"):
        MembershipGame(
            "nonprivate", targets=[0], train_size=60, knowledge="exact", neighbouring="substitute"
        ).validate(omega, seed=0)


def test_exact_knowledge_game_runs_and_records_its_relation() -> None:
    omega = make_omega(seed=9)
    game = MembershipGame(
        "nonprivate",
        targets=[0],
        train_size=40,
        synthetic_size=120,
        n_shadows=30,
        n_tests=40,
        attacks=("distance",),
        attack_params=FAST,
        knowledge="exact",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        res = game.run(omega, seed=0)
    assert res.config.pool is PoolMode.SINGLE and res.config.neighbouring == "add_remove"
    assert res.targets[0].attacks["distance"].auc.value >= 0.9
    with pytest.raises(InputError, match="unknown knowledge"):
        MembershipGame("nonprivate", targets=[0], knowledge="psychic").run(omega, seed=0)


def test_tpr_at_low_fpr_has_intervals_and_says_what_it_cannot_resolve() -> None:
    """Every attack outcome carries TPR at FPR 0.1, 0.01 and 0.001 with an interval and the
    OUT datasets it rests on. Scores that ignore membership (the null): the interval covers
    the FPR itself in nearly every game; 100 OUT datasets cannot resolve 0.001."""
    from synthleak.games.membership import attack_outcome

    covered = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        y = np.r_[np.ones(100), np.zeros(100)].astype(bool)
        o = attack_outcome(y, rng.random(200), rng=rng, n_boot=20)
        assert set(o.tpr_intervals) == {"0.1", "0.01", "0.001"}
        t = o.tpr_intervals["0.1"]
        assert t.n_non_members == 100 and t.n_members == 100
        covered += t.ci_low <= 0.1 <= t.ci_high
        assert o.tpr_intervals["0.001"].value is None  # fewer than 1,000 OUT datasets
    assert covered >= 37
    # a perfect attack: TPR 1 at every resolvable FPR, the lower bound well above the FPR
    y = np.r_[np.ones(100), np.zeros(100)].astype(bool)
    o = attack_outcome(y, y.astype(float), rng=np.random.default_rng(0), n_boot=20)
    assert o.tpr_intervals["0.1"].value == 1.0 and o.tpr_intervals["0.1"].ci_low > 0.9
    # 100 OUT datasets measure FPR 0.01 but cannot bound it away from 0 (documented: that
    # needs about 4.4 / FPR of them, the threshold itself being uncertain)
    assert o.tpr_intervals["0.01"].value == 1.0 and o.tpr_intervals["0.01"].ci_low == 0.0
