"""Bundled datasets.

Only UCI Adult ships with synthleak (CC BY 4.0; Becker and Kohavi, 1996,
https://doi.org/10.24432/C5XW20), compressed, with its attribution in
``data/_bundled/ATTRIBUTION.md``.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd


def load_adult(complete_cases: bool = False) -> pd.DataFrame:
    """UCI Adult, train and test combined: 48,842 rows, 15 columns.

    Missing values (``?`` in the source) are returned as missing cells. Six columns are numeric
    (``age``, ``fnlwgt``, ``education-num``, ``capital-gain``, ``capital-loss``,
    ``hours-per-week``); the nine others, ``income`` included, are strings.

    Parameters
    ----------
    complete_cases : bool, default False
        Drop the 3,620 rows with a missing value and number the remaining 45,222 rows from 0, in
        the original order (train rows first). This is the Adult of the membership-inference
        experiments of Meeus et al. (2023): the authors' code loads 45,222 records, and its
        10 published distance targets are the rows of this frame that ``V_5`` ranks first (see
        REPRODUCTION.md). Also available as the data argument ``adult-complete``.

    References
    ----------
    Becker and Kohavi (1996), "Adult", UCI Machine Learning Repository (CC BY 4.0).
    """
    ref = resources.files("synthleak.data").joinpath("_bundled/adult.csv.gz")
    with ref.open("rb") as fh:
        df = pd.read_csv(fh, compression="gzip", na_values=["?"])
    return df.dropna().reset_index(drop=True) if complete_cases else df
