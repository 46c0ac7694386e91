"""Person-level membership with shadow models: the relational generator is given.

The game of :mod:`synthleak.games.membership`, with persons in the place of rows. A person is a
root row and all their child rows (:mod:`synthleak.data.relational`); the generator is a
relational generator (:mod:`synthleak.generators.relational`) run many times.

* **Targets**: ``n_targets`` persons drawn at random from the population (the original's
  persons). The other persons are split at random into the attacker's auxiliary pool and the
  challenger's test pool.
* **Releases**: ``n_shadows`` training sets from the auxiliary pool and ``n_tests`` from the
  test pool, each of ``train_size`` persons: ``train_size - n_targets`` random background
  persons and one slot per target, holding the target in exactly half of the sets (a balanced
  draw per target, independent across targets) and a random other person of the pool
  otherwise (the shared-pool design of LiRA, Carlini et al. 2022). The generator is fitted on
  each set (with all of each person's child rows) and samples ``train_size`` persons.
* **Features** of a target in a release: ``child-dcr``, minus the mean log distance from each
  of the target's child rows to the closest child row of the release (summed over the
  descendant tables); ``child-exact``, the share of the target's child rows that the release
  holds verbatim; ``view-dcr``, minus the log distance from the target's person-level view
  (:func:`~synthleak.data.relational.person_views`: the root row with their child rows'
  counts, aggregates and value counts) to the closest view of a released person. Distances are
  the Minkowski (p = 2) distances of :func:`synthleak.vulnerability.nearest_neighbours`, on
  a schema read once from the population, so every release is measured with one ruler.
* **Attack**: per target and feature, a Gaussian likelihood ratio fitted on the shadow releases
  (mean when the target is in, mean when out, their pooled standard deviation: LiRA's online
  test) scores each test release; ``combined`` sums the features' log ratios. ``combined`` is
  the game's figure, fixed before any score is seen (no choice among attacks to correct for).

Figures: AUC over all (target, test release) trials with its bootstrap interval and TPR at FPR
0.1, 0.01 and 0.001 with intervals, against the baseline 0.5 (TPR = FPR). Trials of one target
share that target, so the interval is somewhat optimistic when targets differ much (as in the
row-level game). Persons are named by their root key.

Oracles (``tests/games/test_person_shadow.py``): a generator that ignores its training data
gives AUC near 0.5 and an interval holding it; one that replays its training persons' histories
gives AUC near 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.relational import RelationalData, person_views
from synthleak.data.release import encode_parts
from synthleak.data.table import Table
from synthleak.errors import GeneratorFailure, InputError
from synthleak.metrics.privacy import RiskEstimate, TprAtFpr, auc_estimate, tpr_estimates
from synthleak.runtime.seeding import stream
from synthleak.serde import Result
from synthleak.vulnerability import nearest_neighbours

__all__ = [
    "FEATURES",
    "PersonShadowAttack",
    "PersonShadowGame",
    "PersonShadowResult",
    "play_person_shadow",
    "subset_persons",
]

_SPLIT = stream("person-shadow/split")
_POOL = stream("person-shadow/pool")
_GENERATOR = stream("person-shadow/generator")
_METRIC = stream("person-shadow/metric", labelled="person-shadow-metric:{}")

FEATURES = ("child-dcr", "child-exact", "view-dcr")
"""What the attack reads of a target in a release (module docstring)."""
PRIMARY = "combined"
_EPS = 1e-6
#: Population child rows (a fixed random sample) that set the distance scale of a table.
RULER_ROWS = 5000
_MIN_SD = 1e-6
#: Fewest releases per label (in, out) a target needs among the fitted ones.
MIN_PER_LABEL = 2


@dataclass(frozen=True, repr=False)
class PersonShadowAttack(Result):
    """One attack's figures on all (target, test release) trials.

    Attributes
    ----------
    auc : RiskEstimate
    tpr_at_fpr : dict of str to TprAtFpr
    """

    auc: RiskEstimate
    tpr_at_fpr: dict[str, TprAtFpr]


@dataclass(frozen=True, repr=False)
class PersonShadowResult(Result):
    """Outcome of :class:`PersonShadowGame`.

    Attributes
    ----------
    attacks : dict of str to PersonShadowAttack
        Each feature's likelihood-ratio attack and ``combined`` (the game's figure).
    primary : str
        ``combined``.
    generator : str
        The generator's spec (or class name).
    target_keys : list
        The targets' root keys.
    target_auc : list of float
        Each target's AUC of ``combined`` over the test releases (NaN when undefined).
    target_ci_low, target_ci_high : list of float, optional
        Its 95 % interval, a stratified bootstrap over the test releases the target was in and
        out of (as the single-table risk map's per record); ``None`` in results kept by
        versions that did not compute it.
    n_shadows, n_tests : int
        Releases fitted and used (after failures).
    train_size : int
        Persons per training set (and per release).
    failed : int
        Generator runs that failed and were left out.
    notes : tuple of str
    """

    attacks: dict[str, PersonShadowAttack]
    primary: str
    generator: str
    target_keys: list[Any]
    target_auc: list[float]
    n_shadows: int
    n_tests: int
    train_size: int
    failed: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
    target_ci_low: list[float] | None = None
    target_ci_high: list[float] | None = None

    @property
    def primary_attack(self) -> PersonShadowAttack:
        return self.attacks[self.primary]


def subset_persons(data: RelationalData, root: str, rows: np.ndarray) -> RelationalData:
    """The persons at ``rows`` of ``root`` (in that order) with all their descendant rows.

    ``rows`` must not repeat (keys stay unique)."""
    rows = np.asarray(rows, dtype=np.int64)
    sch = data.schema
    frames = {root: data.frames[root].iloc[rows].reset_index(drop=True)}
    chosen = np.zeros(len(data.frames[root]), dtype=bool)
    chosen[rows] = True
    for t in sch.descendants(root):
        idx = data.root_index(t, root)
        keep = (idx >= 0) & chosen[np.maximum(idx, 0)]
        frames[t] = data.frames[t][keep].reset_index(drop=True)
    for t in sch.tables:  # tables outside the person's tree travel whole
        frames.setdefault(t, data.frames[t])
    return RelationalData(sch, frames)


def _child_frame(data: RelationalData, table: str) -> pd.DataFrame:
    sch = data.schema
    keys = {sch.primary_keys[table]} | {fk.column for fk in sch.foreign_keys if fk.child == table}
    return data.frames[table].drop(columns=[c for c in keys if c is not None])


def _nearest(queries: pd.DataFrame, pool: pd.DataFrame, ruler: pd.DataFrame) -> np.ndarray:
    """Minkowski distance from each query row to its closest row of ``pool`` (inf: no pool),
    on a schema read from ``ruler`` (a fixed sample of the population) with the queries and
    the pool (their categories widen the domains; the ranges are mostly the ruler's)."""
    if len(queries) == 0:
        return np.zeros(0)
    if len(pool) == 0:
        return np.full(len(queries), np.inf)
    parts: dict[str, pd.DataFrame | Table] = {"queries": queries, "pool": pool}
    if len(ruler):
        parts = {"ruler": ruler, **parts}
    _, enc = encode_parts(parts)
    d = nearest_neighbours(enc["queries"], enc["pool"], k=1, metric="minkowski")[0][:, 0]
    return np.asarray(d, dtype=np.float64)


def _features(
    targets: RelationalData,
    release: RelationalData,
    root: str,
    rulers: dict[str, pd.DataFrame],
    max_categories: int,
) -> np.ndarray:
    """``(n_targets, len(FEATURES))``: each target's features in ``release`` (NaN: none)."""
    sch = targets.schema
    n = len(targets.frames[root])
    dcr = np.zeros(n)
    exact_hits = np.zeros(n)
    rows = np.zeros(n)
    for t in sch.descendants(root):
        who = targets.root_index(t, root)
        ok = who >= 0
        d = _nearest(_child_frame(targets, t)[ok], _child_frame(release, t), rulers[t])
        w = who[ok]
        rows += np.bincount(w, minlength=n)
        dcr += np.bincount(w, weights=-np.log(d + _EPS), minlength=n)
        exact_hits += np.bincount(w, weights=(d < _EPS).astype(np.float64), minlength=n)
    has = rows > 0
    child_dcr = np.where(has, dcr / np.maximum(rows, 1), np.nan)
    child_exact = np.where(has, exact_hits / np.maximum(rows, 1), np.nan)
    views = person_views(
        {"targets": targets, "release": release}, root=root, max_categories=max_categories
    )
    tv = views["targets"].reset_index(drop=True)
    rv = views["release"].reset_index(drop=True)
    view_dcr = -np.log(_nearest(tv, rv, tv.iloc[:0]) + _EPS)
    return np.column_stack([child_dcr, child_exact, view_dcr])


def _lr(train_x: np.ndarray, train_in: np.ndarray, test_x: np.ndarray) -> np.ndarray:
    """Gaussian log likelihood ratio (in vs out) per test value, for one target and feature."""
    ok = np.isfinite(train_x)
    xi, xo = train_x[ok & train_in], train_x[ok & ~train_in]
    if len(xi) < 1 or len(xo) < 1:
        return np.zeros(len(test_x))
    mi, mo = float(xi.mean()), float(xo.mean())
    resid = np.r_[xi - mi, xo - mo]
    sd = max(float(np.sqrt(np.mean(resid**2))), _MIN_SD)
    x = np.where(np.isfinite(test_x), test_x, (mi + mo) / 2)
    return ((x - mo) ** 2 - (x - mi) ** 2) / (2 * sd * sd)


@dataclass(frozen=True)
class PersonShadowGame:
    """Person-level shadow-model membership (module docstring).

    Parameters
    ----------
    n_targets : int, default 10
        Target persons.
    n_shadows : int, default 32
        Attacker's releases (the likelihood ratios are fitted on them).
    n_tests : int, default 16
        Challenger's releases (the figures are computed on them).
    train_size : int, optional
        Persons per training set; default half the smaller pool, at most 1,000.
    root : str, optional
        The table of persons; default the schema's only root.
    max_categories : int, default 30
        See :func:`~synthleak.data.relational.person_views`.
    """

    n_targets: int = 10
    n_shadows: int = 32
    n_tests: int = 16
    train_size: int | None = None
    root: str | None = None
    max_categories: int = 30

    def _check(self, population: RelationalData) -> tuple[str, int, int]:
        for name, low in (("n_targets", 2), ("n_shadows", 2 * MIN_PER_LABEL), ("n_tests", 2)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise InputError(f"{name} must be an integer >= {low}, got {v!r}")
        if not isinstance(population, RelationalData):
            raise InputError(f"population must be RelationalData, got {type(population).__name__}")
        sch = population.schema
        root = sch.person_table(self.root)
        n = len(population.frames[root])
        pool = (n - self.n_targets) // 2
        train_size = self.train_size if self.train_size is not None else min(pool // 2, 1000)
        if isinstance(train_size, bool) or not isinstance(train_size, int):
            raise InputError(f"train_size must be an integer, got {train_size!r}")
        # a set holds train_size - n_targets background persons and up to n_targets stand-ins
        if train_size <= self.n_targets or train_size > pool:
            raise InputError(
                f"too small to measure: with {n} persons, {self.n_targets} targets and two "
                f"pools of {pool}, train_size must be above n_targets and at most {pool} (got "
                f"{train_size}); give more persons or fewer targets"
            )
        return root, pool, train_size

    def run(
        self,
        population: RelationalData,
        generator: str | Callable[[], Any],
        *,
        seed: int,
    ) -> PersonShadowResult:
        """Play the game on ``population`` (the original's persons) with ``generator`` (a
        relational spec, or a factory of unfitted relational generators)."""
        from synthleak.generators.relational import make_relational_generator

        root, pool_size, train_size = self._check(population)
        if isinstance(generator, str):
            spec = generator
            make_relational_generator(spec)  # a bad spec fails before any work

            def factory() -> Any:
                return make_relational_generator(spec)

            label = spec
        else:
            factory, label = generator, getattr(generator, "__name__", type(generator).__name__)
        population.validate()
        n = len(population.frames[root])
        T = self.n_targets
        perm = _SPLIT.rng(int(seed)).permutation(n)
        targets = np.sort(perm[:T])
        pools = (perm[T : T + pool_size], perm[T + pool_size : T + 2 * pool_size])
        target_data = subset_persons(population, root, targets)
        rulers = {}  # one fixed sample of the population's child rows per table
        for t in population.schema.descendants(root):
            frame = _child_frame(population, t)
            pick = _SPLIT.rng(int(seed), 1).permutation(len(frame))[:RULER_ROWS]
            rulers[t] = frame.iloc[np.sort(pick)].reset_index(drop=True)
        feats: list[list[np.ndarray]] = [[], []]
        labels: list[list[np.ndarray]] = [[], []]
        failed = 0
        for p, n_sets in enumerate((self.n_shadows, self.n_tests)):
            rng = _POOL.rng(int(seed), p)
            member = np.stack([_balanced(rng, n_sets) for _ in range(T)], axis=1)  # (sets, T)
            for i in range(n_sets):
                draw = rng.permutation(pools[p])
                n_out = int((~member[i]).sum())
                rows = np.r_[draw[: train_size - T], draw[train_size - T : train_size - T + n_out]]
                rows = np.r_[rows, targets[member[i]]]
                train = subset_persons(population, root, rows)
                g_rng = _GENERATOR.rng(int(seed), p, i)
                try:
                    release = factory().fit(train, rng=g_rng).sample(train_size, rng=g_rng)
                except GeneratorFailure:
                    failed += 1
                    continue
                feats[p].append(_features(target_data, release, root, rulers, self.max_categories))
                labels[p].append(member[i])
        for p, what in ((0, "shadow"), (1, "test")):
            lab = np.array(labels[p]).reshape(-1, T)
            if (lab.sum(0) < MIN_PER_LABEL).any() or ((~lab).sum(0) < MIN_PER_LABEL).any():
                raise GeneratorFailure(
                    f"person-level shadow game: {failed} generator run(s) failed and the "
                    f"{what} releases left hold a target in (or out of) fewer than "
                    f"{MIN_PER_LABEL} of them; see the generator's errors"
                )
        xs, ys = np.array(feats[0]), np.array(labels[0])  # (sets, T, F), (sets, T)
        xt, yt = np.array(feats[1]), np.array(labels[1])
        scores = np.zeros((len(FEATURES) + 1, *yt.shape))
        for j in range(T):
            for k in range(len(FEATURES)):
                scores[k, :, j] = _lr(xs[:, j, k], ys[:, j], xt[:, j, k])
        scores[-1] = scores[:-1].sum(0)
        y = yt.ravel().astype(np.int64)
        attacks = {}
        for j, name in enumerate((*FEATURES, PRIMARY)):
            s = scores[j].ravel()
            attacks[name] = PersonShadowAttack(
                auc_estimate(y, s, rng=_METRIC.sub(name).rng(int(seed))), tpr_estimates(y, s)
            )
        nan = float("nan")
        per_target = [
            auc_estimate(
                yt[:, t].astype(np.int64), scores[-1][:, t], rng=_METRIC.sub("target").rng(seed, t)
            )
            if 0 < yt[:, t].sum() < len(yt)
            else RiskEstimate(nan, nan, nan, 0.95, len(yt), 0.5)
            for t in range(T)
        ]
        keys = population.frames[root][population.schema.key_of(root)].to_numpy()[targets]
        notes = []
        if failed:
            notes.append(f"{failed} generator run(s) failed and were left out")
        return PersonShadowResult(
            attacks,
            PRIMARY,
            label,
            [k.item() if isinstance(k, np.generic) else k for k in keys],
            [float(e.value) for e in per_target],
            len(labels[0]),
            len(labels[1]),
            train_size,
            failed,
            tuple(notes),
            [float(e.ci_low) for e in per_target],
            [float(e.ci_high) for e in per_target],
        )


def _balanced(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` booleans, half of them (rounded down) True, in random order."""
    out = np.zeros(size, dtype=bool)
    out[: size // 2] = True
    return rng.permutation(out)


def play_person_shadow(
    population: RelationalData,
    generator: str | Callable[[], Any],
    *,
    seed: int,
    **options: Any,
) -> PersonShadowResult:
    """Play :class:`PersonShadowGame` (``options``: its parameters) on ``population``."""
    try:
        game = PersonShadowGame(**options)
    except TypeError:
        raise InputError(
            f"play_person_shadow got unknown option(s) {sorted(options)}: the options are "
            "n_targets, n_shadows, n_tests, train_size, root, max_categories"
        ) from None
    return game.run(population, generator, seed=seed)
