"""The domain check: synthetic and control values outside the original's domain."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthleak import InputError
from synthleak.data.domain import DOMAIN_THRESHOLD, DomainReport, domain_report
from synthleak.data.io import encode_frames
from synthleak.data.profile import WarningCode, infer_schema
from synthleak.data.table import Table


def _original(n: int = 500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "smoker": rng.choice([True, False], n),
            "state": rng.choice(["01", "06", "36", "48"], n),
            "age": rng.integers(18, 90, n),
            "when": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 365, n), "D"),
        }
    )


def test_a_copy_and_a_sample_are_inside() -> None:
    df = _original()
    enc = encode_frames({"original": df, "synthetic": df.sample(300, random_state=1)})
    assert enc.domain.warnings == () and enc.domain.flagged == []
    assert {c.share_outside for c in enc.domain.columns} == {0.0}


def test_boolean_spelling_is_flagged_with_a_hint() -> None:
    df = _original()
    syn = df.copy()
    syn["smoker"] = np.where(syn["smoker"], "YES", "NO")
    enc = encode_frames({"original": df, "synthetic": syn})
    (entry,) = enc.domain.flagged
    assert (entry.column, entry.part, entry.share_outside, entry.spelling) == (
        "smoker",
        "synthetic",
        1.0,
        True,
    )
    assert [w.code for w in enc.domain.warnings] == [
        WarningCode.OUT_OF_DOMAIN,
        WarningCode.SPELLING,
    ]
    assert "recode it" in enc.domain.warnings[1].message


@pytest.mark.parametrize(
    ("respell", "spelling"),
    [
        (lambda s: s.str.upper(), True),  # case
        (lambda s: " " + s + " ", True),  # whitespace
        (
            lambda s: s.map({"01": "Alabama", "06": "California", "36": "New York", "48": "Texas"}),
            False,
        ),
    ],
)
def test_categories_written_differently(respell, spelling: bool) -> None:
    df = _original()
    df["state"] = (
        df["state"].map({"01": "al", "06": "ca", "36": "ny", "48": "tx"})
        if spelling
        else df["state"]
    )
    syn = df.copy()
    syn["state"] = respell(syn["state"])
    enc = encode_frames({"original": df, "synthetic": syn})
    (entry,) = enc.domain.flagged
    assert entry.column == "state" and entry.spelling is spelling
    assert len(entry.examples) == 4
    codes = [w.code for w in enc.domain.warnings]
    assert codes == [WarningCode.OUT_OF_DOMAIN] + ([WarningCode.SPELLING] if spelling else [])


def test_ranges_and_threshold() -> None:
    df = _original(1000)
    syn = df.copy()
    syn.loc[:4, "age"] = 120  # 0.5%: below the 1% threshold
    enc = encode_frames({"original": df, "synthetic": syn})
    (age,) = [c for c in enc.domain.columns if c.column == "age"]
    assert age.share_outside == pytest.approx(0.005) and age.examples == ("120",)
    assert enc.domain.warnings == ()
    syn.loc[:49, "when"] = pd.Timestamp("2030-06-01")  # 5% of dates after the original's
    enc = encode_frames({"original": df, "synthetic": syn, "control": df.head(100)})
    (w,) = enc.domain.warnings
    assert w.code is WarningCode.OUT_OF_DOMAIN and w.column == "when"
    assert "5.0% of the synthetic records (50)" in w.message and "2030-06-01" not in w.message
    assert "2030-06-01" in w.detail and w.text(show_values=True) == w.detail  # --show-records
    assert {c.part for c in enc.domain.columns} == {"synthetic", "control"}
    assert DOMAIN_THRESHOLD == 0.01


def test_control_values_are_checked_too() -> None:
    df = _original()
    control = _original(200, seed=1)
    control["state"] = "99"
    enc = encode_frames({"original": df, "synthetic": df, "control": control})
    (entry,) = enc.domain.flagged
    assert (entry.part, entry.examples) == ("control", ("99",))


def test_missing_values_where_the_original_has_none() -> None:
    df = _original()
    syn = df.copy()
    syn.loc[:99, "state"] = None
    enc = encode_frames({"original": df, "synthetic": syn})
    (entry,) = enc.domain.flagged
    assert entry.examples == ("(missing)",) and entry.share_outside == pytest.approx(0.2)


def test_direct_use_and_errors() -> None:
    df = _original()
    schema = infer_schema(df)
    t = Table.from_frame(df, schema)
    rep = domain_report(t, t, t)
    assert isinstance(rep, DomainReport) and len(rep.columns) == 2 * len(schema)
    assert DomainReport.from_json(rep.to_json()) == rep
    changed = df.assign(state="x")
    other = Table.from_frame(changed, infer_schema(changed))
    with pytest.raises(InputError, match="encode them together"):
        domain_report(t, other)
    with pytest.raises(InputError, match="threshold"):
        domain_report(t, t, threshold=1.5)


def test_warnings_quote_no_value_unless_asked() -> None:
    """The notes a command prints speak of columns and counts: the values outside the domain
    (real control records' values) are only in ``detail``, and a report without records keeps
    neither them nor the examples."""
    df = _original(1000)
    ctl = df.head(200).copy()
    ctl.loc[:9, "age"] = [1700, 1500, 1700, 1500, 1700, 1500, 1700, 1500, 1700, 1500]
    enc = encode_frames({"original": df, "control": ctl})
    (w,) = enc.domain.warnings
    assert "1700" not in w.message and "1500" not in w.message and "(10)" in w.message
    assert "1700" in w.detail
    masked = enc.domain.without_values()
    assert masked.warnings[0].tokens == () and masked.warnings[0].detail == ""
    assert all(c.examples == () for c in masked.columns)
