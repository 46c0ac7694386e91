"""Domain check: values of the synthetic (or control) data that the original never has.

A synthetic file spelled differently from the original (``YES``/``NO`` for ``True``/``False``,
state names where the original has codes, as SDV's anonymisation does) silently widens the
shared domain: every value becomes a new category, utility collapses (3-TVD 0.21 -> 0.67) and
exact-match attacks stop matching (a verbatim copy scored singling out 0.75 instead of 0.99).
:func:`domain_report` measures, per column, the share of records whose value lies outside the
original's domain:

* categorical: a category that never occurs in the original (a missing value counts as a
  category: missing cells where the original has none are outside too);
* continuous and datetime: a value below the original's minimum or above its maximum.

Above :data:`DOMAIN_THRESHOLD` (1% of the records) the report carries an ``out_of_domain``
warning; when most of the unseen values are a different spelling of original categories (same
text up to case and surrounding whitespace, or the same boolean written ``yes``/``no``,
``y``/``n``, ``true``/``false``, ``t``/``f``, ``1``/``0``) a ``spelling`` warning says to recode
them. Nothing is changed in the data.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from synthleak.data.profile import DataWarning, Level, WarningCode
from synthleak.data.schema import Column, ColumnKind
from synthleak.data.table import Table
from synthleak.data.values import numbers_to_datetimes
from synthleak.errors import InputError
from synthleak.serde import Result

DOMAIN_THRESHOLD = 0.01
"""Share of a part's records outside the original's domain above which a column is flagged."""
MAX_EXAMPLES = 5

_TRUE = frozenset({"true", "t", "yes", "y", "1", "1.0"})
_FALSE = frozenset({"false", "f", "no", "n", "0", "0.0"})


@dataclass(frozen=True, repr=False)
class ColumnDomain(Result):
    """How one column of one part (``synthetic``, ``control``) fits the original's domain.

    Attributes
    ----------
    column : str
    part : str
    kind : ColumnKind
    share_outside : float
        Share of the part's records whose value is outside the original's domain.
    n_outside : int
    examples : tuple of str
        Categorical: the unseen categories, most frequent first (at most 5). Continuous and
        datetime: the smallest and the largest value outside the range.
    spelling : bool
        Most unseen records hold a different spelling of an original category.
    """

    column: str
    part: str
    kind: ColumnKind
    share_outside: float
    n_outside: int
    examples: tuple[str, ...] = ()
    spelling: bool = False


@dataclass(frozen=True, repr=False)
class DomainReport(Result):
    """The domain check of every column of every compared part (see :func:`domain_report`).

    Attributes
    ----------
    threshold : float
    columns : tuple of ColumnDomain
        One entry per column and part, parts in the order given.
    warnings : tuple of DataWarning
        ``out_of_domain`` and ``spelling`` warnings for the columns above ``threshold``.
    """

    threshold: float
    columns: tuple[ColumnDomain, ...] = ()
    warnings: tuple[DataWarning, ...] = ()

    def without_values(self) -> DomainReport:
        """The report without example values (column names, shares and counts only)."""
        return DomainReport(
            self.threshold,
            tuple(replace(c, examples=()) for c in self.columns),
            tuple(w.without_values() for w in self.warnings),
        )

    @property
    def flagged(self) -> list[ColumnDomain]:
        """Entries above the threshold."""
        return [c for c in self.columns if c.share_outside > self.threshold]


def _normal(value: object) -> str:
    text = str(value).strip().casefold()
    if text in _TRUE:
        return "\x00true"
    if text in _FALSE:
        return "\x00false"
    return text


def _categorical(col: Column, ref: np.ndarray, codes: np.ndarray, part: str) -> ColumnDomain:
    size = col.size
    seen = np.bincount(ref.astype(np.int64), minlength=size) > 0
    counts = np.bincount(codes.astype(np.int64), minlength=size)
    unseen = np.flatnonzero(~seen & (counts > 0))
    n_out = int(counts[unseen].sum())
    labels = [*map(str, col.categories), "(missing)"]
    order = unseen[np.argsort(-counts[unseen], kind="stable")]
    spelling = False
    if n_out:
        known = {_normal(labels[c]) for c in np.flatnonzero(seen) if c < len(col.categories)}
        respelled = sum(
            int(counts[c])
            for c in unseen
            if c < len(col.categories) and _normal(labels[c]) in known
        )
        spelling = respelled * 2 > n_out
    return ColumnDomain(
        col.name,
        part,
        col.kind,
        n_out / max(len(codes), 1),
        n_out,
        tuple(labels[c] for c in order[:MAX_EXAMPLES]),
        spelling,
    )


def _continuous(col: Column, ref: np.ndarray, values: np.ndarray, part: str) -> ColumnDomain:
    present = ref[~np.isnan(ref)]
    if present.size == 0:
        return ColumnDomain(col.name, part, col.kind, 0.0, 0)
    lo, hi = present.min(), present.max()
    out = (values < lo) | (values > hi)  # NaN compares False
    n_out = int(out.sum())
    examples: tuple[str, ...] = ()
    if n_out:
        ends = np.array([values[out].min(), values[out].max()], dtype=np.float64)
        if col.is_datetime:
            examples = tuple(str(t) for t in numbers_to_datetimes(ends, col))
        else:
            examples = tuple(f"{v:g}" for v in ends)
        if examples[0] == examples[1]:
            examples = examples[:1]
    return ColumnDomain(
        col.name, part, col.kind, n_out / max(len(values), 1), n_out, examples, False
    )


def domain_report(
    original: Table,
    synthetic: Table | None = None,
    control: Table | None = None,
    *,
    parts: dict[str, Table] | None = None,
    threshold: float = DOMAIN_THRESHOLD,
) -> DomainReport:
    """Share of records outside the original's domain, per column, for the synthetic and control
    data.

    Parameters
    ----------
    original : Table
        The reference: its observed categories and ranges define the domain.
    synthetic, control : Table, optional
        Encoded with the same schema as ``original`` (as
        :func:`~synthleak.data.io.encode_frames` does).
    parts : dict of str to Table, optional
        Other parts to check, by name (in addition to ``synthetic`` and ``control``).
    threshold : float
        Flag a column when more than this share of a part's records is outside (default 1%).

    Returns
    -------
    DomainReport

    Notes
    -----
    Vectorised: one ``bincount`` per categorical column and one comparison per continuous
    column; memory O(rows).
    """
    if not 0.0 <= threshold < 1.0:
        raise InputError(f"threshold must be in [0, 1), got {threshold}")
    todo = {
        **({"synthetic": synthetic} if synthetic is not None else {}),
        **({"control": control} if control is not None else {}),
        **(parts or {}),
    }
    schema = original.schema
    for name, t in todo.items():
        if t.schema.columns != schema.columns:
            raise InputError(
                f"the {name} data is encoded with another schema than the original: encode them "
                "together (encode_frames) before checking domains"
            )
    entries: list[ColumnDomain] = []
    warnings: list[DataWarning] = []
    for name, t in todo.items():
        for col in schema.columns:
            ref, enc = original.column(col.name), t.column(col.name)
            if col.is_categorical:
                entry = _categorical(col, ref, enc, name)
            else:
                entry = _continuous(col, ref, enc, name)
            entries.append(entry)
            if entry.share_outside > threshold:
                warnings += _warnings(entry)
    return DomainReport(threshold, tuple(entries), tuple(warnings))


def _warnings(e: ColumnDomain) -> list[DataWarning]:
    """The warnings of a flagged column: ``message`` names the column and counts the records,
    ``detail`` adds example values (:class:`~synthleak.data.profile.DataWarning`)."""
    shown = ", ".join(repr(x) for x in e.examples)
    if e.kind is ColumnKind.CATEGORICAL:
        what = f"a {e.column!r} value the original never has"
        such = f" (such as {shown})"
    else:
        what = f"a {e.column!r} value outside the original's range"
        such = f" ({shown})"
    tail = ": attacks and utility treat these as values of their own"
    head = f"{e.share_outside:.1%} of the {e.part} records ({e.n_outside:,}) have {what}"
    out = [
        DataWarning(
            WarningCode.OUT_OF_DOMAIN,
            e.column,
            head + tail,
            Level.WARNING,
            e.examples,
            detail=head + such + tail,
        )
    ]
    if e.spelling:

        def spelling(such: str) -> str:
            return (
                f"the {e.part} data writes {e.column!r} differently from the original ({such}"
                "case, spaces or yes/no for true/false): recode it to the original's spelling "
                "before auditing"
            )

        out.append(
            DataWarning(
                WarningCode.SPELLING,
                e.column,
                spelling(""),
                Level.WARNING,
                e.examples,
                detail=spelling(f"such as {shown}: "),
            )
        )
    return out
