"""Risk map: outlier oracle, data-independent null, determinism across workers, validation
helpers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak.data.profile import infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.riskmap import RiskMap, RiskMapResult
from synthleak.generators.base import BaseGenerator, GeneratorInfo
from synthleak.runtime import Runtime


class _Independent(BaseGenerator):
    """Ignores its training data: every column uniform over its categories (data-independent)."""

    def fit(self, table: Table, *, rng: np.random.Generator) -> _Independent:
        self.schema_ = table.schema
        return self

    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        self._check_fitted()
        sizes = [len(c.categories) for c in self.schema_.categorical]
        codes = np.stack([rng.integers(0, s, n) for s in sizes], axis=1)
        return Table.from_arrays(self.schema_, codes, None)


@pytest.fixture
def independent(temporary_generators) -> None:
    temporary_generators(
        GeneratorInfo("test-independent", _Independent, (), "test only: data-independent")
    )


def _table(n: int, seed: int = 0) -> Table:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q", "r"], n),
            "b": rng.choice(["u", "v"], n),
            "c": rng.choice(["k", "l"], n),
            "d": rng.choice(["s", "t"], n),
        }
    )
    df.loc[0] = ["p", "u", "z", "w"]  # the only 'z' and the only 'w': an outlier
    return Table.from_frame(df, infer_schema(df))


FAST = {"n_estimators": 5, "n_boot": 100, "n_queries": 15}


def test_outlier_oracle_nonprivate() -> None:
    data = _table(60)
    private = np.arange(30)  # row 0 (the outlier) is in D
    res = RiskMap(
        "nonprivate",
        train_size=30,
        synthetic_size=90,
        n_shadows=40,
        n_tests=40,
        attacks=("distance",),
        private_rows=private,
        **FAST,
    ).run(data, seed=3)
    auc = res.auc["distance"][:, 0]
    assert res.rows.tolist() == private.tolist()
    assert auc[0] >= 0.85
    assert (auc > auc[0]).sum() <= 2  # the planted outlier ranks in the top 3 of 30
    # every other record has many copies: its risk is far lower on average
    assert np.nanmean(auc[1:]) < 0.75
    # the outlier is also the most isolated record by V_k
    assert np.argmax(res.scores["vulnerability"]) == 0
    recs = res.to_frame()
    assert recs.loc[0, "row"] == 0
    assert recs.loc[0, "auc_ci_low"] <= recs.loc[0, "auc"] <= recs.loc[0, "auc_ci_high"]
    assert set(res.validation.selectors) == {"vulnerability", "rare_value", "log_likelihood"}
    assert RiskMapResult.from_json(res.to_json()).same_as(res)


def test_rmia_compares_with_the_fillers_and_finds_the_outlier() -> None:
    """The risk map gives rmia the records outside D (the fillers) as its population."""
    from synthleak.attacks.mia_rmia import RelativeMembershipAttack

    data = _table(60)
    rmia = RelativeMembershipAttack(n_queries=15, n_population=8, n_reference=8)
    res = RiskMap(
        "nonprivate",
        train_size=30,
        synthetic_size=90,
        n_shadows=40,
        n_tests=40,
        attacks=(rmia,),
        private_rows=np.arange(30),
        **FAST,
    ).run(data, seed=3)
    auc = res.auc["rmia"][:, 0]
    assert auc[0] >= 0.85 and (auc > auc[0]).sum() <= 2


def test_data_independent_generator_gives_chance_aucs(independent) -> None:
    data = _table(90, seed=1)
    res = RiskMap(
        "test-independent",
        train_size=30,
        n_shadows=30,
        n_tests=40,
        attacks=("query", "distance"),
        **FAST,
    ).run(data, seed=5)
    for name in ("query", "distance"):
        a = res.auc[name]
        assert abs(np.nanmean(a[:, 0]) - 0.5) < 0.06, name
        covers = (a[:, 1] <= 0.5) & (a[:, 2] >= 0.5)
        assert covers.mean() >= 0.8, name


def test_same_result_with_one_or_two_workers() -> None:
    data = _table(40, seed=2)
    kw = {
        "train_size": 10,
        "synthetic_size": 20,
        "n_shadows": 8,
        "n_tests": 8,
        "attacks": ("distance", "query"),
        "chunk": 5,
        "batch_size": 16,
        **FAST,
    }  # generation: one unit (membership's tested _generate_batch); attacks: 2 units
    one = RiskMap("nonprivate", **kw).run(data, seed=9)
    two = RiskMap("nonprivate", **kw).run(data, seed=9, runtime=Runtime(workers=2))
    assert one.rows.tolist() == two.rows.tolist()
    for name in ("distance", "query"):
        np.testing.assert_array_equal(one.auc[name], two.auc[name])
    assert one.to_csv() == two.to_csv()


def test_design_each_record_in_about_half_and_datasets_of_n() -> None:
    game = RiskMap("nonprivate", train_size=11, n_shadows=400, n_tests=6)
    design = game._design(0, 11, 20)
    rows, labels = design[0]
    assert rows.shape == (400, 11)
    assert (labels.sum(axis=1) == 5).all()  # floor(n/2) records of D per dataset
    assert np.abs(labels.mean(axis=0) - 5 / 11).max() < 0.1
    for s in range(20):  # the IN records of D and distinct fillers (indices >= n)
        assert sorted(rows[s, :5].tolist()) == sorted(np.flatnonzero(labels[s]).tolist())
        assert (rows[s, 5:] >= 11).all() and np.unique(rows[s]).size == 11


@pytest.mark.parametrize(
    ("kw", "msg"),
    [
        ({"train_size": 50}, "larger than the data"),
        ({"train_size": 20, "population": 10}, "smaller than train_size"),
        ({"train_size": 20, "population": 25}, "fillers"),
        ({"train_size": 20, "attacks": ("nope",)}, "unknown membership attack"),
        ({"train_size": 28}, "fillers"),
        ({"train_size": 10, "private_rows": [1, 2]}, "exactly train_size = 10"),
        ({"train_size": 10, "n_shadows": 1}, "n_shadows"),
    ],
)
def test_bad_input(kw: dict, msg: str) -> None:
    with pytest.raises(InputError, match=msg) as exc:
        RiskMap("nonprivate", **kw).run(_table(40), seed=0)
    assert "--" not in str(exc.value)


def test_population_mode_and_explicit_private_rows() -> None:
    data = _table(40, seed=4)
    res = RiskMap(
        "nonprivate",
        train_size=10,
        population=16,
        n_shadows=6,
        n_tests=6,
        attacks=("distance",),
        private_rows=np.arange(20, 30),
        **FAST,
    ).run(data.to_frame(), seed=1)
    assert res.rows.tolist() == list(range(20, 30))
    assert res.config.population == 16 and len(res.to_frame()) == 10


def test_an_interrupted_risk_map_resumes_its_finished_units(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C between per-record attack units: the finished units are kept in the run
    directory, the rerun computes only the others and gives the uninterrupted map."""
    import synthleak.games.riskmap as riskmap

    data = _table(40, seed=3)
    kw = {
        "train_size": 10,
        "synthetic_size": 20,
        "n_shadows": 8,
        "n_tests": 8,
        "attacks": ("distance",),
        "chunk": 2,  # the 10 records of the map in 5 units
        **FAST,
    }
    whole = RiskMap("nonprivate", **kw).run(data, seed=9)
    real = riskmap._attack_chunk
    calls: list[tuple[int, int]] = []

    def interrupted(shared, lo, hi):  # type: ignore[no-untyped-def]
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append((lo, hi))
        return real(shared, lo, hi)

    monkeypatch.setattr(riskmap, "_attack_chunk", interrupted)
    rt = Runtime(run_dir=tmp_path / "run")
    with pytest.raises(KeyboardInterrupt):
        RiskMap("nonprivate", **kw).run(data, seed=9, runtime=rt)
    done, calls[:] = list(calls), []

    def counted(shared, lo, hi):  # type: ignore[no-untyped-def]
        calls.append((lo, hi))
        return real(shared, lo, hi)

    monkeypatch.setattr(riskmap, "_attack_chunk", counted)
    again = RiskMap("nonprivate", **kw).run(data, seed=9, runtime=rt)
    assert again.to_csv() == whole.to_csv()
    assert len(done) == 2 and not set(done) & set(calls) and len(done) + len(calls) == 5
