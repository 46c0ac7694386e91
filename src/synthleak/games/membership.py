"""The membership-inference privacy game with shadow modelling, at scale.

The challenger holds the full dataset ``Omega``. Target records are chosen on ``Omega`` (by a
selector or explicitly, :class:`~synthleak.games.targets.Targets`); ``Omega`` minus the targets is
split at random into ``D_aux`` (the attacker's auxiliary data) and ``D_test`` (the challenger's).
The attacker builds ``n_shadows`` training datasets of ``train_size`` records from ``D_aux``
holding the target (IN) in half of them and a random other record (OUT) in the other half, runs
the generator on each and keeps ``synthetic_size`` synthetic records; the challenger builds
``n_tests`` datasets the same way from ``D_test``. Every attack trains one meta-classifier per
target on the shadow synthetic datasets and is scored by its AUC on the challenger's synthetic
datasets.

Pools
-----
``PoolMode.SHARED`` (default, LiRA-style): ONE pool of shadow datasets and ONE pool of test
datasets serve all ``T`` targets. A dataset is ``n - T`` random records plus ``T`` slots; slot
``t`` holds target ``t`` with probability 1/2 (exactly half of the datasets per target, drawn
independently across targets) and a random other record otherwise. Cost: ``n_shadows + n_tests``
generator runs instead of ``T`` times that. For target ``t`` the other targets are part of the
background population, as any record is.

``PoolMode.SINGLE`` is the paper exactly: per target, ``n - 1`` random records plus the target or a
random other record.

Execution
---------
Generator runs are batched into work units (:mod:`synthleak.games.shadow`) run by the
:class:`~synthleak.runtime.Runtime` (inline, processes or a Dask cluster); with a run directory
every finished batch is stored (compact code and value arrays) and a re-run resumes. Every
dataset draws its records and its generator's randomness from its stream
(:mod:`synthleak.runtime.seeding`) keyed by its pool and index, so the same seed gives identical
results whatever the number of workers. All attacks and all targets reuse the one set of
synthetic shadow datasets; (target, attack) fits are work units too. The test scores of every
(target, attack) are kept in the result, so trial-level statistics (ROC, empirical epsilon) can
be computed from it.

References
----------
Meeus et al. (2023), Sec. 2.3 (privacy game, shadow modelling), Sec. 5.5 and Table 1
(parameters). Carlini et al. (2022) (LiRA; shared shadow models).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthleak.attacks.base import (
    Attack,
    AttackFamily,
    fit_membership,
    needs_known_records,
    resolve_attacks,
)
from synthleak.data.release import as_table
from synthleak.data.table import Table
from synthleak.errors import BaselineWarning, InputError
from synthleak.games.shadow import GeneratorFailures, generate_pools, table_fingerprint
from synthleak.games.targets import Targets, as_targets
from synthleak.generators import make_generator
from synthleak.metrics.privacy import (
    RiskEstimate,
    TprAtFpr,
    auc_estimate,
    roc_curve,
    tpr_at_fpr,
    tpr_estimates,
)
from synthleak.modes import Knowledge, Neighbouring, PoolMode
from synthleak.queries import TableStack
from synthleak.runtime import RunStore, Runtime, WorkUnit, as_runtime
from synthleak.runtime.seeding import stream, stream_key
from synthleak.serde import FloatArray, IntArray, Result, jsonable

TPR_FPRS = (0.1, 0.01)

# keys 0-4 kept from the first layout (2 is the shadow datasets' stream, games/shadow.py)
_SPLIT = stream("membership/split", key=0)
_POOL = stream("membership/pool", key=1)
_ATTACK = stream("membership/attack", key=3)
_METRIC = stream("membership/metric", key=4)
#: The streams of ``synthleak mia``: the epsilon estimate and the cost pilot.
MIA_EPSILON = stream("mia/epsilon", key=stream_key("mia.epsilon"))
MIA_PILOT = stream("mia/pilot", key=stream_key("mia.pilot"))


@dataclass(frozen=True, repr=False)
class RocCurve(Result):
    """A ROC curve: false and true positive rates at every threshold."""

    fpr: FloatArray
    tpr: FloatArray


@dataclass(frozen=True, repr=False, eq=False)
class AttackOutcome(Result):
    """One attack against one target: AUC (bootstrap CI), accuracy, TPR at low FPR, test scores.

    Attributes
    ----------
    auc : RiskEstimate
        AUC over the test datasets, stratified bootstrap CI, baseline 0.5.
    accuracy : float
        Accuracy of the score thresholded at 0.5.
    tpr_at_fpr : dict
        TPR at FPR 0.1 and 0.01 (keys ``"0.1"``, ``"0.01"``).
    scores, labels : arrays
        The attack's score and the truth (1 = target IN) of every test dataset.
    error : str or None
        Why the attack could not run (its other fields are then NaN).
    tpr_intervals : dict of str to TprAtFpr
        TPR at FPR 0.1, 0.01 and 0.001 with its interval and the number of OUT test datasets
        (non-members) it rests on; "not resolvable" (``None``) below ``1 / fpr`` of them.
    """

    auc: RiskEstimate
    accuracy: float
    tpr_at_fpr: dict[str, float]
    scores: FloatArray
    labels: IntArray
    error: str | None = None
    tpr_intervals: dict[str, TprAtFpr] = field(default_factory=dict)

    @property
    def n_tests(self) -> int:
        return int(self.labels.size)

    def roc(self) -> RocCurve:
        """The ROC curve of the test scores."""
        fpr, tpr = roc_curve(self.labels.astype(bool), self.scores)
        return RocCurve(fpr, tpr)


@dataclass(frozen=True, repr=False, eq=False)
class TargetOutcome(Result):
    """Every attack's outcome against one target record (``row`` of the data)."""

    row: int
    selected_by: str
    attacks: dict[str, AttackOutcome]


@dataclass(frozen=True, repr=False)
class AttackSummary(Result):
    """AUC mean and standard deviation across targets (Table 2 style)."""

    auc_mean: float
    auc_sd: float
    accuracy_mean: float
    n_targets: int


@dataclass(frozen=True, repr=False)
class MembershipConfig(Result):
    """The parameters a membership game ran with (recorded in its result)."""

    generator: str
    targets: str
    train_size: int
    synthetic_size: int
    n_shadows: int
    n_tests: int
    pool: PoolMode
    aux_size: int
    test_size: int
    attacks: tuple[str, ...]
    attack_params: dict[str, dict[str, Any]]
    seed: int
    data: str
    n_records: int
    knowledge: Knowledge = Knowledge.AUXILIARY
    exact_relation: str = ""

    @property
    def neighbouring(self) -> str:
        """How an IN and an OUT training dataset differ: ``substitute`` (the target replaced by
        another record) or ``add_remove`` (the target added to the same records)."""
        if self.knowledge is Knowledge.EXACT:
            return self.exact_relation or Neighbouring.ADD_REMOVE.value
        return Neighbouring.SUBSTITUTE.value


@dataclass(frozen=True, repr=False, eq=False)
class MembershipResult(Result):
    """The game's result: per-target outcomes, summaries and the generator's failures."""

    result_kind = "membership"

    config: MembershipConfig
    targets: tuple[TargetOutcome, ...]
    failures: GeneratorFailures = field(default_factory=GeneratorFailures)

    def summary(self) -> dict[str, AttackSummary]:
        """Mean and standard deviation of the AUC across targets, per attack."""
        out = {}
        for name in self.config.attacks:
            got = [t.attacks[name] for t in self.targets if name in t.attacks]
            aucs = np.array([o.auc.value for o in got], dtype=float)
            aucs = aucs[~np.isnan(aucs)]
            acc = np.array([o.accuracy for o in got], dtype=float)
            out[name] = AttackSummary(
                float(aucs.mean()) if aucs.size else math.nan,
                float(aucs.std()) if aucs.size else math.nan,
                float(np.nanmean(acc)) if acc.size and not np.isnan(acc).all() else math.nan,
                int(aucs.size),
            )
        return out

    def summary_by_selector(self) -> dict[str, dict[str, AttackSummary]]:
        """AUC mean and s.d. per target selector and attack
        (a target selected by two counts twice).
        """
        by: dict[str, dict[str, list[float]]] = {}
        for t in self.targets:
            for sel in t.selected_by.split("+"):
                for name, o in t.attacks.items():
                    by.setdefault(sel, {}).setdefault(name, []).append(o.auc.value)
        out: dict[str, dict[str, AttackSummary]] = {}
        for sel, d in by.items():
            out[sel] = {}
            for name, v in d.items():
                arr = np.array(v, dtype=float)
                ok = ~np.isnan(arr)
                out[sel][name] = AttackSummary(
                    float(arr[ok].mean()) if ok.any() else math.nan,
                    float(arr[ok].std()) if ok.any() else math.nan,
                    math.nan,
                    len(v),
                )
        return out

    def most_exposed(self, attack: str | None = None) -> tuple[TargetOutcome, str] | None:
        """The (target, attack) with the highest AUC (of one attack, or of any)."""
        best: tuple[float, TargetOutcome, str] | None = None
        for t in self.targets:
            for name, o in t.attacks.items():
                if (attack is not None and name != attack) or math.isnan(o.auc.value):
                    continue
                if best is None or o.auc.value > best[0]:
                    best = (o.auc.value, t, name)
        return None if best is None else (best[1], best[2])

    def to_frame(self) -> pd.DataFrame:
        """One row per target and attack: AUC, CI, accuracy, TPR at low FPR."""
        rows = []
        for t in self.targets:
            for name, o in t.attacks.items():
                rows.append(
                    {
                        "row": t.row,
                        "selected_by": t.selected_by,
                        "attack": name,
                        "auc": o.auc.value,
                        "auc_ci_low": o.auc.ci_low,
                        "auc_ci_high": o.auc.ci_high,
                        "accuracy": o.accuracy,
                        **{f"tpr_at_fpr_{k}": v for k, v in o.tpr_at_fpr.items()},
                        "n_tests": o.n_tests,
                        "error": o.error,
                    }
                )
        return pd.DataFrame(rows)


# --- work units (top level: picklable for processes and Dask) ---------------------------------


@dataclass
class _Pools:
    """Synthetic datasets and IN/OUT labels of every pool (shared or one per target)."""

    mode: PoolMode
    stacks: dict[int, TableStack]
    labels: dict[int, np.ndarray]  # pool id -> (S,) labels (single) or (S, T) (shared)

    def _get(self, pool_id: int, t: int) -> tuple[TableStack, np.ndarray]:
        y = self.labels[pool_id]
        return self.stacks[pool_id], (y[:, t] if y.ndim == 2 else y)

    def shadow(self, t: int) -> tuple[TableStack, np.ndarray]:
        return self._get(0 if self.mode is PoolMode.SHARED else 2 * t + 2, t)

    def test(self, t: int) -> tuple[TableStack, np.ndarray]:
        return self._get(1 if self.mode is PoolMode.SHARED else 2 * t + 3, t)


def _attack_unit(shared: dict[str, Any], t: int, attack_index: int) -> dict[str, np.ndarray]:
    """Fit attack ``attack_index`` against target ``t`` on the shadow pool; score the test pool."""
    import copy

    pools = shared["pools"]
    shadow, y_shadow = pools.shadow(t)
    test, y_test = pools.test(t)
    target: Table = shared["omega"].take([shared["targets"][t]])
    rng = _ATTACK.rng(int(shared["seed"]), t, attack_index)
    model = copy.deepcopy(shared["attacks"][attack_index][1])
    known = other = None
    if t in shared["known"]:  # exact knowledge: the other training records, the replacement
        known_rows, other_row = shared["known"][t]
        known = shared["omega"].take(known_rows)
        other = None if other_row < 0 else shared["omega"].take([other_row])
    c0 = time.process_time()
    fit_membership(
        model,
        target,
        shadow,
        y_shadow,
        rng=rng,
        population=shared["population"],
        known=known,
        other=other,
    )
    scores = np.asarray(model.score(test), dtype=np.float64)
    # CPU seconds of this process for fit + score, kept in the run directory for benchmarks
    # (not part of the result, which must not depend on the machine)
    cpu = np.array([time.process_time() - c0])
    return {"scores": scores, "labels": y_test.astype(np.int8), "cpu_seconds": cpu}


def exact_knowledge_attacks(attacks: list[tuple[str, Attack]]) -> list[str]:
    """Names of the attacks that use the other training records (exact knowledge only)."""
    return [name for name, a in attacks if needs_known_records(a)]


def _balanced(rng: np.random.Generator, size: int) -> np.ndarray:
    y = np.zeros(size, dtype=bool)
    y[: size // 2] = True
    return rng.permutation(y)


def _params_key(attack: Attack, params: dict[str, Any] | None) -> str:
    """A stable hash of an attack's hyperparameters (run-store unit keys): the parameters given
    with its name, or the attributes of an attack object."""
    obj = params if params is not None else jsonable(vars(attack))
    text = json.dumps(obj, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def _whole(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or int(value) != value or value < low:
        raise InputError(f"{name} must be a whole number >= {low}, got {value!r}")
    return int(value)


class MembershipGame:
    """Membership inference against a generator, for many targets, with shadow modelling.

    Parameters
    ----------
    generator : str
        Generator spec (``synthpop``, ``baynet:k=2``, ...).
    targets : Targets or sequence of int
        The records attacked (default: the 10 most vulnerable by ``V_k``).
    train_size, synthetic_size : int
        Training records per dataset (``|D|``) and synthetic records released (``|D^s|``).
    n_shadows, n_tests : int
        Shadow datasets (attacker) and test datasets (challenger).
    attacks : sequence of str or MembershipAttack
        Registered membership attacks (names) or attack objects.
    attack_params : dict, optional
        Hyperparameters per attack name (e.g. ``{"query": {"n_queries": 100000}}``).
    pool : PoolMode
        ``shared`` (default) or ``single`` (the paper exactly).
    aux_size, test_size : int, optional
        ``|D_aux|`` and ``|D_test|``. Defaults as Table 1 (10,000 and 5,000) when the data allows,
        otherwise two thirds and one third of the non-target records.
    batch_size : int
        Datasets per work unit.
    knowledge : Knowledge
        ``auxiliary`` (default) or ``exact`` (the attacker knows every training record but the
        target; one pool per target, IN and OUT datasets differ only in the target). With
        ``exact`` the auxiliary and test splits are not used.
    neighbouring : {"add_remove", "substitute"}, optional
        With ``exact`` knowledge, how IN and OUT differ: ``add_remove`` (default; OUT = D, IN =
        D plus the target) or ``substitute`` (OUT = D plus one fixed other record, the same in
        every OUT dataset of the target; IN = D plus the target), the relation of a "bounded"
        DP claim. With ``auxiliary`` knowledge the datasets always differ by substitution.

    Examples
    --------
    >>> game = MembershipGame("baynet", targets=Targets.top(5), n_shadows=200)  # doctest: +SKIP
    >>> result = game.run(df, seed=0, runtime=Runtime(workers=2))              # doctest: +SKIP
    >>> result.to_frame()                                                      # doctest: +SKIP

    Notes
    -----
    Threat model: black-box knowledge of the generator (the attacker can run it on data of their
    own) and auxiliary data from the same population (``D_aux``), disjoint from the challenger's.

    References
    ----------
    Meeus et al. (2023), Sec. 2.3, Sec. 5.5, Table 1.
    """

    def __init__(
        self,
        generator: str,
        *,
        targets: Targets | Sequence[int] | None = None,
        train_size: int = 1000,
        synthetic_size: int = 1000,
        n_shadows: int = 4000,
        n_tests: int = 200,
        attacks: Sequence[str | Attack] = ("query", "distance", "groundhog"),
        attack_params: dict[str, dict[str, Any]] | None = None,
        pool: PoolMode | str = PoolMode.SHARED,
        aux_size: int | None = None,
        test_size: int | None = None,
        batch_size: int = 50,
        knowledge: Knowledge | str = Knowledge.AUXILIARY,
        neighbouring: Neighbouring | str | None = None,
    ) -> None:
        self.generator = generator
        self.knowledge = knowledge
        self.neighbouring = neighbouring
        self.targets = targets
        self.train_size = train_size
        self.synthetic_size = synthetic_size
        self.n_shadows = n_shadows
        self.n_tests = n_tests
        self.attacks = attacks
        self.attack_params = attack_params
        self.pool = pool
        self.aux_size = aux_size
        self.test_size = test_size
        self.batch_size = batch_size

    # --- validation -----------------------------------------------------------------------
    def validate(self, data: pd.DataFrame | Table, *, seed: int) -> None:
        """Check every parameter against ``data`` (cheap: targets are resolved, nothing is
        generated); raises :class:`InputError`. :meth:`run` does the same checks."""
        omega = as_table(data)
        tgt = as_targets(self.targets if self.targets is not None else Targets.top(10))
        self._validate(omega, tgt.resolve(omega, seed=int(seed)).rows)
        self._check_knowledge(self.resolved_attacks())

    def _given_attacks(self) -> list[str | Attack]:
        """``attacks`` as a list, as given (names or attack objects)."""
        return [self.attacks] if isinstance(self.attacks, str | Attack) else list(self.attacks)

    def resolved_attacks(self) -> list[tuple[str, Attack]]:
        """The game's attacks as ``(name, unfitted attack)`` pairs."""
        return resolve_attacks(AttackFamily.MEMBERSHIP, self._given_attacks(), self.attack_params)

    def _check_knowledge(self, attacks: list[tuple[str, Attack]]) -> None:
        """Attacks that use the other training records need exact knowledge."""
        if Knowledge(self.knowledge) is Knowledge.EXACT:
            return
        names = exact_knowledge_attacks(attacks)
        if names:
            raise InputError(
                f"the {', '.join(names)} attack uses the other training records, which only an "
                "attacker with exact knowledge has: add knowledge='exact' or drop the attack"
            )

    def _validate(self, omega: Table, targets: np.ndarray) -> tuple[PoolMode, int, int]:
        try:
            mode = PoolMode(self.pool)
        except ValueError:
            raise InputError(f"unknown pool {self.pool!r}: use 'shared' or 'single'") from None
        try:
            knowledge = Knowledge(self.knowledge)
        except ValueError:
            raise InputError(
                f"unknown knowledge {self.knowledge!r}: use 'auxiliary' or 'exact'"
            ) from None
        make_generator(self.generator)  # unknown generator / bad parameters -> InputError
        n = _whole("train_size", self.train_size, 2)
        _whole("synthetic_size", self.synthetic_size, 1)
        _whole("n_shadows", self.n_shadows, 4)
        _whole("n_tests", self.n_tests, 4)
        _whole("batch_size", self.batch_size, 1)
        if targets.size == 0:
            raise InputError("targets selects no record: select at least one", parameter="targets")
        if np.unique(targets).size != targets.size:
            raise InputError("a target row is listed twice: list each target once")
        rest = len(omega) - targets.size
        relation = self._relation(knowledge)
        if knowledge is Knowledge.EXACT:
            need = n if relation is Neighbouring.SUBSTITUTE else n - 1
            if need > rest:
                raise InputError(
                    f"train_size {n} needs {need} records besides the target (the known ones"
                    + (" and the replacement" if need == n else "")
                    + f"), but the data has {rest} non-target records: lower train_size"
                )
            return PoolMode.SINGLE, 0, 0
        aux = self.aux_size if self.aux_size is not None else min(10_000, (2 * rest) // 3)
        test = self.test_size if self.test_size is not None else min(5_000, rest - aux)
        if aux < 1 or test < 1 or aux + test > rest:
            raise InputError(
                f"aux_size {aux} and test_size {test} do not fit in the {rest} non-target "
                "records: give smaller sizes"
            )
        if n > aux:
            raise InputError(
                f"train_size {n} is larger than D_aux ({aux} records): lower train_size or "
                "raise aux_size"
            )
        if n > test:
            raise InputError(
                f"train_size {n} is larger than D_test ({test} records): lower train_size or "
                "raise test_size"
            )
        if mode is PoolMode.SHARED and targets.size >= n:
            raise InputError(
                f"a shared pool holds every target in one dataset of train_size = {n} records, "
                f"but there are {targets.size} targets: use fewer targets, a larger train_size "
                "or pool='single'"
            )
        return mode, int(aux), int(test)

    def _relation(self, knowledge: Knowledge) -> Neighbouring:
        """The neighbouring relation of IN and OUT datasets (``neighbouring`` checked)."""
        natural = (
            Neighbouring.ADD_REMOVE if knowledge is Knowledge.EXACT else Neighbouring.SUBSTITUTE
        )
        if self.neighbouring is None:
            return natural
        try:
            relation = Neighbouring(self.neighbouring)
        except ValueError:
            raise InputError(
                f"unknown neighbouring {self.neighbouring!r}: use 'add_remove' or 'substitute'"
            ) from None
        if knowledge is Knowledge.AUXILIARY and relation is not natural:
            raise InputError(
                "neighbouring='add_remove' needs knowledge='exact': with auxiliary knowledge the "
                "datasets differ by substitution"
            )
        return relation

    # --- design -----------------------------------------------------------------------------
    def _design(
        self,
        seed: int,
        mode: PoolMode,
        targets: np.ndarray,
        aux_rows: np.ndarray,
        test_rows: np.ndarray,
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Pool id -> (rows (S, n) Omega indices, labels). Shared: ids 0/1; single: 2t+2 / 2t+3."""
        n, T = int(self.train_size), targets.size
        design: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if Knowledge(self.knowledge) is Knowledge.EXACT:
            return self._exact_design(seed, targets, aux_rows)
        specs = (
            [(0, aux_rows, self.n_shadows, None), (1, test_rows, self.n_tests, None)]
            if mode is PoolMode.SHARED
            else [
                (2 * t + 2 + k, src, size, t)
                for t in range(T)
                for k, (src, size) in enumerate(
                    ((aux_rows, self.n_shadows), (test_rows, self.n_tests))
                )
            ]
        )
        for pool_id, src, size, t in specs:
            rng = _POOL.rng(seed, pool_id)
            rows = np.empty((int(size), n), dtype=np.int64)
            for i in range(int(size)):
                rows[i] = src[rng.choice(src.size, n, replace=False)]
            if t is None:  # shared: slot n - T + j holds target j or its filler
                labels = np.stack([_balanced(rng, int(size)) for _ in range(T)], axis=1)
                slots = rows[:, n - T :]
                slots[labels] = np.broadcast_to(targets, slots.shape)[labels]
            else:  # single: the last slot holds the target or a random other record
                labels = _balanced(rng, int(size))
                rows[labels, n - 1] = targets[t]
            design[pool_id] = (rows, labels)
        return design

    def _exact_design(
        self, seed: int, targets: np.ndarray, rest: np.ndarray
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Per target: one known dataset D of ``train_size - 1`` records; IN = D + the target,
        OUT = D (padded with -1), or with ``substitute`` D + one fixed other record. Shadow and
        test pools differ only in the generator's randomness."""
        n = int(self.train_size)
        swap = self._relation(Knowledge.EXACT) is Neighbouring.SUBSTITUTE
        design: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for t in range(targets.size):
            picked = _POOL.rng(seed, 2 * t + 2, 0).choice(
                rest.size, n if swap else n - 1, replace=False
            )
            known = rest[picked[: n - 1]]
            other = int(rest[picked[n - 1]]) if swap else -1
            for k, size in enumerate((self.n_shadows, self.n_tests)):
                pool_id = 2 * t + 2 + k
                labels = _balanced(_POOL.rng(seed, pool_id), int(size))
                rows = np.empty((int(size), n), dtype=np.int64)
                rows[:, : n - 1] = known
                rows[:, n - 1] = np.where(labels, targets[t], other)
                design[pool_id] = (rows, labels)
        return design

    # --- running ----------------------------------------------------------------------------
    def run(
        self, data: pd.DataFrame | Table, *, seed: int, runtime: Runtime | None = None
    ) -> MembershipResult:
        """Play the game for every target of ``data``; returns per-target metrics.

        Parameters
        ----------
        data : DataFrame or Table
            The full dataset ``Omega`` the targets come from.
        seed : int
            Same seed, same result (whatever the runtime's workers or cluster).
        runtime : Runtime, optional
            Workers, cluster, resumable run directory, progress bars.
        """
        rt = as_runtime(runtime)
        omega = as_table(data)
        spec = as_targets(self.targets if self.targets is not None else Targets.top(10))
        resolved = spec.resolve(omega, seed=int(seed))
        tgt = resolved.rows
        mode, aux_size, test_size = self._validate(omega, tgt)
        attacks = self.resolved_attacks()
        self._check_knowledge(attacks)
        params = {
            name: dict((self.attack_params or {}).get(name, {}))
            for (name, _), a in zip(attacks, self._given_attacks(), strict=True)
            if isinstance(a, str)
        }
        knowledge = Knowledge(self.knowledge)
        rng = _SPLIT.rng(int(seed))
        rest = np.setdiff1d(np.arange(len(omega)), tgt)
        if knowledge is Knowledge.EXACT:
            aux_rows, test_rows = rest, rest[:0]
        else:
            perm = rng.permutation(rest)
            aux_rows = np.sort(perm[:aux_size])
            test_rows = np.sort(perm[aux_size : aux_size + test_size])
        design = self._design(int(seed), mode, tgt, aux_rows, test_rows)

        # the run store's configuration (its fingerprint guards the run directory)
        store_config: dict[str, Any] = {
            "generator": self.generator,
            "n": int(self.train_size),
            "m": int(self.synthetic_size),
            "n_shadow": int(self.n_shadows),
            "n_test": int(self.n_tests),
            "pool": mode.value,
            "aux_size": aux_size,
            "test_size": test_size,
            "seed": int(seed),
            "targets": tgt.tolist(),
            "data": table_fingerprint(omega),
            "n_records": len(omega),
        }
        relation = self._relation(knowledge)
        if knowledge is Knowledge.EXACT:
            store_config["knowledge"] = knowledge.value
            if relation is Neighbouring.SUBSTITUTE:
                store_config["neighbouring"] = relation.value
        config = MembershipConfig(
            generator=self.generator,
            targets=str(spec),
            train_size=int(self.train_size),
            synthetic_size=int(self.synthetic_size),
            n_shadows=int(self.n_shadows),
            n_tests=int(self.n_tests),
            pool=mode,
            aux_size=aux_size,
            test_size=test_size,
            attacks=tuple(name for name, _ in attacks),
            attack_params=params,
            seed=int(seed),
            data=store_config["data"],
            n_records=len(omega),
            knowledge=knowledge,
            exact_relation=relation.value if knowledge is Knowledge.EXACT else "",
        )
        store = rt.store(store_config)
        try:
            stacks, labels, failures = generate_pools(
                omega,
                design,
                generator=self.generator,
                synthetic_size=int(self.synthetic_size),
                seed=int(seed),
                batch_size=int(self.batch_size),
                runtime=rt,
                store=store,
            )
            self._check_pools(labels, failures)
            pools = _Pools(mode, stacks, labels)
            population = omega.take(aux_rows)
            known = {}
            if knowledge is Knowledge.EXACT:  # per target: its known records, its replacement
                n = int(self.train_size)
                for t in range(tgt.size):
                    rows, y = design[2 * t + 2]
                    out = rows[~y.astype(bool), n - 1]
                    known[t] = (rows[0, : n - 1], int(out[0]) if out.size else -1)
            outcomes = self._attack(
                omega, resolved, pools, attacks, params, int(seed), rt, store, population, known
            )
            result = MembershipResult(config, tuple(outcomes), failures)
            if store is not None:
                store.write_json("result.json", result.to_dict())
                store.write_json("schema.json", json.loads(omega.schema.to_json()))
            return result
        finally:
            if store is not None:
                store.close()

    def _check_pools(self, labels: dict[int, np.ndarray], failures: GeneratorFailures) -> None:
        for pool_id, y in labels.items():
            per_target = y if y.ndim == 2 else y[:, None]
            if (
                not len(y)
                or (per_target.sum(axis=0) == 0).any()
                or (per_target.sum(axis=0) == len(y)).any()
            ):
                raise InputError(
                    f"the generator {self.generator!r} failed on too many datasets of pool "
                    f"{pool_id} ({failures.failed_datasets} of {failures.total_datasets}) to "
                    "train or test the attacks: " + "; ".join(list(failures.messages)[:3])
                )

    def _attack(
        self,
        omega: Table,
        resolved: Any,
        pools: _Pools,
        attacks: list[tuple[str, Attack]],
        params: dict[str, dict[str, Any]],
        seed: int,
        rt: Runtime,
        store: RunStore | None,
        population: Table,
        known: dict[int, tuple[np.ndarray, int]],
    ) -> list[TargetOutcome]:
        tgt = resolved.rows
        units = []
        for a_idx, (name, attack) in enumerate(attacks):
            key = _params_key(attack, params.get(name))
            for t in range(tgt.size):
                units.append(WorkUnit(f"atk-{name}-{key}-t{t}", (t, a_idx)))
        shared = {
            "omega": omega,
            "targets": tgt,
            "pools": pools,
            "seed": int(seed),
            "attacks": attacks,
            "population": population,
            "known": known,
        }
        res = rt.run(
            _attack_unit, units, shared=shared, store=store, description="attacks (target x attack)"
        )
        outcomes: list[TargetOutcome] = []
        for t in range(tgt.size):
            per: dict[str, AttackOutcome] = {}
            for a_idx, (name, _) in enumerate(attacks):
                r = res[units[a_idx * tgt.size + t].key]
                if r.arrays is None:
                    per[name] = failed_outcome(str(r.error))
                    continue
                per[name] = attack_outcome(
                    r.arrays["labels"],
                    r.arrays["scores"],
                    rng=_METRIC.rng(seed, t, a_idx),
                    name=f"{name} on row {int(tgt[t])}",
                )
            outcomes.append(TargetOutcome(int(tgt[t]), resolved.selected_by[t], per))
        return outcomes


def failed_outcome(error: str) -> AttackOutcome:
    """The outcome of an attack that could not run (NaN figures, the reason kept)."""
    nan = math.nan
    return AttackOutcome(
        RiskEstimate(nan, nan, nan, 0.95, 0, 0.5),
        nan,
        {str(f): nan for f in TPR_FPRS},
        np.zeros(0),
        np.zeros(0, dtype=np.int64),
        error,
    )


def attack_outcome(
    labels: np.ndarray,
    scores: np.ndarray,
    *,
    rng: np.random.Generator,
    name: str = "attack",
    n_boot: int = 1000,
) -> AttackOutcome:
    """AUC (stratified bootstrap CI), accuracy at threshold 0.5 and TPR at FPR 0.1 / 0.01.

    Warns with :class:`BaselineWarning` when the AUC interval covers 0.5 (no better than a guess).
    """
    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    est = auc_estimate(y, s, rng=rng, n_boot=n_boot)
    acc = float(np.mean((s > 0.5) == y)) if y.size else math.nan
    tpr = {str(f): tpr_at_fpr(y, s, f) for f in TPR_FPRS}
    if not math.isnan(est.ci_low) and est.ci_low <= 0.5 <= est.ci_high:
        warnings.warn(
            f"{name}: AUC {est.value:.3f} (95% CI {est.ci_low:.3f}-{est.ci_high:.3f}) is no "
            "better than a random guess (0.5)",
            BaselineWarning,
            stacklevel=2,
        )
    return AttackOutcome(est, acc, tpr, s, y.astype(np.int64), tpr_intervals=tpr_estimates(y, s))
