"""The attribute inference privacy game: oracles, failures, determinism, resumability."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthleak.attacks import aia_reconstruction
from synthleak.data.schema import infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.attribute import AttributeGame, discretise, unique_rows


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


def _no_timing(d: dict) -> dict:
    """The result without wall-clock fields (the only thing allowed to differ between runs)."""
    return json.loads(
        json.dumps(d, default=str).replace('"mean_seconds"', '"_t"'),
        object_hook=lambda o: {k: v for k, v in o.items() if k != "_t"},
    )


def _acc(res, m: int, attack: str = "recon") -> float:  # type: ignore[no-untyped-def]
    entry = next(e for e in res.results if e["m"] == m)
    return entry["attacks"][attack]["accuracy"]


def test_nonprivate_oracle_high_accuracy(population: Table) -> None:
    game = AttributeGame(
        "nonprivate",
        "s",
        n=150,
        m=[100, 10_000],
        games=5,
        targets_per_game=10,
        attacks=("recon", "dcr", "infer"),
        infer_max_train=1000,
    )
    res = game.run(population, seed=1)
    assert not res.failures
    # 50 targets; nonprivate at m >> n reveals almost every secret
    assert _acc(res, 10_000) >= 0.85
    assert _acc(res, 10_000, "dcr") >= 0.85
    assert _acc(res, 10_000) >= _acc(res, 100) - 0.05  # accuracy does not drop with m
    big = next(e for e in res.results if e["m"] == 10_000)
    small = next(e for e in res.results if e["m"] == 100)
    assert big["utility"]["tvd3"] < small["utility"]["tvd3"]
    assert big["attacks"]["recon"]["auc"] > 0.9
    assert big["acc_max"] == max(v["accuracy"] for v in big["attacks"].values())
    lo, hi = big["attacks"]["recon"]["accuracy_ci"]
    assert lo <= big["attacks"]["recon"]["accuracy"] <= hi
    # every pair of attacks is compared on the same 50 secrets
    pairs = {(c["a"], c["b"]): c for c in big["comparisons"]}
    assert set(pairs) == {("recon", "dcr"), ("recon", "infer"), ("dcr", "infer")}
    c = pairs[("recon", "dcr")]
    assert c["n_targets"] == 50
    assert abs(c["difference"] - (_acc(res, 10_000) - _acc(res, 10_000, "dcr"))) < 1e-12
    assert c["difference_ci"][0] <= c["difference"] <= c["difference_ci"][1]
    assert 0 <= c["p_value"] <= 1


def test_indhist_is_at_baseline(population: Table) -> None:
    # 240 randomised secrets: the 99.9% band of a fair coin is 0.5 +- 0.106
    game = AttributeGame(
        "indhist", "s", n=150, m=5000, games=12, targets_per_game=20, attacks=("recon", "dcr")
    )
    res = game.run(population, seed=2)
    for a in ("recon", "dcr"):
        assert abs(_acc(res, 5000, a) - 0.5) < 0.106


def test_non_binary_secret_baseline_and_oracle() -> None:
    table = _population(classes=3, seed=3)
    res = AttributeGame(
        "nonprivate", "s", n=150, m=20_000, games=3, targets_per_game=10, attacks=("recon",)
    ).run(table, seed=0)
    r = res.results[0]["attacks"]["recon"]
    assert r["baseline"] == pytest.approx(1 / 3)
    assert r["auc"] is None
    assert r["accuracy"] > 0.7


def test_workers_do_not_change_results(population: Table) -> None:
    game = AttributeGame(
        "indhist",
        "s",
        n=100,
        m=[500, 2000],
        games=2,
        targets_per_game=3,
        attacks=("recon", "dcr", "infer"),
        infer_max_train=300,
    )
    a = game.run(population, seed=5, workers=1)
    b = game.run(population, seed=5, workers=2)
    assert _no_timing(a.to_dict()) == _no_timing(b.to_dict())
    for g in a.games:
        for k, v in a.games[g].items():
            if not k.startswith("seconds_"):
                np.testing.assert_array_equal(v, b.games[g][k])
    c = game.run(population, seed=6, workers=1)
    assert _no_timing(a.to_dict()) != _no_timing(c.to_dict())


def test_sweep_entry_equals_single_run(population: Table) -> None:
    kw = dict(n=100, games=3, targets_per_game=3, attacks=("recon", "dcr"))
    sweep = AttributeGame("nonprivate", "s", m=[300, 3000], **kw).run(population, seed=4)
    single = AttributeGame("nonprivate", "s", m=3000, **kw).run(population, seed=4)
    assert _no_timing(sweep.results[1]["attacks"]) == _no_timing(single.results[0]["attacks"])
    assert sweep.results[1]["utility"] == single.results[0]["utility"]


def test_run_dir_resumes_and_stores_result(population: Table, tmp_path) -> None:  # type: ignore[no-untyped-def]
    game = AttributeGame("indhist", "s", n=100, m=1000, games=3, attacks=("dcr",))
    first = game.run(population, seed=0, run_dir=tmp_path / "run")
    assert (
        json.loads((tmp_path / "run" / "result.json").read_text())["results"]
        == first.to_dict()["results"]
    )
    again = game.run(population, seed=0, run_dir=tmp_path / "run")
    assert _no_timing(again.to_dict()) == _no_timing(first.to_dict())


def test_single_valued_secret_games_fail_with_reason() -> None:
    rng = np.random.default_rng(0)
    n = 400
    df = pd.DataFrame(rng.integers(0, 8, size=(n, 4)).astype(str), columns=list("abcd"))
    s = np.zeros(n, dtype=int)
    s[:3] = 1  # the secret rarely takes its second value
    df["s"] = s.astype(str)
    table = Table.from_frame(df, infer_schema(df))
    res = AttributeGame("nonprivate", "s", n=30, m=200, games=8, attacks=("dcr",)).run(
        table, seed=0
    )
    whole = [f for f in res.failures if f["m"] is None]
    assert whole and all("single value" in f["reason"] for f in whole)
    assert res.results[0]["attacks"]["dcr"]["n_games"] == 8 - len(whole)


def test_all_games_failing_is_an_input_error() -> None:
    df = pd.DataFrame({"a": ["x", "y"] * 50, "b": ["u", "v", "w", "z"] * 25, "s": ["0"] * 100})
    df.loc[0, "s"] = "1"
    table = Table.from_frame(df, infer_schema(df))
    with pytest.raises(InputError):
        AttributeGame("nonprivate", "s", n=20, m=50, games=2, attacks=("dcr",)).run(table, seed=0)


def test_lp_failure_reported_per_game(population: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    real = aia_reconstruction.solve_l1

    def fail_once(A, r, *, time_limit=None):  # type: ignore[no-untyped-def]
        raise aia_reconstruction.ReconstructionFailure(
            "linear program not solved (Time limit reached, time limit 0 s)"
        )

    monkeypatch.setattr(aia_reconstruction, "solve_l1", fail_once)
    res = AttributeGame("nonprivate", "s", n=100, m=1000, games=2, attacks=("recon", "dcr")).run(
        population, seed=0
    )
    monkeypatch.setattr(aia_reconstruction, "solve_l1", real)
    recon = res.results[0]["attacks"]["recon"]
    assert recon["n_games"] == 0 and recon["n_failed"] == 2 and recon["accuracy"] is None
    assert {f["attack"] for f in res.failures} == {"recon"}
    assert all("time limit" in f["reason"] for f in res.failures)
    assert res.results[0]["attacks"]["dcr"]["n_games"] == 2


def test_no_unique_target_is_an_input_error() -> None:
    df = pd.DataFrame(
        {"a": ["x", "y"] * 100, "b": ["u", "v"] * 100, "s": ["0", "1", "1", "0"] * 50}
    )
    table = Table.from_frame(df, infer_schema(df))
    with pytest.raises(InputError, match="unique quasi-identifiers"):
        AttributeGame("nonprivate", "s", n=50, m=100, games=2).run(table, seed=0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"secret": "nope"}, "unknown secret"),
        ({"secret": "age"}, "continuous"),
        ({"secret": "s", "quasi_ids": ["q0", "s"]}, "cannot also be"),
        ({"secret": "s", "n": 10**6}, "--n"),
        ({"secret": "s", "attacks": ("magic",)}, "unknown attack"),
        ({"secret": "s", "m": [0]}, "positive"),
        ({"secret": "s", "generator": "nosuchgen"}, "nosuchgen"),
    ],
)
def test_bad_input(population: Table, kwargs: dict, match: str) -> None:
    kw = {"generator": "nonprivate", "n": 100, "m": 100, "games": 1, **kwargs}
    with pytest.raises(InputError, match=match):
        AttributeGame(**kw).run(population, seed=0)


def test_discretise_and_unique_rows(population: Table) -> None:
    codes, schema = discretise(population, 5)
    assert codes.shape == (len(population), len(population.schema))
    assert all(c.is_categorical for c in schema.columns)
    assert codes[:, population.schema.names.index("age")].max() <= 4
    np.testing.assert_array_equal(
        unique_rows(np.array([[1, 2], [1, 2], [3, 4]])), [False, False, True]
    )
