"""The DP study's value-presence test reads a game's stored test releases with their labels."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from benchmarks.dp_value_presence import presence_test
from tests.games.test_membership import make_omega, oracles  # noqa: F401  (a fixture)

from synthleak.games.membership import MembershipGame
from synthleak.runtime import Runtime


@pytest.mark.usefixtures("oracles")
@pytest.mark.parametrize("generator", ["nonprivate", "test-mia-flaky"])
def test_a_value_only_the_target_holds_is_found_in_in_releases_only(
    generator: str, tmp_path: Path
) -> None:
    """Row 0 is the only ``c = z``: a copying generator puts it in most IN releases and in no
    OUT release, so the labels read from the run directory line up with the releases (a shift
    would call OUT releases holding it), also when failed runs are left out (``Flaky`` fails
    about a fifth of its fits)."""
    game = MembershipGame(
        generator,
        targets=[0],
        knowledge="exact",
        train_size=30,
        synthetic_size=60,
        n_shadows=8,
        n_tests=40,
        attacks=("distance",),
        batch_size=4,
    )
    run = tmp_path / "run"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # Flaky's failures, reported
        result = game.run(make_omega(seed=3), seed=5, runtime=Runtime(run_dir=run))
    res = presence_test(run, [("c", "z")], epsilon=1.0, delta=1e-5)
    assert res["fp"] == 0 and res["tp"] >= res["n_in"] // 2
    assert res["n_in"] + res["n_out"] == result.targets[0].attacks["distance"].labels.size
    assert res["bounds"]["0.95"] > 0 and res["bounds"]["0.95"] <= res["ceilings"]["0.95"]
    if generator == "test-mia-flaky":
        assert res["n_in"] + res["n_out"] < 40
