"""Attribute inference on a given release: the no-box audit against a control baseline."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests.games.attribute_tables import numeric_population, population_table, split_release

import synthleak
from synthleak.attacks import aia_reconstruction
from synthleak.data.profile import infer_schema
from synthleak.data.release import Release
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.attribute_release import ReleaseAttributeGame, ReleaseAttributeResult
from synthleak.games.secret import (
    MAX_CI_WIDTH,
    Measurement,
    SecretRule,
)
from synthleak.runtime import Runtime


@pytest.fixture(scope="module")
def population() -> Table:
    return population_table()


def test_release_copy_leaks_and_independent_sample_does_not(population: Table) -> None:
    train, control, other = split_release(population, 600, 200, 0)
    game = ReleaseAttributeGame("s")
    copy_ = game.run(Release(train, train, control), seed=0)
    assert copy_.status is Measurement.MEASURED and copy_.difference.ci_low > 0.1
    assert copy_.accuracy.value > 0.9 and copy_.accuracy.baseline == copy_.control_accuracy.value
    ind = game.run(Release(train, other, control), seed=0)
    assert ind.status is Measurement.MEASURED and ind.difference.ci_low <= 0
    assert ind.advantage.baseline == 0 and ind.advantage.value == ind.difference.difference
    # typed result: lossless JSON, one row
    back = ReleaseAttributeResult.from_json(copy_.to_json())
    assert back.same_as(copy_) and back.status is Measurement.MEASURED
    row = copy_.to_frame()
    assert len(row) == 1 and row["n_targets"][0] == 600 and row["n_control_targets"][0] == 200
    assert copy_.training is not None and copy_.control is not None
    assert copy_.control.rows.size == 200 and copy_.training.scores.shape == (600, 2)
    assert copy_.config["n_parts"] == 1 and copy_.training.part is not None
    assert not copy_.training.part.any()  # one part, numbered 0


def test_release_without_control_is_not_measured(population: Table) -> None:
    train, _, other = split_release(population, 300, 0, 1)
    for control in (None, train.take(np.arange(0))):
        res = ReleaseAttributeGame("s").run(Release(train, other, control), seed=0)
        assert res.status is Measurement.NOT_MEASURED
        assert "needs a control set" in res.reason
        assert np.isnan(res.accuracy.value) and np.isnan(res.difference.difference)
        assert res.control_accuracy.n_trials == 0


def test_release_on_24_records_is_too_small_to_measure(population: Table) -> None:
    train, control, _ = split_release(population, 24, 8, 2)
    res = ReleaseAttributeGame("s").run(Release(train, train, control), seed=0)
    assert res.status is Measurement.TOO_SMALL
    assert res.ci_width > res.max_ci_width == MAX_CI_WIDTH
    assert "too small to measure" in res.reason


def test_release_run_dir_and_n_targets(population: Table, tmp_path: Path) -> None:
    train, control, other = split_release(population, 300, 100, 3)
    game = ReleaseAttributeGame("s", attack="dcr", n_targets=150, part_size=100)
    a = game.run(Release(train, other, control), seed=4)
    rt = Runtime(run_dir=tmp_path / "r")
    b = game.run(Release(train, other, control), seed=4, runtime=rt)
    # whole parts of at most 100 records until at least 150 are attacked
    assert a.same_as(b) and 150 <= a.accuracy.n_trials < 250
    assert a.accuracy.n_trials == a.config["n_targets"] and a.config["n_targets_asked"] == 150
    assert 0 < a.control_accuracy.n_trials <= 100
    assert ReleaseAttributeResult.from_json(tmp_path / "r" / "result.json").same_as(a)
    assert game.run(Release(train, other, control), seed=4, runtime=rt).same_as(a)  # resumed
    assert not game.run(Release(train, other, control), seed=5).same_as(a)


def test_release_lp_failure_is_not_measured(
    population: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(A, r, *, time_limit=None):  # type: ignore[no-untyped-def]
        raise aia_reconstruction.ReconstructionFailure(
            "linear program not solved (Time limit reached, time limit 1 s)"
        )

    monkeypatch.setattr(aia_reconstruction, "solve_l1", fail)
    train, control, other = split_release(population, 100, 50, 7)
    res = ReleaseAttributeGame("s").run(Release(train, other, control), seed=0)
    assert res.status is Measurement.NOT_MEASURED and np.isnan(res.difference.difference)
    assert res.reason == (
        "not measured: the attack failed (linear program not solved (Time limit reached, "
        "time limit 1 s))"
    )
    assert len(res.failures) == 2


def test_release_bad_input(population: Table) -> None:
    train, control, other = split_release(population, 100, 50, 5)
    rel = Release(train, other, control)
    with pytest.raises(InputError, match="is not a column"):
        ReleaseAttributeGame("nope").run(rel, seed=0)
    with pytest.raises(InputError, match="Release"):
        ReleaseAttributeGame("s").run(train, seed=0)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="n_targets"):
        ReleaseAttributeGame("s", n_targets=0).run(rel, seed=0)
    with pytest.raises(InputError, match="unknown attribute attack"):
        ReleaseAttributeGame("s", attack="magic").run(rel, seed=0)
    with pytest.raises(InputError, match="query_mode"):
        ReleaseAttributeGame("s", attack_params={"query_mode": "x"}).run(rel, seed=0)


def test_result_json_is_strict(population: Table) -> None:
    train, _, other = split_release(population, 100, 0, 6)
    res = ReleaseAttributeGame("s").run(Release(train, other), seed=0)
    doc = json.loads(res.to_json())
    assert doc["status"] == "not measured" and doc["accuracy"]["value"] is None


# --- copy and null oracles of the release audit on real data --------------------------------------
COMPAS = ["sex", "age", "race", "juv_fel_count", "decile_score", "priors_count", "c_charge_degree"]
REAL = {  # file, missing marker, secret, columns (None: all but the dropped ones)
    "adult": ("adult", None, "income", None),
    "acs_ma": ("nist_acs_ma2019.csv", "N", "SEX", None),
    "acs_tx": ("nist_acs_tx2019.csv", "N", "SEX", None),
    "census": ("uk_census2011_teaching_50k.csv", None, "Sex", None),
    "german": ("german_credit.csv", None, "credit", None),
    "compas": ("compas_two_years_noids.csv", None, "two_year_recid", [*COMPAS, "two_year_recid"]),
}
DROP = ["Person ID", "PWGTP", "WGTP", "INDP", "DENSITY", "PINCP", "POVPIP"]


def _real(folder: Path, name: str) -> tuple[Table, str]:
    file, na, secret, cols = REAL[name]
    if file == "adult":
        df = synthleak.datasets.load_adult()
    else:
        df = pd.read_csv(folder / file, na_values=[na] if na else None)
    df = df[cols] if cols else df.drop(columns=[c for c in DROP if c in df.columns])
    return Table.from_frame(df, infer_schema(df, categorical=[secret])), secret


@pytest.fixture(scope="module")
def real_tables(shared_datasets: Path) -> dict[str, tuple[Table, str]]:
    return {name: _real(shared_datasets, name) for name in REAL}


def test_release_copy_oracle_and_null_on_real_data(
    real_tables: dict[str, tuple[Table, str]],
) -> None:
    # a verbatim copy of the training data leaks on every dataset; a disjoint real sample of
    # the same population does not (training:control = 2:1, two seeds; the larger grid is in
    # benchmarks/calibration_aia.py)
    null_flags, null_diffs = 0, []
    for name, (table, secret) in real_tables.items():
        game = ReleaseAttributeGame(secret)
        for seed in range(2):
            train, control, other = split_release(table, 300, 150, 10 + seed)
            if seed == 0:
                copy_ = game.run(Release(train, train, control), seed=seed)
                assert copy_.status is Measurement.MEASURED, (name, copy_.reason)
                assert copy_.difference.ci_low > 0.05, (name, copy_.difference)
            null = game.run(Release(train, other, control), seed=seed)
            assert null.status is Measurement.MEASURED, (name, null.reason)
            null_flags += null.difference.ci_low > 0
            null_diffs.append(null.difference.difference)
    # 12 null runs at a one-sided 2.5% level: about 0.3 expected false alarms
    assert null_flags <= 1
    assert abs(np.mean(null_diffs)) < 0.03


def test_release_copy_oracle_at_the_audits_settings(
    real_tables: dict[str, tuple[Table, str]],
) -> None:
    """The audit attacks a budget's records (``aia_records``) of a training set that may be
    many times larger, in parts of at most ``part_size``, with a bounded number of queries:
    at those ratios (scaled down: 2,400 training records, 120 or 500 attacked, parts of 200,
    as 1,000 or 5,000 of 24,000 in parts of 2,000) a verbatim copy of the training data is
    still flagged, for a categorical secret (Adult, ACS) and a numeric one (ACS age, the right
    one of 5 quantile bins); a disjoint real sample is flagged at the interval's rate, at most
    once in six (two seeds per case: one flag in six at a one-sided 2.5 % has a probability of
    0.13, two or more 0.009; the environments' solvers draw different ones, e.g. one at a lower
    end of 0.0036 on the floor numerics; the rate itself is measured over 100 seeds in
    ``benchmarks/calibration_aia_parts.py``). Random parts read against the whole release's
    rescaled counts missed such copies."""
    from synthleak.games.secret import SecretRule

    acs, _ = real_tables["acs_tx"]
    cases = [
        (real_tables["adult"][0], real_tables["adult"][1], None),
        (acs, real_tables["acs_tx"][1], None),
        (acs, "AGEP", SecretRule(bins=5)),
    ]
    null_flags = 0
    for i, (table, secret, rule) in enumerate(cases):
        train, control, other = split_release(table, 2400, 1200, 20 + i)
        for k in (120, 500):
            game = ReleaseAttributeGame(
                secret,
                attack_params={"time_limit": 120.0, "n_queries": 2000},
                n_targets=k,
                part_size=200,
                secret_rule=rule,
            )
            copy_ = game.run(Release(train, train, control), seed=i)
            assert copy_.status is Measurement.MEASURED, (secret, k, copy_.reason)
            assert copy_.difference.ci_low > 0.05, (secret, k, copy_.difference)
            assert k <= copy_.accuracy.n_trials < k + 200
        null = game.run(Release(train, other, control), seed=i)
        assert null.status is Measurement.MEASURED
        null_flags += null.difference.ci_low > 0
        train, control, other = split_release(table, 2400, 1200, 30 + i)
        null_flags += game.run(Release(train, other, control), seed=10 + i).difference.ci_low > 0
    assert null_flags <= 1


@pytest.mark.slow
def test_release_null_calibration_grid(shared_datasets: Path) -> None:
    """The grid of benchmarks/calibration_aia.py, reduced: 10 seeds per dataset and ratio."""
    from benchmarks.calibration_aia import DATASETS, calibrate

    for name in DATASETS:
        for ratio in (1, 4):
            r = calibrate(name, 600, ratio, 10)
            assert r["flagged"] <= 2, r  # 10 null runs at 2.5%: three or more has p ~ 0.002
            assert r["copy"].ci_low > 0, r  # type: ignore[attr-defined]


def test_release_parts_bound_each_program_and_copy_still_leaks(population: Table) -> None:
    train, control, other = split_release(population, 900, 300, 6)
    lines: list[str] = []
    game = ReleaseAttributeGame("s", n_targets=600, part_size=200, log=lines.append)
    copy_ = game.run(Release(train, train, control), seed=0)
    assert copy_.config["n_parts"] >= 3 and copy_.config["part_size"] == 200
    assert 600 <= copy_.accuracy.n_trials < 800
    assert 0 < copy_.control_accuracy.n_trials <= 300
    assert copy_.difference.ci_low > 0.1
    assert copy_.training is not None and np.all(np.diff(copy_.training.rows) > 0)
    assert copy_.training.rows.max() < 900 and copy_.control is not None
    assert np.unique(copy_.control.rows).size == copy_.control.rows.size  # none used twice
    # each outcome's part: every part attacked in the training world, control records in the
    # parts whose values they hold, none used twice
    t_part, c_part = copy_.training.part, copy_.control.part
    assert t_part is not None and c_part is not None
    assert set(np.unique(t_part)) == set(range(copy_.config["n_parts"]))
    assert set(np.unique(c_part)) <= set(np.unique(t_part))
    assert ReleaseAttributeResult.from_json(copy_.to_json()).same_as(copy_)
    assert any("projected time" in line for line in lines)
    assert any(line.endswith("done") for line in lines)
    null = game.run(Release(train, other, control), seed=0)
    assert null.difference.ci_low <= 0 <= null.difference.ci_high + 0.05


def test_release_interrupted_run_resumes_its_finished_parts(
    population: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import synthleak.games.attribute_release as attribute_release

    train, control, other = split_release(population, 600, 200, 7)
    game = ReleaseAttributeGame("s", attack="dcr", part_size=150)
    whole = game.run(Release(train, other, control), seed=1)
    real = attribute_release._play_part
    calls: list[tuple[int, int]] = []

    def interrupted(shared, world, part):  # type: ignore[no-untyped-def]
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append((world, part))
        return real(shared, world, part)

    monkeypatch.setattr(attribute_release, "_play_part", interrupted)
    rt = Runtime(run_dir=tmp_path / "run")
    game.log = lambda _: None
    with pytest.raises(KeyboardInterrupt):
        game.run(Release(train, other, control), seed=1, runtime=rt)
    done = list(calls)
    calls.clear()

    def counted(shared, world, part):  # type: ignore[no-untyped-def]
        calls.append((world, part))
        return real(shared, world, part)

    monkeypatch.setattr(attribute_release, "_play_part", counted)
    lines: list[str] = []
    game.log = lines.append
    again = game.run(Release(train, other, control), seed=1, runtime=rt)
    assert again.same_as(whole)
    units = 2 * whole.config["n_parts"]  # every part has control records swapped in
    assert not set(done) & set(calls) and len(done) + len(calls) == units
    assert any(f"3 of {units}" in line and "reloaded" in line for line in lines)


@pytest.mark.parametrize(
    "rule",
    [SecretRule(bins=5), SecretRule(tolerance=1500.0), SecretRule(tolerance=0.2, kind="relative")],
    ids=["bins", "absolute", "relative"],
)
def test_release_numeric_secret_copy_and_null_oracles(rule: SecretRule) -> None:
    table = numeric_population()
    flags = 0
    for seed in range(3):
        train, control, other = split_release(table, 800, 200, 20 + seed)
        game = ReleaseAttributeGame("income", ["q0", "q1", "q2", "q3"], secret_rule=rule)
        null = game.run(Release(train, other, control), seed=seed)
        assert null.status is Measurement.MEASURED
        flags += null.difference.ci_low > 0
        if seed == 0:
            copy_ = game.run(Release(train, train, control), seed=seed)
            assert copy_.difference.ci_low > 0.1, copy_.difference
            assert copy_.config["secret_rule"]["rule"] == rule.mode
            assert len(copy_.config["secret_classes"]) == rule.n_bins
            assert copy_.config["secret_classes"][0].startswith("[")
            assert ReleaseAttributeResult.from_json(copy_.to_json()).same_as(copy_)
    assert flags <= 1


def test_release_population_inference_is_not_a_leak_memorisation_is() -> None:
    # the secret follows from two quasi-identifiers in the whole population: an independent
    # release lets the attack infer it for everyone (accuracy near 1 in both worlds), and the
    # excess over the control world stays at 0; a memorised noisy secret is an excess
    rng = np.random.default_rng(3)
    n = 2400
    qi = rng.integers(0, 4, size=(n, 5))
    df = pd.DataFrame(qi, columns=[f"q{j}" for j in range(5)]).astype(str)
    df["s"] = ((qi[:, 0] + qi[:, 1]) % 2).astype(str)
    df["noisy"] = rng.integers(0, 2, n).astype(str)
    table = Table.from_frame(df, infer_schema(df))
    quasi = [f"q{j}" for j in range(5)]
    # four seeds: 0 outside a 95% interval at most once (two or more: probability 0.014), and a
    # mean excess near 0 (one run on the floor numerics has a lower end of 0.0022, p = 0.021:
    # the interval's tail, 2 of 100 seeds there and 1 of 100 on the main environment)
    missed, diffs = 0, []
    for seed in range(4):
        train, control, other = split_release(table, 800, 200, seed)
        stats = ReleaseAttributeGame("s", quasi).run(Release(train, other, control), seed=seed)
        assert stats.accuracy.value > 0.75 and stats.control_accuracy.value > 0.75
        assert stats.advantage.value == stats.difference.difference
        assert stats.advantage.baseline == 0
        missed += not stats.difference.ci_low <= 0 <= stats.difference.ci_high
        diffs.append(stats.difference.difference)
    assert missed <= 1 and abs(np.mean(diffs)) < 0.03
    train, control, other = split_release(table, 800, 200, 0)
    memorised = ReleaseAttributeGame("noisy", quasi).run(Release(train, train, control), seed=0)
    assert memorised.control_accuracy.value < 0.65 and memorised.advantage.ci_low > 0
