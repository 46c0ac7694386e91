"""The real datasets the benchmarks use, read at run time from the shared datasets folder.

``adult``   UCI Adult without missing values (45,222 rows; the bundled copy), as Meeus et al.
            (2023) ran it: 9 categorical and 6 continuous columns.
``census``  UK Census 2011 teaching-file subset of reprosyn/TAPAS (50,000 rows), ``Person ID``
            dropped, the 17 variables categorical (the paper's "17 categorical columns").
``acs-ma``  NIST Diverse Communities excerpt of the 2019 ACS, Massachusetts (7,634 rows), the
            survey weights ``PWGTP`` and ``WGTP`` dropped (design weights, not attributes of a
            person); ``AGEP``, ``PINCP``, ``POVPIP`` and ``DENSITY`` continuous as NIST's data
            dictionary, the other 18 columns categorical (``N`` = not applicable = missing).
``acs-tx``  the same for Texas (9,276 rows).
``acs-ma18``, ``acs-tx18``  the same excerpt of the 2018 ACS (7,244 and 8,775 rows).
``german``  UCI Statlog German credit (1,000 rows, codes decoded): ``duration``,
            ``credit_amount`` and ``age`` continuous, the other 18 columns categorical.
``compas``  ProPublica's COMPAS two-year recidivism file (7,214 rows), the 16 columns of the
            person, the charge, the scores and the outcomes (``COMPAS_COLUMNS``): ``age``,
            ``priors_count`` and ``days_b_screening_arrest`` continuous, the others categorical;
            dates, free-text charge descriptions and the duplicated columns dropped.

No file is copied into the repository (see the shared folder's README for sources and terms).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

import synthleak as sl

DATASETS = ("adult", "census", "acs-ma", "acs-tx", "acs-ma18", "acs-tx18", "german", "compas")
GERMAN_CONTINUOUS = ("duration", "credit_amount", "age")
COMPAS_COLUMNS = (
    "sex",
    "age",
    "race",
    "juv_fel_count",
    "juv_misd_count",
    "juv_other_count",
    "priors_count",
    "days_b_screening_arrest",
    "c_charge_degree",
    "decile_score",
    "score_text",
    "v_decile_score",
    "is_recid",
    "r_charge_degree",
    "is_violent_recid",
    "two_year_recid",
)
COMPAS_CONTINUOUS = ("age", "priors_count", "days_b_screening_arrest")
ACS_CONTINUOUS = ("AGEP", "PINCP", "POVPIP", "DENSITY")
ACS_DROPPED = ("PWGTP", "WGTP")


def shared_datasets_dir() -> Path:
    """``$SYNTHLEAK_SHARED_DATASETS``, else the first ``shared/datasets`` beside the repository
    or one of its parent directories (a git worktree may sit deeper than the main checkout)."""
    env = os.environ.get("SYNTHLEAK_SHARED_DATASETS")
    if env:
        return Path(env)
    root = Path(__file__).resolve().parents[1]
    for parent in root.parents:
        cand = parent / "shared" / "datasets"
        if cand.is_dir():
            return cand
    return root.parent / "shared" / "datasets"


def _path(name: str) -> Path:
    path = shared_datasets_dir() / name
    if not path.is_file():
        raise SystemExit(f"{path} not found: set SYNTHLEAK_SHARED_DATASETS to the shared datasets")
    return path


def load_frame(name: str) -> pd.DataFrame:
    """The dataset as a DataFrame, columns as described in the module docstring."""
    if name == "adult":
        return sl.datasets.load_adult(complete_cases=True)
    if name == "census":
        return pd.read_csv(_path("uk_census2011_teaching_50k.csv")).drop(columns=["Person ID"])
    if name.startswith("acs-"):
        state, year = name[4:6], ("20" + name[6:]) if len(name) > 6 else "2019"
        file = f"nist_acs_{state}{year}.csv"
        return pd.read_csv(_path(file), na_values="N").drop(columns=list(ACS_DROPPED))
    if name == "german":
        return pd.read_csv(_path("german_credit.csv"))
    if name == "compas":
        return pd.read_csv(_path("compas_two_years_noids.csv"), usecols=list(COMPAS_COLUMNS))[
            list(COMPAS_COLUMNS)
        ]
    raise SystemExit(f"unknown dataset {name!r}: use one of {', '.join(DATASETS)}")


def load_table(name: str) -> sl.Table:
    """The dataset as a Table with the schema described in the module docstring."""
    df = load_frame(name)
    if name == "census":
        schema = sl.infer_schema(df, categorical=list(df.columns))
    elif name.startswith("acs"):
        cont = list(ACS_CONTINUOUS)
        schema = sl.infer_schema(
            df, continuous=cont, categorical=[c for c in df.columns if c not in cont]
        )
    elif name in ("german", "compas"):
        cont = list(GERMAN_CONTINUOUS if name == "german" else COMPAS_CONTINUOUS)
        schema = sl.infer_schema(
            df, continuous=cont, categorical=[c for c in df.columns if c not in cont]
        )
    else:
        schema = sl.infer_schema(df)
    return sl.Table.from_frame(df, schema)


def adult_sample(records: int, seed: int) -> pd.DataFrame:
    """``records`` rows of the paper's Adult drawn with ``seed`` (the audit benchmarks' sample)."""
    import numpy as np

    from synthleak.runtime import stream_rng

    full = load_table("adult")
    rows = np.sort(stream_rng(seed, "budget-sample").choice(len(full), records, False))
    return full.take(rows).to_frame()


def alternating(variants: tuple[str, ...], repeats: int, run, report) -> dict[str, list[dict]]:  # type: ignore[no-untyped-def,type-arg]
    """``run(variant)`` for every variant, ``repeats`` times, in alternating order.

    On a shared machine, alternating which variant runs first gives both the same load; each
    result is passed to ``report(rep, variant, result)`` as it comes.
    """
    runs: dict[str, list[dict]] = {v: [] for v in variants}  # type: ignore[type-arg]
    for rep in range(repeats):
        for variant in variants if rep % 2 == 0 else variants[::-1]:
            result = run(variant)
            runs[variant].append(result)
            report(rep, variant, result)
    return runs


def wall_ratios(
    runs: dict[str, list[dict]],  # type: ignore[type-arg]
    numerator: str,
    denominator: str,
) -> tuple[list[float], dict[str, float]]:
    """The wall-time ratios ``numerator / denominator`` of the runs of :func:`alternating`,
    repeat by repeat, and every variant's median wall time."""
    walls = {v: [r["wall"] for r in rs] for v, rs in runs.items()}
    ratios = [a / b for a, b in zip(walls[numerator], walls[denominator], strict=True)]
    return ratios, {v: float(np.median(w)) for v, w in walls.items()}
