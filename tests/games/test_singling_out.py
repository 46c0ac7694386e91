"""Singling-out game: the protocol, typed results, the "where", and calibration on real data.

Calibration (module ``tests/games/calibration.py``): with a disjoint real sample as the release
nothing can leak, so a calibrated game flags a leak (its 95 % interval excludes 0) in about 2.5 %
of runs; with a copy of the original as the release the risk is 1. The fast suite runs 4 real
datasets x 3 original:control ratios x 10 seeds; the slow one (``-m slow``) a larger grid, as
``benchmarks/calibration_singling_out.py`` does.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests.games.calibration import draw, load_population, release

import synthleak as sl
from synthleak.attacks.singling_out import MultivariateSinglingOut, UnivariateSinglingOut
from synthleak.data.release import Release
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.singling_out import (
    SinglingOutGame,
    SinglingOutResult,
    SizeDesign,
    example_predicates,
)
from synthleak.metrics.risk import SizeCorrection


@pytest.fixture(scope="module")
def adult_parts(adult_df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    idx = np.random.default_rng(0).permutation(len(adult_df))
    cut = [0, 1000, 1250, 2250, 3250]
    names = ["original", "control", "independent", "big_control"]
    parts = {n: adult_df.iloc[idx[a:b]] for n, a, b in zip(names, cut, cut[1:], strict=False)}
    parts["big_control"] = adult_df.iloc[idx[3250:6250]]
    return parts


def _quiet(game: SinglingOutGame, rel: Release, seed: int = 0) -> SinglingOutResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        return game.run(rel, seed=seed)


# --- the protocol -------------------------------------------------------------------------------


def test_runs_on_dataframes_even_when_all_three_are_the_same(adult_df: pd.DataFrame) -> None:
    df = adult_df.iloc[:500]
    res = sl.SinglingOutGame(n_attacks=50).run(Release(df, df, df), seed=0)
    assert isinstance(res, SinglingOutResult)
    assert [a.attack for a in res.attacks] == ["univariate", "multivariate"]
    for a in res.attacks:  # a control identical to the original leaves nothing to measure
        assert not a.measured and "not measured" in a.note and np.isnan(a.risk.value)


def test_copy_and_independent_releases(adult_parts: dict[str, pd.DataFrame]) -> None:
    p = adult_parts
    game = SinglingOutGame(n_attacks=200)
    lows: dict[str, list[float]] = {}
    for seed in range(3):
        copy = _quiet(game, Release(p["original"], p["original"], p["control"]), seed=seed)
        for a in copy.attacks:
            assert a.measured and a.attack_rate.value > 0.95 and a.n_attacks == 200
            assert a.risk.value > 0.95
            assert a.risk.baseline == a.baseline_rate.value < 0.2
            lows.setdefault(a.attack, []).append(a.risk.ci_low)
    # the control (250) is counted at the original's size (1,000), each of its singling outs
    # weighing four: with 200 predicates the excess's interval reaches 0 for about one seed
    # in 40 (measured for the multivariate attack), and the risk's interval is then [0, 1]
    for attack, low in lows.items():
        assert sum(lo > 0.5 for lo in low) >= 2, (attack, low)
    indep = _quiet(game, Release(p["original"], p["independent"], p["control"]))
    for a in indep.attacks:
        assert a.risk.ci_low == 0.0 and a.risk.value < 0.2


def test_design_states_the_size_correction(adult_parts: dict[str, pd.DataFrame]) -> None:
    p = adult_parts
    game = SinglingOutGame(["multivariate"], n_attacks=50)
    small = _quiet(game, Release(p["original"], p["independent"], p["control"])).design
    assert (small.n_original, small.n_control, small.n_evaluated) == (1000, 250, 250)
    assert small.correction is SizeCorrection.ORIGINAL_SUBSAMPLED and "rescaled" in small.note
    big = _quiet(game, Release(p["original"], p["independent"], p["big_control"])).design
    assert big.correction is SizeCorrection.CONTROL_SUBSAMPLED and big.n_evaluated == 1000
    same = _quiet(game, Release(p["original"], p["independent"], p["original"].iloc[::-1]))
    assert same.design.correction is SizeCorrection.NONE
    assert isinstance(small, SizeDesign)


def test_same_seed_same_result_and_streams_per_attack(adult_parts: dict[str, pd.DataFrame]) -> None:
    p = adult_parts
    rel = Release(p["original"], p["independent"], p["control"])
    a = _quiet(SinglingOutGame(n_attacks=100), rel, seed=5)
    b = _quiet(SinglingOutGame(n_attacks=100), rel, seed=5)
    assert a.same_as(b)
    c = _quiet(SinglingOutGame(n_attacks=100), rel, seed=6)
    assert not a.same_as(c)
    # an attack's numbers do not depend on which other attacks run (one stream per attack)
    alone = _quiet(SinglingOutGame(["multivariate"], n_attacks=100), rel, seed=5)
    assert alone["multivariate"].same_as(a["multivariate"])


def test_attack_objects_and_parameters(adult_parts: dict[str, pd.DataFrame]) -> None:
    p = adult_parts
    rel = Release(p["original"], p["original"], p["control"])
    obj = MultivariateSinglingOut(n_cols=2)
    res = _quiet(SinglingOutGame([UnivariateSinglingOut(), obj], n_attacks=40), rel)
    assert [a.attack for a in res.attacks] == ["univariate", "multivariate"]
    assert obj.medians_ is None  # the game fits its own copy
    two = _quiet(
        SinglingOutGame(
            ["multivariate"], n_attacks=40, attack_params={"multivariate": {"n_cols": 2}}
        ),
        rel,
    )
    assert all(c.n_predicates <= 40 for c in two["multivariate"].columns)
    assert sum(c.n_predicates for c in two["multivariate"].columns) == 2 * 40


def test_input_errors(adult_parts: dict[str, pd.DataFrame]) -> None:
    p = adult_parts
    rel = Release(p["original"], p["independent"], p["control"])
    with pytest.raises(InputError, match="unknown singling-out attack 'nope'"):
        SinglingOutGame(["nope"])
    with pytest.raises(InputError, match="SinglingOutAttack"):
        SinglingOutGame([object()])  # type: ignore[list-item]
    with pytest.raises(InputError, match="n_attacks"):
        SinglingOutGame(n_attacks=0)
    with pytest.raises(InputError, match="confidence"):
        SinglingOutGame(confidence=1.0)
    with pytest.raises(InputError, match="attack_params names"):
        SinglingOutGame(["univariate"], attack_params={"multivariate": {"n_cols": 2}})
    with pytest.raises(InputError, match="n_cols"):
        SinglingOutGame(["multivariate"], attack_params={"multivariate": {"n_cols": 99}}).run(
            rel, seed=0
        )
    with pytest.raises(InputError, match="Release"):
        SinglingOutGame().run(p["original"], seed=0)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="control"):
        SinglingOutGame().run(Release(p["original"], p["independent"]), seed=0)
    with pytest.raises(InputError, match="seed"):
        SinglingOutGame().run(rel, seed=-1)
    bad = p["independent"].drop(columns=["income"])
    with pytest.raises(InputError, match="income"):
        SinglingOutGame().run(Release(p["original"], bad, p["control"]), seed=0)


# --- results ------------------------------------------------------------------------------------


def test_result_round_trips_and_frames(adult_parts: dict[str, pd.DataFrame]) -> None:
    p = adult_parts
    res = _quiet(SinglingOutGame(n_attacks=80), Release(p["original"], p["original"], p["control"]))
    again = SinglingOutResult.from_json(res.to_json())
    assert again.same_as(res)
    assert again.attacks[1].columns == res.attacks[1].columns
    frame = res.to_frame()
    assert list(frame.attack) == ["univariate", "multivariate"]
    assert {"risk", "ci_low", "ci_high", "attack_rate", "control_rate", "baseline_rate"} <= set(
        frame.columns
    )
    assert (frame.n_evaluated == 250).all()
    s = res["multivariate"].summary()
    assert s["ci"] == [res["multivariate"].risk.ci_low, res["multivariate"].risk.ci_high]
    with pytest.raises(KeyError, match="contrastive"):
        res["contrastive"]
    assert "SinglingOutResult(" in repr(res)


def test_where_the_leak_is(adult_parts: dict[str, pd.DataFrame]) -> None:
    """A release that copies the original except one column: the copied columns carry the leak,
    the scrambled one does not."""
    p = adult_parts
    rng = np.random.default_rng(0)
    syn = p["original"].copy()
    syn["fnlwgt"] = rng.permutation(syn["fnlwgt"].to_numpy())  # no longer tied to its record
    res = _quiet(
        SinglingOutGame(["multivariate"], n_attacks=300),
        Release(p["original"], syn, p["big_control"]),
    )
    cols = {c.column: c for c in res["multivariate"].columns}
    assert [c.excess for c in res["multivariate"].columns] == sorted(
        (c.excess for c in res["multivariate"].columns), reverse=True
    )
    assert cols["fnlwgt"].excess < min(cols["age"].excess, cols["hours-per-week"].excess)
    examples = res["multivariate"].examples
    assert 0 < len(examples) <= 5
    for text in examples:
        assert text.count("&") == 2  # three columns, never a whole record


def test_examples_never_spell_out_most_of_a_record(adult_1000: sl.Table) -> None:
    t = adult_1000
    attack = MultivariateSinglingOut(n_cols=len(t.schema)).fit(t, rng=np.random.default_rng(0))
    preds = attack.predicates(10, rng=np.random.default_rng(1))
    assert example_predicates(preds, np.ones(len(preds), dtype=bool), 5) == ()
    few = MultivariateSinglingOut(n_cols=2).fit(t, rng=np.random.default_rng(0))
    p2 = few.predicates(10, rng=np.random.default_rng(1))
    texts = example_predicates(p2, np.ones(len(p2), dtype=bool), 3)
    assert texts == tuple(p2.describe(i) for i in range(3))


def test_people_not_rows_duplicates_single_out_nobody() -> None:
    """Two people with the same values cannot be told apart: a predicate matching both singles
    out nobody, and the original is not de-duplicated."""
    base = pd.DataFrame({"a": list("pqrstuvwxy"), "b": list(range(10))})
    original = pd.concat([base, base.iloc[:5]], ignore_index=True)  # p..t appear twice
    res = _quiet(SinglingOutGame(["univariate"], n_attacks=50), Release(original, base, base))
    a = res["univariate"]
    assert res.design.n_original == 15  # rows, not distinct rows
    # 20 predicates (a == v, b == k: every synthetic value occurs once); those of the five
    # duplicated people match two rows of the original: 10 single out one person, not 20
    assert (a.n_attacks, a.n_success, a.n_control_success) == (20, 10, 20)


def test_a_release_closer_to_the_control_gets_a_note(adult_parts: dict[str, pd.DataFrame]) -> None:
    """Predicates that single out control records far more often than original ones: the risk
    is 0, its interval [0, 0], and the note says what that can mean."""
    p = adult_parts
    syn = pd.concat([p["big_control"].iloc[:1000], p["independent"].iloc[:250]])
    res = _quiet(
        SinglingOutGame(["multivariate"], n_attacks=200),
        Release(p["original"], syn, p["big_control"]),
    )
    a = res["multivariate"]
    assert a.excess < -0.1 and a.risk.value == a.risk.ci_high == 0.0
    assert "more often than original ones" in a.note and "same population" in a.note


def test_baseline_warning_when_no_better_than_guessing() -> None:
    rng = np.random.default_rng(0)
    few = pd.DataFrame({"a": rng.choice(list("pq"), 400), "b": rng.choice(list("xyz"), 400)})
    syn = pd.DataFrame({"a": list("pq") * 5 + ["r"], "b": list("xyzxyzxyzxy")})
    with pytest.warns(BaselineWarning, match="no better than random"):
        res = SinglingOutGame(["univariate"], n_attacks=20).run(
            Release(few, syn, few.iloc[::-1]), seed=0
        )
    assert "random guessing" in res["univariate"].note


# --- calibration on real data -----------------------------------------------------------------

CAL_DATASETS = ("adult", "acs", "census", "compas")
CAL_RATIOS = (1.0, 3.0, 4.0)


@pytest.fixture(scope="module")
def populations(shared_datasets: Path) -> dict[str, sl.Table]:
    return {n: load_population(n, shared_datasets) for n in (*CAL_DATASETS, "census-dup", "german")}


def _calibration(
    pop: sl.Table, n_original: int, ratio: float, scenario: str, seeds: range, n_attacks: int
) -> list[dict[str, float]]:
    rows = []
    game = SinglingOutGame(n_attacks=n_attacks)
    for seed in seeds:
        rng = np.random.default_rng([seed, int(10 * ratio), len(scenario)])
        d = draw(pop, n_original, round(n_original / ratio), rng)
        syn = release(d, scenario, rng)
        res = _quiet(game, Release(d.original, syn, d.control), seed)
        truth = (
            _quiet(game, Release(d.original, syn, d.oracle_control), seed)
            if scenario != "null"
            else None
        )
        for i, a in enumerate(res.attacks):
            if a.measured and a.n_attacks >= 20:
                rows.append(
                    {
                        "attack": a.attack,
                        "risk": a.risk.value,
                        "flagged": a.risk.ci_low > 0,
                        "truth": truth.attacks[i].risk.value if truth else 0.0,
                    }
                )
    return rows


@pytest.mark.parametrize("ratio", CAL_RATIOS)
@pytest.mark.parametrize("dataset", CAL_DATASETS)
def test_null_oracle_flags_at_most_one_run_in_ten(
    populations: dict[str, sl.Table], dataset: str, ratio: float
) -> None:
    rows = pd.DataFrame(
        _calibration(populations[dataset], 1000, ratio, "null", range(10), n_attacks=200)
    )
    for attack, g in rows.groupby("attack"):
        assert len(g) >= 5
        assert g.flagged.mean() <= 0.1, f"{attack}: {int(g.flagged.sum())} of {len(g)} flagged"
        assert g.risk.mean() < 0.15


@pytest.mark.parametrize("ratio", CAL_RATIOS)
def test_copy_oracles_are_flagged_at_every_ratio(
    populations: dict[str, sl.Table], ratio: float
) -> None:
    for dataset in ("adult", "acs"):
        for scenario in ("copy", "noisy0.1"):
            rows = pd.DataFrame(
                _calibration(populations[dataset], 1500, ratio, scenario, range(2), n_attacks=500)
            )
            for attack, g in rows.groupby("attack"):
                where = f"{dataset} {scenario} {attack} at {ratio}:1"
                assert g.flagged.all(), f"{where}: not flagged"
                assert abs(g.risk.mean() - g.truth.mean()) < 0.15, where


@pytest.mark.slow
@pytest.mark.parametrize("dataset", [*CAL_DATASETS, "census-dup", "german"])
def test_calibration_grid(populations: dict[str, sl.Table], dataset: str) -> None:
    """The larger grid (as ``benchmarks/calibration_singling_out.py``): up to 2,000 original
    records, 500 predicates, ratios 1:2 to 4:1, 20 null seeds; ``census-dup`` has 72 % duplicate
    rows. Copies are flagged at every ratio; a noisy copy is flagged when the control is at least
    as large as the original (with a smaller control weak leaks lose power: see the benchmark)."""
    pop = populations[dataset]
    null, copy, noisy = [], [], []
    for ratio in (0.5, 1.0, 2.0, 3.0, 4.0):
        n_o = min(2000, int(len(pop) / (3 + 1 / ratio)))
        null += _calibration(pop, n_o, ratio, "null", range(20), n_attacks=500)
        copy += _calibration(pop, n_o, ratio, "copy", range(2), n_attacks=500)
        if ratio <= 1:
            noisy += _calibration(pop, n_o, ratio, "noisy0.1", range(2), n_attacks=500)
    null_f = pd.DataFrame(null)
    assert null_f.flagged.mean() <= 0.05, null_f.groupby("attack").flagged.mean()
    for rows in (copy, noisy):
        f = pd.DataFrame(rows)
        f = f[f.attack == "multivariate"]  # univariate finds no predicate on the census files
        assert f.flagged.mean() >= 0.9
        assert abs((f.risk - f.truth).mean()) < 0.05


def test_an_attack_result_is_found_by_name_and_a_wrong_name_lists_the_attacks() -> None:
    from synthleak.games.linkability import LinkabilityResult
    from synthleak.games.singling_out import SinglingOutResult

    for cls in (SinglingOutResult, LinkabilityResult):

        class Named:
            def __init__(self, attack: str) -> None:
                self.attack = attack

        res = object.__new__(cls)
        object.__setattr__(res, "attacks", (Named("a"), Named("b")))
        assert res["b"].attack == "b"
        with pytest.raises(KeyError, match=r"no attack named 'c': the attacks are \['a', 'b'\]"):
            res["c"]


def test_null_oracle_at_three_hundred_columns_and_unequal_sizes(adult_df: pd.DataFrame) -> None:
    """The harness's wide case: 300 columns, 287 of them independent random draws in each file
    (decimals and small integer codes), the original three times the control, the release a
    disjoint real sample. Predicates over the random columns single out as often among the
    control as among the original: no interval excludes 0 in more than one of four runs."""
    alarms = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        rows = rng.permutation(len(adult_df))[:1400]
        parts = []
        for a, b in ((0, 600), (600, 800), (800, 1400)):
            p = adult_df.iloc[rows[a:b]].reset_index(drop=True)
            k = len(p)
            extra = {f"x{i}": rng.normal(size=k).round(3) for i in range(144)}
            extra |= {f"c{i}": rng.integers(0, 12, k) for i in range(143)}
            parts.append(pd.concat([p, pd.DataFrame(extra)], axis=1))
        ori, ctl, syn = parts
        game = SinglingOutGame(("univariate", "multivariate"), n_attacks=300)
        r = _quiet(game, Release(ori, syn, ctl), seed=seed)
        alarms += sum(a.risk.ci_low > 0 for a in r.attacks)
    assert alarms <= 1
