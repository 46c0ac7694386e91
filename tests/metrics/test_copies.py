"""Exact, column and near copies of real records in a release (pure functions on DataFrames)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak.errors import InputError
from synthleak.metrics.copies import (
    CopyPlan,
    CopyReport,
    copied_rows,
    copy_counts,
    copy_hashes,
    copy_report,
    high_cardinality_columns,
    local_copy_counts,
    lone_text,
    merge_copy_counts,
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


def test_near_copies_read_the_parts_encoded_already(monkeypatch: pytest.MonkeyPatch) -> None:
    # an audit passes its encoded tables: with the schema's columns, the near-copy distances
    # read them as they are (no second encoding) and give the same report as from the frames
    from synthleak.data import release

    pop = _people(2000, 3).drop(columns="name")
    ori, ctl, syn = pop.iloc[:1000], pop.iloc[1000:1500], pop.iloc[1500:].reset_index(drop=True)
    enc = release.encode_parts({"o": ori, "s": syn, "c": ctl})
    sch, parts = enc.schema, (enc.tables["o"], enc.tables["s"], enc.tables["c"])
    kw = {"near_quantile": 0.1, "schema": sch}
    again = copy_report(ori, syn, ctl, **kw)
    encodings: list[int] = []
    real = release.encode_parts

    def counted(*a: object, **k: object) -> object:
        encodings.append(1)
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(release, "encode_parts", counted)
    rep = copy_report(ori, syn, ctl, **kw, encoded=parts)
    assert encodings == [] and rep.same_as(again)
    # other columns than the schema's: the frames are encoded as before
    other = copy_report(ori, syn, ctl, **kw, encoded=parts, near_columns=["age", "income"])
    assert encodings == [1] and other.near_synthetic is not None


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


def _calendar(n_days: int, seed: int) -> pd.DataFrame:
    """A daily weather table: one row per calendar day, so every date occurs once."""
    rng = np.random.default_rng(seed)
    days = pd.date_range("2000-01-01", periods=n_days, freq="D")
    return pd.DataFrame(
        {
            "date": days.strftime("%Y-%m-%d"),
            "temp": rng.normal(12, 6, n_days).round(1),
            "rain": rng.integers(0, 40, n_days),
        }
    )


def _daily_split(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Days split by rows into original and control (4:1), and a release whose dates are drawn
    from the whole calendar and whose other values are made up: made without the training
    records, whatever its dates hit."""
    rng = np.random.default_rng(seed)
    cal = _calendar(2000, seed)
    perm = rng.permutation(len(cal))
    ori = cal.iloc[perm[:1600]].reset_index(drop=True)
    ctl = cal.iloc[perm[1600:]].reset_index(drop=True)
    syn = pd.DataFrame(
        {
            "date": rng.choice(cal["date"].to_numpy(), 1000),
            "temp": rng.normal(12, 6, 1000).round(1),
            "rain": rng.integers(0, 40, 1000),
        }
    )
    return ori, ctl, syn


def test_a_daily_table_split_by_rows_is_at_chance_at_equal_size(tmp_path) -> None:
    """Issue 51 (11a): the release's dates fall on training and control days in proportion to
    the calendar; the control's dates are never training dates (every date occurs once), so
    that rate is no chance rate. At equal size the release finds its dates among training and
    control days alike; the same data read from Parquet gives the same figures."""
    ori, ctl, syn = _daily_split(0)
    rep = copy_report(ori, syn, ctl, near_quantile=0)
    date = {c.column: c for c in rep.columns}["date"]
    # the false alarm's numbers: 80 % of the release's dates are training dates, 0 % of the
    # control's (by construction)
    assert date.synthetic_in_original.value == pytest.approx(0.8, abs=0.04)
    assert date.control_in_original is not None and date.control_in_original.value == 0.0
    a, b = date.synthetic_in_original_m, date.synthetic_in_control_m
    assert date.equal_size == 400 and a is not None and b is not None
    assert a.n_trials == b.n_trials == 1000
    assert abs(a.value - b.value) < 0.05  # both about 400 / 2000 of the calendar
    assert a.value == pytest.approx(0.2, abs=0.04) and a.baseline == b.value
    # the same days as Parquet (dates stored as dates): the same comparison
    paths = {}
    for name, df in (("ori", ori), ("ctl", ctl), ("syn", syn)):
        paths[name] = tmp_path / f"{name}.parquet"
        df.assign(date=pd.to_datetime(df["date"])).to_parquet(paths[name])
    parts = [pd.read_parquet(paths[n]) for n in ("ori", "syn", "ctl")]
    assert pd.api.types.is_datetime64_any_dtype(parts[0]["date"])
    rep_pq = copy_report(parts[0], parts[1], parts[2], near_quantile=0)
    date_pq = {c.column: c for c in rep_pq.columns}["date"]
    assert date_pq.synthetic_in_original_m == a and date_pq.synthetic_in_control_m == b


def test_equal_size_rates_are_the_expectation_over_subsets() -> None:
    """The expected share over random subsets of m records of the larger part, checked against
    drawing the subsets; values repeated in the original count once per synthetic value."""
    rng = np.random.default_rng(3)
    ori = pd.DataFrame({"v": rng.integers(0, 900, 1200)})  # values repeat
    ctl = pd.DataFrame({"v": rng.integers(0, 900, 300)})
    syn = pd.DataFrame({"v": rng.integers(0, 900, 500)})
    rep = copy_report(ori, syn, ctl, near_quantile=0, value_columns=["v"])
    col = {c.column: c for c in rep.columns}["v"]
    assert col.equal_size == 300 and col.synthetic_in_control_m is not None
    assert col.synthetic_in_control_m.value == pytest.approx(syn["v"].isin(ctl["v"]).mean())
    draws = [
        syn["v"].isin(ori["v"].to_numpy()[rng.choice(1200, 300, replace=False)]).mean()
        for _ in range(400)
    ]
    assert col.synthetic_in_original_m is not None
    assert col.synthetic_in_original_m.value == pytest.approx(np.mean(draws), abs=0.004)


def test_counts_split_by_key_range_merge_to_the_whole() -> None:
    """The cluster's split: every key of one value in one range; the merged counts and
    multiplicity tallies are the whole frame's."""
    ori, ctl = _people(300, 21), _people(100, 22)
    ori["income"] = ori["income"].round(-3)  # repeated values
    syn = pd.concat([ori.iloc[:40], _people(100, 23)], ignore_index=True)
    frames = [ori, syn, ctl]
    plan = CopyPlan(("city", "age", "income"), ("name", "income"), frozenset({"age", "income"}))
    whole = local_copy_counts(frames, plan)
    keys = [copy_hashes(f, plan) for f in frames]
    cut = np.uint64(2**63)
    parts = []
    for lo in (True, False):
        sel = [{k: v[(v < cut) == lo] for k, v in kk.items()} for kk in keys]
        rows = np.flatnonzero((keys[0]["rows"] < cut) == lo)
        parts.append(copy_counts(sel[0], sel[1], sel[2], rows))
    merged = merge_copy_counts(parts)
    assert set(merged) == set(whole)
    for k in whole:
        got = np.sort(merged[k]) if k == "copied" else merged[k]
        assert np.array_equal(got, whole[k]), k


def _columns_flagged(rep: CopyReport) -> list[str]:
    """Columns whose equal-size excess is above 0 at Bonferroni-corrected 95 % (the finding's
    rule)."""
    from synthleak.metrics.privacy import rate_excess

    cols = [c for c in rep.columns if c.synthetic_in_original_m is not None]
    out = []
    for c in cols:
        a, b = c.synthetic_in_original_m, c.synthetic_in_control_m
        assert a is not None and b is not None
        e = rate_excess(
            round(a.value * a.n_trials),
            a.n_trials,
            round(b.value * b.n_trials),
            b.n_trials,
            confidence=1 - 0.05 / len(cols),
        )
        if e.ci_low > 0:
            out.append(c.column)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_column_copies_null_and_copy_oracle(seed: int) -> None:
    """Null: a disjoint real sample as the release (original four times the control, as the
    command line splits) flags no column, whatever the column's cardinality (unique names and
    dates, near-unique incomes, repeated weights). Copies: the planted values are flagged, and
    the copied rows are exactly the planted ones."""
    rng = np.random.default_rng(100 + seed)
    n = 3000
    pop = pd.DataFrame(
        {
            "date": rng.permutation(pd.date_range("1990-01-01", periods=n).strftime("%Y-%m-%d")),
            "name": [f"person {i} of street {7 * i}" for i in rng.permutation(n)],
            "income": rng.normal(30_000, 8_000, n).round(0),
            "fnlwgt": rng.lognormal(11, 0.5, n).round(-2),
            "city": rng.choice(["a", "b", "c", "d"], n),
        }
    )
    ori, ctl = pop.iloc[:1600].reset_index(drop=True), pop.iloc[1600:2000].reset_index(drop=True)
    other = pop.iloc[2000:].reset_index(drop=True)
    null = copy_report(ori, other, ctl, near_quantile=0)
    assert {c.column for c in null.columns} == {"date", "name", "income", "fnlwgt"}
    assert _columns_flagged(null) == [] and null.copied_rows.size == 0
    planted = np.sort(rng.choice(len(ori), 50, replace=False))
    leaky = pd.concat([ori.iloc[planted], other.iloc[50:]], ignore_index=True)
    rep = copy_report(ori, leaky, ctl, near_quantile=0)
    assert rep.copied_rows.tolist() == planted.tolist()
    names = leaky.copy()
    names["name"] = ori["name"].sample(len(names), random_state=seed).to_numpy()
    assert "name" in _columns_flagged(copy_report(ori, names, ctl, near_quantile=0))


def test_lone_long_text_needs_no_control_and_leaves_chance_strings_out() -> None:
    """Issue 51 (11b): long text one record alone holds, reproduced verbatim, is counted by
    record; numbers, dates, short codes and values two records hold are not candidates."""
    ori = pd.DataFrame(
        {
            "title": [f"The quiet history of harbour number {i}" for i in range(200)],
            "note": ["Monday, 4 March 2021"] * 1 + ["short"] * 199,
            "code": [f"AB{i:06d}" for i in range(200)],
            "n": np.arange(200),
        }
    )
    ori.loc[1, "title"] = ori.loc[0, "title"]  # two records hold it: not lone
    syn = pd.DataFrame(
        {
            "title": ori["title"].iloc[:120].tolist() + ["A made-up title of no record"] * 80,
            "note": ["Monday, 4 March 2021"] * 200,
            "code": ori["code"].tolist(),
            "n": np.arange(200),
        }
    )
    lt = lone_text(ori, syn, ["title", "note", "code", "n"])
    assert lt.columns == ("title", "note", "code")  # numbers are not text
    assert lt.n_original == 198  # the titles held once; the date and codes are left out
    assert lt.released == 118 and lt.released_rows.tolist() == list(range(2, 120))
    assert lt.released_columns == ("title",)
    none = lone_text(ori, syn.assign(title="A made-up title of no record"), ["title"])
    assert none.n_original == 198 and none.released == 0


def test_dates_drawn_from_the_calendar_raise_chance_alarms_at_most_at_the_stated_rate() -> None:
    """Null oracle of the equal-size column check on the daily table (dates drawn with
    replacement from the whole calendar, original four times the control): over 60 draws the
    one-sided 95% test flags at most its 2.5% (measured: 1.0% over 300 draws)."""
    from synthleak.metrics.privacy import rate_excess

    alarms = 0
    for seed in range(60):
        ori, ctl, syn = _daily_split(seed)
        rep = copy_report(ori, syn, ctl, near_quantile=0, row_columns=["rain"])
        d = {c.column: c for c in rep.columns}["date"]
        a, b = d.synthetic_in_original_m, d.synthetic_in_control_m
        assert a is not None and b is not None
        n = a.n_trials
        e = rate_excess(round(a.value * n), n, round(b.value * n), n)
        alarms += e.ci_low > 0
    assert alarms <= 3  # 2.5% of 60 is 1.5; 4 or more has probability 0.07 at 2.5%, 0.003 at 1%
