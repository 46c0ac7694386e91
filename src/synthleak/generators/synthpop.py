"""``synthpop``: sequential CART synthesis in the manner of the R package synthpop.

The first column of the visit sequence is drawn by bootstrap from its observed values (R
synthpop's ``sample`` method). Every next column is modelled by a classification tree
(categorical) or a regression tree (continuous) fitted on the *real* values of the columns
visited before it; a synthetic record is dropped down that tree with its already-synthesised
values and receives the value of a real record drawn at random from the leaf it lands in (R
synthpop's ``cart`` method: a donor from the leaf, not the leaf mean). Every synthetic value is
therefore a value observed in the real data, in the same column.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from synthleak.constraints import InstanceOf, Interval, Options, SequenceOf, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.generators.base import BaseGenerator, GeneratorInfo, params_of, register_generator


class Predictors(StrEnum):
    """How categorical columns enter the trees as predictors."""

    ORDINAL = "ordinal"  # one integer code per column
    ONEHOT = "onehot"  # one indicator per level (the Python synthpop port)


@dataclass(frozen=True)
class _Step:
    """One column of the visit sequence: its tree and its donors grouped by leaf."""

    tree: DecisionTreeClassifier | DecisionTreeRegressor | None  # None: bootstrap (first column)
    donors: np.ndarray  # real values of the column, sorted by leaf id
    start: np.ndarray  # start[leaf] = first donor of that leaf in ``donors``
    count: np.ndarray  # count[leaf] = donors in that leaf


class Synthpop(BaseGenerator):
    """Sequential CART synthesis (R synthpop's default ``cart`` method).

    Parameters
    ----------
    min_leaf : int, default 5
        minimum real records per leaf (rpart minbucket).
        The minimum number of real records in a leaf (rpart's ``minbucket``, synthpop's default 5).
        Larger leaves draw donors from wider groups: less fidelity, less exact copying.
    cp : float, default 1e-8
        rpart complexity parameter (relative impurity decrease).
        As in rpart, a split is kept only if it lowers the impurity by at
        least ``cp`` times the root impurity (mapped to scikit-learn's
        ``min_impurity_decrease``). synthpop's default 1e-8 grows the trees fully.
    max_depth : int, default 0
        maximum tree depth (0 = unlimited).
        0 means unlimited (rpart's ``maxdepth`` 30 is never reached on
        tabular data of this size).
    predictors : {"ordinal", "onehot"}, default "ordinal"
        categorical predictors: ordinal codes or onehot.
        How categorical columns enter the trees as predictors. ``ordinal``: one integer code per
        column (a deep tree reaches any subset of levels through several splits). ``onehot``: one
        indicator per level, as the Python port of synthpop (used through reprosyn by Meeus et al.
        (2023), Sec. 5.3) does; every split then separates one level from the rest.
    visit_sequence : sequence of str, optional
        Column order (Python API only); default: the schema order, as in synthpop.

    Notes
    -----
    * Categorical predictors enter the trees as integer codes (ordinal splits) by default. rpart
      splits a factor into two arbitrary subsets of its levels; a deep tree reaches any subset
      through several ordinal splits, so the fitted partitions are close, but not identical, to
      R's. ``predictors="onehot"`` gives the one-level-versus-rest splits of the Python port.
    * Missing values. A missing categorical value is its own code and is modelled like any
      category. For a continuous column with missing values, the predictor holds a sentinel
      below the column's range (one span below ``low``), which a tree separates with one
      split (equivalent to a missing-value indicator); as a target, missing values are
      replaced by the same sentinel when fitting the regression tree, so missingness drives
      splits, and donors are drawn with their real value, ``NaN`` included. Missingness is thus
      synthesised from the leaf like any other value (synthpop also models it explicitly).
    * Privacy: none is guaranteed. Every synthetic value is a real observed value and leaves
      of ``min_leaf`` records can reproduce rare combinations; this is what the membership and
      attribute-inference attacks are measured against.

    References
    ----------
    Nowok, Raab and Dibben, "synthpop: Bespoke creation of synthetic data in R", Journal of
    Statistical Software 74 (2016), methods ``sample`` and ``cart``.
    Meeus et al., "Achilles' heels: vulnerable record identification in synthetic data
    publishing", ESORICS 2023, Sec. 5.3 (SynthPop as evaluated there).
    """

    # visit_sequence must also list the data's columns: checked when fit starts (_order)
    _parameter_constraints = constraints(
        min_leaf=Interval(int, 1, None),
        cp=Interval(float, 0, math.inf, closed="left"),
        max_depth=Interval(int, 0, None),
        predictors=Options(Predictors),
        visit_sequence=(SequenceOf(InstanceOf(str)), None),
    )

    def __init__(
        self,
        min_leaf: int = 5,
        cp: float = 1e-8,
        max_depth: int = 0,
        predictors: Predictors | str = Predictors.ORDINAL,
        visit_sequence: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        self.min_leaf = min_leaf
        self.cp = cp
        self.max_depth = max_depth
        self.predictors = predictors
        self.visit_sequence = visit_sequence

    # --- helpers ----------------------------------------------------------------------
    def _order(self, table: Table) -> list[str]:
        names = table.schema.names
        if self.visit_sequence is None:
            return list(names)
        order = list(self.visit_sequence)
        unknown = [c for c in order if c not in table.schema]
        if unknown:
            raise InputError(
                f"synthpop: visit_sequence names unknown column(s) {unknown}: the columns are "
                f"{', '.join(names)}"
            )
        if len(set(order)) != len(order) or set(order) != set(names):
            raise InputError(
                "synthpop: visit_sequence must list every column of the data exactly once"
            )
        return order

    def _predictor(self, raw: np.ndarray, name: str) -> np.ndarray:
        """A column as a float32 predictor (continuous ``NaN`` -> sentinel below the range)."""
        col = self.schema_[name]
        x = raw.astype(np.float32)
        if not col.is_categorical and col.has_missing:
            x = np.where(np.isnan(x), np.float32(self._sentinel(name)), x)
        return x

    def _width(self, name: str) -> int:
        """Predictor columns a column takes: its number of codes if one-hot, else 1."""
        col = self.schema_[name]
        return col.size if col.is_categorical and self.predictors == Predictors.ONEHOT else 1

    def _put(self, preds: np.ndarray, at: int, raw: np.ndarray, name: str) -> None:
        """Write a column's predictor(s) into ``preds`` from column ``at`` on."""
        width = self._width(name)
        if width == 1:
            preds[:, at] = self._predictor(raw, name)
        else:
            block = preds[:, at : at + width]
            block[:] = 0.0
            block[np.arange(len(raw)), raw.astype(np.int64)] = 1.0

    def _sentinel(self, name: str) -> float:
        col = self.schema_[name]
        return float(col.low - max(col.high - col.low, 1.0))

    @staticmethod
    def _group(leaves: np.ndarray, values: np.ndarray, n_nodes: int) -> tuple[np.ndarray, ...]:
        order = np.argsort(leaves, kind="stable")
        count = np.bincount(leaves, minlength=n_nodes)
        start = np.concatenate([[0], np.cumsum(count)[:-1]])
        return values[order], start, count

    # --- estimator --------------------------------------------------------------------
    def fit(self, table: Table, *, rng: np.random.Generator) -> Synthpop:
        """Fit one tree per column after the first, on the real data.

        Parameters
        ----------
        table : Table
            The training (private) data.
        rng : numpy.random.Generator
            Seeds the trees' tie-breaking (scikit-learn ``random_state``).
        """
        if len(table) == 0:
            raise InputError(
                "synthpop cannot be fitted on an empty table: give at least one record"
            )
        self.schema_ = table.schema
        order = self._order(table)
        self.order_ = order
        n = len(table)
        raw = {name: table.column(name) for name in order}
        self.offsets_ = np.concatenate([[0], np.cumsum([self._width(c) for c in order])])
        preds = np.empty((n, int(self.offsets_[-1])), dtype=np.float32)
        steps: list[_Step] = []
        for j, name in enumerate(order):
            col = table.schema[name]
            y_raw = raw[name]
            if j == 0:
                steps.append(_Step(None, y_raw.copy(), np.zeros(1, np.int64), np.array([n])))
            else:
                x = preds[:, : self.offsets_[j]]
                tree: DecisionTreeClassifier | DecisionTreeRegressor
                seed = int(rng.integers(0, 2**31 - 1))
                depth = int(self.max_depth) or None
                if col.is_categorical:
                    y = y_raw.astype(np.int64)
                    p = np.bincount(y) / n
                    root = 1.0 - float(np.sum(p * p))
                    tree = DecisionTreeClassifier(
                        min_samples_leaf=int(self.min_leaf),
                        min_impurity_decrease=self.cp * root,
                        max_depth=depth,
                        random_state=seed,
                    )
                else:
                    y = self._predictor(y_raw, name).astype(np.float64)
                    root = float(np.var(y))
                    tree = DecisionTreeRegressor(
                        min_samples_leaf=int(self.min_leaf),
                        min_impurity_decrease=self.cp * root,
                        max_depth=depth,
                        random_state=seed,
                    )
                tree.fit(x, y)
                leaves = tree.apply(x)
                donors, start, count = self._group(leaves, y_raw, tree.tree_.node_count)
                steps.append(_Step(tree, donors, start, count))
            self._put(preds, int(self.offsets_[j]), y_raw, name)
        self.steps_ = steps
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` synthetic records drawn column by column down the fitted trees."""
        out: dict[str, np.ndarray] = {}
        preds = np.empty((n, int(self.offsets_[-1])), dtype=np.float32)
        for j, (name, step) in enumerate(zip(self.order_, self.steps_, strict=True)):
            if step.tree is None:
                vals = step.donors[rng.integers(0, len(step.donors), n)]
            else:
                x = preds[:, : self.offsets_[j]]
                leaves = step.tree.apply(x) if n else np.zeros(0, np.int64)
                idx = step.start[leaves] + np.floor(rng.random(n) * step.count[leaves]).astype(
                    np.int64
                )
                vals = step.donors[idx]
            out[name] = vals
            self._put(preds, int(self.offsets_[j]), vals, name)
        sch = self.schema_
        codes = (
            np.stack([out[c] for c in sch.categorical_names], axis=1) if sch.categorical else None
        )
        values = (
            np.stack([out[c] for c in sch.continuous_names], axis=1)
            if sch.continuous
            else np.zeros((n, 0), dtype=np.float32)
        )
        return Table.from_arrays(
            sch, codes if codes is not None else np.zeros((n, 0), np.int64), values
        )


register_generator(
    GeneratorInfo(
        "synthpop",
        Synthpop,
        params_of(Synthpop, exclude=("visit_sequence",)),  # a list: the API only
        "sequential CART synthesis as R synthpop (donors drawn from tree leaves)",
    )
)
