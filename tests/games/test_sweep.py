from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.errors import InputError
from synthleak.games.sweep import AttributeSweepResult, attribute_sweep


@pytest.fixture(scope="module")
def adult(adult_df: pd.DataFrame) -> sl.Table:
    df = adult_df.dropna().reset_index(drop=True)
    return sl.Table.from_frame(df, sl.infer_schema(df))


def _parts(t: sl.Table, seed: int) -> tuple[sl.Table, sl.Table, sl.Table]:
    rows = np.random.default_rng(seed).permutation(len(t))
    return t.take(rows[:400]), t.take(rows[400:500]), t.take(rows[500:900])


def _sweep(release: sl.Release, seed: int = 0) -> AttributeSweepResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return attribute_sweep(release, seed=seed, attack="dcr")


def test_a_copied_release_flags_the_columns_it_memorised(adult: sl.Table) -> None:
    ori, ctl, _ = _parts(adult, 0)
    res = _sweep(sl.Release(ori, ori, ctl))
    assert len(res.flagged) >= 10  # a copy lets the attacker look every column up
    ranked = [c.excess.ci_low for c in res.columns]
    assert ranked == sorted(ranked, reverse=True)
    assert {c.rule for c in res.columns} == {"the exact class", "the right one of 5 quantile bins"}


def test_null_releases_flag_no_column(adult: sl.Table) -> None:
    """Releases of other people, original four times the control, four seeds: Holm over the
    columns keeps any flag at most 5 % of sweeps, so none is expected here."""
    flagged = 0
    for seed in range(4):
        ori, ctl, other = _parts(adult, 10 + seed)
        res = _sweep(sl.Release(ori, other, ctl), seed=seed)
        flagged += bool(res.flagged)
        assert all(c.p_holm >= c.p_value for c in res.columns if c.p_value == c.p_value)
    assert flagged == 0


def test_round_trip_frame_and_left_out_columns(adult: sl.Table) -> None:
    ori, ctl, other = _parts(adult, 3)
    res = attribute_sweep(
        sl.Release(ori, other, ctl), seed=1, attack="dcr", left_out={"name": "free text"}
    )
    assert res.skipped["name"] == "left out as free text"
    assert AttributeSweepResult.from_json(res.to_json()).to_json() == res.to_json()
    frame = res.to_frame()
    assert list(frame["column"]) == [c.column for c in res.columns]


def test_input_errors(adult: sl.Table) -> None:
    ori, ctl, other = _parts(adult, 4)
    with pytest.raises(InputError, match="needs control"):
        attribute_sweep(sl.Release(ori, other), seed=0)
    with pytest.raises(InputError, match="alpha"):
        attribute_sweep(sl.Release(ori, other, ctl), seed=0, alpha=1.5)
    with pytest.raises(InputError, match="Release"):
        attribute_sweep(ori, seed=0)  # type: ignore[arg-type]
