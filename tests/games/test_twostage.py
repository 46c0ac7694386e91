"""Two-stage audit, stage 1 (screening map): oracle, null, design, determinism, input errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak.data.profile import infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.twostage import ScreeningMap, ScreeningResult
from synthleak.generators.base import _REGISTRY, BaseGenerator, GeneratorInfo
from synthleak.runtime import Runtime

FAST = {"n_estimators": 10, "n_boot": 50, "n_queries": 15}


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
def independent(monkeypatch: pytest.MonkeyPatch) -> str:
    """A data-independent generator, registered for one test only (inline runs only)."""
    name = "test-independent-screening"
    monkeypatch.setitem(
        _REGISTRY, name, GeneratorInfo(name, _Independent, (), "test only: data-independent")
    )
    return name


def _table(n: int, seed: int = 0, outliers: int = 1) -> Table:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "a": rng.choice(["p", "q"], n),
            "b": rng.choice(["u", "v"], n),
            "c": rng.choice(["k", "l"], n),
            "d": rng.choice(["s", "t"], n),
        }
    )
    for i in range(outliers):  # unique values in c and d: outliers
        df.loc[i] = ["p", "u", f"z{i}", f"w{i}"]
    return Table.from_frame(df, infer_schema(df))


def test_outlier_oracle_nonprivate_ranks_the_outliers_first() -> None:
    data = _table(80, outliers=3)
    res = ScreeningMap("nonprivate", train_size=40, n_shadows=60, n_tests=60, **FAST).run(
        data, seed=1
    )
    assert res.rows.tolist() == list(range(80))
    # a unique record resampled into 40 of 40 draws appears with probability 0.64 when IN and
    # never when OUT: the best possible AUC is 0.82
    assert np.all(res.auc[:3] > 0.68) and res.auc[:3].mean() > 0.75
    # all three among the 6 riskiest of 80 (records in cells of ~5 copies leak a little too)
    assert {0, 1, 2} <= set(res.top(6).tolist())
    # common records (dozens of copies) carry no signal
    assert np.nanmedian(res.auc[3:]) < 0.65


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_null_generator_gives_baseline(independent: str, seed: int) -> None:
    data = _table(60, seed=seed)
    res = ScreeningMap(independent, train_size=30, n_shadows=40, n_tests=40, **FAST).run(
        data, seed=seed
    )
    auc = res.auc[~np.isnan(res.auc)]
    assert auc.size == 60
    # 60 records x 40 test datasets: the mean of data-independent AUCs is 0.5 +- ~0.02
    assert abs(auc.mean() - 0.5) < 0.06
    # and no record is flagged with confidence more often than the 5 % level allows (+ margin)
    assert np.mean(res.ci_low > 0.5) < 0.15


def test_design_every_record_in_a_random_share_of_datasets() -> None:
    data = _table(50)
    game = ScreeningMap("indhist", train_size=20, n_shadows=30, n_tests=10)
    rows = np.arange(50)
    design = game._design(5, rows, np.array([], dtype=np.int64), 20)
    ds, lab = design[0]
    assert ds.shape == (30, 20) and lab.shape == (30, 50)
    assert np.all(lab.sum(axis=1) == 20)  # no fillers: 20 audited records per dataset
    for s in range(30):
        assert sorted(ds[s].tolist()) == sorted(np.flatnonzero(lab[s]).tolist())
    # with fillers: half of the audited records + fillers, never a filler labelled
    rows = np.arange(10)
    fillers = np.arange(10, 50)
    ds, lab = game._design(5, rows, fillers, 20)[1]
    assert np.all(lab.sum(axis=1) == 5)
    assert np.all(np.isin(ds[:, 5:], fillers))
    assert all(np.unique(d).size == 20 for d in ds)
    del data


def test_same_seed_same_screen_whatever_the_workers(tmp_path) -> None:
    data = _table(40)
    game = ScreeningMap("indhist", train_size=20, n_shadows=12, n_tests=8, chunk=7, **FAST)
    one = game.run(data, seed=4)
    two = game.run(data, seed=4, runtime=Runtime(workers=2, run_dir=tmp_path / "run"))
    again = game.run(data, seed=4, runtime=Runtime(workers=1, run_dir=tmp_path / "run"))
    assert one.same_as(two) and one.same_as(again)
    other = game.run(data, seed=5)
    assert not np.allclose(np.nan_to_num(one.auc), np.nan_to_num(other.auc))


def test_records_subset_and_result_round_trip() -> None:
    data = _table(60)
    res = ScreeningMap(
        "indhist", train_size=25, n_shadows=10, n_tests=10, records=[5, 1, 9, 30], **FAST
    )
    out = res.run(data, seed=0)
    assert out.rows.tolist() == [5, 1, 9, 30]
    assert out.train_size == 25 and out.total_datasets == 20 and out.failed_datasets == 0
    assert ScreeningResult.from_json(out.to_json()).same_as(out)
    assert set(out.top(4).tolist()) == {5, 1, 9, 30}


def test_top_orders_by_auc_with_undefined_last() -> None:
    res = ScreeningResult(
        rows=np.array([10, 11, 12, 13]),
        auc=np.array([0.6, np.nan, 0.9, 0.6]),
        ci_low=np.zeros(4),
        ci_high=np.ones(4),
    )
    assert res.top(4).tolist() == [12, 10, 13, 11]
    assert res.top(1).tolist() == [12]
    with pytest.raises(InputError):
        res.top(0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"records": [0, 0]}, "twice"),
        ({"records": [0, 99]}, "rows of the data"),
        ({"records": []}, "non-empty"),
        ({"train_size": 200}, "fillers"),
        ({"n_shadows": 2}, "n_shadows"),
        ({"n_queries": 0}, "n_queries"),
    ],
)
def test_input_errors(kwargs: dict, match: str) -> None:
    data = _table(40)
    with pytest.raises(InputError, match=match):
        ScreeningMap("indhist", **{"train_size": 10, **kwargs}).run(data, seed=0)


def test_unknown_generator_and_non_table() -> None:
    data = _table(40)
    with pytest.raises(InputError, match="unknown generator"):
        ScreeningMap("no-such-generator").run(data, seed=0)
    with pytest.raises(InputError, match="DataFrame or a synthleak Table"):
        ScreeningMap("indhist").run(data.to_frame().to_numpy(), seed=0)  # type: ignore[arg-type]


def test_dataframe_screens_like_its_table() -> None:
    data = _table(40)
    game = ScreeningMap("indhist", train_size=10, n_shadows=8, n_tests=8, **FAST)
    a = game.run(data, seed=2)
    b = game.run(data.to_frame(), seed=2)
    np.testing.assert_array_equal(a.rows, b.rows)
    np.testing.assert_allclose(a.auc, b.auc, equal_nan=True)


def test_screen_records_prefilters_by_rarity_or_vk() -> None:
    from synthleak.games.twostage import screen_records
    from synthleak.vulnerability import cell_rarity_scores, vulnerability_scores

    data = _table(60, outliers=2)
    fast = {"train_size": 20, "n_shadows": 8, "n_tests": 8, "n_queries": 15}
    res = screen_records(data, "indhist", seed=0, screen_fraction=0.2, min_screened=5, **fast)
    top = np.sort(np.argsort(-cell_rarity_scores(data), kind="stable")[:12])
    assert res.rows.tolist() == top.tolist()
    assert {0, 1} <= set(res.rows.tolist())  # the outliers pass the prefilter
    res = screen_records(
        data, "indhist", seed=0, prefilter="distance", screen_fraction=0.1, min_screened=9, **fast
    )
    top = np.sort(np.argsort(-vulnerability_scores(data), kind="stable")[:9])
    assert res.rows.tolist() == top.tolist()
    # fewer records than min_screened, or no prefilter: every record is screened
    assert screen_records(data, "indhist", seed=0, **fast).rows.size == 50  # min_screened
    assert screen_records(_table(40), "indhist", seed=0, **fast).rows.size == 40
    assert screen_records(data, "indhist", seed=0, prefilter=None, **fast).rows.size == 60
    # n_screened overrides the fraction and the minimum
    res = screen_records(data, "indhist", seed=0, n_screened=7, **fast)
    top = np.sort(np.argsort(-cell_rarity_scores(data), kind="stable")[:7])
    assert res.rows.tolist() == top.tolist()


def test_screen_records_picks_among_the_candidates() -> None:
    """``candidates`` (the audit's training records): the prefilter keeps the rarest of them,
    rarity still measured on the whole data; the other rows only fill the datasets."""
    from synthleak.games.twostage import screen_records
    from synthleak.vulnerability import cell_rarity_scores

    data = _table(60, outliers=2)
    fast = {"train_size": 20, "n_shadows": 8, "n_tests": 8, "n_queries": 15}
    cand = np.arange(1, 60, 2)  # odd rows: outlier 1 is a candidate, outlier 0 is not
    res = screen_records(data, "indhist", seed=0, candidates=cand, n_screened=6, **fast)
    score = cell_rarity_scores(data)
    want = np.sort(cand[np.argsort(-score[cand], kind="stable")[:6]])
    assert res.rows.tolist() == want.tolist() and 1 in want and 0 not in res.rows
    every = screen_records(data, "indhist", seed=0, candidates=cand, n_screened=40, **fast)
    assert every.rows.tolist() == cand.tolist()  # fewer candidates than asked: all of them
    with pytest.raises(InputError, match="candidates must be rows"):
        screen_records(data, "indhist", seed=0, candidates=[3, 60], **fast)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"prefilter": "loglik"}, "prefilter"),
        ({"screen_fraction": 0.0}, "screen_fraction"),
        ({"screen_fraction": 1.5}, "screen_fraction"),
        ({"min_screened": 1}, "min_screened"),
        ({"n_screened": 1}, "n_screened"),
        ({"stage1_prior": "loglik"}, "stage1_prior"),
    ],
)
def test_screen_records_input_errors(kwargs: dict, match: str) -> None:
    from synthleak.games.twostage import screen_records

    with pytest.raises(InputError, match=match):
        screen_records(_table(40), "indhist", seed=0, **kwargs)


def test_screened_targets_are_the_screens_top_rows() -> None:
    from synthleak.games.targets import Targets
    from synthleak.games.twostage import screen_records, screened_targets

    data = _table(60, outliers=2)
    fast = {"train_size": 20, "n_shadows": 8, "n_tests": 8, "n_queries": 15, "min_screened": 10}
    res = screen_records(data, "indhist", seed=3, **fast)
    got = screened_targets(data, "indhist", 4, seed=3, **fast)
    assert isinstance(got, Targets)
    resolved = got.resolve(data, seed=0)
    assert resolved.rows.tolist() == res.top(4).tolist()
    assert set(resolved.selected_by) == {"screen"}
    with pytest.raises(InputError, match="only 10 records were screened"):
        screened_targets(data, "indhist", 11, seed=3, **fast)
    with pytest.raises(InputError, match="positive number"):
        screened_targets(data, "indhist", 0, seed=3, **fast)


def test_an_interrupted_screen_resumes_its_finished_units(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the middle of the screen: the units finished before it are kept in the run
    directory, the rerun computes only the others, and the result is the uninterrupted one."""
    import synthleak.games.twostage as twostage

    data = _table(40)
    game = ScreeningMap("indhist", train_size=20, n_shadows=12, n_tests=8, chunk=5, **FAST)
    whole = game.run(data, seed=2)
    real = twostage._screen_units
    calls: list[tuple[int, int]] = []

    def interrupted(shared, lo, hi):  # type: ignore[no-untyped-def]
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append((lo, hi))
        return real(shared, lo, hi)

    monkeypatch.setattr(twostage, "_screen_units", interrupted)
    rt = Runtime(run_dir=tmp_path / "run")
    with pytest.raises(KeyboardInterrupt):
        game.run(data, seed=2, runtime=rt)
    done, calls[:] = list(calls), []

    def counted(shared, lo, hi):  # type: ignore[no-untyped-def]
        calls.append((lo, hi))
        return real(shared, lo, hi)

    monkeypatch.setattr(twostage, "_screen_units", counted)
    again = game.run(data, seed=2, runtime=rt)
    assert again.same_as(whole)
    assert len(done) == 3 and not set(done) & set(calls)
    assert len(done) + len(calls) == 8  # 40 records in units of 5


# --- successive halving -------------------------------------------------------------------------

HALVING = {
    "keep": 8,
    "stage1_shadows": 30,
    "stage1_tests": 30,
    "stage1_queries": 15,
    "stage1_estimators": 5,
}


def test_halving_finds_the_planted_records_and_honours_the_stage_sizes() -> None:
    """Three unique records leaked by a generator that resamples its training data: the cheap
    first stage keeps them and the full screen ranks them first; ``keep`` records reach the
    second stage, the others keep their first-stage AUC."""
    data = _table(80, outliers=3)
    sizes = {"keep": 10, "stage1_shadows": 40, "stage1_tests": 40}
    res = ScreeningMap(
        "nonprivate", train_size=40, n_shadows=60, n_tests=60, **(HALVING | sizes), **FAST
    ).run(data, seed=1)
    assert res.rows.tolist() == list(range(80))
    assert res.stage.tolist().count(2) == 10 and res.stage.tolist().count(1) == 70
    assert np.all(res.stage[:3] == 2)  # the planted records pass the first stage
    assert {0, 1, 2} <= set(res.top(6).tolist())
    assert set(res.top(10).tolist()) == set(np.flatnonzero(res.stage == 2).tolist())
    # the first stage ran on its own (smaller) part of the pools with its own attack
    assert (res.stage1_shadows, res.stage1_tests, res.stage1_queries) == (40, 40, 15)
    assert res.total_datasets == 120  # the two stages share the pools: no extra generator run
    one = res.stage == 1
    np.testing.assert_array_equal(res.auc[one], res.stage1_auc[one])
    assert not np.allclose(res.auc[~one], res.stage1_auc[~one])
    assert ScreeningResult.from_json(res.to_json()).same_as(res)


def test_halving_same_seed_same_result_whatever_the_workers(tmp_path) -> None:
    data = _table(40)
    game = ScreeningMap(
        "indhist",
        train_size=20,
        n_shadows=12,
        n_tests=8,
        chunk=7,
        **FAST,
        **(HALVING | {"keep": 6, "stage1_shadows": 6, "stage1_tests": 4}),
    )
    one = game.run(data, seed=4)
    two = game.run(data, seed=4, runtime=Runtime(workers=2, run_dir=tmp_path / "run"))
    again = game.run(data, seed=4, runtime=Runtime(workers=1, run_dir=tmp_path / "run"))
    assert one.same_as(two) and one.same_as(again)
    assert (one.stage == 2).sum() == 6


def test_halving_keeping_every_record_is_the_one_stage_screen() -> None:
    data = _table(30)
    base = ScreeningMap("indhist", train_size=10, n_shadows=8, n_tests=8, **FAST)
    halving = ScreeningMap(
        "indhist",
        train_size=10,
        n_shadows=8,
        n_tests=8,
        **FAST,
        **(HALVING | {"keep": 30, "stage1_shadows": 4, "stage1_tests": 4}),
    )
    assert halving.run(data, seed=0).same_as(base.run(data, seed=0))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"keep": 0}, "keep"),
        ({"keep": 5, "stage1_shadows": 3}, "stage1_shadows"),
        ({"keep": 5, "stage1_shadows": 20}, "only 10 datasets"),
        ({"keep": 5, "stage1_tests": 11}, "only 10 datasets"),
        ({"keep": 5, "stage1_queries": 0}, "stage1_queries"),
        ({"keep": 5, "stage1_estimators": True}, "stage1_estimators"),
    ],
)
def test_halving_input_errors(kwargs: dict, match: str) -> None:
    base = {"stage1_shadows": 5, "stage1_tests": 5}
    with pytest.raises(InputError, match=match):
        ScreeningMap("indhist", train_size=10, n_shadows=10, n_tests=10, **(base | kwargs)).run(
            _table(40), seed=0
        )


def test_screen_records_halving_screens_every_candidate() -> None:
    from synthleak.games.twostage import screen_records

    data = _table(60, outliers=2)
    fast = {"train_size": 20, "n_shadows": 8, "n_tests": 8, "n_queries": 15}
    res = screen_records(data, "indhist", seed=0, prefilter="halving", n_screened=7, **fast)
    assert res.rows.tolist() == list(range(60))  # no record is cut before it is screened
    assert (res.stage == 2).sum() == 7 and res.stage1_shadows == 4 and res.stage1_tests == 4
    cand = np.arange(1, 60, 2)
    res = screen_records(
        data, "indhist", seed=0, prefilter="halving", candidates=cand, n_screened=5, **fast
    )
    assert res.rows.tolist() == cand.tolist() and (res.stage == 2).sum() == 5


def test_halving_prior_is_rank_averaged_with_the_first_stage() -> None:
    from scipy.stats import rankdata

    data = _table(40)
    prior = np.linspace(1.0, 0.0, 40)  # favours the first rows
    sizes = HALVING | {"keep": 6, "stage1_shadows": 6, "stage1_tests": 6}
    common = {"train_size": 20, "n_shadows": 8, "n_tests": 8, **FAST, **sizes}
    res = ScreeningMap("indhist", stage1_prior=prior, **common).run(data, seed=3)
    a1 = np.where(np.isnan(res.stage1_auc), -np.inf, res.stage1_auc)
    key = (rankdata(a1) - 1) / 39 + (rankdata(prior) - 1) / 39
    want = np.sort(np.argsort(-key, kind="stable")[:6])
    assert np.flatnonzero(res.stage == 2).tolist() == want.tolist()
    with pytest.raises(InputError, match="stage1_prior"):
        ScreeningMap("indhist", stage1_prior=prior[:5], **common).run(data, seed=3)


def test_second_pool_finds_the_planted_records_and_ranks_by_both_pools() -> None:
    """Three unique records leaked by a generator that resamples its training data: the first
    screen (small attack) passes them on, the second pool (its own datasets) measures them again,
    and they are ranked by the mean of both AUCs."""
    from synthleak.games.twostage import screen_records

    data = _table(80, outliers=3)
    kw = {"train_size": 40, "n_shadows": 60, "n_tests": 60, "n_queries": 15, "n_estimators": 5}
    first = screen_records(data, "nonprivate", seed=1, prefilter=None, **kw)
    res = screen_records(
        data,
        "nonprivate",
        seed=1,
        prefilter=None,
        second_pool=8,
        second_queries=15,
        second_estimators=10,
        **kw,
    )
    assert res.second_pool == 8 and (res.stage == 2).sum() == 8
    passed = np.flatnonzero(res.stage == 2)
    assert set(passed.tolist()) == set(first.top(8).tolist())
    assert {0, 1, 2} <= set(res.top(6).tolist())
    # the first stage is the one-pool screen; the second pool ran on other datasets
    np.testing.assert_array_equal(res.stage1_auc, first.auc)
    assert res.total_datasets == 240 and (res.stage1_queries, res.stage1_estimators) == (15, 5)
    assert np.isnan(res.second_auc[res.stage == 1]).all()
    a1, a2 = res.stage1_auc[passed], res.second_auc[passed]
    np.testing.assert_allclose(res.auc[passed], (a1 + a2) / 2)
    assert not np.allclose(a1, a2)
    assert np.all(res.ci_low[passed] <= res.auc[passed])
    assert np.all(res.auc[passed] <= res.ci_high[passed])
    one = res.stage == 1
    np.testing.assert_array_equal(res.auc[one], first.auc[one])
    assert ScreeningResult.from_json(res.to_json()).same_as(res)


def test_second_pool_same_seed_same_result_whatever_the_workers(tmp_path) -> None:
    from synthleak.games.twostage import screen_records

    data = _table(40)
    kw = {"train_size": 20, "n_shadows": 8, "n_tests": 8, "n_queries": 15, "n_estimators": 5}
    kw |= {"prefilter": None, "second_pool": 6, "second_queries": 15, "second_estimators": 5}
    one = screen_records(data, "indhist", seed=4, **kw)
    two = screen_records(
        data, "indhist", seed=4, runtime=Runtime(workers=2, run_dir=tmp_path / "run"), **kw
    )
    again = screen_records(
        data, "indhist", seed=4, runtime=Runtime(workers=1, run_dir=tmp_path / "run"), **kw
    )
    assert one.same_as(two) and one.same_as(again)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"second_pool": 1}, "second_pool"),
        ({"second_pool": True}, "second_pool"),
        ({"second_pool": 4, "prefilter": "halving"}, "halving"),
    ],
)
def test_second_pool_input_errors(kwargs: dict, match: str) -> None:
    from synthleak.games.twostage import screen_records

    with pytest.raises(InputError, match=match):
        screen_records(_table(40), "indhist", seed=0, train_size=10, **kwargs)


def test_screen_design_sizes_and_its_generator_runs() -> None:
    from synthleak.games.twostage import (
        FULL_QUERIES,
        screen_design,
        screen_generator_runs,
        screened_count,
    )

    # the default: one pool, ten per target (at least 50), the full attack
    one = screen_design(10, 5000)
    assert one == screen_design(10, 5000, design="one-pool")
    assert one["n_screened"] == screened_count(10, 5000) == 100
    assert one["second_pool"] is None and one["n_queries"] == FULL_QUERIES
    assert screen_design(3, 5000)["n_screened"] == 50
    assert screen_design(10, 15)["n_screened"] == 15
    # two pools: 40 per target (at least 200), then 2 per target (at least 20) on a second
    two = screen_design(10, 5000, design="two-pool")
    assert two["n_screened"] == 400 and two["second_pool"] == 20
    assert screen_design(3, 5000, design="two-pool")["n_screened"] == 200
    assert screen_design(30, 5000, design="two-pool")["second_pool"] == 60
    small = screen_design(10, 15, design="two-pool")  # fewer candidates than either stage asks
    assert small["n_screened"] == 15 and small["second_pool"] == 15
    # each pool is shadow and test datasets; the second pool doubles the runs
    assert screen_generator_runs(two, 100) == 400
    assert screen_generator_runs(one, 100) == 200
    with pytest.raises(InputError, match="screen design"):
        screen_design(10, 5000, design="three-pool")
