"""Verbatim copies of persons' histories in a relational release, against the control's rate.

A relational generator can replay a person: publish their child rows (visits, transactions,
household members) as they are, under a new key. Row by row such copies can hide among rows that
match by chance; person by person they are a history published verbatim. Two rates are measured
on the persons of the original (the training persons) and, as the baseline, on the persons of
the control (people of the same population whose rows the generator never saw; a release of
other people's rows matches them as often as the training persons):

* **whole history replayed**: the share of persons with at least ``min_rows`` child rows whose
  child rows, as a multiset over every descendant table of the root, equal the child rows of one
  synthetic person (every row, each as often, nothing more);
* **share of a history**: the share of persons with at least one child row of whom at least
  ``share`` of the child rows are found verbatim among the release's child rows of the same
  table (whichever synthetic persons hold them).

Beside them, the row-level figures: the share of child rows found verbatim in the release
(original and control, no interval), and of the root table, the share of the original's root
rows found verbatim among the release's root rows against the control's share (interval as
below).

A child row is compared on its own columns, without its primary and foreign keys (keys are
renumbered by any generator); numeric values are compared as float64, the others in string
form, so ``1`` and ``1.0`` agree. Rows are hashed (64 bits, :func:`pandas.util.hash_pandas_object`)
and a person's multiset of rows is the wrapping sum of their rows' mixed hashes with their row
count: two different histories collide with probability about 2**-64.

Each figure is the training persons' rate minus the control persons' rate, with Newcombe's
interval, continuity-corrected, and Fisher's one-sided p-value
(:func:`~synthleak.metrics.privacy.rate_excess`): rows with few distinct values recur by chance,
in the control's histories as in the members', and only the excess is a copy. The correction
keeps the verdict's rate of false alarms within the nominal 2.5 % at the audit's four training
persons per control person: over 5,000 null releases (``benchmarks/calibration_person_copies.py``,
coarse child rows) the share figure's interval lay above 0 in 2.4 % of them with it and 3.0 %
without it (``benchmarks/RESULTS_copies.md``).

The training persons whose whole history is replayed are named by their root key, never by a
child row number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.relational import RelationalData
from synthleak.errors import InputError
from synthleak.metrics.privacy import RiskEstimate, rate_excess
from synthleak.serde import IntArray, Result

__all__ = [
    "DEFAULT_MIN_ROWS",
    "DEFAULT_SHARE",
    "PersonCopiesResult",
    "history_hashes",
    "play_person_copies",
]

#: Child rows a history needs for the whole-history figure (one row replayed is a row copy,
#: which the share figure counts).
DEFAULT_MIN_ROWS = 2
#: Share of a person's child rows found verbatim that counts as a share of their history copied.
DEFAULT_SHARE = 0.5
#: Root keys of replayed persons listed in the result (the most, in root-table order).
MAX_KEYS = 1000

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


@dataclass(frozen=True, repr=False)
class PersonCopiesResult(Result):
    """Outcome of :func:`play_person_copies`.

    Attributes
    ----------
    whole : RiskEstimate
        Share of the training persons (with at least ``min_rows`` child rows) whose whole history
        a synthetic person holds, minus the same share among the control persons (baseline 0).
    share : RiskEstimate
        Share of the training persons (with a child row) of whom at least ``share_threshold`` of
        the child rows are in the release verbatim, minus the same share among the control
        persons.
    whole_rate, whole_control_rate, share_rate, share_control_rate : float
        The four rates the excesses are made of.
    n_whole, n_whole_control : int
        Persons replayed whole, among the training and the control persons.
    n_share, n_share_control : int
        Persons with at least ``share_threshold`` of their child rows copied.
    n_persons, n_control_persons : int
        Training and control persons with at least ``min_rows`` child rows (the whole figure).
    n_persons_with_rows, n_control_persons_with_rows : int
        Training and control persons with at least one child row (the share figure).
    n_synthetic_persons : int
    row_copy_rate, row_copy_control_rate : float
        Share of all training (control) child rows found verbatim in the release: the row-level
        figure of the child tables.
    replayed_keys : list
        Root keys of the training persons replayed whole (at most :data:`MAX_KEYS`).
    tables : tuple of str
        The descendant tables compared.
    min_rows : int
    share_threshold : float
    root_copy : RiskEstimate, optional
        The row-level figure of the root table: the share of the original's root rows (their
        own columns, without keys) found verbatim among the release's root rows, minus the
        control's share, same interval; ``None`` when the root has no column of its own.
    root_copy_rate, root_copy_control_rate : float
        The two shares it is made of (NaN when not measured).
    whole_rows, share_rows : IntArray
        Rows of the original's root table (as given) of the training persons replayed whole and
        of those with at least ``share_threshold`` of their child rows copied: each training
        person's outcome, so that two releases can be compared person by person
        (:func:`synthleak.comparison.compare`); ``None`` in a result of an earlier version,
        which did not keep them.
    """

    whole: RiskEstimate
    share: RiskEstimate
    whole_rate: float
    whole_control_rate: float
    share_rate: float
    share_control_rate: float
    n_whole: int
    n_whole_control: int
    n_share: int
    n_share_control: int
    n_persons: int
    n_control_persons: int
    n_persons_with_rows: int
    n_control_persons_with_rows: int
    n_synthetic_persons: int
    row_copy_rate: float
    row_copy_control_rate: float
    replayed_keys: list[Any]
    tables: tuple[str, ...]
    min_rows: int
    share_threshold: float
    root_copy: RiskEstimate | None = None
    root_copy_rate: float = float("nan")
    root_copy_control_rate: float = float("nan")
    whole_rows: IntArray | None = None
    share_rows: IntArray | None = None


def _mix(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: spreads a hash's bits so that sums of hashes do not collide."""
    with np.errstate(over="ignore"):
        z = h.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _row_frame(data: RelationalData, table: str) -> pd.DataFrame:
    sch = data.schema
    keys = {sch.primary_keys[table]} | {fk.column for fk in sch.foreign_keys if fk.child == table}
    df = data.frames[table]
    cols = sorted((str(c) for c in df.columns if c not in keys), key=str)
    out = {}
    for c in cols:
        s = df[c]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            out[c] = s.to_numpy(np.float64)
        else:
            out[c] = s.astype(str).to_numpy()
    return pd.DataFrame(out, index=pd.RangeIndex(len(df)))


def history_hashes(
    data: RelationalData, root: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every child row of ``root``'s persons, hashed, and each person's history.

    Returns ``(row_hash, row_person, person_hash, person_rows)``: a 64-bit hash of each child row
    of every descendant table (its table included), the root row it belongs to, and per root
    row the multiset hash of their child rows and their number of child rows. Child rows whose
    chain of foreign keys does not reach a root row are left out.
    """
    sch = data.schema
    n = len(data.frames[root])
    hashes, owners = [], []
    for i, t in enumerate(sch.descendants(root)):
        idx = data.root_index(t, root)
        frame = _row_frame(data, t)
        if frame.shape[1]:
            h = pd.util.hash_pandas_object(frame, index=False).to_numpy(np.uint64)
        else:
            h = np.zeros(len(frame), dtype=np.uint64)
        with np.errstate(over="ignore"):
            h = _mix(h ^ np.uint64(i + 1) * np.uint64(0x9E3779B97F4A7C15))
        keep = idx >= 0
        hashes.append(h[keep])
        owners.append(idx[keep])
    row_hash = np.concatenate(hashes) if hashes else np.zeros(0, np.uint64)
    row_person = np.concatenate(owners) if owners else np.zeros(0, np.int64)
    person_hash = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        np.add.at(person_hash, row_person, _mix(row_hash))
    person_rows = np.bincount(row_person, minlength=n)
    with np.errstate(over="ignore"):
        person_hash = _mix(person_hash ^ _mix(person_rows.astype(np.uint64)))
    return row_hash, row_person, person_hash, person_rows


def _person_rates(
    data: RelationalData,
    root: str,
    syn_rows: np.ndarray,
    syn_persons: np.ndarray,
    min_rows: int,
    share: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Per person: replayed whole, share copied, eligibility for each; and row counts."""
    row_hash, row_person, person_hash, person_rows = history_hashes(data, root)
    n = len(person_rows)
    in_syn = np.isin(row_hash, syn_rows)
    copied = np.bincount(row_person, weights=in_syn.astype(np.float64), minlength=n)
    frac = np.divide(copied, person_rows, out=np.zeros(n), where=person_rows > 0)
    whole = np.isin(person_hash, syn_persons) & (person_rows >= min_rows)
    return (
        whole,
        (frac >= share) & (person_rows > 0),
        person_rows >= min_rows,
        person_rows > 0,
        int(in_syn.sum()),
        len(row_hash),
    )


def play_person_copies(
    original: RelationalData,
    synthetic: RelationalData,
    control: RelationalData,
    *,
    root: str | None = None,
    min_rows: int = DEFAULT_MIN_ROWS,
    share: float = DEFAULT_SHARE,
    confidence: float = 0.95,
) -> PersonCopiesResult:
    """Measure histories replayed verbatim (module docstring); deterministic, no seed.

    Parameters
    ----------
    original, synthetic, control : RelationalData
        The training persons' tables, the release's and the control persons' (one schema).
    root : str, optional
        The table of persons; default the schema's only root.
    min_rows : int, default :data:`DEFAULT_MIN_ROWS`
        Child rows a history needs to count for the whole-history figure.
    share : float, default :data:`DEFAULT_SHARE`
        Share of a person's child rows found verbatim that counts for the share figure, in
        (0, 1].
    confidence : float, default 0.95
    """
    for name, part in (("original", original), ("synthetic", synthetic), ("control", control)):
        if not isinstance(part, RelationalData):
            raise InputError(f"{name} must be RelationalData, got {type(part).__name__}")
    sch = original.schema
    if synthetic.schema != sch or control.schema != sch:
        raise InputError("all parts of a relational release must share one schema")
    root = sch.person_table(root)
    if isinstance(min_rows, bool) or not isinstance(min_rows, int) or min_rows < 1:
        raise InputError(f"min_rows must be an integer >= 1, got {min_rows!r}")
    if not 0.0 < float(share) <= 1.0:
        raise InputError(f"share must be in (0, 1], got {share!r}")
    tables = sch.descendants(root)
    if not tables:
        raise InputError(
            f"table {root!r} has no child tables: a person's history needs child rows (name "
            "another root, or audit the table alone)"
        )
    for d in (original, synthetic, control):
        d.validate()
    s_rows, _, s_persons, s_count = history_hashes(synthetic, root)
    s_persons = s_persons[s_count > 0]
    w_o, c_o, e_o, h_o, rc_o, rn_o = _person_rates(
        original, root, s_rows, s_persons, min_rows, share
    )
    w_c, c_c, e_c, h_c, rc_c, rn_c = _person_rates(
        control, root, s_rows, s_persons, min_rows, share
    )
    kw: dict[str, Any] = {"confidence": confidence, "continuity": True}  # see the docstring
    whole = rate_excess(int(w_o.sum()), int(e_o.sum()), int(w_c.sum()), int(e_c.sum()), **kw)
    partial = rate_excess(int(c_o.sum()), int(h_o.sum()), int(c_c.sum()), int(h_c.sum()), **kw)
    keys = original.frames[root][sch.key_of(root)].to_numpy()
    nan = float("nan")
    root_copy, root_rates = None, (nan, nan)
    if _row_frame(original, root).shape[1]:  # the root has columns of its own
        s_root = _root_hashes(synthetic, root)
        in_o = np.isin(_root_hashes(original, root), s_root)
        in_c = np.isin(_root_hashes(control, root), s_root)
        if len(in_o) and len(in_c):
            root_copy = rate_excess(int(in_o.sum()), len(in_o), int(in_c.sum()), len(in_c), **kw)
            root_rates = (float(in_o.mean()), float(in_c.mean()))

    def rate(k: np.ndarray, n: np.ndarray) -> float:
        return float(k.sum() / n.sum()) if n.sum() else nan

    return PersonCopiesResult(
        whole=whole,
        share=partial,
        whole_rate=rate(w_o, e_o),
        whole_control_rate=rate(w_c, e_c),
        share_rate=rate(c_o, h_o),
        share_control_rate=rate(c_c, h_c),
        n_whole=int(w_o.sum()),
        n_whole_control=int(w_c.sum()),
        n_share=int(c_o.sum()),
        n_share_control=int(c_c.sum()),
        n_persons=int(e_o.sum()),
        n_control_persons=int(e_c.sum()),
        n_persons_with_rows=int(h_o.sum()),
        n_control_persons_with_rows=int(h_c.sum()),
        n_synthetic_persons=len(synthetic.frames[root]),
        row_copy_rate=rc_o / rn_o if rn_o else nan,
        row_copy_control_rate=rc_c / rn_c if rn_c else nan,
        replayed_keys=[_plain(k) for k in keys[w_o][:MAX_KEYS]],
        tables=tuple(tables),
        min_rows=int(min_rows),
        share_threshold=float(share),
        root_copy=root_copy,
        root_copy_rate=root_rates[0],
        root_copy_control_rate=root_rates[1],
        whole_rows=np.flatnonzero(w_o).astype(np.int64),
        share_rows=np.flatnonzero(c_o).astype(np.int64),
    )


def _root_hashes(data: RelationalData, root: str) -> np.ndarray:
    """A 64-bit hash of each root row's own columns (keys left out), as child rows are
    hashed."""
    return pd.util.hash_pandas_object(_row_frame(data, root), index=False).to_numpy(np.uint64)


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
