"""Membership attack on a given release, learned from shadow releases of the same generator.

The data owner's question is about the release they publish: which of the training records does
*this* synthetic file expose? The no-box attacks (:mod:`synthleak.attacks.mia_nobox`) see the
release and a reference sample only. Given **shadow releases** (pairs of training records and
the release the same generator made from them: a data owner re-runs their own pipeline on
population records; a benchmark such as MIDST publishes them), the attack learns what a member
of a release looks like and applies it to the candidates of the target release.

Method
------
1. **Signals.** For a record ``x`` and a release ``r``: the log distance to the closest record
   of ``r`` and the log mean distance to its ``k`` closest records for every ``k`` in
   ``scales`` (the mixed-type distance of :func:`synthleak.vulnerability.nearest_neighbours`,
   on the values, on their population ranks and on their normal scores in ``r``), and, for
   every name in ``nobox``, that no-box attack's score fitted on ``r`` and a reference sample
   of population records outside ``r``'s training set; with ``column_errors``, minus the
   error with which a predictor fitted on ``r`` predicts each column of ``x`` from its other
   columns (per-column prediction errors, the idea of Cyber@BGU's EPT attack in the MIDST
   challenge: a release reproduces the column relations of its training records, so a
   member's errors are smaller).
2. **Calibration across releases** (offline likelihood ratio; Carlini et al. 2022, Sec. 4;
   Zarifzadeh et al. 2024 for the pairwise form). A record's signal on one release means
   little alone: a typical record is close to any release. Each signal of ``x`` on ``r`` is
   compared with its distribution on the shadow releases that ``x`` was **not** in (OUT): the
   z-score against their mean and standard deviation, the share of OUT releases on which the
   signal is weaker, and the OUT mean itself (how typical ``x`` is). Where ``x`` was in other
   shadow releases (IN), the mean gap of its IN signals over its OUT mean is a feature too
   (missing otherwise).
3. **Meta-classifier.** Labelled examples come from the shadows themselves: records sampled
   from each shadow's training set are members of that release and non-members of the shadow
   releases whose training sets lack them (every record is its own control). The features of
   an example on shadow ``j`` are calibrated on the shadows other than ``j``, as the target's
   are on shadows other than the target. A gradient-boosted classifier (scikit-learn's
   ``HistGradientBoostingClassifier``) learns the membership probability from them; a
   candidate's score is that probability, comparable across target releases (a benchmark may
   pool them, as MIDST's rule does), except as step 4 says.

4. **Verbatim copies the shadows never made.** The meta-classifier knows only what the
   shadow releases show. A target release that holds training records verbatim while its
   shadows never do (a release that is not what the shadows' generator makes: a copy, a
   pipeline that leaks its input) puts its members' distances far beyond every example, where
   the classifier's answer is arbitrary (on Adult with baynet shadows, a verbatim copy scored
   AUC 0.33 to 0.81 over three seeds). So the attack counts the candidates **found verbatim**
   in the target (a record equal to one of its records on every analysed column, and held by
   no shadow release whose training set lacks it: what any release of the generator
   reproduces says nothing of membership) against the shadow releases' own training records
   found verbatim in them (:class:`VerbatimCheck`). Where the target's share is significantly
   higher (Fisher's exact test, one-sided, p below :data:`VERBATIM_ALPHA`), the candidates
   found verbatim are ranked above every other: with ``p`` the classifier's probability, they
   score ``(1 + p) / 2`` and the rest ``p / 2``, so that each group keeps the classifier's
   order (a flat score would tie every copy, and a tie as large as the group leaves the TPR
   at low FPR unresolved). The order is a function of the candidates and the releases only,
   never of their labels: on a release that carries nothing of its training records, members
   and non-members are found verbatim alike and the figures stay at chance.

Identity of records across shadow releases is by their encoded values (``Table.row_keys``):
two records equal on every analysed column are one record.

Notes
-----
Threat model: black-box on the release. The attacker holds the target release, candidate
records and shadow releases of the same generator trained on records of the same population;
it never queries the target's generator. This differs from the generator-level game
(:mod:`synthleak.games.membership`), which measures how much the *generator* leaks on datasets
the game draws itself; this attack scores the records of the one release given.

References
----------
Carlini, Chien, Nasr, Song, Terzis and Tramèr (2022) (likelihood ratio against shadow models).
Fisher (1935), The Design of Experiments (exact test of a 2 x 2 table).
Kotelnikov, Baranchuk, Rubachev and Babenko (2023), TabDDPM: Modelling Tabular Data with Diffusion
Models, ICML (the normal quantile transform of its continuous columns).
Zarifzadeh, Liu and Shokri (2024) (RMIA: pairwise likelihood ratio against population records).
Vector Institute (2025) (MIDST challenge: the shadow-release setting and its scoring rule).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.special import ndtri
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

from synthleak.attacks.base import AttackFamily, NoBoxMembershipAttack, resolve_attack
from synthleak.data.io import encode_frames
from synthleak.data.schema import ColumnKind
from synthleak.data.shadow_releases import ShadowRelease, check_shadows
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.metrics.privacy import (
    RiskEstimate,
    TprAtFpr,
    auc_estimate,
    tpr_at_fpr_estimate,
    two_rate_p,
)
from synthleak.runtime.seeding import stream
from synthleak.serde import Result
from synthleak.vulnerability import DistanceMetric, nearest_neighbours

_SAMPLE = stream("shadow-release/sample")
_NOBOX = stream("shadow-release/nobox")
_MODEL = stream("shadow-release/model")
_BOOT = stream("shadow-release/bootstrap")
_ERRORS = stream("shadow-release/errors")

#: FPRs at which :func:`attack_release` reports the TPR.
REPORTED_FPRS = (0.1, 0.01, 0.001)
#: The one-sided p-value below which a target release is taken to hold candidates verbatim more
#: often than its shadow releases hold their own training records (:class:`VerbatimCheck`).
VERBATIM_ALPHA = 1e-3
#: The meta-classifier's parameters besides its rounds (``max_iter``) and seed: small trees,
#: slow learning, large leaves (benchmarks/midst_folds.py varies them against these).
META_CLASSIFIER = {
    "learning_rate": 0.03,
    "max_leaf_nodes": 15,
    "min_samples_leaf": 100,
    "l2_regularization": 1.0,
}
_EPS = 1e-9


@dataclasses.dataclass(frozen=True, repr=False)
class VerbatimCheck(Result):
    """Does the target release hold candidates verbatim more often than its shadows do?

    A record is found verbatim in a release when the release holds a record equal to it on
    every analysed column and no shadow release whose training set lacks the record holds one
    (module docstring, step 4).

    Attributes
    ----------
    candidates, found : int
        Candidates scored, and those found verbatim in the target release.
    shadow_records, shadow_found : int
        The labelled records drawn from the shadows' training sets, and those found verbatim
        in the release of the shadow they were drawn from.
    p_value : float
        Fisher's exact test, one-sided, of "the target's share is at most the shadows' share".
    applied : bool
        Whether ``p_value`` is below :data:`VERBATIM_ALPHA` (and a candidate was found): the
        candidates found verbatim were then ranked above every other.
    """

    candidates: int
    found: int
    shadow_records: int
    shadow_found: int
    p_value: float
    applied: bool

    def sentence(self) -> str:
        """One sentence for a report, saying what was found and what it changed."""
        counts = (
            f"The release holds {self.found} of the {self.candidates} candidates verbatim; the "
            f"shadow releases held {self.shadow_found} of {self.shadow_records} of their own "
            f"training records verbatim (one-sided Fisher's exact test p = {self.p_value:.2g})"
        )
        if self.applied:
            return (
                counts + ": this release copies records significantly more often than the "
                "shadow releases the attack learned from, so they do not model it. The "
                "candidates found verbatim are ranked above every other."
            )
        return counts + "."


@dataclasses.dataclass(frozen=True, repr=False)
class ShadowReleaseResult(Result):
    """Scores of the candidates of one release, and the attack's power where labels are known.

    Attributes
    ----------
    scores : tuple of float
        Membership score of every candidate, in input order: the meta-classifier's
        probability, or, on a release that copies (``verbatim``), that probability moved to
        ``[0.5, 1]`` for a candidate found verbatim and to ``[0, 0.5]`` for the rest.
    n_shadows : int
        Shadow releases the attack learned from.
    n_examples : int
        Labelled (record, shadow release) examples the meta-classifier was fitted on.
    features : tuple of str
        The meta-classifier's features.
    auc : RiskEstimate or None
        AUC with a bootstrap interval (baseline 0.5), when labels were given.
    tpr : tuple of TprAtFpr
        TPR at the FPRs of :data:`REPORTED_FPRS`, when labels were given.
    fit_seconds, score_seconds : float
    verbatim : VerbatimCheck or None
        The candidates found verbatim in the release against the shadows' share.
    """

    scores: tuple[float, ...]
    n_shadows: int
    n_examples: int
    features: tuple[str, ...]
    auc: RiskEstimate | None = None
    tpr: tuple[TprAtFpr, ...] = ()
    fit_seconds: float = 0.0
    score_seconds: float = 0.0
    verbatim: VerbatimCheck | None = None


class ShadowReleaseAttack:
    """Learn from shadow releases what distinguishes a member of a release; score candidates.

    Parameters
    ----------
    scales : tuple of int, default (1, 5, 20)
        Numbers of closest release records whose mean distance is a signal.
    nobox : tuple of str, default ("dcr-diff",)
        Registered no-box attacks whose scores are signals too (each is fitted once per release).
    records_per_shadow : int, default 500
        Training records drawn from each shadow as labelled examples: a record drawn from
        shadow ``k`` is a member example of every other shadow release whose training set holds
        it and a non-member example of ``negatives_per_record`` releases whose training set
        does not (shadow ``k`` is left out of its examples).
    negatives_per_record : int, default 2
    reference_size : int, default 5000
        Population records (from the shadows' training sets) the no-box signals use as reference.
    metric : {"minkowski", "cosine"}, default "minkowski"
    quantile : bool, default True
        Also measure the distances with every continuous value replaced by its rank in the
        population (the shadows' training records), so that a dense range of values counts
        as much as a sparse one.
    normal_scores : bool, default True
        Also measure the distances with every continuous value replaced by its normal score
        in the release being searched: the inverse standard normal distribution function of
        the value's mid-rank among that release's values of its column. The scores are then
        min-max scaled like any continuous column, so a categorical mismatch still outweighs
        most continuous differences. A generator that models its continuous columns through a
        normal quantile transform (TabDDPM, Kotelnikov et al. 2023) regenerates a record it
        keeps with noise that is even on that scale, where population ranks compress the
        tails and raw values the centre. On MIDST's TabDDPM shadows (leave-shadows-out folds)
        they raised the TPR at FPR < 0.1 from 0.242 to 0.251, 0.231 to 0.246 and 0.233 to
        0.246 (three fold orders); the release's own ranks without the normal transform raised
        nothing.
    max_iter : int, default 200
        Boosting rounds of the meta-classifier.
    column_errors : bool, default False
        Per-column prediction errors as signals (the idea of Cyber@BGU's EPT attack, MIDST
        2025): on every release, one gradient-boosted predictor per column, fitted on the
        release, predicts that column from the others; the signal of a record is minus its
        error (a categorical column: the log probability of its value; a continuous one: minus
        the log absolute error in population ranks). A generator that fits its training
        records reproduces their column relations, so a member's errors are smaller. Off by
        default: on MIDST's TabDDPM shadows (10 held out, 2,000 labelled points) they did not
        add power (TPR at FPR < 0.1 0.214 with them, 0.245 without) and they cost about 3 s
        of CPU per release of 20,000 records.
    error_rounds : int, default 30
        Boosting rounds of each column predictor.
    error_sample : int, default 5000
        Release records each column predictor is fitted on (a uniform sample of the release
        when it is larger; the cost of the predictors grows with it).
    marginals : bool, default True
        Per-column distances as signals: for every continuous column, minus the log distance,
        in population ranks, from the record's value to the closest value of that column in
        the release (a one-dimensional density ratio of the release over the population at
        the record's value; a missing value is at distance 0 from a release that has missing
        values in the column, else 1). A generator that keeps its training records' values
        leaves releases dense at a member's values, column by column, even where no release
        record is close to the member on every column at once (synthpop's CART draws observed
        values). Measured against the best no-box attack on the same candidates
        (``benchmarks/shadow_release_pairs.py``, one target each): on synthpop releases of
        Adult the AUC rose from 0.635 to 0.772, of ACS Texas from 0.587 to 0.690; on baynet
        releases, which draw values afresh, it fell from 0.584 to 0.536 and from 0.675 to 0.642
        (never significantly below the best no-box attack either way). On MIDST's shadows
        (leave-shadows-out folds, the held-out training sets out of the population) they add
        nothing: TabDDPM 0.242 to 0.227 TPR at FPR < 0.1, TabSyn 0.113 to 0.115.
    source_examples : bool, default False
        Also make every drawn record a member example of the shadow it was drawn from. That
        shadow is left out of the record's calibration on every one of its examples, member or
        not, so its membership pattern on the calibrating shadows stays independent of the
        label; each record then gives at least one member example (otherwise only the rare
        records that another shadow's training set holds give one). A source example also
        leaves out one shadow not holding the record, so that, like every other example, it is
        calibrated on all shadows but two (a count the share feature would reveal). Off by
        default: measured on MIDST's shadows only (with 1,500 records and 4 non-member
        examples, leave-shadows-out TPR at FPR < 0.1 0.246 against 0.244 without it).
    """

    def __init__(
        self,
        scales: Sequence[int] = (1, 5, 20),
        nobox: Sequence[str] = ("dcr-diff",),
        records_per_shadow: int = 500,
        negatives_per_record: int = 2,
        reference_size: int = 5000,
        metric: DistanceMetric | str = "minkowski",
        quantile: bool = True,
        max_iter: int = 200,
        column_errors: bool = False,
        error_rounds: int = 30,
        error_sample: int = 5000,
        source_examples: bool = False,
        marginals: bool = True,
        normal_scores: bool = True,
    ) -> None:
        if not scales or any(int(k) < 1 for k in scales):
            raise InputError("scales must be positive integers, e.g. (1, 5, 20)")
        for name, value, low in (
            ("records_per_shadow", records_per_shadow, 10),
            ("negatives_per_record", negatives_per_record, 1),
            ("reference_size", reference_size, 10),
            ("max_iter", max_iter, 1),
            ("error_rounds", error_rounds, 1),
            ("error_sample", error_sample, 10),
        ):
            if int(value) < low:
                raise InputError(f"{name} must be at least {low}, got {value}")
        self.scales = tuple(sorted({int(k) for k in scales}))
        self.nobox = tuple(nobox)
        for name in self.nobox:
            resolve_attack(AttackFamily.NOBOX_MEMBERSHIP, name)  # unknown names fail here
        self.records_per_shadow = int(records_per_shadow)
        self.negatives_per_record = int(negatives_per_record)
        self.reference_size = int(reference_size)
        self.metric = metric
        self.quantile = bool(quantile)
        self.max_iter = int(max_iter)
        self.column_errors = bool(column_errors)
        self.error_rounds = int(error_rounds)
        self.error_sample = int(error_sample)
        self.source_examples = bool(source_examples)
        self.marginals = bool(marginals)
        self.normal_scores = bool(normal_scores)

    # --- signals ----------------------------------------------------------------------------

    @property
    def signal_names(self) -> tuple[str, ...]:
        """One name per raw signal (higher: closer to the release, more member-like)."""
        dists = [f"dist@{k}" for k in self.scales]
        if self.quantile:
            dists += [f"quantile-dist@{k}" for k in self.scales]
        if self.normal_scores:
            dists += [f"normal-dist@{k}" for k in self.scales]
        if (self.column_errors or self.marginals) and not hasattr(self, "_schema"):
            raise InputError("the attack is not fitted: call fit_shadows(shadows, seed=...) first")
        if self.marginals:
            dists += [f"marginal:{n}" for n in self._schema.continuous_names]
        errors = []
        if self.column_errors:
            errors = [
                f"error:{n}"
                for n in (*self._schema.categorical_names, *self._schema.continuous_names)
            ]
        return (*dists, *(f"nobox:{n}" for n in self.nobox), *errors)

    def _fit_quantiles(self, population: Table) -> None:
        """The population's sorted values of every continuous column (for :meth:`_quantiles`)."""
        self._sorted = [np.sort(v[~np.isnan(v)]) for v in population.values.T.astype(np.float64)]
        self._qschema = dataclasses.replace(
            population.schema,
            columns=tuple(
                dataclasses.replace(c, low=0.0, high=1.0) if c.kind != ColumnKind.CATEGORICAL else c
                for c in population.schema.columns
            ),
        )

    def _quantiles(self, table: Table, points: bool = False) -> Table:
        """``table`` with every continuous value replaced by its population mid-rank in [0, 1].

        With ``points`` (records whose membership is scored, not a release), a record that is
        itself one of the population's records is ranked among the *other* records: one
        occurrence of each of its values is left out of the counts. The labelled examples are
        all population records (drawn from the shadows' training sets) while the candidates of
        a target release mostly are not; without this, a record's ranks, and so its distances
        in ranks, would say whether it is in the population, a difference between the examples
        and the candidates that has nothing to do with the release (a value held by that record
        alone falls, as an outside record's does, between its neighbours' ranks).
        """
        values = table.values.astype(np.float64)
        out = np.full(values.shape, np.nan)
        own = np.zeros(len(table), dtype=np.int64)
        if points and len(table):
            own = np.fromiter(
                (k in self._population_keys for k in table.row_keys().tolist()),
                dtype=bool,
                count=len(table),
            ).astype(np.int64)
        for c, ref in enumerate(self._sorted):
            v = values[:, c]
            ok = ~np.isnan(v)
            out[ok, c] = _mid_ranks(ref, v[ok], own[ok])
        return Table.from_arrays(self._qschema, table.codes, out)

    def _design(self, table: Table, ranks: Table) -> tuple[np.ndarray, np.ndarray]:
        """The column predictors' matrix (categorical codes, then the continuous population
        ranks ``ranks``, :meth:`_quantiles` of ``table``) and which of its columns are
        categorical."""
        codes = table.codes.astype(np.float64)
        # a categorical column with more categories than the boosting's bins is read as ordinal
        if table.schema.categorical:
            wide = np.array([len(c.categories) + 1 > 255 for c in table.schema.categorical])
        else:
            wide = np.zeros(0, dtype=bool)
        x = np.column_stack([codes, ranks.values.astype(np.float64)])
        is_cat = np.r_[~wide, np.zeros(table.values.shape[1], dtype=bool)]
        return x, is_cat

    def _fit_predictors(self, release: Table, rng: np.random.Generator) -> list[object]:
        """One predictor per column, fitted on ``release`` (at most ``error_sample`` of its
        records, drawn with ``rng``), of that column from the others. No early stopping (which
        would draw a validation split of its own)."""
        if len(release) > self.error_sample:
            release = release.take(np.sort(rng.choice(len(release), self.error_sample, False)))
        x, is_cat = self._design(release, self._quantiles(release))
        n_cat = release.codes.shape[1]
        models: list[object] = []
        for c in range(x.shape[1]):
            others = np.delete(x, c, axis=1)
            mask = np.delete(is_cat, c)
            y = x[:, c]
            ok = ~np.isnan(y)
            if ok.sum() < 2 or np.unique(y[ok]).size < 2:
                models.append(None)  # a constant column: no error to measure
                continue
            common = dict(
                max_iter=self.error_rounds,
                learning_rate=0.2,
                max_leaf_nodes=31,
                early_stopping=False,
                categorical_features=mask if mask.any() else None,
            )
            model: object
            if c < n_cat:
                model = HistGradientBoostingClassifier(**common).fit(
                    others[ok], y[ok].astype(np.int64)
                )
            else:
                model = HistGradientBoostingRegressor(**common).fit(others[ok], y[ok])
            models.append(model)
        return models

    def _errors(
        self, points: Table, models: Sequence[object], ranks: Table | None = None
    ) -> np.ndarray:
        """``(len(points), n_columns)``: minus each column's prediction error (higher: better
        predicted by the release's relations, more member-like); NaN where it is undefined.
        ``ranks``: the points in population ranks (:meth:`_quantiles` with ``points``), made
        here when not given."""
        if ranks is None:
            ranks = self._quantiles(points, points=True)
        x, _ = self._design(points, ranks)
        n_cat = points.codes.shape[1]
        out = np.full(x.shape, np.nan)
        for c, model in enumerate(models):
            if model is None:
                continue
            others = np.delete(x, c, axis=1)
            y = x[:, c]
            ok = ~np.isnan(y)
            if not ok.any():
                continue
            if c < n_cat:
                assert isinstance(model, HistGradientBoostingClassifier)
                proba = model.predict_proba(others[ok])
                col = np.searchsorted(model.classes_, y[ok].astype(np.int64))
                col = np.minimum(col, model.classes_.size - 1)
                seen = model.classes_[col] == y[ok].astype(np.int64)
                p = np.where(seen, proba[np.arange(col.size), col], 0.0)
                out[ok, c] = np.log(p + 1e-6)
            else:
                assert isinstance(model, HistGradientBoostingRegressor)
                out[ok, c] = -np.log(np.abs(model.predict(others[ok]) - y[ok]) + 1e-4)
        return out

    def _view(self, release: Table) -> _ReleaseView:
        """``release`` as :meth:`_signals` searches it, with its population ranks and its
        normal scale made once (a caller scoring several point sets on one release keeps it)."""
        ranks = self._quantiles(release) if self.quantile or self.marginals else None
        return _ReleaseView(release, ranks, _NormalScale(release) if self.normal_scores else None)

    def _signals(
        self,
        points: Table,
        view: _ReleaseView,
        reference: Table,
        rng: np.random.Generator,
        predictors: Sequence[object] | None = None,
        errors_rng: np.random.Generator | None = None,
        ranks: Table | None = None,
    ) -> np.ndarray:
        """``(len(points), n_signals)`` on the release of ``view`` (:meth:`_view`): minus log
        distances at each scale, the per-column distances, the no-box scores, then minus the
        per-column prediction errors (``predictors``: the release's, fitted here with
        ``errors_rng`` when not given). ``ranks``: the points in population ranks
        (:meth:`_quantiles` with ``points``), the same on every release, so a caller scoring
        them on several makes them once; made here when not given."""
        if ranks is None and (self.quantile or self.marginals or self.column_errors):
            ranks = self._quantiles(points, points=True)
        release = view.table
        cols = list(self._scale_distances(points, release).T)
        if self.quantile:
            assert ranks is not None and view.ranks is not None
            cols += list(self._scale_distances(ranks, view.ranks).T)
        if self.normal_scores:
            assert view.normal is not None
            cols += list(self._scale_distances(view.normal(points), view.normal.release).T)
        if self.marginals:
            assert ranks is not None and view.ranks is not None
            cols += list(self._marginals(ranks.values, view.ranks.values).T)
        for name in self.nobox:
            _, attack = resolve_attack(AttackFamily.NOBOX_MEMBERSHIP, name)
            assert isinstance(attack, NoBoxMembershipAttack)
            attack.fit(release, reference, rng=rng)
            cols.append(np.asarray(attack.score(points), dtype=np.float64))
        if self.column_errors:
            if predictors is None:
                assert errors_rng is not None
                predictors = self._fit_predictors(release, errors_rng)
            cols += list(self._errors(points, predictors, ranks).T)
        return np.column_stack(cols)

    def _scale_distances(self, points: Table, release: Table) -> np.ndarray:
        """``(len(points), len(scales))``: minus the log mean distance from each point to its
        ``k`` closest release records, for every ``k`` in ``scales``."""
        kmax = min(max(self.scales), len(release))
        dist, _ = nearest_neighbours(points, release, k=kmax, metric=self.metric)
        return np.column_stack(
            [-np.log(dist[:, : min(k, kmax)].mean(axis=1) + _EPS) for k in self.scales]
        )

    def _marginals(self, points: np.ndarray, release: np.ndarray) -> np.ndarray:
        """``(len(points), n_continuous)``: minus the log distance from each continuous value of
        ``points`` to the closest value of its column in ``release`` (both in population ranks,
        :meth:`_quantiles`); an equal value is at distance 0 (the log's floor is that of the
        distance signals, so an exact match stands apart from the closest other value)."""
        out = np.empty(points.shape)
        for c in range(points.shape[1]):
            col = release[:, c]
            missing = np.isnan(col)
            values = np.sort(col[~missing])
            v = points[:, c]
            ok = ~np.isnan(v)
            d = np.full(v.size, 0.0 if missing.any() else 1.0)  # a missing value's distance
            d[ok] = 1.0
            if values.size:
                at = np.searchsorted(values, v[ok])
                below = values[np.maximum(at - 1, 0)]
                above = values[np.minimum(at, values.size - 1)]
                d[ok] = np.minimum(np.abs(v[ok] - below), np.abs(v[ok] - above))
            out[:, c] = -np.log(d + _EPS)
        return out

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The meta-classifier's features, in column order."""
        out: list[str] = []
        for s in self.signal_names:
            out += [s, f"{s}:z_out", f"{s}:share_out_below", f"{s}:mean_out", f"{s}:in_gap"]
        return tuple(out)

    @staticmethod
    def _features(
        own: np.ndarray, others: np.ndarray, member_of: np.ndarray, use: np.ndarray | None = None
    ) -> np.ndarray:
        """Calibrated features of records on one release.

        ``own``: (n, s) signals on the release; ``others``: (n, m, s) signals on the m shadow
        releases; ``member_of``: (n, m) whether each record was in each of them; ``use``:
        (n, m) which shadow releases may calibrate each record (all when ``None``).
        """
        usable = np.ones(member_of.shape, dtype=bool) if use is None else use
        w = (usable & ~member_of)[:, :, None].astype(np.float64)
        n_out = w[:, :, 0].sum(axis=1)
        cnt = np.maximum(n_out, 1)[:, None]
        mean_out = (others * w).sum(axis=1) / cnt
        var = (((others - mean_out[:, None, :]) ** 2) * w).sum(axis=1) / np.maximum(cnt - 1, 1)
        sd = np.sqrt(var) + 1e-6
        z = (own - mean_out) / sd
        below = ((others < own[:, None, :]) * w).sum(axis=1) / cnt
        in_w = (usable & member_of)[:, :, None].astype(np.float64)
        n_in = in_w[:, :, 0].sum(axis=1)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            in_gap = np.where(n_in > 0, (others * in_w).sum(axis=1) / n_in - mean_out, np.nan)
        none_out = n_out == 0
        z[none_out] = np.nan
        below[none_out] = np.nan
        mean_out[none_out] = np.nan
        blocks = []
        for j in range(own.shape[1]):
            blocks += [own[:, j], z[:, j], below[:, j], mean_out[:, j], in_gap[:, j]]
        return np.column_stack(blocks)

    # --- fit and score ----------------------------------------------------------------------

    def fit_score(
        self,
        shadows: Sequence[ShadowRelease],
        release: pd.DataFrame,
        candidates: pd.DataFrame,
        *,
        seed: int,
    ) -> np.ndarray:
        """Learn on ``shadows``, then return the membership score of every candidate
        of ``release`` (the attack is fitted for one target; see :func:`attack_release`)."""
        self.fit_shadows(shadows, seed=seed, targets=(release, candidates))
        return self.score(release, candidates)

    def fit_shadows(
        self,
        shadows: Sequence[ShadowRelease],
        *,
        seed: int,
        targets: Sequence[pd.DataFrame | Table] = (),
    ) -> ShadowReleaseAttack:
        """Encode the shadows, compute the signals of sampled records on every shadow release
        and fit the meta-classifier; returns self.

        ``targets`` (the releases and candidates to be scored) only widen the categories of the
        encoding, so that a category the shadows never hold can still be scored; nothing is
        learned from them.
        """
        check_shadows(shadows)
        t0 = time.perf_counter()
        m = len(shadows)
        trainings = [s.training for s in shadows]
        assert all(t is not None for t in trainings)
        parts: dict[str, pd.DataFrame] = {"population": pd.concat(trainings, ignore_index=True)}
        for s in shadows:
            parts[f"shadow release {s.name}"] = s.release
        for i, t in enumerate(targets):
            parts[f"target part {i}"] = _frame(t)
        enc = encode_frames(parts)
        self._schema = enc.schema
        population = enc.tables["population"]
        self._fit_quantiles(population)
        self._views = [self._view(enc.tables[f"shadow release {s.name}"]) for s in shadows]
        self._predictors = [
            self._fit_predictors(v.table, _ERRORS.rng(seed, j)) if self.column_errors else []
            for j, v in enumerate(self._views)
        ]
        sizes = np.array([len(t) for t in trainings])  # type: ignore[arg-type]
        starts = np.concatenate([[0], np.cumsum(sizes)])
        pop_keys = population.row_keys()
        self._population_keys = set(pop_keys.tolist())
        self._train_keys = [set(pop_keys[starts[j] : starts[j + 1]].tolist()) for j in range(m)]
        self._release_keys = [set(v.table.row_keys().tolist()) for v in self._views]

        # The labelled records. A record is known to belong to the population only because a
        # shadow's training set holds it: it is drawn *from* one shadow (its source), which then
        # takes no part in its examples. On every other shadow its membership is then as
        # independent of its values as a candidate's is on all shadows, so nothing but the
        # release's signals tells members from non-members (drawing from the union of the
        # training sets instead makes "was in some other shadow" a label artefact).
        rng = _SAMPLE.rng(seed)
        pool_idx, source = [], []
        for k in range(m):
            take = min(self.records_per_shadow, int(sizes[k]))
            pool_idx.append(starts[k] + rng.choice(int(sizes[k]), take, replace=False))
            source.append(np.full(take, k))
        pool = population.take(np.concatenate(pool_idx))
        src = np.concatenate(source)
        pool_keys = pool.row_keys()
        pool_member = self._membership(pool_keys)
        # the shadows' own rate of verbatim copies: each drawn record in its source's release
        found = self._verbatim(
            pool_keys.tolist(), [self._release_keys[k] for k in src], pool_member
        )
        self._shadow_verbatim = (int(found.sum()), int(found.size))
        # the no-box reference: population records outside the pool
        excluded = set(pool_keys.tolist())
        free = np.flatnonzero([k not in excluded for k in pop_keys.tolist()])
        ref_idx = rng.choice(free, min(self.reference_size, free.size), replace=False)
        self._reference_idx = ref_idx
        self._population = population
        self._ref_keys = pop_keys[ref_idx].tolist()
        self._ref_member = self._membership(pop_keys[ref_idx])
        self._seed = seed

        ranks = self._quantiles(pool, points=True)
        signals = np.stack(
            [
                self._signals(
                    pool,
                    view,
                    self._reference(j),
                    _NOBOX.rng(seed, j),
                    self._predictors[j],
                    ranks=ranks,
                )
                for j, view in enumerate(self._views)
            ],
            axis=1,
        )  # (n_pool, m, s)
        # examples (record i, release j): every other shadow holding i is a member example,
        # `negatives_per_record` shadows not holding it are non-member examples; each example
        # leaves two shadows out of its calibration, j and a second one (i's source; for a
        # source example, a shadow not holding i), so that the number of calibrating shadows,
        # which the share feature's denominator reveals, says nothing of the label
        pick = _SAMPLE.rng(seed, 1)
        ex_i, ex_j, ex_k = [], [], []
        for i in range(len(pool)):
            holds = pool_member[i].copy()
            holds[src[i]] = False
            ins = np.flatnonzero(holds)
            outs = np.flatnonzero(~pool_member[i])
            free = outs
            outs = pick.choice(outs, min(outs.size, self.negatives_per_record), replace=False)
            ex_i += [i] * (ins.size + outs.size)
            ex_j += [*ins.tolist(), *outs.tolist()]
            ex_k += [src[i]] * (ins.size + outs.size)
            if self.source_examples and free.size:
                ex_i.append(i)
                ex_j.append(src[i])
                ex_k.append(int(pick.choice(free)))
        ii, jj, kk = np.asarray(ex_i), np.asarray(ex_j), np.asarray(ex_k)
        use = np.ones((ii.size, m), dtype=bool)
        use[np.arange(ii.size), jj] = False
        use[np.arange(ii.size), kk] = False
        x = self._features(signals[ii, jj, :], signals[ii], pool_member[ii], use)
        y = pool_member[ii, jj]
        if y.all() or not y.any():
            raise InputError(
                "the shadow releases' training sets do not overlap enough to give both member "
                "and non-member examples: give shadows trained on overlapping samples of one "
                "population, or more of them"
            )
        self._model = HistGradientBoostingClassifier(
            max_iter=self.max_iter,
            random_state=int(_MODEL.rng(seed).integers(2**31 - 1)),
            **META_CLASSIFIER,
        ).fit(x, y)
        self.n_examples_ = int(y.size)
        self.fit_seconds_ = time.perf_counter() - t0
        return self

    def _verbatim(
        self, keys: Sequence[object], releases: Sequence[set[object]], member_of: np.ndarray
    ) -> np.ndarray:
        """Whether each record (``keys``) is found verbatim in its release (``releases``, one
        key set per record): held by it, and by no shadow release whose training set lacks the
        record (``member_of``, :meth:`_membership`)."""
        held = np.array([k in r for k, r in zip(keys, releases, strict=True)], dtype=bool)
        elsewhere = _held_by(keys, self._release_keys)
        return held & ~(elsewhere & ~member_of).any(axis=1)

    def _membership(self, keys: np.ndarray) -> np.ndarray:
        """(len(keys), n_shadows): whether each record is in each shadow's training set."""
        return _held_by(keys.tolist(), self._train_keys)

    def _reference(self, j: int | None, drop: np.ndarray | None = None) -> Table:
        """Reference records for release ``j``: the sample minus ``j``'s training records and
        minus the records ``drop`` marks (the candidates being scored)."""
        keep = np.ones(self._reference_idx.size, dtype=bool)
        if j is not None:
            keep &= ~self._ref_member[:, j]
        if drop is not None:
            keep &= ~drop
        return self._population.take(self._reference_idx[keep])

    def score(self, release: pd.DataFrame | Table, candidates: pd.DataFrame | Table) -> np.ndarray:
        """Membership score of every candidate record of ``release``: the meta-classifier's
        probability ``p``; on a release that copies more than its shadows, ``(1 + p) / 2`` for
        a candidate found verbatim and ``p / 2`` for the rest (module docstring, step 4; what was
        found is kept in ``verbatim_``)."""
        if not hasattr(self, "_model"):
            raise InputError("the attack is not fitted: call fit_shadows(shadows, seed=...) first")
        enc = encode_frames(
            {"release": _frame(release), "candidates": _frame(candidates)}, schema=self._schema
        )
        rel, cand = enc.tables["release"], enc.tables["candidates"]
        k_s, n_s = self._shadow_verbatim
        if len(cand) == 0:
            self.verbatim_ = VerbatimCheck(0, 0, n_s, k_s, float("nan"), False)
            return np.zeros(0)
        cand_keys = cand.row_keys()
        scored = set(cand_keys.tolist())
        drop = np.array([k in scored for k in self._ref_keys], dtype=bool)
        ranks = self._quantiles(cand, points=True)
        own = self._signals(
            cand,
            self._view(rel),
            self._reference(None, drop),
            _NOBOX.rng(self._seed, len(self._views)),
            errors_rng=_ERRORS.rng(self._seed, len(self._views)),
            ranks=ranks,
        )
        others = np.stack(
            [
                self._signals(
                    cand,
                    view,
                    self._reference(j, drop),
                    _NOBOX.rng(self._seed, j),
                    self._predictors[j],
                    ranks=ranks,
                )
                for j, view in enumerate(self._views)
            ],
            axis=1,
        )
        member_of = self._membership(cand_keys)
        feats = self._features(own, others, member_of)
        scores = np.asarray(self._model.predict_proba(feats)[:, 1], dtype=np.float64)
        release_keys = set(rel.row_keys().tolist())
        found = self._verbatim(cand_keys.tolist(), [release_keys] * len(cand), member_of)
        p = two_rate_p(int(found.sum()), found.size, k_s, n_s)
        applied = bool(found.any() and p < VERBATIM_ALPHA)
        self.verbatim_ = VerbatimCheck(found.size, int(found.sum()), n_s, k_s, p, applied)
        return np.where(found, (1.0 + scores) / 2, scores / 2) if applied else scores


def _mid_ranks(ref: np.ndarray, v: np.ndarray, own: np.ndarray | int = 0) -> np.ndarray:
    """The mid-rank of every value of ``v`` among the sorted values ``ref``, in [0, 1]; ``own``
    occurrences of each value (one per value, or a scalar) left out of the counts above it."""
    lo = np.searchsorted(ref, v, side="left")
    hi = np.searchsorted(ref, v, side="right") - own
    return (lo + hi) / (2.0 * max(ref.size, 1))


class _NormalScale:
    """Every continuous value replaced by its normal score in one release: ``Phi^-1`` of the
    value's mid-rank among the release's values of its column, the rank clipped to
    ``[1 / 2n, 1 - 1 / 2n]`` (``n`` those values), which is also each column's min-max range
    in the schema the scored tables share. Missing values stay missing; a column the release
    has no value in scores 0. Calling it maps a table; ``release`` is the release mapped."""

    def __init__(self, release: Table) -> None:
        self._sorted = [np.sort(v[~np.isnan(v)]) for v in release.values.T.astype(np.float64)]
        bounds = {
            spec.name: float(ndtri(1.0 - 0.5 / col.size)) if col.size > 1 else 1.0
            for spec, col in zip(release.schema.continuous, self._sorted, strict=True)
        }
        self._schema = dataclasses.replace(
            release.schema,
            columns=tuple(
                c
                if c.is_categorical
                else dataclasses.replace(c, low=-bounds[c.name], high=bounds[c.name])
                for c in release.schema.columns
            ),
        )
        self.release = self(release)

    def __call__(self, table: Table) -> Table:
        values = table.values.astype(np.float64)
        out = np.full(values.shape, np.nan)
        for c, ref in enumerate(self._sorted):
            v = values[:, c]
            ok = ~np.isnan(v)
            if ref.size < 2:
                out[ok, c] = 0.0
                continue
            u = np.clip(_mid_ranks(ref, v[ok]), 0.5 / ref.size, 1.0 - 0.5 / ref.size)
            out[ok, c] = ndtri(u)
        return Table.from_arrays(self._schema, table.codes, out)


@dataclasses.dataclass(frozen=True)
class _ReleaseView:
    """A release as the distance signals search it (:meth:`ShadowReleaseAttack._view`): its
    values, its population ranks (``None`` when no signal uses them) and its normal scale."""

    table: Table
    ranks: Table | None
    normal: _NormalScale | None


def _held_by(keys: Sequence[object], sets: Sequence[set[object]]) -> np.ndarray:
    """``(len(keys), len(sets))``: whether each record key is in each set of keys."""
    return np.array([[k in s for s in sets] for k in keys], dtype=bool).reshape(
        len(keys), len(sets)
    )


def _frame(part: pd.DataFrame | Table) -> pd.DataFrame:
    return part.to_frame() if isinstance(part, Table) else part


def attack_release(
    shadows: Sequence[ShadowRelease],
    release: pd.DataFrame | Table,
    candidates: pd.DataFrame | Table,
    *,
    seed: int,
    labels: np.ndarray | None = None,
    attack: ShadowReleaseAttack | None = None,
) -> ShadowReleaseResult:
    """Score ``candidates`` of ``release`` with an attack learned on ``shadows``.

    Parameters
    ----------
    shadows : sequence of ShadowRelease
        At least three, each with its training records
        (:func:`synthleak.data.shadow_releases.read_shadow_releases`).
    release : DataFrame or Table
        The target release.
    candidates : DataFrame or Table
        Records whose membership in the release's training data is scored.
    seed : int
    labels : array of bool, optional
        True membership of the candidates (a data owner knows it: members are the original's
        records, non-members the control's). With labels, the result holds the AUC and the
        TPR at :data:`REPORTED_FPRS` with their intervals.
    attack : ShadowReleaseAttack, optional
        A configured attack (default parameters otherwise); fitted here.
    """
    atk = attack if attack is not None else ShadowReleaseAttack()
    atk.fit_shadows(shadows, seed=seed, targets=(release, candidates))
    t0 = time.perf_counter()
    scores = atk.score(release, candidates)
    score_seconds = time.perf_counter() - t0
    auc_est: RiskEstimate | None = None
    tprs: tuple[TprAtFpr, ...] = ()
    if labels is not None:
        y = np.asarray(labels).astype(bool)
        if y.shape != scores.shape:
            raise InputError(
                f"labels must give one membership per candidate ({scores.size}), got {y.size}"
            )
        auc_est = auc_estimate(y, scores, rng=_BOOT.rng(seed))
        tprs = tuple(tpr_at_fpr_estimate(y, scores, f) for f in REPORTED_FPRS)
    return ShadowReleaseResult(
        scores=tuple(float(s) for s in scores),
        n_shadows=len(shadows),
        n_examples=atk.n_examples_,
        features=atk.feature_names,
        auc=auc_est,
        tpr=tprs,
        fit_seconds=atk.fit_seconds_,
        score_seconds=score_seconds,
        verbatim=atk.verbatim_,
    )
