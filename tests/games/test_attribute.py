"""Attribute inference: the randomised-secret game and the no-box release audit."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import synthleak
from synthleak.attacks import aia_reconstruction
from synthleak.attacks.base import AttributeAttack
from synthleak.data.profile import infer_schema
from synthleak.data.release import Release
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.attribute import (
    MAX_CI_WIDTH,
    AttributeGame,
    AttributeGameResult,
    Measurement,
    ReleaseAttributeGame,
    ReleaseAttributeResult,
    SecretRule,
    attribute_codes,
    discretise,
    singleton_rows,
    validate_secret,
)
from synthleak.games.base import Game
from synthleak.runtime import Runtime


def _population(n: int = 3000, seed: int = 0, classes: int = 2) -> Table:
    rng = np.random.default_rng(seed)
    qi = rng.integers(0, 6, size=(n, 6))
    secret = (qi[:, 0] + qi[:, 1] + rng.integers(0, 2, n)) % classes
    df = pd.DataFrame(qi, columns=[f"q{j}" for j in range(6)]).astype(str)
    df["age"] = rng.random(n) * 80  # continuous quasi-identifier, discretised by the game
    df["s"] = secret.astype(str)
    return Table.from_frame(df, infer_schema(df))


@pytest.fixture(scope="module")
def population() -> Table:
    return _population()


def _acc(res: AttributeGameResult, m: int, attack: str = "recon") -> float:
    return res.accuracy(attack, m).accuracy.value


# --- the game: protocol, registry, typed result ---------------------------------------------------
def test_one_calling_convention() -> None:
    # run(data, *, seed, runtime=None) like every game (no workers=/progress= of its own)
    params = list(inspect.signature(AttributeGame.run).parameters)
    assert params == ["self", "data", "seed", "runtime"]
    assert isinstance(AttributeGame("nonprivate", "s"), Game)
    assert isinstance(ReleaseAttributeGame("s"), Game)


class _ConstantGuess(AttributeAttack):
    """Always scores the first class highest (an attack object, not a registered name)."""

    name = "constant"

    def __init__(self, cls: int = 0) -> None:
        self.cls = cls

    def fit(self, quasi_ids, sizes, *, rng):  # type: ignore[no-untyped-def]
        self.n_ = len(quasi_ids)
        return self

    def score(self, syn_quasi_ids, syn_secret, targets, n_classes, *, rng):  # type: ignore[no-untyped-def]
        out = np.zeros((len(targets), n_classes))
        out[:, self.cls] = 1.0
        return out


def test_nonprivate_oracle_typed_result_and_comparisons(population: Table) -> None:
    constant = _ConstantGuess()
    game = AttributeGame(
        "nonprivate",
        "s",
        train_size=150,
        synthetic_size=[100, 10_000],
        n_games=5,
        targets_per_game=10,
        attacks=("recon", "dcr", "infer", constant),
        attack_params={"infer": {"max_train": 1000}, "recon": {"time_limit": 120}},
    )
    res = game.run(population, seed=1)
    assert not res.failures and not hasattr(constant, "n_")  # the caller's object is not fitted
    # 50 targets; nonprivate at m >> n reveals almost every secret
    assert _acc(res, 10_000) >= 0.85
    assert _acc(res, 10_000, "dcr") >= 0.85
    assert _acc(res, 10_000) >= _acc(res, 100) - 0.05  # accuracy does not drop with m
    # a constant guess of a randomised binary secret stays at the baseline
    assert abs(_acc(res, 10_000, "constant") - 0.5) < 0.25
    big = res.accuracy("recon", 10_000)
    assert big.auc > 0.9 and big.accuracy.baseline == 0.5 and big.accuracy.n_trials == 50
    assert big.accuracy.ci_low <= big.accuracy.value <= big.accuracy.ci_high
    assert big.ci_width == pytest.approx(big.accuracy.ci_high - big.accuracy.ci_low)
    assert big.max_ci_width == MAX_CI_WIDTH and big.status is Measurement.MEASURED  # 1.0 on 50
    sizes = {s.synthetic_size: s for s in res.sizes}
    assert sizes[10_000].tvd3 < sizes[100].tvd3
    best = max(a.accuracy.value for a in res.accuracies if a.synthetic_size == 10_000)
    assert sizes[10_000].acc_max == best
    # every pair of attacks is compared on the same 50 secrets
    pairs = {(c.a, c.b): c.comparison for c in res.comparisons if c.synthetic_size == 10_000}
    assert ("recon", "dcr") in pairs and ("infer", "constant") in pairs and len(pairs) == 6
    c = pairs[("recon", "dcr")]
    assert c.n == 50
    assert abs(c.difference - (_acc(res, 10_000) - _acc(res, 10_000, "dcr"))) < 1e-12
    assert c.ci_low <= c.difference <= c.ci_high and 0 <= c.p_value <= 1
    # lossless JSON, one row per size x attack, a short repr
    back = AttributeGameResult.from_json(res.to_json())
    assert back.same_as(res) and back.accuracy("recon", 10_000).status is big.status
    frame = res.to_frame()
    assert len(frame) == 2 * 4 and {"synthetic_size", "attack", "accuracy", "ci_low"} <= set(frame)
    assert "\n" not in repr(res) and len(repr(res)) < 300
    out = {(o.attack, o.synthetic_size): o for o in res.outcomes}
    o = out[("recon", 10_000)]
    assert o.scores.shape == (50, 2) and np.mean(o.guess == o.truth) == _acc(res, 10_000)
    assert res.config["attacks"][3]["name"] == "constant"
    assert res.config["attacks"][0]["params"]["time_limit"] == 120


def test_indhist_is_at_baseline(population: Table) -> None:
    # 240 randomised secrets: the 99.9% band of a fair coin is 0.5 +- 0.106
    game = AttributeGame(
        "indhist",
        "s",
        train_size=150,
        synthetic_size=5000,
        n_games=12,
        targets_per_game=20,
        attacks=("recon", "dcr"),
    )
    res = game.run(population, seed=2)
    for a in ("recon", "dcr"):
        assert abs(_acc(res, 5000, a) - 0.5) < 0.106
        assert res.accuracy(a, 5000).status is Measurement.MEASURED


def test_non_binary_secret_baseline_and_oracle() -> None:
    table = _population(classes=3, seed=3)
    res = AttributeGame(
        "nonprivate",
        "s",
        train_size=150,
        synthetic_size=20_000,
        n_games=3,
        targets_per_game=10,
        attacks=("recon",),
    ).run(table, seed=0)
    r = res.accuracy("recon", 20_000)
    assert r.accuracy.baseline == pytest.approx(1 / 3)
    assert np.isnan(r.auc)
    assert r.accuracy.value > 0.7


def test_workers_do_not_change_results(population: Table) -> None:
    game = AttributeGame(
        "indhist",
        "s",
        train_size=100,
        synthetic_size=[500, 2000],
        n_games=2,
        targets_per_game=3,
        attacks=("recon", "dcr", "infer"),
        attack_params={"infer": {"max_train": 300}},
    )
    a = game.run(population, seed=5)
    b = game.run(population, seed=5, runtime=Runtime(workers=2))
    assert a.same_as(b)
    c = game.run(population, seed=6)
    assert not a.same_as(c)


def test_sweep_entry_equals_single_run(population: Table) -> None:
    kw = dict(train_size=100, n_games=3, targets_per_game=3, attacks=("recon", "dcr"))
    sweep = AttributeGame("nonprivate", "s", synthetic_size=[300, 3000], **kw).run(
        population, seed=4
    )
    single = AttributeGame("nonprivate", "s", synthetic_size=3000, **kw).run(population, seed=4)
    for a in ("recon", "dcr"):
        assert sweep.accuracy(a, 3000).same_as(single.accuracy(a, 3000))
    assert sweep.sizes[1].same_as(single.sizes[0])


def test_run_dir_resumes_and_stores_result(population: Table, tmp_path: Path) -> None:
    game = AttributeGame("indhist", "s", train_size=100, synthetic_size=1000, n_games=3)
    rt = Runtime(run_dir=tmp_path / "run")
    first = game.run(population, seed=0, runtime=rt)
    stored = AttributeGameResult.from_json(tmp_path / "run" / "result.json")
    assert stored.same_as(first)
    again = game.run(population, seed=0, runtime=rt)
    assert again.same_as(first)


def test_too_few_games_are_too_small_to_measure(population: Table) -> None:
    res = AttributeGame(
        "nonprivate", "s", train_size=100, synthetic_size=500, n_games=2, attacks=("dcr",)
    ).run(population, seed=0)
    a = res.accuracy("dcr", 500)
    assert a.status is Measurement.TOO_SMALL and a.ci_width > a.max_ci_width
    assert "too" in a.reason or "wider" in a.reason


def test_single_valued_secret_games_fail_with_reason() -> None:
    rng = np.random.default_rng(0)
    n = 400
    df = pd.DataFrame(rng.integers(0, 8, size=(n, 4)).astype(str), columns=list("abcd"))
    s = np.zeros(n, dtype=int)
    s[:3] = 1  # the secret rarely takes its second value
    df["s"] = s.astype(str)
    table = Table.from_frame(df, infer_schema(df))
    res = AttributeGame(
        "nonprivate", "s", train_size=30, synthetic_size=200, n_games=8, attacks=("dcr",)
    ).run(table, seed=0)
    whole = [f for f in res.failures if f.synthetic_size is None]
    assert whole and all("single value" in f.reason for f in whole)
    assert res.accuracy("dcr", 200).n_games == 8 - len(whole)


def test_all_games_failing_is_an_input_error() -> None:
    df = pd.DataFrame({"a": ["x", "y"] * 50, "b": ["u", "v", "w", "z"] * 25, "s": ["0"] * 100})
    df.loc[0, "s"] = "1"
    with pytest.raises(InputError):
        AttributeGame(
            "nonprivate", "s", train_size=20, synthetic_size=50, n_games=2, attacks=("dcr",)
        ).run(df, seed=0)


def test_lp_failure_reported_per_game(population: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(A, r, *, time_limit=None):  # type: ignore[no-untyped-def]
        raise aia_reconstruction.ReconstructionFailure(
            "linear program not solved (Time limit reached, time limit 0 s)"
        )

    monkeypatch.setattr(aia_reconstruction, "solve_l1", fail)
    res = AttributeGame(
        "nonprivate", "s", train_size=100, synthetic_size=1000, n_games=2, attacks=("recon", "dcr")
    ).run(population, seed=0)
    recon = res.accuracy("recon", 1000)
    assert recon.n_games == 0 and recon.n_failed == 2 and np.isnan(recon.accuracy.value)
    assert recon.status is Measurement.NOT_MEASURED and "failed" in recon.reason
    assert {f.attack for f in res.failures} == {"recon"}
    assert all("time limit" in f.reason for f in res.failures)
    assert res.accuracy("dcr", 1000).n_games == 2


def test_no_unique_target_is_an_input_error() -> None:
    df = pd.DataFrame(
        {"a": ["x", "y"] * 100, "b": ["u", "v"] * 100, "s": ["0", "1", "1", "0"] * 50}
    )
    with pytest.raises(InputError, match="unique quasi-identifiers"):
        AttributeGame("nonprivate", "s", train_size=50, synthetic_size=100, n_games=2).run(
            df, seed=0
        )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"secret": "nope"}, "is not a column"),
        ({"secret": "age"}, "numeric column: state when a guess counts as right"),
        ({"secret": "s", "quasi_ids": ["q0", "s"]}, "cannot also be"),
        ({"secret": "s", "train_size": 10**6}, "train_size"),
        ({"secret": "s", "n_games": 0}, "n_games"),
        ({"secret": "s", "attacks": ("magic",)}, "unknown attribute attack"),
        ({"secret": "s", "attacks": ("dcr", "dcr")}, "more than once"),
        ({"secret": "s", "attacks": (object(),)}, "AttributeAttack"),
        ({"secret": "s", "attack_params": {"recon": {"bogus": 1}}}, "bogus"),
        ({"secret": "s", "attack_params": {"recon": {"query_mode": "x"}}}, "query_mode"),
        ({"secret": "s", "attack_params": {"infer": {}}, "attacks": ("dcr",)}, "infer"),
        ({"secret": "s", "synthetic_size": [0]}, "positive"),
        ({"secret": "s", "generator": "nosuchgen"}, "nosuchgen"),
        ({"secret": "s", "bin_strategy": "weird"}, "bin_strategy"),
    ],
)
def test_bad_input(population: Table, kwargs: dict, match: str) -> None:
    kw = {"generator": "nonprivate", "train_size": 100, "synthetic_size": 100, "n_games": 1}
    kw.update(kwargs)
    with pytest.raises(InputError, match=match):
        AttributeGame(**kw).run(population, seed=0)


def test_discretise_and_singleton_rows(population: Table) -> None:
    codes, schema = discretise(population, 5)
    assert codes.shape == (len(population), len(population.schema))
    assert all(c.is_categorical for c in schema.columns)
    assert codes[:, population.schema.names.index("age")].max() <= 4
    np.testing.assert_array_equal(
        singleton_rows(np.array([[1, 2], [1, 2], [3, 4]])), [False, False, True]
    )
    prep = attribute_codes(population, "s", bins=4)
    assert prep.quasi_ids == [f"q{j}" for j in range(6)] + ["age"]
    assert prep.n_classes == 2 and prep.labels == ["0", "1"] and prep.codes.shape[1] == 8


def test_unique_rows_has_one_meaning_in_the_package() -> None:
    # "unique_rows" is the de-duplication of attacks.predicates; the attribute game's mask of
    # rows that occur once is singleton_rows
    src = Path(synthleak.__file__).parent
    defs = [p for p in src.rglob("*.py") if "def unique_rows(" in p.read_text()]
    assert [p.name for p in defs] == ["predicates.py"]


# --- validate_secret --------------------------------------------------------------------------
def test_validate_secret(population: Table) -> None:
    sch = population.schema
    assert validate_secret(sch, "s") == [f"q{j}" for j in range(6)] + ["age"]
    assert validate_secret(sch, "s", ["q1", "q0"]) == ["q1", "q0"]
    cases = [
        (("nope",), {}, "secret 'nope' is not a column"),
        (("age",), {}, "numeric column: state when a guess counts as right"),
        (("s",), {"rule": SecretRule(bins=3)}, "'s' is categorical: secret_tolerance"),
        (("s",), {"left_out": {"s": "an identifier"}}, "left out as an identifier"),
        (("s", ["q0", "s"]), {}, "cannot also be a quasi-identifier"),
        (("s", ["q0", "zz"]), {}, "quasi_ids names unknown column"),
        (("s", ["q0", "q0"]), {}, "listed twice"),
        (("q0",), {"max_classes": 5}, "6 classes, more than the 5"),
    ]
    for args, kw, match in cases:
        with pytest.raises(InputError, match=match):
            validate_secret(sch, *args, **kw)
    one = pd.DataFrame({"a": ["x", "y", "z"], "s": ["k", "k", "k"]})
    with pytest.raises(InputError, match="single value"):
        validate_secret(infer_schema(one), "s")
    # a declared second category that the data never takes
    sch2 = infer_schema(pd.DataFrame({"a": ["x", "y", "z"], "s": ["j", "k", "k"]}))
    two = Table.from_frame(one, sch2)
    assert validate_secret(sch2, "s") == ["a"]
    with pytest.raises(InputError, match="single value"):
        validate_secret(sch2, "s", data=two)


# --- the release audit --------------------------------------------------------------------------
def _split(table: Table, n_train: int, n_control: int, seed: int) -> tuple[Table, Table, Table]:
    """Disjoint training, control and independent ("synthetic") samples of ``table``."""
    perm = np.random.default_rng(seed).permutation(len(table))
    a, b = n_train, n_train + n_control
    return table.take(perm[:a]), table.take(perm[a:b]), table.take(perm[b : b + n_train])


def test_release_copy_leaks_and_independent_sample_does_not(population: Table) -> None:
    train, control, other = _split(population, 600, 200, 0)
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


def test_release_without_control_is_not_measured(population: Table) -> None:
    train, _, other = _split(population, 300, 0, 1)
    for control in (None, train.take(np.arange(0))):
        res = ReleaseAttributeGame("s").run(Release(train, other, control), seed=0)
        assert res.status is Measurement.NOT_MEASURED
        assert "needs a control set" in res.reason
        assert np.isnan(res.accuracy.value) and np.isnan(res.difference.difference)
        assert res.control_accuracy.n_trials == 0


def test_release_on_24_records_is_too_small_to_measure(population: Table) -> None:
    train, control, _ = _split(population, 24, 8, 2)
    res = ReleaseAttributeGame("s").run(Release(train, train, control), seed=0)
    assert res.status is Measurement.TOO_SMALL
    assert res.ci_width > res.max_ci_width == MAX_CI_WIDTH
    assert "too small to measure" in res.reason


def test_release_run_dir_and_n_targets(population: Table, tmp_path: Path) -> None:
    train, control, other = _split(population, 300, 100, 3)
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
    train, control, other = _split(population, 100, 50, 7)
    res = ReleaseAttributeGame("s").run(Release(train, other, control), seed=0)
    assert res.status is Measurement.NOT_MEASURED and np.isnan(res.difference.difference)
    assert res.reason == (
        "not measured: the attack failed (linear program not solved (Time limit reached, "
        "time limit 1 s))"
    )
    assert len(res.failures) == 2


def test_release_bad_input(population: Table) -> None:
    train, control, other = _split(population, 100, 50, 5)
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
    train, _, other = _split(population, 100, 0, 6)
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
            train, control, other = _split(table, 300, 150, 10 + seed)
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
    one of 5 quantile bins); a disjoint real sample is not. Random parts read against the
    whole release's rescaled counts missed such copies."""
    from synthleak.games.attribute import SecretRule

    acs, _ = real_tables["acs_tx"]
    cases = [
        (real_tables["adult"][0], real_tables["adult"][1], None),
        (acs, real_tables["acs_tx"][1], None),
        (acs, "AGEP", SecretRule(bins=5)),
    ]
    for i, (table, secret, rule) in enumerate(cases):
        train, control, other = _split(table, 2400, 1200, 20 + i)
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
        assert null.difference.ci_low <= 0, (secret, null.difference)


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
    train, control, other = _split(population, 900, 300, 6)
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
    assert any("projected time" in line for line in lines)
    assert any(line.endswith("done") for line in lines)
    null = game.run(Release(train, other, control), seed=0)
    assert null.difference.ci_low <= 0 <= null.difference.ci_high + 0.05


def test_release_interrupted_run_resumes_its_finished_parts(
    population: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import synthleak.games.attribute as attribute

    train, control, other = _split(population, 600, 200, 7)
    game = ReleaseAttributeGame("s", attack="dcr", part_size=150)
    whole = game.run(Release(train, other, control), seed=1)
    real = attribute._play_part
    calls: list[tuple[int, int]] = []

    def interrupted(shared, world, part):  # type: ignore[no-untyped-def]
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append((world, part))
        return real(shared, world, part)

    monkeypatch.setattr(attribute, "_play_part", interrupted)
    rt = Runtime(run_dir=tmp_path / "run")
    game.log = lambda _: None
    with pytest.raises(KeyboardInterrupt):
        game.run(Release(train, other, control), seed=1, runtime=rt)
    done = list(calls)
    calls.clear()

    def counted(shared, world, part):  # type: ignore[no-untyped-def]
        calls.append((world, part))
        return real(shared, world, part)

    monkeypatch.setattr(attribute, "_play_part", counted)
    lines: list[str] = []
    game.log = lines.append
    again = game.run(Release(train, other, control), seed=1, runtime=rt)
    assert again.same_as(whole)
    units = 2 * whole.config["n_parts"]  # every part has control records swapped in
    assert not set(done) & set(calls) and len(done) + len(calls) == units
    assert any(f"3 of {units}" in line and "reloaded" in line for line in lines)


def test_game_interrupted_resumes_finished_games(
    population: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import synthleak.games.attribute as attribute

    game = AttributeGame(
        "indhist", "s", train_size=100, synthetic_size=500, n_games=6, attacks=("dcr",)
    )
    whole = game.run(population, seed=3)
    real = attribute._play_game
    calls: list[int] = []

    def interrupted(shared, g):  # type: ignore[no-untyped-def]
        if len(calls) == 4:
            raise KeyboardInterrupt
        calls.append(g)
        return real(shared, g)

    monkeypatch.setattr(attribute, "_play_game", interrupted)
    rt = Runtime(run_dir=tmp_path / "run")
    lines: list[str] = []
    game.log = lines.append
    with pytest.raises(KeyboardInterrupt):
        game.run(population, seed=3, runtime=rt)
    assert any("projected time" in line for line in lines)
    done = list(calls)
    calls.clear()

    def counted(shared, g):  # type: ignore[no-untyped-def]
        calls.append(g)
        return real(shared, g)

    monkeypatch.setattr(attribute, "_play_game", counted)
    lines.clear()
    again = game.run(population, seed=3, runtime=rt)
    assert again.same_as(whole)
    assert sorted(done + calls) == list(range(6)) and not set(done) & set(calls)
    assert any("4 of 6 games reloaded" in line for line in lines)
    assert any("6 of 6 games done" in line for line in lines)
    # more games later: the six are reused, only the new ones are played
    calls.clear()
    more = AttributeGame(
        "indhist", "s", train_size=100, synthetic_size=500, n_games=8, attacks=("dcr",)
    )
    bigger = more.run(population, seed=3, runtime=rt)
    assert sorted(calls) == [6, 7] and bigger.same_as(more.run(population, seed=3))


@pytest.fixture
def slow_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game of the randomised-secret game takes at least 0.3 s more."""
    import time

    import synthleak.games.attribute as attribute

    real = attribute._play_game

    def slow(shared, g):  # type: ignore[no-untyped-def]
        time.sleep(0.3)
        return real(shared, g)

    monkeypatch.setattr(attribute, "_play_game", slow)


def test_game_time_limit_plays_the_games_that_fit(population: Table, slow_games: None) -> None:
    lines: list[str] = []
    game = AttributeGame(
        "indhist",
        "s",
        train_size=100,
        synthetic_size=500,
        n_games=40,
        attacks=("dcr",),
        max_seconds=1.0,
        log=lines.append,
    )
    res = game.run(population, seed=0)
    played = res.config["n_games"]
    assert 1 <= played < 40 and res.config["n_games_requested"] == 40
    assert res.accuracies[0].n_games == played
    assert any("fit the time limit" in line for line in lines)
    game.max_seconds = 0
    with pytest.raises(InputError, match="max_seconds"):
        game.run(population, seed=0)


def test_min_games_is_played_whatever_the_time_limit(population: Table, slow_games: None) -> None:
    """A budget's allowance is not a hard cap: the floor of games is played even when the pilot
    projects that only one fits, and the games beyond it only when they fit."""
    lines: list[str] = []
    game = AttributeGame(
        "indhist",
        "s",
        train_size=100,
        synthetic_size=500,
        n_games=12,
        attacks=("dcr",),
        max_seconds=0.01,
        min_games=5,
        log=lines.append,
    )
    res = game.run(population, seed=0)
    assert res.config["n_games"] == 5 and res.config["n_games_requested"] == 12
    assert any("1 of 12 games fit the time limit" in x and "5 are played" in x for x in lines)
    assert res.accuracies[0].n_games == 5
    first = AttributeGame(
        "indhist", "s", train_size=100, synthetic_size=500, n_games=5, attacks=("dcr",)
    ).run(population, seed=0)
    assert res.accuracies[0].accuracy == first.accuracies[0].accuracy  # the same five games
    game.n_games, game.min_games = 6, 20  # more than requested: every game, no error
    assert game.run(population, seed=0).config["n_games"] == 6
    for bad in (0, 2.5, True):
        game.min_games = bad  # type: ignore[assignment]
        with pytest.raises(InputError, match="min_games must be a whole number"):
            game.run(population, seed=0)


# --- numeric secrets ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "needs a success rule"),
        ({"tolerance": 1.0, "bins": 4}, "not both"),
        ({"tolerance": -2.0}, "must be positive, got -2"),
        ({"tolerance": 0.0}, "must be positive"),
        ({"tolerance": float("nan")}, "positive number"),
        ({"tolerance": "5"}, "positive number"),
        ({"tolerance": 1.0, "kind": "relative"}, "accepts a guess of 0 for every value"),
        ({"tolerance": 1.0, "kind": "sideways"}, "tolerance_kind must be absolute or relative"),
        ({"bins": 1}, "secret_bins must be a whole number from 2"),
        ({"bins": 50}, "secret_bins must be a whole number from 2"),
        ({"bins": 2.5}, "secret_bins must be a whole number from 2"),
    ],
)
def test_secret_rule_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(InputError, match=match):
        SecretRule(**kwargs)


def test_secret_rule_hits_and_constant_guess() -> None:
    v = np.array([10.0, 20.0, 30.0, np.nan])
    absolute, relative = SecretRule(tolerance=5), SecretRule(tolerance=0.1, kind="relative")
    assert absolute.hits(np.array([14.0, 26.0, 30.0, np.nan]), v).tolist() == [
        True,
        False,
        True,
        True,
    ]
    assert relative.hits(np.array([11.0, 22.5, 27.0, 1.0]), v).tolist() == [
        True,
        False,
        True,
        False,
    ]
    # the best constant guess: 20 is within 10 of three of the four values
    assert SecretRule(tolerance=10).constant_rate(v) == pytest.approx(0.75)
    assert SecretRule(bins=4).mode == "bin" and relative.mode == "relative"
    assert "10.0%" in relative.describe() and "5" in absolute.describe()
    # the clause after "right when" reads as a sentence under either rule
    assert SecretRule(bins=5).success() == "the guess names the right one of 5 quantile bins"
    assert absolute.success() == f"the guess is {absolute.describe()}"


def _numeric_population(n: int = 3000, seed: int = 0) -> Table:
    rng = np.random.default_rng(seed)
    qi = rng.integers(0, 6, size=(n, 6))
    df = pd.DataFrame(qi, columns=[f"q{j}" for j in range(6)]).astype(str)
    df["income"] = np.round(1000 * (qi[:, 0] + qi[:, 1]) + rng.gamma(2.0, 2000.0, n), 0)
    df["zero"] = 0.0
    df["id"] = np.arange(n, dtype=float) * 1.5
    return Table.from_frame(df, infer_schema(df))


def test_numeric_secret_bad_input() -> None:
    table = _numeric_population(400)
    train, control, other = _split(table, 200, 100, 0)
    release = Release(train, other, control)
    with pytest.raises(InputError, match="numeric column: state when"):
        ReleaseAttributeGame("income").run(release, seed=0)
    with pytest.raises(InputError, match="single value"):
        ReleaseAttributeGame("zero", secret_rule=SecretRule(bins=4)).run(release, seed=0)
    with pytest.raises(InputError, match="meaningless for 'income'"):
        ReleaseAttributeGame("income", secret_rule=SecretRule(tolerance=1e6)).run(release, seed=0)
    with pytest.raises(InputError, match="meaningless"):
        AttributeGame(
            "indhist", "income", secret_rule=SecretRule(tolerance=0.99, kind="relative")
        ).run(table, seed=0)
    with pytest.raises(InputError, match="numeric column"):
        AttributeGame("indhist", "income").run(table, seed=0)


@pytest.mark.parametrize(
    "rule",
    [SecretRule(bins=5), SecretRule(tolerance=1500.0), SecretRule(tolerance=0.2, kind="relative")],
    ids=["bins", "absolute", "relative"],
)
def test_release_numeric_secret_copy_and_null_oracles(rule: SecretRule) -> None:
    table = _numeric_population()
    flags = 0
    for seed in range(3):
        train, control, other = _split(table, 800, 200, 20 + seed)
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


@pytest.mark.parametrize(
    "rule", [SecretRule(bins=4), SecretRule(tolerance=0.25, kind="relative")], ids=["bins", "rel"]
)
def test_game_numeric_secret_oracles(rule: SecretRule) -> None:
    table = _numeric_population()
    kw: dict = dict(
        train_size=200,
        synthetic_size=2000,
        n_games=40,
        targets_per_game=4,
        attacks=("dcr",),
        secret_rule=rule,
    )
    copy_ = AttributeGame("nonprivate", "income", **kw).run(table, seed=0)
    ind = AttributeGame("indhist", "income", **kw).run(table, seed=0)
    a, b = copy_.accuracies[0].accuracy, ind.accuracies[0].accuracy
    if rule.tolerance is None:
        assert a.baseline == pytest.approx(0.25)
    else:
        assert 0.25 <= a.baseline < 0.6 and copy_.config["baseline"] == a.baseline
    assert a.ci_low > a.baseline  # a copy leaks the randomised secret
    assert b.ci_low <= b.baseline <= b.ci_high + 0.05  # an independent release does not
    assert AttributeGameResult.from_json(copy_.to_json()).same_as(copy_)


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
    train, control, other = _split(table, 800, 200, 0)
    quasi = [f"q{j}" for j in range(5)]
    stats = ReleaseAttributeGame("s", quasi).run(Release(train, other, control), seed=0)
    assert stats.accuracy.value > 0.75 and stats.control_accuracy.value > 0.75
    assert stats.difference.ci_low <= 0 <= stats.difference.ci_high
    assert stats.advantage.value == stats.difference.difference and stats.advantage.baseline == 0
    memorised = ReleaseAttributeGame("noisy", quasi).run(Release(train, train, control), seed=0)
    assert memorised.control_accuracy.value < 0.65 and memorised.advantage.ci_low > 0
