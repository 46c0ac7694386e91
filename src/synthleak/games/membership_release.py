"""The result of the membership game on a given release, learned from shadow releases.

The game (:func:`synthleak.stages.membership_release.play_membership_release`) attacks the
published release itself with :class:`~synthleak.attacks.mia_shadow_release.ShadowReleaseAttack`:
the members are the original's records, the non-members the control's, and the attack learns
from shadow releases of the same generator (given as a folder, or made by synthleak with the
generator on control records). This differs from the generator-level game
(:mod:`synthleak.games.membership`), which measures how much the *generator* leaks chosen
targets on datasets the game draws itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synthleak.attacks.mia_shadow_release import VerbatimCheck
from synthleak.metrics.privacy import RiskEstimate, TprAtFpr
from synthleak.serde import Result


@dataclass(frozen=True, repr=False)
class ExposedRecord(Result):
    """A member of the release that the attack ranks high.

    Attributes
    ----------
    row : int
        Row of the original as given (0-based, header excluded).
    score : float
        The attack's membership score of the record: its probability, or, where the release
        copies more than its shadows (:class:`MembershipReleaseResult`'s ``verbatim``), a score
        that ranks the records found verbatim above every other.
    p_value : float
        ``(1 + non-members scoring at least as high) / (1 + non-members)``: how unusual the
        score is among records known not to be in the training data.
    """

    row: int
    score: float
    p_value: float


@dataclass(frozen=True, repr=False)
class MembershipReleaseResult(Result):
    """The shadow-release attack on one release, its members against the control's records.

    Attributes
    ----------
    shadows_from : str
        Where the shadow releases came from: ``"folder DIR"`` or ``"generator SPEC"``.
    n_shadows : int
    n_examples : int
        Labelled (record, shadow release) examples the attack learned from.
    member_rows : tuple of int
        Rows of the original scored as members.
    non_member_rows : tuple of int
        Rows of the control scored as non-members.
    n_dropped : int
        Candidate records left unscored because a shadow release's training set holds them
        (their calibration would differ from the other candidates').
    auc : RiskEstimate
        AUC with a bootstrap interval; baseline 0.5.
    tpr : tuple of TprAtFpr
        TPR at FPR 0.1, 0.01 and 0.001 with intervals.
    records : tuple of ExposedRecord
        The members the attack ranks highest, highest first.
    fit_seconds, score_seconds : float
        Seconds to learn from the shadows and to score the candidates.
    member_scores, non_member_scores : tuple of float
        The attack's score of every member and non-member, in the order of ``member_rows`` and
        ``non_member_rows`` (two releases attacked with the same shadows and seed score the
        same records: a comparison pairs their AUCs).
    verbatim : VerbatimCheck or None
        The candidates found verbatim in the release against the shadow releases' share of
        their own training records; where the release's share is significantly higher, the
        candidates found verbatim were ranked above every other (``None`` in a result kept by an
        earlier version).
    """

    shadows_from: str
    n_shadows: int
    n_examples: int
    member_rows: tuple[int, ...]
    non_member_rows: tuple[int, ...]
    n_dropped: int
    auc: RiskEstimate
    tpr: tuple[TprAtFpr, ...]
    records: tuple[ExposedRecord, ...] = ()
    fit_seconds: float = 0.0
    score_seconds: float = 0.0
    member_scores: tuple[float, ...] = ()
    non_member_scores: tuple[float, ...] = ()
    verbatim: VerbatimCheck | None = None

    def tpr_at_fpr(self) -> dict[str, TprAtFpr]:
        """The TPRs keyed by their FPR as text (``"0.1"``, ``"0.01"``, ``"0.001"``)."""
        return {f"{t.fpr:g}": t for t in self.tpr}

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary: the figures with intervals, the exposed records, the sizes."""
        return {
            "shadows_from": self.shadows_from,
            "n_shadows": self.n_shadows,
            "n_examples": self.n_examples,
            "n_members": len(self.member_rows),
            "n_non_members": len(self.non_member_rows),
            "n_dropped": self.n_dropped,
            "auc": self.auc.value,
            "auc_ci": [self.auc.ci_low, self.auc.ci_high],
            "auc_p_value": self.auc.p_value,
            "tpr_at_fpr": {
                k: {
                    "tpr": t.value,
                    "ci": None if t.ci_low is None else [t.ci_low, t.ci_high],
                    "n_non_members": t.n_non_members,
                    "note": t.note or "",
                }
                for k, t in self.tpr_at_fpr().items()
            },
            "records": [
                {"row": r.row, "score": r.score, "p_value": r.p_value} for r in self.records
            ],
            "verbatim": None if self.verbatim is None else self.verbatim.to_dict(),
            "fit_seconds": self.fit_seconds,
            "score_seconds": self.score_seconds,
        }
