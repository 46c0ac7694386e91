"""Exact, column and near copies of real records in a release (pure functions on DataFrames)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak.errors import InputError
from synthleak.metrics.copies import (
    CopyReport,
    copied_rows,
    copy_report,
    high_cardinality_columns,
    row_keys,
)


def _people(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "name": [f"person-{seed}-{i}" for i in range(n)],  # free text: unique per person
            "city": rng.choice(["a", "b", "c", "d"], n),
            "age": rng.integers(18, 90, n),
            "income": rng.normal(30_000, 8_000, n).round(2),
        }
    )


def test_row_keys_compare_numbers_as_numbers_and_missing_as_missing() -> None:
    a = pd.DataFrame({"x": [1, 2, 3], "s": ["u", None, "w"]})
    b = pd.DataFrame({"s": ["u", None, "z"], "x": [1.0, 2.0, 3.0]})  # other order and dtype
    ka, kb = row_keys(a, b)
    assert ka[0] == kb[0] and ka[1] == kb[1] and ka[2] != kb[2]
    with pytest.raises(InputError, match="same columns"):
        row_keys(a, b.rename(columns={"s": "t"}))
    # -0.0 is the number 0; every missing number is one missing value; order of columns counts
    nan2 = np.frombuffer(np.uint64(0x7FF8000000000001).tobytes(), dtype=np.float64)[0]
    c = pd.DataFrame({"x": [0.0, np.nan, 1.0], "y": [1.0, 2.0, 0.0]})
    d = pd.DataFrame({"x": [-0.0, nan2, 0.0], "y": [1.0, 2.0, 1.0]})
    kc, kd = row_keys(c, d)
    assert kc[0] == kd[0] and kc[1] == kd[1] and kc[2] != kd[2]
    # a copy found one partition at a time is the copy found in the whole frame
    whole = row_keys(a)[0]
    assert np.array_equal(np.concatenate([row_keys(a.iloc[:1])[0], row_keys(a.iloc[1:])[0]]), whole)


def test_exact_copies_are_counted_against_their_baselines() -> None:
    ori, ctl = _people(400, 1), _people(100, 2)
    syn = pd.concat([ori.iloc[[5, 7, 7, 300]], _people(196, 3)], ignore_index=True)
    rep = copy_report(ori, syn, ctl)
    assert rep.synthetic_in_original.value == pytest.approx(4 / 200)
    assert rep.synthetic_in_original.n_trials == 200
    assert rep.synthetic_in_original.ci_low < 0.02 < rep.synthetic_in_original.ci_high
    assert rep.copied_rows.tolist() == [5, 7, 300]  # row ids, not values
    assert rep.control_in_original is not None and rep.control_in_original.value == 0.0
    assert rep.chance_duplicate.value == 0.0
    assert rep.synthetic_in_control is not None and rep.synthetic_in_control.value == 0.0
    assert copied_rows(ori, syn).tolist() == [5, 7, 300]


def test_chance_rate_is_the_duplicate_rate_within_the_original() -> None:
    ori = pd.DataFrame({"a": ["x", "x", "y", "z", "z", "z", "w", "v"]})
    rep = copy_report(ori, ori.iloc[:2], near_quantile=0)
    assert rep.chance_duplicate.value == pytest.approx(5 / 8)  # two x and three z
    assert rep.control_in_original is None and rep.near_synthetic is None
    assert rep.synthetic_in_original.baseline == pytest.approx(5 / 8)


def test_free_text_columns_copied_verbatim_are_reported() -> None:
    ori, ctl = _people(300, 4), _people(100, 5)
    syn = _people(300, 6)
    syn["name"] = ori["name"].sample(300, random_state=0).to_numpy()  # names leak, rows do not
    assert "name" in high_cardinality_columns(ori) and "city" not in high_cardinality_columns(ori)
    rep = copy_report(ori, syn, ctl)
    cols = {c.column: c for c in rep.columns}
    assert cols["name"].synthetic_in_original.value == 1.0
    assert cols["name"].control_in_original is not None
    assert cols["name"].control_in_original.value == 0.0
    assert rep.synthetic_in_original.value == 0.0
    assert "name" not in rep.near_columns and "age" in rep.near_columns


def test_near_copies_rule_and_null_baseline() -> None:
    pop = _people(3000, 7).drop(columns="name")
    ori, ctl, fresh = pop.iloc[:1500], pop.iloc[1500:2000], pop.iloc[2000:]
    rep = copy_report(ori, fresh.reset_index(drop=True), ctl, near_quantile=0.1)
    assert rep.near_baseline is not None and rep.near_synthetic is not None
    assert rep.near_baseline.value == pytest.approx(0.1, abs=0.01)  # the quantile, by definition
    # a fresh sample of the population is as near as real non-members (1,000 rows: s.d. 0.01)
    assert abs(rep.near_synthetic.value - rep.near_baseline.value) < 0.04
    perturbed = ori.iloc[:500].copy()
    perturbed["income"] += 0.01  # barely perturbed training records
    rep2 = copy_report(ori, perturbed.reset_index(drop=True), ctl, near_quantile=0.1)
    assert rep2.synthetic_in_original.value == 0.0 and rep2.near_synthetic.value > 0.95


def test_near_copies_on_a_sample_state_its_size_and_agree_with_every_row() -> None:
    """Sampled queries (every original record still searched): the sizes are stated, the rates
    agree with the full computation within their intervals, a copy is still a copy, and the
    same rng gives the same report."""
    pop = _people(3000, 7).drop(columns="name")
    ori, ctl, fresh = pop.iloc[:1500], pop.iloc[1500:2000], pop.iloc[2000:].reset_index(drop=True)
    full = copy_report(ori, fresh, ctl, near_quantile=0.1)
    rep = copy_report(
        ori, fresh, ctl, near_quantile=0.1, near_sample=300, rng=np.random.default_rng(0)
    )
    assert rep.near_synthetic is not None and rep.near_baseline is not None
    assert full.near_synthetic is not None
    assert rep.near_synthetic.n_trials == 300 and rep.near_baseline.n_trials == 300
    assert any(
        "300 of the 1000 synthetic rows and 300 of the 500 control rows" in n for n in rep.notes
    )
    assert rep.near_synthetic.ci_low <= full.near_synthetic.value <= rep.near_synthetic.ci_high
    assert rep.synthetic_in_original.n_trials == 1000  # exact copies: every row
    again = copy_report(
        ori, fresh, ctl, near_quantile=0.1, near_sample=300, rng=np.random.default_rng(0)
    )
    assert again.same_as(rep)
    perturbed = ori.iloc[:500].copy()
    perturbed["income"] += 0.01
    rep2 = copy_report(
        ori,
        perturbed.reset_index(drop=True),
        ctl,
        near_quantile=0.1,
        near_sample=300,
        rng=np.random.default_rng(1),
    )
    assert rep2.near_synthetic is not None and rep2.near_synthetic.value > 0.95
    with pytest.raises(InputError, match="rng"):
        copy_report(ori, fresh, ctl, near_sample=300)


def test_without_control_near_copies_use_the_original_itself() -> None:
    ori = _people(500, 8).drop(columns="name")
    rep = copy_report(ori, ori.iloc[:50], near_quantile=0.05)
    assert rep.n_control is None and rep.near_baseline is not None
    assert rep.near_baseline.n_trials == 500 and rep.near_synthetic.value == 1.0


def test_json_round_trip_and_summary() -> None:
    ori, ctl = _people(200, 9), _people(80, 10)
    rep = copy_report(ori, pd.concat([ori.iloc[:3], _people(50, 11)]), ctl)
    back = CopyReport.from_json(rep.to_json())
    assert back.same_as(rep) and back.copied_rows.dtype == np.int64
    s = rep.summary()
    assert s["exact"]["n_copied_training_rows"] == 3 and "name" in s["columns"]
    assert "quantile" in s["near"]["rule"]


def test_bad_input_is_one_line() -> None:
    ori = _people(20, 12)
    with pytest.raises(InputError, match="synthetic must be a pandas DataFrame"):
        copy_report(ori, ori.to_numpy())  # type: ignore[arg-type]
    with pytest.raises(InputError, match="control has no records"):
        copy_report(ori, ori, ori.iloc[:0])
    with pytest.raises(InputError, match="near_quantile"):
        copy_report(ori, ori, near_quantile=1.0)
    with pytest.raises(InputError, match="unknown column"):
        copy_report(ori, ori, near_columns=["nope"])
    with pytest.raises(InputError, match=r"row_columns names unknown column\(s\) \['nope'\]"):
        copy_report(ori, ori, row_columns=["nope"])
    with pytest.raises(InputError, match="row_columns is empty"):
        copy_report(ori, ori, row_columns=[])
    with pytest.raises(InputError, match="value_columns names unknown"):
        copy_report(ori, ori, value_columns=["nope"])
