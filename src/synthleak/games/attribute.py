"""Attribute inference against a generator: the privacy game with a randomised secret.

:class:`AttributeGame` is the Attribute Inference Privacy Game of Annamalai et al. (2024),
Sec. 4.1, run against a generator. One game:

1. the challenger samples ``D`` (``train_size`` records) from the data;
2. picks a target whose quasi-identifiers are unique in ``X`` (``targets_per_game`` distinct
   targets: an amortisation of ours, 1 by default as in the paper);
3. replaces the target's secret by a uniformly random class (``D'``);
4. fits the generator on ``D'`` and samples ``S`` of ``m`` records (every ``m`` of
   ``synthetic_size``);
5. hands ``S``, all quasi-identifiers ``X`` and the target's ``x_u`` to each attack;
6. records each attack's scores and guess against the randomised secret.

The randomised secret makes the baseline exact: no adversary without the release guesses it
better than ``1 / C`` for ``C`` classes (the paper's Sec. 7.2).

The game on a given release, without its generator, is
:class:`~synthleak.games.attribute_release.ReleaseAttributeGame`; the secret's rule, checks and
codes both games share are in :mod:`synthleak.games.secret`.

Games are work units run by :class:`~synthleak.runtime.Runtime` (processes or a Dask cluster,
resumable run directory). A unit draws all its randomness from the game's streams
(:mod:`synthleak.runtime.seeding`) keyed by the unit, so results do not depend on the number
of workers.

Discrete domain. The paper assumes discrete attributes (its Sec. 3): continuous columns are
discretised before anything else (``bins`` bins per column, ``uniform`` over the schema range
or ``quantile`` of the data; missing values get their own bin), and the generator is trained on
the discretised table. Uniqueness of the target is judged on these discrete quasi-identifiers.

Sweep over m. For each game the generator is fitted once and sampled at every ``m`` (fresh
samples with their own seed), the attacks' work that depends only on ``X`` (e.g. the query
matrix of Adv_recon) is done once, and utility is measured on the same random marginals for every
``m``: the result for one ``m`` is identical whether it is run alone or inside a sweep.

Failures. A game fails as a whole (reported with its reason, never a crash) when the secret
takes a single value in ``D``, when no target has unique quasi-identifiers or when the generator
fails; an attack fails for one (game, m) when its linear program is not solved within its time
limit. Accuracy is computed over the games an attack finished, and the failures are listed.

Measurement status. Every accuracy carries the width of its confidence interval and the
documented limit :data:`MAX_CI_WIDTH`; wider than the limit, the figure is ``too small to
measure`` (neither a leak nor its absence can be read from it). What could not be measured at
all (every game failed) is ``not measured`` with the reason and what it needs.

Non-binary secrets (our extension of the paper's Sec. 7.6): the secret is randomised uniformly
over its ``C`` classes, attacks score every class (Adv_recon solves one LP per class, one-vs-rest)
and the highest score wins; the accuracy baseline is ``1 / C``. AUC is reported for binary
secrets only.

References
----------
Annamalai, Gadotti and Rocher (2024), "A Linear Reconstruction Approach for Attribute Inference
Attacks against Synthetic Data", USENIX Security: Sec. 4.1 (game), 4.2-4.3 (attacks), 5.3
(utility), 6 (experiments: n = 1000, 500 games, m from 10 to 10^6, Acc_max in Sec. 6.4), 7.6
(non-binary secrets).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from synthleak.attacks.aia_reconstruction import ReconstructionFailure
from synthleak.attacks.base import AttackFamily, AttributeAttack, resolve_attacks
from synthleak.data.release import as_table
from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import InputError, raise_if_interrupted
from synthleak.games.secret import (
    MAX_CI_WIDTH,
    AttributeCodes,
    Measurement,
    SecretRule,
    attack_config,
    attribute_codes,
    check_attacks,
    failure_reason,
    guess_from_scores,
    measurement_status,
    run_logged,
    singleton_rows,
)
from synthleak.generators import make_generator
from synthleak.metrics.privacy import (
    PairedComparison,
    RiskEstimate,
    accuracy_estimate,
    auc,
    paired_accuracy_difference,
)
from synthleak.metrics.utility import mre_from_codes, random_marginals, tvd_from_codes
from synthleak.modes import BinStrategy
from synthleak.runtime import WorkUnit, as_runtime
from synthleak.runtime.seeding import stream
from synthleak.serde import FloatArray, IntArray, Result

if TYPE_CHECKING:
    import pandas as pd

    from synthleak.runtime import Runtime


# the attribute game's streams live in the unit of one game (its index first in every key)
_DATA = stream("aia/data", key=0, scoped=True)
_TARGET = stream("aia/target", key=1, scoped=True)
_FIT = stream("aia/fit", key=2, scoped=True)
_ATTACK_FIT = stream("aia/attack-fit", key=3, scoped=True)
_SAMPLE = stream("aia/sample", key=4, scoped=True)
_ATTACK = stream("aia/attack", key=5, scoped=True)
_UTILITY = stream("aia/utility", key=6, scoped=True)
_COMPARE = stream("aia/compare", key=7)


class GameFailure(RuntimeError):
    """A game that cannot be played (reported per game with its reason)."""


# --- results ----------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class AttackAccuracy(Result):
    """One attack at one synthetic size: accuracy against the randomised secret.

    Attributes
    ----------
    attack : str
    synthetic_size : int
    accuracy : RiskEstimate
        Accuracy with its Wilson interval over the attacked secrets (``n_trials``); its baseline
        is ``1 / C`` (the randomised secret cannot be guessed better without the release).
    auc : float
        AUC of the score of the second class (binary secrets; NaN otherwise or when undefined).
    n_games : int
        Games the attack finished at this size.
    n_failed : int
        Games where it failed (see the result's ``failures``).
    ci_width, max_ci_width : float
        Width of the accuracy interval and the documented limit (:data:`MAX_CI_WIDTH`).
    status : Measurement
    reason : str
        Why the figure is not a measurement ("" when it is).
    """

    attack: str
    synthetic_size: int
    accuracy: RiskEstimate
    auc: float
    n_games: int
    n_failed: int
    ci_width: float
    max_ci_width: float
    status: Measurement
    reason: str = ""


@dataclass(frozen=True, repr=False)
class AttackComparison(Result):
    """Attack ``a`` against attack ``b`` on the same secrets at one synthetic size.

    ``comparison`` holds the accuracy difference with a bootstrap interval over games (the
    targets of one game share ``S``) and the exact McNemar p-value.
    """

    synthetic_size: int
    a: str
    b: str
    comparison: PairedComparison


@dataclass(frozen=True, repr=False)
class SizeSummary(Result):
    """Utility of the synthetic data and the best attack at one synthetic size.

    Attributes
    ----------
    synthetic_size : int
    mre_gt10 : float
        Mean relative error over 3-way marginal cells with an original count above the
        threshold (the paper's MRE_{>10}), averaged over games.
    tvd3 : float
        Mean 3-way total variation distance, averaged over games.
    acc_max : float
        Highest accuracy over the attacks (the paper's Acc_max, Sec. 6.4); NaN if none finished.
    best_attack : str
    """

    synthetic_size: int
    mre_gt10: float
    tvd3: float
    acc_max: float
    best_attack: str


@dataclass(frozen=True, repr=False)
class AttackOutcomes(Result):
    """Every secret one attack attacked at one synthetic size (for further analysis).

    Attributes
    ----------
    attack : str
    synthetic_size : int
    game : IntArray
        Game of each attacked secret.
    target : IntArray
        Row of the target in its game's dataset ``D``.
    truth : IntArray
        The randomised secret (class index).
    guess : IntArray
        The attack's guess.
    scores : FloatArray
        ``(n, C)`` class scores.
    """

    attack: str
    synthetic_size: int
    game: IntArray
    target: IntArray
    truth: IntArray
    guess: IntArray
    scores: FloatArray


@dataclass(frozen=True, repr=False)
class Failure(Result):
    """A game, or one attack at one synthetic size of a game, that could not be played."""

    game: int
    synthetic_size: int | None
    attack: str | None
    reason: str


@dataclass(frozen=True, repr=False)
class AttributeGameResult(Result):
    """Outcome of :meth:`AttributeGame.run`.

    Attributes
    ----------
    config : dict
        Everything the run depended on (JSON-able).
    accuracies : tuple of AttackAccuracy
        One per synthetic size and attack (sizes in the order given, attacks in order).
    comparisons : tuple of AttackComparison
        Every pair of attacks at every size, on the secrets both attacked.
    sizes : tuple of SizeSummary
        Utility and Acc_max per synthetic size.
    failures : tuple of Failure
    outcomes : tuple of AttackOutcomes
        Per-secret truth, guesses and scores, one per synthetic size and attack.
    """

    config: dict[str, Any]
    accuracies: tuple[AttackAccuracy, ...]
    comparisons: tuple[AttackComparison, ...]
    sizes: tuple[SizeSummary, ...]
    failures: tuple[Failure, ...] = ()
    outcomes: tuple[AttackOutcomes, ...] = field(default=())

    def accuracy(self, attack: str, synthetic_size: int) -> AttackAccuracy:
        """The entry of ``attack`` at ``synthetic_size``."""
        for a in self.accuracies:
            if a.attack == attack and a.synthetic_size == synthetic_size:
                return a
        raise KeyError(f"no result for attack {attack!r} at synthetic size {synthetic_size}")

    def to_frame(self) -> pd.DataFrame:
        """One row per synthetic size and attack: accuracy, interval, baseline, AUC, status,
        counts and the utility of that size."""
        import pandas as pd

        util = {s.synthetic_size: s for s in self.sizes}
        rows = []
        for a in self.accuracies:
            u = util.get(a.synthetic_size)
            rows.append(
                {
                    "synthetic_size": a.synthetic_size,
                    "attack": a.attack,
                    "accuracy": a.accuracy.value,
                    "ci_low": a.accuracy.ci_low,
                    "ci_high": a.accuracy.ci_high,
                    "baseline": a.accuracy.baseline,
                    "auc": a.auc,
                    "n_targets": a.accuracy.n_trials,
                    "n_games": a.n_games,
                    "n_failed": a.n_failed,
                    "status": a.status.value,
                    "ci_width": a.ci_width,
                    "mre_gt10": u.mre_gt10 if u else float("nan"),
                    "tvd3": u.tvd3 if u else float("nan"),
                }
            )
        return pd.DataFrame(rows)


# --- the game ---------------------------------------------------------------------------------
def _play_game(shared: dict[str, Any], game: int) -> dict[str, np.ndarray]:
    """One attribute inference game (a work unit)."""
    cfg = shared["config"]
    codes: np.ndarray = shared["codes"]
    sizes: np.ndarray = shared["sizes"]
    schema: Schema = shared["schema"]
    attacks: list[tuple[str, AttributeAttack]] = shared["attacks"]
    seed, n = int(cfg["seed"]), int(cfg["train_size"])
    ms = [int(m) for m in cfg["synthetic_size"]]
    F = codes.shape[1] - 1
    C = int(sizes[F])
    rows = _DATA.rng(seed, scope=(game,)).choice(codes.shape[0], size=n, replace=False)
    D = codes[rows]
    X, y = D[:, :F], D[:, F]
    if np.unique(y).size < 2:
        raise GameFailure("the secret takes a single value in the sampled dataset D")
    uniq = np.flatnonzero(singleton_rows(X))
    if uniq.size == 0:
        raise GameFailure("no record of D has unique quasi-identifiers")
    rng_t = _TARGET.rng(seed, scope=(game,))
    k = min(int(cfg["targets_per_game"]), uniq.size)
    targets = np.sort(rng_t.choice(uniq, size=k, replace=False))
    y_new = y.copy()
    y_new[targets] = rng_t.integers(0, C, size=k)
    Dp = D.copy()
    Dp[:, F] = y_new
    try:
        gen = make_generator(cfg["generator"]).fit(
            Table.from_arrays(schema, Dp, None), rng=_FIT.rng(seed, scope=(game,))
        )
    except InputError:
        raise
    except Exception as exc:
        raise_if_interrupted(exc)
        raise GameFailure(
            f"generator {cfg['generator']} failed to fit: {type(exc).__name__}: {exc}"
        ) from exc
    fitted = [
        copy.deepcopy(attack).fit(X, sizes[:F], rng=_ATTACK_FIT.rng(seed, i, scope=(game,)))
        for i, (_, attack) in enumerate(attacks)
    ]
    marg = (
        random_marginals(
            F + 1, 3, int(cfg["utility_marginals"]), rng=_UTILITY.rng(seed, scope=(game,))
        )
        if F + 1 >= 3
        else np.zeros((0, 3), dtype=np.int64)
    )
    out: dict[str, np.ndarray] = {
        "truth": y_new[targets].astype(np.int64),
        "targets": targets.astype(np.int64),
    }
    pools = shared.get("class_values")
    if pools is not None:  # a numeric secret under a tolerance: a value of the random class
        out["truth_value"] = np.array(
            [pools[c][rng_t.integers(pools[c].size)] for c in out["truth"]], dtype=np.float64
        )
    M = len(ms)
    mre, tvd = np.full(M, np.nan), np.full(M, np.nan)
    scores = np.full((len(attacks), M, k, C), np.nan)
    guesses = np.full((len(attacks), M, k), -1, dtype=np.int64)
    fails = [["" for _ in ms] for _ in attacks]
    for mi, m in enumerate(ms):
        S = gen.sample(m, rng=_SAMPLE.rng(seed, m, scope=(game,))).codes.astype(np.int64)
        for i, attack in enumerate(fitted):
            rng_a = _ATTACK.rng(seed, m, i, scope=(game,))
            try:
                sc = attack.score(S[:, :F], S[:, F], targets, C, rng=rng_a)
            except ReconstructionFailure as exc:
                fails[i][mi] = str(exc)
                continue
            scores[i, mi] = sc
            guesses[i, mi] = guess_from_scores(sc, rng_a)
        if len(marg):
            mre[mi] = mre_from_codes(D, S, sizes, marg, float(cfg["mre_threshold"]))
            tvd[mi] = tvd_from_codes(D, S, sizes, marg)
    out["scores"], out["guess"] = scores, guesses
    out["fail"] = np.array(fails, dtype="U200").reshape(len(attacks), M)
    out["mre"], out["tvd"] = mre, tvd
    return out


def _parse_sizes(synthetic_size: int | Sequence[int]) -> list[int]:
    if isinstance(synthetic_size, int | np.integer):
        sizes = [int(synthetic_size)]
    else:
        sizes = [int(v) for v in synthetic_size]
    if not sizes or any(v < 1 for v in sizes):
        raise InputError(f"synthetic_size must be positive integers, got {sizes}")
    return list(dict.fromkeys(sizes))


class AttributeGame:
    """Attribute Inference Privacy Game with a randomised secret, swept over synthetic sizes.

    Parameters
    ----------
    generator : str
        Generator spec (``nonprivate``, ``indhist``, ``baynet:k=2``, ``rap``, ...).
    secret : str
        The secret column (categorical; binary in the paper, up to :data:`MAX_CLASSES` here).
    quasi_ids : sequence of str, optional
        Quasi-identifier columns (default: every other column).
    train_size : int
        Records in each original dataset ``D`` (the paper's n = 1000).
    synthetic_size : int or sequence of int
        Synthetic records released (the paper's m); several run the sweep of the paper's
        Sec. 6.3 with one generator fit per game.
    n_games : int
        Games played (500 in the paper).
    attacks : sequence of str or AttributeAttack
        Registered attribute attacks (``recon``, ``dcr``, ``infer``) or unfitted attack objects.
    attack_params : dict, optional
        Hyperparameters per attack name, e.g. ``{"recon": {"query_mode": "marginal",
        "n_queries": 1000, "time_limit": 120}, "infer": {"model": "hgb"}}``.
    targets_per_game : int
        Distinct unique targets randomised in each game (1 = the paper's game).
    bins, bin_strategy :
        Discretisation of continuous columns.
    utility_marginals : int
        Random 3-way marginals for MRE_{>10} and 3-TVD (same set for every size of a game).
    mre_threshold : float
        Original count above which a marginal cell enters MRE (10 in the paper).
    max_ci_width : float
        Widest accuracy interval read as a measurement (:data:`MAX_CI_WIDTH`).
    max_seconds : float, optional
        Wall-time limit: the first game is timed and only the games that fit are played (at
        least one; games kept in the run directory take no time). The result then depends on
        the machine's speed; ``config["n_games"]`` says how many were played and
        ``config["n_games_requested"]`` how many were asked for.
    min_games : int
        Games played whatever ``max_seconds`` (1 by default): a floor that keeps the intervals
        measurable when the limit is a budget's allowance rather than a hard cap.
    log : callable, optional
        Receives the projected time and progress lines (the audit prints them).
    secret_rule : SecretRule, optional
        When a guess of a numeric secret counts as right (required for a numeric secret). The
        secret is cut into quantile bins of the data, the generator trains on the bins and the
        target's bin is randomised uniformly. Under the bin rule the baseline stays ``1 / C``.
        Under a tolerance the target's secret is a uniform value of the data inside its random
        bin, a guessed bin stands for the data's median in it, and the baseline is the success
        rate of the best constant guess against that randomised secret (``config["baseline"]``).

    Notes
    -----
    Threat model: no-box (the adversary sees the synthetic data only), partially informed (the
    quasi-identifiers of every record of ``D``, not the target's secret). The target's secret is
    randomised, so any accuracy above ``1 / C`` is individual-level leakage, not population-level
    inference.

    References
    ----------
    Annamalai et al. (2024), Sec. 4.1 and 6.
    """

    def __init__(
        self,
        generator: str,
        secret: str,
        quasi_ids: Sequence[str] | None = None,
        *,
        train_size: int = 1000,
        synthetic_size: int | Sequence[int] = (100_000,),
        n_games: int = 500,
        attacks: Sequence[str | AttributeAttack] = ("recon", "dcr", "infer"),
        attack_params: Mapping[str, Mapping[str, Any]] | None = None,
        targets_per_game: int = 1,
        bins: int = 10,
        bin_strategy: BinStrategy | str = BinStrategy.UNIFORM,
        utility_marginals: int = 50,
        mre_threshold: float = 10.0,
        max_ci_width: float = MAX_CI_WIDTH,
        max_seconds: float | None = None,
        min_games: int = 1,
        log: Callable[[str], None] | None = None,
        secret_rule: SecretRule | None = None,
    ) -> None:
        self.secret_rule = secret_rule
        self.max_seconds = max_seconds
        self.min_games = min_games
        self.log = log
        self.generator = generator
        self.secret = secret
        self.quasi_ids = quasi_ids
        self.train_size = train_size
        self.synthetic_size = synthetic_size
        self.n_games = n_games
        self.attacks = attacks
        self.attack_params = attack_params
        self.targets_per_game = targets_per_game
        self.bins = bins
        self.bin_strategy = bin_strategy
        self.utility_marginals = utility_marginals
        self.mre_threshold = mre_threshold
        self.max_ci_width = max_ci_width

    def _validate(
        self, table: Table
    ) -> tuple[AttributeCodes, list[tuple[str, AttributeAttack]], list[int]]:
        """Everything cheap, before any game: columns, sizes, attacks, generator spec."""
        codes = attribute_codes(
            table,
            self.secret,
            self.quasi_ids,
            bins=self.bins,
            bin_strategy=self.bin_strategy,
            rule=self.secret_rule,
        )
        if not 1 <= int(self.train_size) <= len(table):
            raise InputError(
                f"train_size must be between 1 and the {len(table)} records of the data, "
                f"got {self.train_size}"
            )
        if int(self.n_games) < 1:
            raise InputError(f"n_games must be at least 1, got {self.n_games}")
        if int(self.targets_per_game) < 1:
            raise InputError(f"targets_per_game must be at least 1, got {self.targets_per_game}")
        if not self.max_ci_width > 0:
            raise InputError(f"max_ci_width must be positive, got {self.max_ci_width}")
        ms = _parse_sizes(self.synthetic_size)
        given = [self.attacks] if isinstance(self.attacks, str) else list(self.attacks)
        bad = [a for a in given if not isinstance(a, str | AttributeAttack)]
        if bad:
            raise InputError(
                "attacks must be registered attribute attack names or AttributeAttack objects, "
                f"got {type(bad[0]).__name__}"
            )
        attacks = cast(
            list[tuple[str, AttributeAttack]],
            resolve_attacks(
                AttackFamily.ATTRIBUTE,
                given,
                {k: dict(v) for k, v in (self.attack_params or {}).items()},
            ),
        )
        unknown = sorted(set(self.attack_params or {}) - {n for n, _ in attacks})
        if unknown:
            raise InputError(
                f"attack_params names {unknown}, which are not among the attacks "
                f"{[n for n, _ in attacks]}: give parameters only for attacks that run"
            )
        make_generator(self.generator)  # validates the spec early (InputError)
        check_attacks(attacks, codes.codes[:, :-1], codes.sizes[:-1])
        return codes, attacks, ms

    def run(
        self,
        data: pd.DataFrame | Table,
        *,
        seed: int,
        runtime: Runtime | None = None,
    ) -> AttributeGameResult:
        """Play ``n_games`` games and aggregate accuracy, AUC and utility per synthetic size.

        Parameters
        ----------
        data : DataFrame or Table
            The population the original datasets are sampled from.
        seed : int
            Run seed: same seed, same result whatever the runtime.
        runtime : Runtime, optional
            Workers, Dask cluster, resumable run directory, progress bars.

        Notes
        -----
        Games are work units ``game-000000``, ``game-000001``, ... kept in the run directory as
        they finish, under a configuration that leaves out ``n_games``: an interrupted run, or
        one asked for more games, reuses every finished game, with the same result as a run
        that played them all at once.
        """
        max_seconds = self.max_seconds
        if max_seconds is not None and not (
            isinstance(max_seconds, int | float) and max_seconds > 0
        ):
            raise InputError(f"max_seconds must be a positive number, got {max_seconds!r}")
        min_games = self.min_games
        if (
            isinstance(min_games, bool)
            or not isinstance(min_games, int | np.integer)
            or min_games < 1
        ):
            raise InputError(f"min_games must be a whole number of at least 1, got {min_games!r}")
        rt = as_runtime(runtime)
        table = as_table(data)
        prep, attacks, ms = self._validate(table)
        n = int(self.train_size)
        first = _DATA.rng(int(seed), scope=(0,)).choice(prep.codes.shape[0], size=n, replace=False)
        if not singleton_rows(prep.codes[first, :-1]).any():
            raise InputError(
                "no record has unique quasi-identifiers in a sampled dataset: "
                "add quasi-identifiers, use more bins or a larger train_size"
            )
        config: dict[str, Any] = {
            "game": "attribute",
            "generator": self.generator,
            "secret": self.secret,
            "secret_classes": prep.labels,
            "quasi_ids": prep.quasi_ids,
            "train_size": n,
            "synthetic_size": ms,
            "n_games": int(self.n_games),
            "attacks": [attack_config(name, a) for name, a in attacks],
            "targets_per_game": int(self.targets_per_game),
            "bins": int(self.bins),
            "bin_strategy": BinStrategy(self.bin_strategy).value,
            "utility_marginals": int(self.utility_marginals),
            "mre_threshold": float(self.mre_threshold),
            "max_ci_width": float(self.max_ci_width),
            "seed": int(seed),
            "data_rows": int(prep.codes.shape[0]),
            "data_sha256": hashlib.sha256(np.ascontiguousarray(prep.codes).tobytes()).hexdigest()[
                :16
            ],
        }
        shared: dict[str, Any] = {
            "config": config,
            "codes": prep.codes,
            "sizes": prep.sizes,
            "schema": prep.schema,
            "attacks": attacks,
        }
        rule = self.secret_rule
        judge: tuple[SecretRule, np.ndarray, float] | None = None
        if rule is not None:
            config["secret_rule"] = rule.to_config()
            if rule.tolerance is not None:
                # the randomised secret: a uniform class, then a uniform value of the data in
                # it; each class stands for the median of the data's values in it
                assert prep.values is not None
                y, v = prep.codes[:, -1], prep.values
                C = prep.n_classes
                pools = [v[y == c] for c in range(C)]
                weights = 1.0 / (C * np.bincount(y, minlength=C)[y])
                reps = prep.representatives(slice(None))
                judge = (rule, reps, rule.constant_rate(v, weights))
                shared["class_values"] = pools
                config["secret_values"] = [float(x) for x in reps]
                config["baseline"] = judge[2]
        units = [WorkUnit(f"game-{g:06d}", (g,)) for g in range(int(self.n_games))]
        store = rt.store({k: v for k, v in config.items() if k != "n_games"})
        try:
            out = run_logged(
                rt,
                _play_game,
                units,
                shared=shared,
                store=store,
                description=f"attribute inference games of '{self.secret}'",
                what="games",
                log=self.log,
                max_seconds=max_seconds,
                min_units=min(int(min_games), len(units)),
            )
            if len(out) < len(units):
                config = {**config, "n_games": len(out), "n_games_requested": len(units)}
            result = _aggregate(
                config, out, [name for name, _ in attacks], ms, prep.n_classes, judge
            )
            if store is not None:
                store.write_json("result.json", result.to_dict())
        finally:
            if store is not None:
                store.close()
        return result


def _compare(
    seed: int, names: list[str], per: dict[str, dict[str, np.ndarray]], mi: int, m: int
) -> list[AttackComparison]:
    """Paired comparison of every two attacks at size index ``mi`` on the secrets both scored.

    Accuracy difference with a bootstrap CI that resamples whole games (the targets of one game
    share ``S``) and an exact McNemar p-value: "a beats b" is a claim about this difference.
    """
    out = []
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            b = names[j]
            both = per[a]["ok"] & per[b]["ok"]
            if not both.any():
                continue
            cmp = paired_accuracy_difference(
                per[a]["correct"][both],
                per[b]["correct"][both],
                clusters=per[a]["game"][both],
                rng=_COMPARE.rng(seed, mi, i, j),
            )
            out.append(AttackComparison(m, a, b, cmp))
    return out


def _aggregate(
    config: dict[str, Any],
    out: dict[str, Any],
    names: list[str],
    ms: list[int],
    C: int,
    judge: tuple[SecretRule, np.ndarray, float] | None = None,
) -> AttributeGameResult:
    """Accuracies per size and attack. ``judge`` (a numeric secret under a tolerance): the
    rule, the value each class stands for and the baseline (best constant guess)."""
    failures: list[Failure] = []
    games: dict[int, dict[str, np.ndarray]] = {}
    for key, r in sorted(out.items()):
        g = int(key.split("-")[1])
        if not r.ok:
            failures.append(Failure(g, None, None, failure_reason(r.error or "")))
            continue
        games[g] = r.arrays
    if not games:
        reasons = sorted({f.reason for f in failures})
        raise InputError(
            f"every game failed ({'; '.join(reasons)[:300]}): check the data and options"
        )
    order = sorted(games)
    truth = np.concatenate([games[g]["truth"] for g in order])
    truth_value = (
        np.concatenate([games[g]["truth_value"] for g in order]) if judge is not None else None
    )
    target = np.concatenate([games[g]["targets"] for g in order])
    game_of = np.concatenate([np.full(games[g]["truth"].size, g) for g in order])
    limit = float(config["max_ci_width"])
    seed = int(config["seed"])
    accuracies, comparisons, sizes, outcomes = [], [], [], []
    for mi, m in enumerate(ms):
        per: dict[str, dict[str, np.ndarray]] = {}
        for i, name in enumerate(names):
            fail = np.concatenate(
                [np.full(games[g]["truth"].size, str(games[g]["fail"][i, mi])) for g in order]
            )
            for g in order:
                reason = str(games[g]["fail"][i, mi])
                if reason:
                    failures.append(Failure(g, m, name, reason))
            ok = fail == ""
            guess = np.concatenate([games[g]["guess"][i, mi] for g in order])
            scores = np.concatenate([games[g]["scores"][i, mi] for g in order])
            if judge is None or truth_value is None:
                correct = guess == truth
            else:
                correct = judge[0].hits(judge[1][guess], truth_value)
            per[name] = {"ok": ok, "correct": correct, "game": game_of}
            n_failed = sum(1 for g in order if str(games[g]["fail"][i, mi]))
            est = accuracy_estimate(
                correct[ok], baseline=1.0 / C if judge is None else judge[2], test=True
            )
            width = est.ci_high - est.ci_low
            status, reason = measurement_status(width, limit, int(ok.sum()))
            if not ok.any():
                reason = f"the attack failed in every game ({fail[0]})"
            t, s = truth[ok], scores[ok]
            auc_v = auc(t, s[:, 1]) if C == 2 and np.unique(t).size == 2 else float("nan")
            accuracies.append(
                AttackAccuracy(
                    name,
                    m,
                    est,
                    auc_v,
                    len(order) - n_failed,
                    n_failed,
                    width,
                    limit,
                    status,
                    reason,
                )
            )
            outcomes.append(
                AttackOutcomes(name, m, game_of[ok], target[ok], t, guess[ok], s.astype(float))
            )
        comparisons += _compare(seed, names, per, mi, m)
        mre = np.array([games[g]["mre"][mi] for g in order])
        tvd = np.array([games[g]["tvd"][mi] for g in order])
        done = [a for a in accuracies[-len(names) :] if a.accuracy.n_trials]
        best = max(done, key=lambda a: a.accuracy.value) if done else None
        sizes.append(
            SizeSummary(
                m,
                float(np.nanmean(mre)) if np.isfinite(mre).any() else float("nan"),
                float(np.nanmean(tvd)) if np.isfinite(tvd).any() else float("nan"),
                best.accuracy.value if best else float("nan"),
                best.attack if best else "",
            )
        )
    return AttributeGameResult(
        config,
        tuple(accuracies),
        tuple(comparisons),
        tuple(sizes),
        tuple(sorted(failures, key=lambda f: (f.game, f.synthetic_size or 0, f.attack or ""))),
        tuple(outcomes),
    )
