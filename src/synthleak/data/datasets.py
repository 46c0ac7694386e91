"""Bundled datasets.

Only UCI Adult ships with synthleak (CC BY 4.0; Becker and Kohavi, 1996,
https://doi.org/10.24432/C5XW20), compressed, with its attribution in
``data/_bundled/ATTRIBUTION.md``.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd


def load_adult() -> pd.DataFrame:
    """UCI Adult, train and test combined: 48,842 rows, 15 columns.

    Missing values (``?`` in the source) are returned as missing cells. Six columns are numeric
    (``age``, ``fnlwgt``, ``education-num``, ``capital-gain``, ``capital-loss``,
    ``hours-per-week``); the nine others, ``income`` included, are strings.

    References
    ----------
    Becker, B. and Kohavi, R. (1996). Adult. UCI Machine Learning Repository. CC BY 4.0.
    """
    ref = resources.files("synthleak.data").joinpath("_bundled/adult.csv.gz")
    with ref.open("rb") as fh:
        return pd.read_csv(fh, compression="gzip", na_values=["?"])
