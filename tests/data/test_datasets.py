from __future__ import annotations

import synthleak as sl


def test_load_adult_shape_and_missing() -> None:
    df = sl.datasets.load_adult()
    assert df.shape == (48842, 15)
    assert df["workclass"].isna().sum() == 2799
    assert df["occupation"].isna().sum() == 2809
    assert df["native-country"].isna().sum() == 857
    assert set(df["income"].unique()) == {"<=50K", ">50K"}
