"""The no-box membership game: audit a release without its generator.

The challenger holds the training (original) records, the release, and a control set of real
records of the same population that the generator never saw. It draws

* **members**: ``n_members`` original records, scored by every attack (label 1);
* **non-members**: ``n_non_members`` control records, scored (label 0);
* **reference**: the rest of the control, handed to the attacks as their sample of the
  population (never scored).

Every attack (``nobox-membership`` family) is fitted on the release and the reference and scores
the members and non-members; its AUC (stratified bootstrap CI), its TPR at FPR 0.1, 0.01 and
0.001 (each with an interval that includes the uncertainty of the threshold, and the number of
non-members it rests on; "not resolvable at this size" below ``1 / fpr`` non-members) and its
ROC are computed on all of them. Since members and non-members are exchangeable
with respect to the release and the reference when the release carries no information about
its training data, every attack's AUC is 0.5 in expectation under that null, at any sizes.

The strongest attack, without a winner's curse. The maximum of several AUCs measured on the
same records is biased upwards. The candidates are therefore split at random (members and
non-members separately, half and half) into a **selection** half, on which the attack with the
highest AUC is chosen, and an **evaluation** half, on which its AUC and CI are reported. The
result shows both figures.

The attacks combined. Beside the best single attack, a stacked **ensemble** weighs every attack's
scores (probit ranks, logistic regression) on the selection half and is measured on the
evaluation half (:class:`EnsembleAttack`). The ensemble is an option of the game, not an attack
of the family: an attack of the family never sees labels, and weighting attacks needs the
members' labels, which only the challenger holds; as a game step it also reuses the scores
already computed instead of refitting every attack.

Per-record exposure. For the ``n_exposed`` most isolated original records by ``V_k`` (Meeus
et al. 2023, Definition 2) and any ``rows`` the caller names, every attack's score is given with
its percentile among the non-member scores and its empirical p-value
``(1 + #{non-members scoring >= s}) / (1 + n_non_members)``: how unusual the record's score
would be for a person who was not in the training data.

References
----------
Meeus, Guépin, Creţu and de Montjoye (2023), Sec. 4, Definition 2 (``V_k``).
van Breugel, Sun, Qian and van der Schaar (2023) (a reference sample of the population).
Yao, Krčo, Ganev and de Montjoye (2025) (distance tests against membership attacks).
Ward, Lin, Wang and Cheng (2025) (no single no-box attack dominates).
Giomi, Boenisch, Wehmeyer and Tasnádi (2023) (a control set as the baseline).
Hanley and McNeil (1982) (AUC); Efron and Tibshirani (1993) (bootstrap).
Carlini et al. (2022) (TPR at low FPR); Clopper and Pearson (1934) (exact binomial interval).
Wolpert (1992) (stacked generalisation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthleak.attacks.base import AttackFamily, NoBoxMembershipAttack, resolve_attacks
from synthleak.data.release import Release
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.metrics.copies import CopyReport, copy_report
from synthleak.metrics.privacy import (
    LOW_FPRS,
    RiskEstimate,
    TprAtFpr,
    auc,
    auc_estimate,
    bootstrap_draws,
    roc_curve,
    tpr_at_fpr,
    tpr_estimates,
)
from synthleak.runtime.context import Runtime, as_runtime
from synthleak.runtime.executor import WorkUnit
from synthleak.runtime.seeding import stream, stream_key
from synthleak.serde import FloatArray, IntArray, Result

_SPLIT = stream("nobox/split", key=stream_key("nobox-split"))
_ATTACK = stream("nobox/attack", labelled="nobox-attack:{}")
_METRIC = stream("nobox/metric", labelled="nobox-metric:{}")

__all__ = [
    "DEFAULT_ATTACKS",
    "TPR_FPRS",
    "BestAttack",
    "EnsembleAttack",
    "NoBoxAttackOutcome",
    "NoBoxMembershipGame",
    "NoBoxMembershipResult",
    "RecordExposure",
]

DEFAULT_ATTACKS = (
    "dcr",
    "dcr-diff",
    "domias",
    "neighbourhood",
    "classifier",
    "gen-lra",
    "kde",
    "mc",
)
"""Played by default: every registered no-box attack but ``dpi`` and ``logan``, which cost little
but see a copied release only faintly at the audit's shapes (``benchmarks/RESULTS_nobox.md``)."""
TPR_FPRS = LOW_FPRS
MIN_NON_MEMBERS = 20  # per role: fewer gives AUC intervals too wide to say anything
MIN_REFERENCE = 20
AUDIT_NON_MEMBERS_PER_MEMBER = 2
"""The audit scores at most this many control records per member as non-members (the rest of
the control is the reference). Every scored record is searched against the whole release, so
the cost is O(scored x release); beyond two non-members per member the AUC interval narrows
by at most 18 % (its variance goes as ``1/n_members + 1/n_non_members``)."""


@dataclass(frozen=True, repr=False)
class NoBoxAttackOutcome(Result):
    """One attack's figures on all scored members and non-members.

    Attributes
    ----------
    auc : RiskEstimate
        AUC with its stratified bootstrap CI (baseline 0.5).
    tpr_at_fpr : dict of str to float or None
        TPR at FPR ``"0.1"``, ``"0.01"``, ``"0.001"``; ``None`` where there are too few
        non-members for that FPR (fewer than ``1 / fpr``), with the reason in ``notes``.
    roc_fpr, roc_tpr : FloatArray
    selection_auc, evaluation_auc : float
        AUC on the selection half and on the evaluation half of the candidates.
    error : str or None
        Why the attack could not be scored (its figures are then NaN).
    notes : tuple of str
    tpr_intervals : dict of str to TprAtFpr
        The same TPRs with their intervals and the number of non-members they rest on
        (:func:`synthleak.metrics.privacy.tpr_at_fpr_estimate`).
    """

    auc: RiskEstimate
    tpr_at_fpr: dict[str, float | None]
    roc_fpr: FloatArray
    roc_tpr: FloatArray
    selection_auc: float
    evaluation_auc: float
    error: str | None = None
    notes: tuple[str, ...] = ()
    tpr_intervals: dict[str, TprAtFpr] = field(default_factory=dict)


@dataclass(frozen=True, repr=False)
class BestAttack(Result):
    """The strongest attack, chosen on the selection half and measured on the evaluation half.

    Attributes
    ----------
    attack : str
    auc : RiskEstimate
        AUC on the evaluation half (CI: stratified bootstrap), free of the selection's bias.
    selection_auc : float
        Its AUC on the selection half (biased upwards as the maximum of several).
    selected_on, evaluated_on : int
        Candidates (members + non-members) in each half.
    tpr_at_fpr : dict of str to TprAtFpr
        TPR at each FPR of :data:`TPR_FPRS` on the evaluation half, with intervals.
    """

    attack: str
    auc: RiskEstimate
    selection_auc: float
    selected_on: int
    evaluated_on: int
    tpr_at_fpr: dict[str, TprAtFpr] = field(default_factory=dict)


@dataclass(frozen=True, repr=False)
class EnsembleAttack(Result):
    """Every attack's score combined, weighted on the selection half, measured on the other.

    Stacking (Wolpert 1992): each attack's scores become probit ranks among all candidates
    (``Phi^-1((rank - 1/2) / n)``, computed without labels, so attacks on different scales
    weigh alike and a few extreme scores do not dominate), and a logistic regression
    (L2-penalised, scikit-learn defaults) of membership on them is fitted on the **selection**
    half. Its linear score is then computed for the **evaluation** half, whose labels took no
    part in choosing or weighting attacks: the AUC, its interval and the TPRs there are free
    of the selection's bias, like :class:`BestAttack`'s.

    Attributes
    ----------
    attacks : tuple of str
        Attacks combined (every attack that could be scored).
    weights : dict of str to float
        Logistic-regression coefficient of each attack's probit rank.
    intercept : float
    auc : RiskEstimate
        AUC on the evaluation half (stratified bootstrap CI).
    selection_auc : float
        AUC on the selection half it was fitted on (optimistic).
    selected_on, evaluated_on : int
    tpr_at_fpr : dict of str to TprAtFpr
        On the evaluation half.
    """

    attacks: tuple[str, ...]
    weights: dict[str, float]
    intercept: float
    auc: RiskEstimate
    selection_auc: float
    selected_on: int
    evaluated_on: int
    tpr_at_fpr: dict[str, TprAtFpr] = field(default_factory=dict)


@dataclass(frozen=True, repr=False)
class RecordExposure(Result):
    """Every attack's verdict on one original record.

    Attributes
    ----------
    row : int
        0-based row of the original data.
    v_k : float
        Its vulnerability score ``V_k`` (NaN when not computed).
    selected_by : str
        ``"v_k"`` (among the most isolated records) or ``"rows"`` (named by the caller).
    scores, percentiles, p_values : dict of str to float
        Per attack: the score, its percentile (0-100) among non-member scores (ties count
        half) and the empirical p-value ``(1 + #{non-member scores >= score}) / (1 + n)``.
    """

    row: int
    v_k: float
    selected_by: str
    scores: dict[str, float]
    percentiles: dict[str, float]
    p_values: dict[str, float]


@dataclass(frozen=True, repr=False)
class NoBoxMembershipResult(Result):
    """Outcome of :class:`NoBoxMembershipGame` (JSON round trip: :meth:`to_json`).

    Attributes
    ----------
    attacks : dict of str to NoBoxAttackOutcome
    best : BestAttack or None
        ``None`` when no attack could be scored.
    ensemble : EnsembleAttack or None
        The stacked combination of the attacks, reported beside ``best``; ``None`` when fewer
        than two attacks were scored or the game was played with ``ensemble=False``.
    records : tuple of RecordExposure
    copies : CopyReport or None
    member_rows : IntArray
        Original rows scored as members.
    non_member_rows : IntArray
        Control rows scored as non-members.
    n_reference, n_synthetic, n_original, n_control : int
    selection : IntArray
        1 for candidates (members then non-members) in the selection half, 0 in the evaluation
        half.
    scores : dict of str to FloatArray
        Every attack's scores of the candidates (members then non-members).
    seed : int
    k : int
        Neighbours of ``V_k``.
    notes : tuple of str
    """

    attacks: dict[str, NoBoxAttackOutcome]
    best: BestAttack | None
    records: tuple[RecordExposure, ...]
    copies: CopyReport | None
    member_rows: IntArray
    non_member_rows: IntArray
    n_reference: int
    n_synthetic: int
    n_original: int
    n_control: int
    selection: IntArray
    scores: dict[str, FloatArray]
    seed: int
    k: int = 5
    notes: tuple[str, ...] = ()
    ensemble: EnsembleAttack | None = None

    @property
    def labels(self) -> np.ndarray:
        """1 for members, 0 for non-members, in candidate order."""
        return np.r_[np.ones(self.member_rows.size), np.zeros(self.non_member_rows.size)].astype(
            np.int64
        )

    def to_frame(self, level: str = "attack") -> pd.DataFrame:
        """A table of the result.

        ``level="attack"``: one row per attack (AUC and CI, TPR at each FPR, selection and
        evaluation AUC, whether it was the strongest). ``level="record"``: one row per exposed
        record and attack (score, percentile, p-value). ``level="candidate"``: one row per scored
        candidate (role, source row, half, and every attack's score).
        """
        if level == "attack":
            rows = []
            for name, o in self.attacks.items():
                rows.append(
                    {
                        "attack": name,
                        "auc": o.auc.value,
                        "auc_ci_low": o.auc.ci_low,
                        "auc_ci_high": o.auc.ci_high,
                        **{f"tpr_at_fpr_{k}": v for k, v in o.tpr_at_fpr.items()},
                        "selection_auc": o.selection_auc,
                        "evaluation_auc": o.evaluation_auc,
                        "best": self.best is not None and self.best.attack == name,
                        "error": o.error,
                    }
                )
            return pd.DataFrame(rows)
        if level == "record":
            rows = [
                {
                    "row": r.row,
                    "v_k": r.v_k,
                    "selected_by": r.selected_by,
                    "attack": a,
                    "score": r.scores[a],
                    "percentile": r.percentiles[a],
                    "p_value": r.p_values[a],
                }
                for r in self.records
                for a in r.scores
            ]
            cols = ["row", "v_k", "selected_by", "attack", "score", "percentile", "p_value"]
            return pd.DataFrame(rows, columns=cols)
        if level == "candidate":
            n_m = self.member_rows.size
            df = pd.DataFrame(
                {
                    "role": ["member"] * n_m + ["non-member"] * self.non_member_rows.size,
                    "source": ["original"] * n_m + ["control"] * self.non_member_rows.size,
                    "row": np.r_[self.member_rows, self.non_member_rows],
                    "half": np.where(self.selection == 1, "selection", "evaluation"),
                }
            )
            for name, s in self.scores.items():
                df[name] = s
            return df
        raise InputError(f"level must be 'attack', 'record' or 'candidate', got {level!r}")

    def summary(self) -> dict[str, Any]:
        """The command-line JSON shape (``synthleak mia --original ... --control ...``)."""
        attacks = {
            name: {
                "auc": o.auc.value,
                "auc_ci": [o.auc.ci_low, o.auc.ci_high],
                "tpr_at_fpr": dict(o.tpr_at_fpr),
                **({"tpr_at_fpr_ci": _tpr_summary(o.tpr_intervals)} if o.tpr_intervals else {}),
                **({"error": o.error} if o.error else {}),
                **({"notes": list(o.notes)} if o.notes else {}),
            }
            for name, o in self.attacks.items()
        }
        best = None
        if self.best is not None:
            best = {
                "attack": self.best.attack,
                "auc": self.best.auc.value,
                "auc_ci": [self.best.auc.ci_low, self.best.auc.ci_high],
                "selection_auc": self.best.selection_auc,
                "selected_on": self.best.selected_on,
                "evaluated_on": self.best.evaluated_on,
                "tpr_at_fpr": _tpr_summary(self.best.tpr_at_fpr),
            }
        ensemble = None
        if self.ensemble is not None:
            e = self.ensemble
            ensemble = {
                "attacks": list(e.attacks),
                "weights": dict(e.weights),
                "intercept": e.intercept,
                "auc": e.auc.value,
                "auc_ci": [e.auc.ci_low, e.auc.ci_high],
                "selection_auc": e.selection_auc,
                "selected_on": e.selected_on,
                "evaluated_on": e.evaluated_on,
                "tpr_at_fpr": _tpr_summary(e.tpr_at_fpr),
            }
        return {
            "mode": "no-box",
            "attacks": attacks,
            "best": best,
            "ensemble": ensemble,
            "records": [
                {
                    "row": r.row,
                    "v_k": r.v_k,
                    "selected_by": r.selected_by,
                    "scores": {
                        a: {
                            "score": r.scores[a],
                            "percentile": r.percentiles[a],
                            "p_value": r.p_values[a],
                        }
                        for a in r.scores
                    },
                }
                for r in self.records
            ],
            "copies": None if self.copies is None else self.copies.summary(),
            "sizes": {
                "members": int(self.member_rows.size),
                "non_members": int(self.non_member_rows.size),
                "reference": self.n_reference,
                "synthetic": self.n_synthetic,
                "original": self.n_original,
                "control": self.n_control,
            },
            "notes": list(self.notes),
        }


# --- statistics (pure functions) -------------------------------------------------------------


def _tpr_summary(tprs: dict[str, TprAtFpr]) -> dict[str, dict[str, Any]]:
    return {
        k: {
            "tpr": t.value,
            "ci": None if t.value is None else [t.ci_low, t.ci_high],
            "n_non_members": t.n_non_members,
            **({"note": t.note} if t.note else {}),
        }
        for k, t in tprs.items()
    }


def probit_ranks(scores: np.ndarray) -> np.ndarray:
    """``Phi^-1((rank - 1/2) / n)`` of each score (ties share their average rank)."""
    from scipy.special import ndtri

    from synthleak.metrics.privacy import rankdata

    s = np.asarray(scores, dtype=np.float64)
    return np.asarray(ndtri((rankdata(s) - 0.5) / max(s.size, 1)), dtype=np.float64)


def stack_scores(
    scores: dict[str, np.ndarray], labels: np.ndarray, fit_on: np.ndarray
) -> tuple[np.ndarray, dict[str, float], float]:
    """Stacked score of every candidate from a logistic regression fitted on ``fit_on`` only.

    Features are the probit ranks of each attack's scores among all candidates (no labels
    used); the regression sees the labels of the ``fit_on`` candidates and no others. Returns
    the linear score of every candidate, the weight of each attack and the intercept.
    """
    from sklearn.linear_model import LogisticRegression

    names = list(scores)
    x = np.column_stack([probit_ranks(scores[a]) for a in names])
    y = np.asarray(labels).astype(np.int64)
    mask = np.asarray(fit_on).astype(bool)
    model = LogisticRegression(C=1.0, max_iter=1000).fit(x[mask], y[mask])
    coef = model.coef_[0]
    out = x @ coef + float(model.intercept_[0])
    return (
        np.asarray(out, dtype=np.float64),
        {a: float(c) for a, c in zip(names, coef, strict=True)},
        float(model.intercept_[0]),
    )


def exposure_percentiles(
    scores: np.ndarray, non_member_scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile (0-100, ties half) of each score among the non-member scores, and its
    empirical p-value ``(1 + #{non-member >= s}) / (1 + n)``."""
    ref = np.sort(np.asarray(non_member_scores, dtype=np.float64))
    s = np.asarray(scores, dtype=np.float64)
    below = np.searchsorted(ref, s, side="left")
    at_or_below = np.searchsorted(ref, s, side="right")
    n = ref.size
    pct = 100.0 * (below + 0.5 * (at_or_below - below)) / max(n, 1)
    p = (1.0 + (n - below)) / (1.0 + n)
    return pct, p


def tpr_table(
    labels: np.ndarray, scores: np.ndarray, fprs: Sequence[float] = TPR_FPRS
) -> tuple[dict[str, float | None], list[str]]:
    """TPR at each FPR, ``None`` (with a reason) where fewer than ``1 / fpr`` non-members."""
    y = np.asarray(labels).astype(bool)
    n_neg = int((~y).sum())
    out: dict[str, float | None] = {}
    notes = []
    for f in fprs:
        need = int(np.ceil(1.0 / f - 1e-9))
        if n_neg < need:
            out[f"{f:g}"] = None
            notes.append(
                f"TPR at FPR {f:g} not measured: needs at least {need} non-members, have {n_neg}"
            )
        else:
            out[f"{f:g}"] = tpr_at_fpr(y, scores, f)
    return out, notes


# --- the game ---------------------------------------------------------------------------------


def _attack_unit(shared: dict[str, Any], name: str) -> dict[str, np.ndarray]:
    attack: NoBoxMembershipAttack = shared["attacks"][name]
    rng = _ATTACK.sub(name).rng(shared["seed"])
    attack.fit(shared["synthetic"], shared["reference"], rng=rng)
    return {"scores": np.asarray(attack.score(shared["records"]), dtype=np.float64)}


@dataclass(frozen=True)
class NoBoxMembershipGame:
    """Membership inference against a release, without its generator (module docstring).

    Parameters
    ----------
    attacks : sequence of str or NoBoxMembershipAttack, default :data:`DEFAULT_ATTACKS`
        Registered ``nobox-membership`` attack names or unfitted attack objects.
    n_members : int, optional
        Original records scored as members; default as many as non-members (at most all).
    n_non_members : int, optional
        Control records scored as non-members; default half the control (the other half is the
        reference). At least 20, and at least 20 control records must remain as reference.
    rows : sequence of int
        Original rows whose exposure is reported whatever their ``V_k``.
    n_exposed : int, default 10
        Most isolated original records (by ``V_k``) whose exposure is reported.
    k : int, default 5
        Neighbours of ``V_k``.
    attack_params : dict, optional
        ``{name: {param: value}}`` for attacks given by name.
    copies : bool, default True
        Measure exact and near copies (:func:`synthleak.metrics.copies.copy_report`).
    ensemble : bool, default True
        Also report the stacked combination of the attacks (:class:`EnsembleAttack`) when at
        least two attacks are scored.

    Notes
    -----
    Threat model: no-box. The attacker sees the release, a reference sample of real records not
    in the training data, and the candidate records; nothing of the generator. The control set
    must be real records of the same population that the generator never saw (for instance a
    random hold-out made before training): if it differs in distribution from the training
    data, every attack picks that difference up as "membership".

    References
    ----------
    See the module docstring.
    """

    attacks: Sequence[str | NoBoxMembershipAttack] = DEFAULT_ATTACKS
    n_members: int | None = None
    n_non_members: int | None = None
    rows: Sequence[int] = ()
    n_exposed: int = 10
    k: int = 5
    attack_params: dict[str, dict[str, Any]] | None = None
    copies: bool = True
    ensemble: bool = True

    # --- validation ---------------------------------------------------------------------
    @staticmethod
    def _count(name: str, value: object, low: int) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise InputError(f"{name} must be an integer >= {low}, got {value!r}")
        return int(value)

    def _sizes(self, n_original: int, n_control: int) -> tuple[int, int, int]:
        n_non = self._count("n_non_members", self.n_non_members, MIN_NON_MEMBERS)
        n_mem = self._count("n_members", self.n_members, MIN_NON_MEMBERS)
        if n_control < MIN_NON_MEMBERS + MIN_REFERENCE:
            raise InputError(
                f"control has {n_control} records but the no-box game needs at least "
                f"{MIN_NON_MEMBERS + MIN_REFERENCE} ({MIN_NON_MEMBERS} non-members and "
                f"{MIN_REFERENCE} reference records): give a larger control set"
            )
        if n_non is None:
            n_non = n_control // 2
        if n_control - n_non < MIN_REFERENCE:
            raise InputError(
                f"n_non_members={n_non} leaves {n_control - n_non} of the {n_control} control "
                f"records as reference, fewer than {MIN_REFERENCE}: lower n_non_members"
            )
        if n_mem is None:
            n_mem = min(n_non, n_original)
        if n_mem > n_original:
            raise InputError(
                f"n_members={n_mem} but original has {n_original} records: lower n_members"
            )
        return n_mem, n_non, n_control - n_non

    def _check_rows(self, n_original: int) -> list[int]:
        rows = list(self.rows)
        bad = [
            r
            for r in rows
            if isinstance(r, bool) or not isinstance(r, int | np.integer) or not 0 <= r < n_original
        ]
        if bad:
            raise InputError(
                f"rows {bad[:5]} are not rows of original (0 to {n_original - 1}): "
                "give 0-based row numbers of the original data"
            )
        return list(dict.fromkeys(int(r) for r in rows))

    # --- play ---------------------------------------------------------------------------
    # long: one pass over the attacks, each scored on the same members, non-members and reference
    def run(
        self, release: Release, *, seed: int, runtime: Runtime | None = None
    ) -> NoBoxMembershipResult:
        """Play the game on ``release`` (``Release(original, synthetic, control)``)."""
        rt = as_runtime(runtime)
        if not isinstance(release, Release):
            raise InputError(
                "the no-box game takes a Release(original, synthetic, control), "
                f"got {type(release).__name__}"
            )
        if release.control is None:
            raise InputError(
                "the no-box membership game needs control: real records of the same population "
                "that the generator never saw (Release(original, synthetic, control))"
            )
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
            raise InputError(f"seed must be an integer, got {seed!r}")
        self._count("n_exposed", self.n_exposed, 0)
        self._count("k", self.k, 1)
        enc = release.encode()
        if enc.control is None:  # pragma: no cover - checked above
            raise InputError("the no-box membership game needs control")
        n_mem, n_non, n_ref = self._sizes(len(enc.original), len(enc.control))
        rows = self._check_rows(len(enc.original))
        resolved = resolve_attacks(AttackFamily.NOBOX_MEMBERSHIP, self.attacks, self.attack_params)
        names = [name for name, _ in resolved]
        notes = [_sample_note(n_mem, n_non, n_ref, len(enc.synthetic), len(enc.original), names)]
        if self.n_exposed and self.k >= len(enc.original):
            raise InputError(
                f"k={self.k} neighbours need at least {self.k + 1} original records, "
                f"got {len(enc.original)}: lower k"
            )

        # the draw: members, non-members, reference, halves
        rng = _SPLIT.rng(int(seed))
        member_rows = np.sort(rng.choice(len(enc.original), n_mem, replace=False)).astype(np.int64)
        perm = rng.permutation(len(enc.control))
        non_rows = np.sort(perm[:n_non]).astype(np.int64)
        ref_rows = np.sort(perm[n_non:]).astype(np.int64)
        sel = np.r_[_half(rng, n_mem), _half(rng, n_non)].astype(np.int64)

        # exposure: the most isolated records and the named rows
        v_k = np.full(len(enc.original), np.nan)
        exposed: list[tuple[int, str]] = []
        if self.n_exposed:
            from synthleak.vulnerability import vulnerability_scores

            v_k = vulnerability_scores(_own_table(release.original, enc.original), k=self.k)
            top = np.argsort(-v_k, kind="stable")[: self.n_exposed]
            exposed += [(int(r), "v_k") for r in top]
        seen = {r for r, _ in exposed}
        exposed += [(r, "rows") for r in rows if r not in seen]
        exp_rows = np.array([r for r, _ in exposed], dtype=np.int64)

        candidates = Table.concat([enc.original.take(member_rows), enc.control.take(non_rows)])
        records = Table.concat([candidates, enc.original.take(exp_rows)])
        shared = {
            "attacks": dict(resolved),
            "synthetic": enc.synthetic,
            "reference": enc.control.take(ref_rows),
            "records": records,
            "seed": int(seed),
        }
        units = [WorkUnit(name, (name,)) for name, _ in resolved]
        done = rt.run(_attack_unit, units, shared=shared, description="no-box attacks")

        y = np.r_[np.ones(n_mem), np.zeros(n_non)].astype(np.int64)
        n_cand = n_mem + n_non
        outcomes: dict[str, NoBoxAttackOutcome] = {}
        all_scores: dict[str, np.ndarray] = {}
        exp_scores: dict[str, np.ndarray] = {}
        # one bootstrap for every attack: their intervals resample the same people (paired)
        draws = bootstrap_draws(n_mem, n_non, rng=_METRIC.sub("attacks").rng(int(seed)))
        for name, _ in resolved:
            res = done[name]
            if not res.ok or res.arrays is None:
                nan = float("nan")
                outcomes[name] = NoBoxAttackOutcome(
                    RiskEstimate(nan, nan, nan, 0.95, n_cand, 0.5),
                    {f"{f:g}": None for f in TPR_FPRS},
                    np.zeros(0),
                    np.zeros(0),
                    nan,
                    nan,
                    error=str(res.error).strip().splitlines()[-1] if res.error else "failed",
                )
                notes.append(f"attack {name!r} could not be scored: {outcomes[name].error}")
                continue
            s = res.arrays["scores"]
            s_c = s[:n_cand]
            all_scores[name] = s_c
            exp_scores[name] = s[n_cand:]
            fpr, tpr = roc_curve(y, s_c)
            tprs, tnotes = tpr_table(y, s_c)
            outcomes[name] = NoBoxAttackOutcome(
                auc_estimate(y, s_c, draws=draws),
                tprs,
                fpr,
                tpr,
                auc(y[sel == 1], s_c[sel == 1]),
                auc(y[sel == 0], s_c[sel == 0]),
                notes=tuple(tnotes),
                tpr_intervals=tpr_estimates(y, s_c),
            )

        best = ensemble = None
        if all_scores:
            # the best attack and the ensemble are evaluated on one half, with one bootstrap
            ev = sel == 0
            ev_draws = bootstrap_draws(
                int(y[ev].sum()),
                int((y[ev] == 0).sum()),
                rng=_METRIC.sub("evaluation").rng(int(seed)),
            )
            name = max(all_scores, key=lambda a: (outcomes[a].selection_auc, -_order(a, resolved)))
            best = BestAttack(
                name,
                auc_estimate(y[ev], all_scores[name][ev], draws=ev_draws),
                outcomes[name].selection_auc,
                int((sel == 1).sum()),
                int(ev.sum()),
                tpr_estimates(y[ev], all_scores[name][ev]),
            )
            if self.ensemble and len(all_scores) >= 2:
                stacked, weights, intercept = stack_scores(all_scores, y, sel == 1)
                ensemble = EnsembleAttack(
                    tuple(all_scores),
                    weights,
                    intercept,
                    auc_estimate(y[ev], stacked[ev], draws=ev_draws),
                    auc(y[sel == 1], stacked[sel == 1]),
                    int((sel == 1).sum()),
                    int(ev.sum()),
                    tpr_estimates(y[ev], stacked[ev]),
                )

        records_out = []
        for i, (row, why) in enumerate(exposed):
            sc, pc, pv = {}, {}, {}
            for name in all_scores:
                non = all_scores[name][n_mem:]
                pct, p = exposure_percentiles(exp_scores[name][i : i + 1], non)
                sc[name] = float(exp_scores[name][i])
                pc[name] = float(pct[0])
                pv[name] = float(p[0])
            records_out.append(RecordExposure(row, float(v_k[row]), why, sc, pc, pv))

        copies = None
        if self.copies:
            copies = copy_report(
                _frame(release.original, enc.original),
                _frame(release.synthetic, enc.synthetic),
                _frame(release.control, enc.control),
            )
        return NoBoxMembershipResult(
            attacks=outcomes,
            best=best,
            records=tuple(records_out),
            copies=copies,
            member_rows=member_rows,
            non_member_rows=non_rows,
            n_reference=n_ref,
            n_synthetic=len(enc.synthetic),
            n_original=len(enc.original),
            n_control=len(enc.control),
            selection=sel,
            scores=all_scores,
            seed=int(seed),
            k=int(self.k),
            notes=tuple(notes),
            ensemble=ensemble,
        )


def _sample_note(
    n_mem: int, n_non: int, n_ref: int, n_syn: int, n_ori: int, attacks: Sequence[str]
) -> str:
    """The sample sizes the attacks worked on, in one sentence."""
    from synthleak.attacks.mia_nobox import CLASSIFIER_TRAIN, FIT_QUERIES, STRUCTURE_SAMPLE

    text = (
        f"scored {n_mem} of {n_ori} original records as members and {n_non} control records as "
        f"non-members, each against all {n_syn} synthetic and {n_ref} reference records"
    )
    if n_ref > FIT_QUERIES and {"neighbourhood", "gen-lra", "kde", "mc"} & set(attacks):
        text += f"; radii and bandwidths set from {FIT_QUERIES} of the {n_ref} reference records"
    if n_ref + n_syn > STRUCTURE_SAMPLE and "domias" in attacks:
        text += (
            f"; domias learned its network's structure from {STRUCTURE_SAMPLE} of the "
            f"{n_ref + n_syn} pooled records"
        )
    if max(n_ref, n_syn) > CLASSIFIER_TRAIN and "classifier" in attacks:
        text += (
            f"; the classifier trained on {min(n_syn, CLASSIFIER_TRAIN)} synthetic and "
            f"{min(n_ref, CLASSIFIER_TRAIN)} reference records"
        )
    return text


def _half(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random 0/1 vector with ``n // 2`` ones (selection) and the rest zeros (evaluation)."""
    out = np.zeros(n, dtype=np.int64)
    out[rng.permutation(n)[: n // 2]] = 1
    return out


def _order(name: str, resolved: list[tuple[str, Any]]) -> int:
    return [n for n, _ in resolved].index(name)


def _own_table(part: pd.DataFrame | Table, encoded: Table) -> Table:
    """The original on its own schema (its own ranges scale ``V_k``, as in Meeus et al. 2023)."""
    if isinstance(part, Table):
        return part
    from synthleak.data.profile import infer_schema

    kinds = encoded.schema
    return Table.from_frame(
        part,
        infer_schema(part, categorical=kinds.categorical_names, continuous=kinds.continuous_names),
    )


def _frame(part: pd.DataFrame | Table | None, encoded: Table) -> pd.DataFrame:
    """The caller's DataFrame (every column, free text included), or the decoded table."""
    if isinstance(part, pd.DataFrame):
        return part
    return encoded.to_frame()
