"""Attribute inference against a generator: the randomised-secret game."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests.games.attribute_tables import numeric_population, population_table

from synthleak.attacks import aia_reconstruction
from synthleak.attacks.base import AttributeAttack
from synthleak.data.profile import infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.attribute import AttributeGame, AttributeGameResult
from synthleak.games.attribute_release import ReleaseAttributeGame
from synthleak.games.base import Game
from synthleak.games.secret import (
    MAX_CI_WIDTH,
    Measurement,
    SecretRule,
)
from synthleak.runtime import Runtime


@pytest.fixture(scope="module")
def population() -> Table:
    return population_table()


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
    table = population_table(classes=3, seed=3)
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


@pytest.mark.parametrize(
    "rule", [SecretRule(bins=4), SecretRule(tolerance=0.25, kind="relative")], ids=["bins", "rel"]
)
def test_game_numeric_secret_oracles(rule: SecretRule) -> None:
    table = numeric_population()
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
