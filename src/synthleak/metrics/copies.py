"""Exact and near copies of real records in a synthetic release: pure functions on DataFrames.

A release that reproduces training records verbatim discloses them whatever any attack says.
These functions work on the DataFrames themselves, so they cover every column, including
free-text or identifier-like columns that a schema may leave out of the attacks.

Exact copies
    A synthetic row is an **exact copy** when some original (training) row has the same value
    in every column (numbers compared as numbers, so ``5`` equals ``5.0`` and ``-0.0`` equals
    ``0.0``; missing equals missing). Rows and values are compared through 64-bit keys of
    their canonical form (:func:`copy_hashes`; a collision is possible in principle, about
    ``n^2 / 2^65`` for ``n`` distinct keys). Reported as a share of the synthetic rows with a
    Wilson interval, beside two baselines of what an independent sample of the population
    would show:

    * ``chance_duplicate``: the share of original rows identical to *another* original row (the
      duplicate rate within the real data). A fresh record from the population equals one of
      the ``n`` training records about as often as a training record equals one of the other
      ``n - 1``. Needs no control.
    * ``control_in_original``: the share of control rows (real records the generator never saw)
      identical to an original row: the same question asked of real non-members, directly.

    With a control set, ``synthetic_in_control`` (the share of synthetic rows identical to a
    control row) is reported too; it is measured against a set of another size, so compare it
    with ``control_in_original`` scaled by ``n_control / n_original`` at most loosely.
    ``copied_rows`` lists the original rows (0-based positions) that appear verbatim in the
    release: row ids, never values.

Column copies
    For every high-cardinality column (distinct values in at least ``min_distinct_ratio`` of
    the original's non-missing values: names, free text, identifiers, fine-grained numbers), the
    share of the synthetic values found verbatim in the original column (``synthetic_in_original``,
    a description) and, for the verdict, the share of the synthetic values found among ``m``
    original records against the share found among ``m`` control records, ``m`` the smaller of
    the two sizes (the exact expectation over random subsets of ``m`` records of the larger part,
    as singling out compares its parts). The original and the control are drawn from one
    population, so a release made without the training records finds its values in either at
    the same rate, whether values repeat or every value occurs once (a date per day, an
    identifier per person). Asking instead how often the *control's* values occur in the
    original gives a chance rate of 0 by construction for such a column, and a release that
    draws its dates from the calendar would read as a copy. The synthetic values are the
    trials; the counts of the comparison are the expectations rounded to whole values.

Long text one record holds
    Without a control the column comparison has no chance rate, except where the evidence is
    unambiguous: a long piece of text (at least ``LONG_TEXT_CHARS`` characters, of them at
    least ``LONG_TEXT_LETTERS`` letters, not a date) that exactly one original record holds,
    in a column left out of the attacks as an identifier or free text, is assumed to be
    reproduced verbatim by a generator that never saw it with probability at most
    ``LONE_TEXT_CHANCE`` (1 %): :func:`lone_text` counts the original records holding such a
    value and those whose value the release holds. The assumption is stated in the finding;
    short strings, numbers and dates are left out because a generator produces them by chance.

Values one record holds
    A categorical value that exactly one record of the original and control together holds
    is released only by chance, by a generator that read it from its training records (a
    domain learnt from the data, as synthcity's DP plugins learn theirs), or by one that copies.
    :func:`rare_values` counts the original records holding such a value that the release holds
    too, and the control records likewise: the original and control records are drawn from one
    population, so a release made without the training records holds the two groups' lone
    values at the same rate, and the excess of the first rate over the second is the leak.

Near copies
    Rule: a synthetic row is a **near copy** when its distance to the closest original record
    (generalised cosine distance of Meeus et al. 2023, eq. 5, on the columns of the schema) is at
    most ``tau``, the ``near_quantile`` quantile (5 % by default) of the real-to-real
    nearest-neighbour distances: each control record's distance to its closest original record
    or, without a control, each original record's distance to its closest *other* original
    record. By construction about ``near_quantile`` of fresh real records fall within ``tau``,
    which is the baseline (``near_baseline``: measured on the control when there is one).
    With ``near_sample``, both rates are measured on random samples of that many synthetic and
    control rows (each searched against every original record, so the distance to the closest
    original record is exact); their Wilson intervals are on the sample sizes, and a note
    states them. The search costs O(queries x original), so a census-scale audit samples.

References
----------
Yao, Krčo, Ganev and de Montjoye (2025) (distance-to-closest-record tests and their limits).
Giomi, Boenisch, Wehmeyer and Tasnádi (2023) (a control set as the baseline).
Wilson (1927) (score interval).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from synthleak.data.schema import Schema
from synthleak.errors import InputError
from synthleak.metrics.privacy import RiskEstimate, wilson_interval
from synthleak.serde import IntArray, Result

if TYPE_CHECKING:
    from synthleak.data.table import Table

__all__ = [
    "LONE_TEXT_CHANCE",
    "ColumnCopies",
    "CopyCounter",
    "CopyPlan",
    "CopyReport",
    "LoneText",
    "NearestSearch",
    "RareValues",
    "copied_rows",
    "copy_counts",
    "copy_hashes",
    "copy_plan",
    "copy_report",
    "high_cardinality_columns",
    "local_copy_counts",
    "lone_text",
    "merge_copy_counts",
    "nearest_distances",
    "rare_values",
    "row_keys",
]


def _rate(successes: int, n: int, baseline: float | None = None) -> RiskEstimate:
    lo, hi = wilson_interval(successes, n)
    return RiskEstimate(successes / n if n else float("nan"), lo, hi, 0.95, n, baseline)


def _canon_value(v: object) -> str:
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, np.generic):
        return str(v.item())
    return str(v)


_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ODD = np.uint64(0x9E3779B97F4A7C15)
_NUMERIC_SALT = np.uint64(0x6A09E667F3BCC909)


def _mix(h: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, element-wise on uint64 (wrapping arithmetic)."""
    h = h ^ (h >> np.uint64(30))
    h *= _M1
    h ^= h >> np.uint64(27)
    h *= _M2
    h ^= h >> np.uint64(31)
    return h


def _is_numeric(s: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s))


def _column_hashes(s: pd.Series, numeric: bool) -> np.ndarray:
    """One uint64 per value of ``s``, equal iff the canonical values are equal: numbers as
    float64 (``5 == 5.0``, ``-0.0 == 0.0``, every missing value one NaN), other values by
    their text (one Python call per distinct value, not per cell), missing equals missing."""
    if numeric:
        x = s.to_numpy(dtype=np.float64, na_value=np.nan) + 0.0  # -0.0 becomes 0.0
        x[np.isnan(x)] = np.nan  # one NaN payload
        return _mix(x.view(np.uint64) ^ _NUMERIC_SALT)
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    canon = np.array([_canon_value(v) for v in uniques] + ["\x00<NA>"], dtype=object)
    per_value = pd.util.hash_array(canon, categorize=False).astype(np.uint64)
    return per_value[np.where(codes < 0, len(uniques), codes)]


@dataclass(frozen=True)
class CopyPlan:
    """What the exact copy check hashes: the columns two copied rows agree on, the columns
    whose values are checked one by one, and which columns compare as numbers (a column does
    when it is numeric in every part)."""

    row_columns: tuple[str, ...]
    value_columns: tuple[str, ...]
    numeric: frozenset[str]


def copy_plan(
    frames: list[pd.DataFrame], row_columns: list[str], value_columns: list[str]
) -> CopyPlan:
    """The :class:`CopyPlan` of ``frames`` (every frame must hold the columns)."""
    need = list(dict.fromkeys([*row_columns, *value_columns]))
    for f in frames:
        if any(c not in f.columns for c in need):
            raise InputError(
                "original, synthetic and control must have the same columns: "
                "give data with identical columns"
            )
    numeric = frozenset(c for c in need if all(_is_numeric(f[c]) for f in frames))
    return CopyPlan(tuple(row_columns), tuple(value_columns), numeric)


def copy_hashes(frame: pd.DataFrame, plan: CopyPlan) -> dict[str, np.ndarray]:
    """The 64-bit keys of one frame (or any slice of its rows: a row's keys do not depend on
    the other rows): ``rows``, one key per row on the plan's row columns; ``v{j}``, one key per
    non-missing value of the plan's ``j``-th value column. Computed column by column, so the
    memory is a few arrays of ``len(frame)``, never a canonical copy of the table."""
    cache: dict[str, np.ndarray] = {}

    def col(c: str) -> np.ndarray:
        if c not in cache:
            cache[c] = _column_hashes(frame[c], c in plan.numeric)
        return cache[c]

    key = np.full(len(frame), np.uint64(len(plan.row_columns)), dtype=np.uint64)
    for c in plan.row_columns:
        key = _mix(key * _ODD + col(c))
        if c not in plan.value_columns:
            cache.pop(c)
    out = {"rows": key}
    for j, c in enumerate(plan.value_columns):
        out[f"v{j}"] = col(c)[frame[c].notna().to_numpy()]
        cache.pop(c)
    return out


#: Positions in :func:`copy_counts`' ``counts``: the row counts, then four per value column.
_ROW_COUNTS = ("duplicated", "control_in_original", "synthetic_in_control", "synthetic_in_original")
_VALUE_COUNTS = (
    "synthetic_values",
    "synthetic_in_original",
    "control_values",
    "control_in_original",
)


def copy_counts(
    original: dict[str, np.ndarray],
    synthetic: dict[str, np.ndarray],
    control: dict[str, np.ndarray] | None,
    original_rows: np.ndarray,
) -> dict[str, np.ndarray]:
    """The exact check on the keys of :func:`copy_hashes`: integer counts and the original
    rows (``original_rows``, the positions of ``original["rows"]``) found in the release.

    Every comparison is equality of keys, so the counts of any split of the keys by key range
    (all keys of one value in one part) add up to the counts of the whole, and the rows
    concatenate to its rows.

    Returns
    -------
    dict
        ``counts`` (int64: original rows whose key occurs more than once in the original,
        control rows found in the original, synthetic rows found in the control, synthetic rows
        found in the original; then per value column: synthetic values, those found in the
        original column, control values, those found there), ``copied`` (int64 rows) and, per
        value column ``j``, ``mult_o{j}`` and ``mult_c{j}``: how many synthetic values are held
        by ``k`` original (control) values, as int64 rows ``(k, count)`` (:func:`_multiplicities`;
        the control's is empty without a control).
    """
    k_ori, k_syn = original["rows"], synthetic["rows"]
    _, inv, cnt = np.unique(k_ori, return_inverse=True, return_counts=True)
    counts = [int((cnt[inv.ravel()] > 1).sum())]
    if control is not None:
        k_ctl = control["rows"]
        counts += [int(np.isin(k_ctl, k_ori).sum()), int(np.isin(k_syn, k_ctl).sum())]
    else:
        counts += [0, 0]
    counts.append(int(np.isin(k_syn, k_ori).sum()))
    copied = np.asarray(original_rows, dtype=np.int64)[np.isin(k_ori, k_syn)]
    out: dict[str, np.ndarray] = {}
    j = 0
    while f"v{j}" in original:
        ori, syn = original[f"v{j}"], synthetic[f"v{j}"]
        counts += [syn.size, int(np.isin(syn, ori).sum())]
        out[f"mult_o{j}"] = _multiplicities(syn, ori)
        if control is not None:
            ctl = control[f"v{j}"]
            counts += [ctl.size, int(np.isin(ctl, ori).sum())]
            out[f"mult_c{j}"] = _multiplicities(syn, ctl)
        else:
            counts += [0, 0]
            out[f"mult_c{j}"] = np.zeros((2, 0), dtype=np.int64)
        j += 1
    return {"counts": np.asarray(counts, dtype=np.int64), "copied": copied, **out}


def _multiplicities(queries: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """For each query key, how many reference keys equal it; tallied as int64 rows
    ``(k, number of queries held k times)``, ``k`` ascending. Tallies of a split of the keys by
    key range add up to the tally of the whole (:func:`merge_copy_counts`)."""
    if queries.size == 0:
        return np.zeros((2, 0), dtype=np.int64)
    values, counts = np.unique(reference, return_counts=True)
    k = np.zeros(queries.size, dtype=np.int64)
    if values.size:
        pos = np.minimum(np.searchsorted(values, queries), values.size - 1)
        hit = values[pos] == queries
        k[hit] = counts[pos[hit]]
    mult, n = np.unique(k, return_counts=True)
    return np.stack([mult, n]).astype(np.int64)


def merge_copy_counts(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The :func:`copy_counts` of the whole from those of a split of the keys by key range:
    counts summed, copied rows concatenated, multiplicity tallies added (integers only, so the
    result does not depend on the split)."""
    out: dict[str, np.ndarray] = {
        "counts": np.asarray(np.stack([p["counts"] for p in parts]).sum(axis=0), np.int64),
        "copied": np.concatenate([p["copied"] for p in parts]).astype(np.int64),
    }
    for name in parts[0] if parts else ():
        if not name.startswith("mult_"):
            continue
        both = np.concatenate([p[name] for p in parts], axis=1)
        mult, inv = np.unique(both[0], return_inverse=True)
        total = np.zeros(mult.size, dtype=np.int64)
        np.add.at(total, inv.ravel(), both[1])
        out[name] = np.stack([mult, total]).astype(np.int64)
    return out


def _hit_probability(n: int, m: int, k: np.ndarray) -> np.ndarray:
    """Probability that a random subset of ``m`` of ``n`` records holds at least one of the
    ``k`` records holding a value (hypergeometric: ``1 - C(n - k, m) / C(n, m)``)."""
    k = np.asarray(k, dtype=np.int64)
    out = np.zeros(k.size, dtype=np.float64)
    for i, kv in enumerate(k.tolist()):
        if kv <= 0:
            continue
        if n - kv < m:
            out[i] = 1.0
            continue
        log_miss = (
            math.lgamma(n - kv + 1)
            - math.lgamma(n - kv - m + 1)
            - math.lgamma(n + 1)
            + math.lgamma(n - m + 1)
        )
        out[i] = -math.expm1(log_miss)
    return out


def _expected_hits(mult: np.ndarray, n: int, m: int) -> float:
    """Expected number of the tallied query values found among ``m`` random records of ``n``."""
    if mult.size == 0:
        return 0.0
    return float(np.dot(_hit_probability(n, m, mult[0]), mult[1]))


#: Computes :func:`copy_counts` of ``frames`` (original, synthetic[, control]) under a plan:
#: the audit passes one that works by partition on a cluster (``synthleak.partitioned``).
CopyCounter = Callable[[list[pd.DataFrame], CopyPlan], dict[str, np.ndarray]]

#: ``nearest(queries, candidates)``: each query record's distance to its closest candidate
#: (two :class:`~synthleak.data.table.Table` of one schema; the near-copy search).
NearestSearch = Callable[["Table", "Table"], np.ndarray]


def nearest_distances(queries: Table, candidates: Table) -> np.ndarray:
    """Each query's distance to its closest candidate (:func:`~synthleak.vulnerability.
    nearest_neighbours` with ``k = 1``): the default near-copy search, in this process."""
    from synthleak.vulnerability import nearest_neighbours

    return nearest_neighbours(queries, candidates, k=1)[0][:, 0]


def local_copy_counts(frames: list[pd.DataFrame], plan: CopyPlan) -> dict[str, np.ndarray]:
    """:func:`copy_counts` of whole frames, in this process."""
    keys = [copy_hashes(f, plan) for f in frames]
    ctl = keys[2] if len(keys) > 2 else None
    return copy_counts(keys[0], keys[1], ctl, np.arange(len(frames[0]), dtype=np.int64))


def row_keys(*frames: pd.DataFrame) -> list[np.ndarray]:
    """One 64-bit key per row of each frame, equal iff the rows are equal in every column.

    Columns are matched by name; numbers compare as numbers (``5 == 5.0``), other values by
    their text, missing equals missing. Hash collisions are possible in principle (64 bits).
    """
    if not frames:
        return []
    cols = [str(c) for c in frames[0].columns]
    for f in frames[1:]:
        if sorted(str(c) for c in f.columns) != sorted(cols):
            raise InputError(
                "original, synthetic and control must have the same columns: "
                "give data with identical columns"
            )
    plan = copy_plan(list(frames), cols, [])
    return [copy_hashes(f, plan)["rows"] for f in frames]


def copied_rows(original: pd.DataFrame, synthetic: pd.DataFrame) -> np.ndarray:
    """0-based positions of the original rows that appear verbatim in the synthetic data."""
    k_ori, k_syn = row_keys(original, synthetic)
    return np.flatnonzero(np.isin(k_ori, k_syn)).astype(np.int64)


def high_cardinality_columns(df: pd.DataFrame, min_distinct_ratio: float = 0.5) -> list[str]:
    """Columns whose distinct non-missing values are at least ``min_distinct_ratio`` of their
    non-missing values (free text, names, identifiers, fine-grained numbers)."""
    out = []
    for c in df.columns:
        s = df[c].dropna()
        if len(s) >= 2 and s.nunique() >= min_distinct_ratio * len(s):
            out.append(str(c))
    return out


@dataclass(frozen=True, repr=False)
class ColumnCopies(Result):
    """Verbatim copies of the values of one high-cardinality column.

    Attributes
    ----------
    column : str
    distinct_ratio : float
        Distinct non-missing values over non-missing values, in the original.
    synthetic_in_original : RiskEstimate
        Share of the synthetic non-missing values found in the original column.
    control_in_original : RiskEstimate or None
        Share of the control non-missing values found there (a description: for a column
        whose values occur once each it is 0 by construction, so it is no chance rate).
    equal_size : int
        ``m``, the smaller of the original's and the control's number of records (0 without
        a control).
    synthetic_in_original_m : RiskEstimate or None
        Share of the synthetic values found among ``m`` original records (the expectation over
        random subsets of ``m`` records; successes rounded to whole values).
    synthetic_in_control_m : RiskEstimate or None
        Share of the synthetic values found among ``m`` control records: the chance rate of
        ``synthetic_in_original_m``.
    """

    column: str
    distinct_ratio: float
    synthetic_in_original: RiskEstimate
    control_in_original: RiskEstimate | None = None
    equal_size: int = 0
    synthetic_in_original_m: RiskEstimate | None = None
    synthetic_in_control_m: RiskEstimate | None = None


@dataclass(frozen=True, repr=False)
class RareValues(Result):
    """Categorical values that one record alone holds, released or not (:func:`rare_values`).

    Attributes
    ----------
    columns : tuple of str
        The categorical columns looked at.
    n_original, n_control : int
        Original (control) records holding a value that no other original or control record
        holds, in some column.
    released_original, released_control : int
        Those of them with such a value that the release holds too.
    released_rows : IntArray
        The original rows (0-based) counted in ``released_original``.
    released_columns : tuple of str
        The columns their released values are in.
    """

    columns: tuple[str, ...]
    n_original: int
    released_original: int
    n_control: int
    released_control: int
    released_rows: IntArray
    released_columns: tuple[str, ...] = ()


def rare_values(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    columns: list[str],
) -> RareValues:
    """Which records hold a value of ``columns`` that no other record of ``original`` and
    ``control`` together holds, and which of those values ``synthetic`` holds (module
    docstring). Values are compared as the copy check compares them; missing values are left
    out."""
    n_o, n_c = len(original), len(control)
    rare_o, rare_c = np.zeros(n_o, dtype=bool), np.zeros(n_c, dtype=bool)
    hit_o, hit_c = np.zeros(n_o, dtype=bool), np.zeros(n_c, dtype=bool)
    released_columns = []
    for col in columns:
        parts = [original[col], control[col], synthetic[col]]
        numeric = all(_is_numeric(p) for p in parts)
        ho, hc, hs = (_column_hashes(p, numeric) for p in parts)
        present_o, present_c = original[col].notna().to_numpy(), control[col].notna().to_numpy()
        values, counts = np.unique(np.r_[ho[present_o], hc[present_c]], return_counts=True)
        lone = values[counts == 1]
        lone_o, lone_c = np.isin(ho, lone) & present_o, np.isin(hc, lone) & present_c
        released = np.isin(ho, hs) & lone_o
        rare_o |= lone_o
        rare_c |= lone_c
        hit_o |= released
        hit_c |= np.isin(hc, hs) & lone_c
        if released.any():
            released_columns.append(col)
    return RareValues(
        tuple(columns),
        int(rare_o.sum()),
        int(hit_o.sum()),
        int(rare_c.sum()),
        int(hit_c.sum()),
        np.flatnonzero(hit_o).astype(np.int64),
        tuple(released_columns),
    )


#: A long text value: at least this many characters, of them at least ``LONG_TEXT_LETTERS``
#: letters (short strings, codes and numbers are produced by chance).
LONG_TEXT_CHARS = 16
LONG_TEXT_LETTERS = 10
#: The stated chance rate of :func:`lone_text`: a generator that never saw a record reproduces
#: the long text that record alone holds with probability at most this (an assumption).
LONE_TEXT_CHANCE = 0.01


@dataclass(frozen=True, repr=False)
class LoneText(Result):
    """Long text values that one original record alone holds, released or not
    (:func:`lone_text`).

    Attributes
    ----------
    columns : tuple of str
        The columns looked at (left out of the attacks as identifiers or free text).
    n_original : int
        Original records holding, in some column, a long text value that no other original
        record holds.
    released : int
        Those of them with such a value that the release holds verbatim.
    released_rows : IntArray
        The original rows (0-based) counted in ``released``.
    released_columns : tuple of str
        The columns their released values are in.
    chance_rate : float
        The stated chance rate (:data:`LONE_TEXT_CHANCE`).
    """

    columns: tuple[str, ...]
    n_original: int
    released: int
    released_rows: IntArray
    released_columns: tuple[str, ...] = ()
    chance_rate: float = LONE_TEXT_CHANCE


_LETTER = re.compile(r"[^\W\d_]")


def _long_text(values: pd.Series) -> np.ndarray:
    """Which of ``values`` (strings) are long text: :data:`LONG_TEXT_CHARS` characters, of
    them :data:`LONG_TEXT_LETTERS` letters, and not a date."""
    text = values.astype(str).str.strip()
    long_ = (text.str.len() >= LONG_TEXT_CHARS).to_numpy() & (
        text.str.count(_LETTER.pattern) >= LONG_TEXT_LETTERS
    ).to_numpy()
    digits = long_ & text.str.contains(r"\d", regex=True).to_numpy()
    if digits.any():  # "Monday, 4 March 2021" is long, but any calendar makes it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dates = pd.to_datetime(text[digits], errors="coerce", format="mixed")
        long_[np.flatnonzero(digits)[dates.notna().to_numpy()]] = False
    return np.asarray(long_, dtype=bool)


def lone_text(original: pd.DataFrame, synthetic: pd.DataFrame, columns: list[str]) -> LoneText:
    """Which original records hold a long text value of ``columns`` that no other original
    record holds, and which of those values ``synthetic`` holds verbatim (module docstring).
    Numeric columns are skipped; values compare as the copy check compares them."""
    n = len(original)
    holds, hit = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    looked, released_columns = [], []
    for col in columns:
        if _is_numeric(original[col]) or col not in synthetic.columns:
            continue
        looked.append(col)
        present = original[col].notna().to_numpy()
        ho = _column_hashes(original[col], False)
        hs = _column_hashes(synthetic[col], False)[synthetic[col].notna().to_numpy()]
        values, counts = np.unique(ho[present], return_counts=True)
        lone = np.isin(ho, values[counts == 1]) & present
        cand = np.flatnonzero(lone)
        lone[cand[~_long_text(original[col].iloc[cand])]] = False
        released = lone & np.isin(ho, hs)
        holds |= lone
        hit |= released
        if released.any():
            released_columns.append(col)
    return LoneText(
        tuple(looked),
        int(holds.sum()),
        int(hit.sum()),
        np.flatnonzero(hit).astype(np.int64),
        tuple(released_columns),
    )


@dataclass(frozen=True, repr=False)
class CopyReport(Result):
    """Exact and near copies of real records in a release (see the module docstring).

    Attributes
    ----------
    n_original, n_synthetic : int
    n_control : int or None
    synthetic_in_original : RiskEstimate
        Share of synthetic rows identical to an original row (``baseline``: the chance rate,
        ``control_in_original`` when there is a control, else ``chance_duplicate``).
    chance_duplicate : RiskEstimate
        Share of original rows identical to another original row.
    control_in_original : RiskEstimate or None
        Share of control rows identical to an original row.
    synthetic_in_control : RiskEstimate or None
        Share of synthetic rows identical to a control row.
    copied_rows : IntArray
        Original rows (0-based) that appear verbatim in the release.
    columns : tuple of ColumnCopies
        High-cardinality columns and their verbatim copy rates.
    near_tau : float or None
        Near-copy threshold (``None`` when near copies were not measured).
    near_quantile : float
    near_synthetic : RiskEstimate or None
        Share of synthetic rows within ``near_tau`` of an original record.
    near_baseline : RiskEstimate or None
        Share of real non-members within ``near_tau`` (control records against the original; or
        original records against the other original records without a control).
    near_columns : tuple of str
        Columns the distances used.
    notes : tuple of str
        What could not be measured, and why.
    rare_values : RareValues or None
        Categorical values one record alone holds, released or not (with a control set).
    lone_text : LoneText or None
        Long text values one original record alone holds, released or not (set by the audit on
        the columns it leaves out as identifiers or free text).
    """

    n_original: int
    n_synthetic: int
    n_control: int | None
    synthetic_in_original: RiskEstimate
    chance_duplicate: RiskEstimate
    control_in_original: RiskEstimate | None
    synthetic_in_control: RiskEstimate | None
    copied_rows: IntArray
    columns: tuple[ColumnCopies, ...]
    near_tau: float | None
    near_quantile: float
    near_synthetic: RiskEstimate | None
    near_baseline: RiskEstimate | None
    near_columns: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    rare_values: RareValues | None = None
    lone_text: LoneText | None = None

    def summary(self) -> dict[str, object]:
        """The command-line JSON shape (rates, intervals and counts; no row list)."""

        def est(e: RiskEstimate | None) -> dict[str, object] | None:
            if e is None:
                return None
            return {"rate": e.value, "ci": [e.ci_low, e.ci_high], "n": e.n_trials}

        return {
            "exact": {
                "synthetic_in_original": est(self.synthetic_in_original),
                "control_in_original": est(self.control_in_original),
                "chance_duplicate": est(self.chance_duplicate),
                "synthetic_in_control": est(self.synthetic_in_control),
                "n_copied_training_rows": int(self.copied_rows.size),
                "copied_training_rows": self.copied_rows.tolist(),
            },
            "columns": {
                c.column: {
                    "synthetic_in_original": est(c.synthetic_in_original),
                    "control_in_original": est(c.control_in_original),
                    "equal_size": c.equal_size,
                    "synthetic_in_original_m": est(c.synthetic_in_original_m),
                    "synthetic_in_control_m": est(c.synthetic_in_control_m),
                }
                for c in self.columns
            },
            "near": {
                "rule": (
                    f"distance to the closest original record <= tau, the "
                    f"{self.near_quantile:g} quantile of real-to-real nearest-neighbour distances"
                ),
                "tau": self.near_tau,
                "synthetic": est(self.near_synthetic),
                "baseline": est(self.near_baseline),
            },
            "rare_values": None
            if self.rare_values is None
            else {
                "training_records": self.rare_values.n_original,
                "training_released": self.rare_values.released_original,
                "control_records": self.rare_values.n_control,
                "control_released": self.rare_values.released_control,
            },
            "lone_text": None
            if self.lone_text is None
            else {
                "training_records": self.lone_text.n_original,
                "training_released": self.lone_text.released,
                "chance_rate": self.lone_text.chance_rate,
            },
            "notes": list(self.notes),
        }


def _check_frame(name: str, df: object) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
    if len(df) == 0:
        raise InputError(f"{name} has no records: give a non-empty DataFrame")
    return df


def _near_copies(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None,
    columns: list[str],
    quantile: float,
    schema: Schema | None = None,
    sample: int | None = None,
    rng: np.random.Generator | None = None,
    nearest: NearestSearch = nearest_distances,
    encoded: tuple[Table, Table, Table | None] | None = None,
) -> tuple[float, RiskEstimate, RiskEstimate]:
    from synthleak.data.release import Release
    from synthleak.vulnerability import vulnerability_scores

    kinds = None
    if schema is not None and all(c in schema for c in columns):
        kinds = schema.select(columns)

    def cols(df: pd.DataFrame) -> pd.DataFrame:
        return df if list(df.columns) == list(columns) else df[columns]  # no copy when all

    if encoded is not None and schema is not None and list(schema.names) == list(columns):
        enc = Release(*encoded, schema).encode()  # encoded already: taken as they are
    else:
        enc = Release(
            cols(original), cols(synthetic), None if control is None else cols(control), kinds
        ).encode()

    def queries(part: Table) -> Table:
        if sample is None or len(part) <= sample:
            return part
        assert rng is not None
        return part.take(np.sort(rng.choice(len(part), sample, replace=False)))

    if enc.control is not None:
        real = nearest(queries(enc.control), enc.original)
    else:
        real = vulnerability_scores(enc.original, k=1)  # distance to the closest other record
    tau = float(np.quantile(real, quantile))
    d_syn = nearest(queries(enc.synthetic), enc.original)
    tol = 1e-12  # eq. 5 is evaluated in float64: identical records may sit at 1e-16
    base = int((real <= tau + tol).sum())
    return (
        tau,
        _rate(int((d_syn <= tau + tol).sum()), len(d_syn), base / len(real)),
        _rate(base, len(real)),
    )


def copy_report(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None = None,
    *,
    min_distinct_ratio: float = 0.5,
    near_quantile: float = 0.05,
    near_columns: list[str] | None = None,
    row_columns: list[str] | None = None,
    value_columns: list[str] | None = None,
    schema: Schema | None = None,
    near_sample: int | None = None,
    rng: np.random.Generator | None = None,
    counter: CopyCounter | None = None,
    nearest: NearestSearch | None = None,
    encoded: tuple[Table, Table, Table | None] | None = None,
) -> CopyReport:
    """Exact, column and near copies of real records in ``synthetic`` (module docstring).

    Parameters
    ----------
    original : DataFrame
        The training records the release was generated from.
    synthetic : DataFrame
        The release.
    control : DataFrame, optional
        Real records of the same population the generator never saw; without it the rates are
        reported against the duplicate rate within the original only.
    min_distinct_ratio : float, default 0.5
        A column is high-cardinality when its distinct values reach this share of its values.
    near_quantile : float, default 0.05
        Quantile of the real-to-real nearest-neighbour distances that sets the near-copy
        threshold; ``0`` skips near copies.
    near_columns : list of str, optional
        Columns the near-copy distances use. By default every column except non-numeric
        high-cardinality ones (free text and identifiers, where any two records differ).
    row_columns : list of str, optional
        Columns two rows must agree on to be an exact copy (default: every column). An audit
        passes the analysed columns: a release that makes up fresh identifiers or free text
        would otherwise hide every copied record (those columns are checked one by one).
    value_columns : list of str, optional
        Columns whose values are checked for verbatim copies whatever their cardinality (an
        audit passes the identifier and free-text columns it leaves out of the attacks), beside
        every high-cardinality column.
    schema : Schema, optional
        Column kinds for the near-copy distances (default: inferred from the data); pass the
        audit's schema so that declared kinds are honoured.
    near_sample : int, optional
        Measure the near-copy rates on random samples of at most this many synthetic and
        control rows (drawn with ``rng``, required then); every original record stays in the
        search. Default: every row.
    rng : numpy.random.Generator, optional
    counter : callable, optional
        Computes the exact check's counts (:func:`copy_counts`) of the frames under a
        :class:`CopyPlan`; default :func:`local_copy_counts` (in this process). The audit
        passes one that works by partition on a cluster; every counter gives the same counts.
    nearest : callable, optional
        The near-copy search (:data:`NearestSearch`); default :func:`nearest_distances` (in
        this process). The audit passes one that searches the original by partition on a
        cluster; a minimum of exact distances does not depend on how the candidates are split.
    encoded : tuple of Table, optional
        The original, synthetic and control parts already encoded with ``schema`` (an audit's
        tables, the control ``None`` when there is none). When the near-copy distances use
        exactly ``schema``'s columns, they read these tables instead of encoding the frames
        again.

    Returns
    -------
    CopyReport

    Raises
    ------
    InputError
        A part that is not a non-empty DataFrame, different columns, a parameter out of range.

    Notes
    -----
    Threat model: none needed; copies are a property of the release. A copy rate above its
    baseline says the release reproduces training records beyond what the population's own
    duplicates explain.

    References
    ----------
    Yao, Krčo, Ganev and de Montjoye (2025); Giomi et al. (2023); Wilson (1927).
    """
    original = _check_frame("original", original)
    synthetic = _check_frame("synthetic", synthetic)
    if control is not None:
        control = _check_frame("control", control)
    if not 0.0 < float(min_distinct_ratio) <= 1.0:
        raise InputError(f"min_distinct_ratio must lie in (0, 1], got {min_distinct_ratio!r}")
    if not 0.0 <= float(near_quantile) < 1.0:
        raise InputError(f"near_quantile must lie in [0, 1), got {near_quantile!r}")
    if near_sample is not None:
        if isinstance(near_sample, bool) or not isinstance(near_sample, int) or near_sample < 1:
            raise InputError(f"near_sample must be a positive integer, got {near_sample!r}")
        if rng is None:
            raise InputError("near_sample draws random rows: pass rng as well")
    frames = [original, synthetic] + ([control] if control is not None else [])
    known = set(map(str, original.columns))

    def check_named(name: str, columns: list[str]) -> None:
        unknown = [c for c in columns if c not in known]
        if unknown:
            raise InputError(f"{name} names unknown column(s) {unknown}: give columns of the data")

    if row_columns is not None:
        check_named("row_columns", row_columns)
        if not row_columns:
            raise InputError("row_columns is empty: give the columns two copies must agree on")
        row_cols = [str(c) for c in row_columns]
    else:
        row_cols = [str(c) for c in original.columns]
        for f in frames[1:]:
            if sorted(str(c) for c in f.columns) != sorted(row_cols):
                raise InputError(
                    "original, synthetic and control must have the same columns: "
                    "give data with identical columns"
                )
    high = high_cardinality_columns(original, min_distinct_ratio)
    check_named("value_columns", list(value_columns or ()))
    checked = high + [c for c in value_columns or () if c not in high]
    plan = copy_plan(frames, row_cols, checked)
    counted = (counter or local_copy_counts)(frames, plan)
    tally = [int(v) for v in counted["counts"]]
    n_ori, n_syn = len(original), len(synthetic)
    chance = _rate(tally[0], n_ori)
    ctl_in_ori = syn_in_ctl = None
    if control is not None:
        ctl_in_ori = _rate(tally[1], len(control))
        syn_in_ctl = _rate(tally[2], n_syn)
    base = (ctl_in_ori or chance).value
    syn_in_ori = _rate(tally[3], n_syn, base)
    copied = np.sort(np.asarray(counted["copied"], dtype=np.int64))

    cols = []
    notes = []
    m = min(n_ori, len(control)) if control is not None else 0
    for j, c in enumerate(checked):
        n_s, hit_s, n_c, hit_c = tally[4 + 4 * j : 8 + 4 * j]
        if n_s == 0:
            notes.append(f"column {c!r}: no synthetic values, copy rate not measured")
            continue
        ctl_rate = _rate(hit_c, n_c) if control is not None and n_c else None
        in_ori_m = in_ctl_m = None
        if control is not None:  # equal size: m records of each part (the module docstring)
            hits_c = round(_expected_hits(counted[f"mult_c{j}"], len(control), m))
            in_ctl_m = _rate(hits_c, n_s)
            in_ori_m = _rate(
                round(_expected_hits(counted[f"mult_o{j}"], n_ori, m)), n_s, in_ctl_m.value
            )
        s = original[c].dropna()
        cols.append(
            ColumnCopies(
                c,
                float(s.nunique() / len(s)) if len(s) else 0.0,
                _rate(hit_s, n_s, None if in_ctl_m is None else in_ctl_m.value),
                ctl_rate,
                m,
                in_ori_m,
                in_ctl_m,
            )
        )

    tau = near_syn = near_base = None
    used: list[str] = []
    if near_quantile > 0:
        if near_columns is None:
            free = {c for c in high if not pd.api.types.is_numeric_dtype(original[c])}
            used = [str(c) for c in original.columns if str(c) not in free]
        else:
            check_named("near_columns", list(near_columns))
            used = list(near_columns)
        if not used:
            notes.append("near copies not measured: no column left for distances")
        elif control is None and n_ori < 2:
            notes.append("near copies not measured: needs at least 2 original records")
        else:
            tau, near_syn, near_base = _near_copies(
                original,
                synthetic,
                control,
                used,
                near_quantile,
                schema,
                near_sample,
                rng,
                nearest or nearest_distances,
                encoded,
            )
            if near_sample is not None and control is not None:
                sampled = [
                    f"{m} of the {n} {name} rows"
                    for name, m, n in (
                        ("synthetic", near_syn.n_trials, n_syn),
                        ("control", near_base.n_trials, len(control)),
                    )
                    if m < n
                ]
                if sampled:
                    notes.append(
                        "near copies measured on random samples of "
                        + " and ".join(sampled)
                        + f", each against all {n_ori} original records"
                    )
    return CopyReport(
        n_original=n_ori,
        n_synthetic=n_syn,
        n_control=None if control is None else len(control),
        synthetic_in_original=syn_in_ori,
        chance_duplicate=chance,
        control_in_original=ctl_in_ori,
        synthetic_in_control=syn_in_ctl,
        copied_rows=copied,
        columns=tuple(cols),
        near_tau=tau,
        near_quantile=float(near_quantile),
        near_synthetic=near_syn,
        near_baseline=near_base,
        near_columns=tuple(used),
        notes=tuple(notes),
    )
