"""Membership inference of persons in a relational release, without the generator.

In a relational release a member is a *person* (a root row and all their child rows) whose rows
trained the generator; a non-member is a person of the same population whose rows it never saw.
:class:`PersonMembershipGame` plays the no-box membership game at that level:

* **view attacks**: every registered no-box attack (:mod:`synthleak.games.nobox`) on the
  person-level view (:func:`synthleak.data.relational.person_views`: the root row with counts,
  aggregates, value counts and sequence ends of the child rows), and, as the row-level figure
  beside it, on the root table's own columns (``root:<attack>``; the distance attacks of
  :data:`MINKOWSKI_ATTACKS` a second time with the Minkowski distance,
  ``root:<attack>@minkowski``); a coarse root table ties many
  persons at one score (a copied parent row is at distance 0 for members and non-members
  alike), so each root attack is also played with its ties ordered by ``child-dcr-diff``
  (``root:<attack>|child-dcr-diff``, :func:`tie_broken`);
* **child-row attacks**, which see a person's child rows themselves: ``child-dcr`` scores a
  person by minus the mean log distance from each of their child rows to its closest child row
  of the release (a history replayed by the generator puts every row of the person near a
  released row); ``child-dcr-diff`` subtracts the same mean against the child rows of the
  reference persons (the population's own closeness; the calibration of DCR-diff, Chen et al.
  2020, at the level of child rows); ``child-exact`` is the share of a person's child rows
  that the release holds verbatim. Distances are the Minkowski (p = 2) distances of
  :func:`synthleak.vulnerability.nearest_neighbours` (eq. 6 of Meeus et al. 2023) on the child
  table's columns without its keys; the generalised cosine is degenerate on child tables of one
  or two columns.

Members and non-members are drawn as in the no-box game (the same split stream and sizes); the
non-members and the reference are persons of the control. Every figure is an AUC with its
bootstrap interval and TPR at FPR 0.1, 0.01 and 0.001 with intervals
(:mod:`synthleak.metrics.privacy`), against the baseline 0.5 (TPR = FPR). The best attack is
chosen on a random half of the candidates and reported on the other half; the stacked
combination of all attacks (``stacked``, :func:`cross_fitted_stack`) is fitted on the selection
half for the evaluation half and cross-fitted within the selection half, so it competes with the
others on out-of-sample figures.
Persons are named by their root key, never by a child row number.

A person without child rows in a descendant table has no child-row score from it; they get the
median score of the persons who have some (so they rank in the middle, neither member-like nor
not).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.relational import RelationalData, person_views
from synthleak.data.release import Release, encode_parts
from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.games.nobox import (
    DEFAULT_ATTACKS,
    NoBoxMembershipGame,
    NoBoxMembershipResult,
    stack_scores,
)
from synthleak.metrics.privacy import (
    RiskEstimate,
    TprAtFpr,
    auc,
    auc_estimate,
    tpr_at_fpr,
    tpr_estimates,
)
from synthleak.runtime.seeding import stream
from synthleak.serde import FloatArray, IntArray, Result
from synthleak.vulnerability import nearest_neighbours

__all__ = [
    "CHILD_ATTACKS",
    "ExposedPerson",
    "PersonAttack",
    "PersonMembershipGame",
    "PersonMembershipResult",
    "child_row_scores",
    "cross_fitted_stack",
    "tie_broken",
]

_METRIC = stream("person/metric", labelled="person-metric:{}")

CHILD_ATTACKS = ("child-dcr", "child-dcr-diff", "child-exact")
"""Attacks that see a person's child rows (module docstring)."""
SELECT_BY = ("auc", "tpr@0.1")
MINKOWSKI_ATTACKS = ("dcr", "dcr-diff", "neighbourhood")
"""Distance attacks also played on the root rows with ``metric="minkowski"``."""
_EPS = 1e-6  # distances below this count as a verbatim child row; log(d + eps) otherwise


@dataclass(frozen=True, repr=False)
class PersonAttack(Result):
    """One person-level attack's figures.

    Attributes
    ----------
    auc : RiskEstimate
        On all candidates (members and non-members), CI by stratified bootstrap. For
        ``stacked``, every candidate's score comes from a fit that did not see their label.
    tpr_at_fpr : dict of str to TprAtFpr
        On all candidates.
    selection_auc, selection_tpr : float
        AUC and TPR at FPR 0.1 on the selection half.
    evaluation_auc : RiskEstimate
        AUC on the evaluation half.
    evaluation_tpr : dict of str to TprAtFpr
        TPR at each FPR on the evaluation half.
    """

    auc: RiskEstimate
    tpr_at_fpr: dict[str, TprAtFpr]
    selection_auc: float
    selection_tpr: float
    evaluation_auc: RiskEstimate
    evaluation_tpr: dict[str, TprAtFpr]


@dataclass(frozen=True, repr=False)
class ExposedPerson(Result):
    """A member ranked among the most exposed by the best attack.

    Attributes
    ----------
    key : Any
        The person's root key (never a child row number).
    score : float
        The best attack's score (higher: more member-like).
    percentile : float
        Share of the scored non-members whose score is below this person's, in percent (100:
        the person outscores every real non-member).
    """

    key: Any
    score: float
    percentile: float


#: Members listed as the most exposed (:attr:`PersonMembershipResult.exposed`).
N_EXPOSED = 10


@dataclass(frozen=True, repr=False)
class PersonMembershipResult(Result):
    """Outcome of :class:`PersonMembershipGame`.

    Attributes
    ----------
    attacks : dict of str to PersonAttack
        View attacks by name, root-row attacks as ``root:<name>``, child-row attacks, and
        ``stacked`` (:func:`cross_fitted_stack`).
    best : str
        The attack chosen on the selection half (by ``select_by``); report its evaluation
        figures.
    select_by : str
    member_keys, non_member_keys : list
        Root keys of the scored members (original) and non-members (control).
    n_reference : int
        Control persons used as the reference.
    n_synthetic_persons : int
    notes : tuple of str
    exposed : tuple of ExposedPerson
        The :data:`N_EXPOSED` members the best attack scores highest, by root key, most
        exposed first.
    selection : IntArray
        Per candidate (members, then non-members, in the order of ``member_keys`` and
        ``non_member_keys``), 1 if it is in the selection half; ``None`` in a result of an
        earlier version, which did not keep it (nor ``scores``).
    scores : dict of str to FloatArray
        Every attack's score of each candidate, in the same order (higher: more member-like);
        two releases scored on the same draws can be compared candidate by candidate
        (:func:`synthleak.comparison.compare`).
    """

    attacks: dict[str, PersonAttack]
    best: str
    select_by: str
    member_keys: list[Any]
    non_member_keys: list[Any]
    n_reference: int
    n_synthetic_persons: int
    notes: tuple[str, ...] = field(default_factory=tuple)
    exposed: tuple[ExposedPerson, ...] = ()
    selection: IntArray | None = None
    scores: dict[str, FloatArray] | None = None

    @property
    def best_attack(self) -> PersonAttack:
        return self.attacks[self.best]


def _child_frame(data: RelationalData, table: str) -> pd.DataFrame:
    sch = data.schema
    keys = {sch.primary_keys[table]} | {fk.column for fk in sch.foreign_keys if fk.child == table}
    return data.frames[table].drop(columns=[c for c in keys if c is not None])


def pooled_schema(frames: Sequence[pd.DataFrame]) -> Schema:
    """One schema inferred on all parts together.

    Distances scale continuous columns by the schema's range and clip to it; a range taken from
    the original alone would clip only the other parts' outlying values and pull them towards
    the release, a difference between members and non-members that is not membership.
    """
    sch, _ = encode_parts({"pooled": pd.concat(list(frames), ignore_index=True)})
    return sch


def child_row_scores(
    original: RelationalData,
    synthetic: RelationalData,
    control: RelationalData,
    *,
    root: str,
    member_rows: np.ndarray,
    non_member_rows: np.ndarray,
    reference_rows: np.ndarray,
) -> dict[str, np.ndarray]:
    """Scores of the child-row attacks for the candidates (members, then non-members).

    ``*_rows`` are rows of the root table of ``original`` (members) and ``control``
    (non-members, reference). Returns ``{attack: scores}`` (higher = more likely a member),
    summed over the descendant tables of ``root``.
    """
    sch = original.schema
    n_mem, n_non = len(member_rows), len(non_member_rows)
    out = {a: np.zeros(n_mem + n_non) for a in CHILD_ATTACKS}
    for t in sch.descendants(root):
        # each candidate's child rows: position of the person among the candidates
        o_idx = original.root_index(t, root)
        c_idx = control.root_index(t, root)
        pos_o = np.full(len(original.frames[root]), -1, dtype=np.int64)
        pos_o[member_rows] = np.arange(n_mem)
        pos_c = np.full(len(control.frames[root]), -1, dtype=np.int64)
        pos_c[non_member_rows] = n_mem + np.arange(n_non)
        is_ref = np.zeros(len(control.frames[root]), dtype=bool)
        is_ref[reference_rows] = True
        cand_o = np.where(o_idx >= 0, pos_o[np.maximum(o_idx, 0)], -1)
        cand_c = np.where(c_idx >= 0, pos_c[np.maximum(c_idx, 0)], -1)
        ref_c = (c_idx >= 0) & is_ref[np.maximum(c_idx, 0)]
        frames = [_child_frame(d, t) for d in (original, synthetic, control)]
        enc = Release(frames[0], frames[1], frames[2], schema=pooled_schema(frames)).encode()
        if enc.control is None:  # pragma: no cover - control is given
            raise InputError("child-row attacks need control")
        if len(enc.synthetic) == 0 or not ref_c.any():
            continue
        queries = Table.concat(
            [
                enc.original.take(np.flatnonzero(cand_o >= 0)),
                enc.control.take(np.flatnonzero(cand_c >= 0)),
            ]
        )
        who = np.r_[cand_o[cand_o >= 0], cand_c[cand_c >= 0]]
        d_syn = nearest_neighbours(queries, enc.synthetic, k=1, metric="minkowski")[0][:, 0]
        d_ref = nearest_neighbours(
            queries, enc.control.take(np.flatnonzero(ref_c)), k=1, metric="minkowski"
        )[0][:, 0]
        n = n_mem + n_non
        cnt = np.bincount(who, minlength=n).astype(np.float64)
        has = cnt > 0
        for name, per_row in (
            ("child-dcr", -np.log(d_syn + _EPS)),
            ("child-dcr-diff", np.log(d_ref + _EPS) - np.log(d_syn + _EPS)),
            ("child-exact", (d_syn < _EPS).astype(np.float64)),
        ):
            mean = np.bincount(who, weights=per_row, minlength=n)
            mean = np.divide(mean, cnt, out=np.zeros(n), where=has)
            if has.any():
                mean[~has] = float(np.median(mean[has]))
            out[name] += mean
    return out


def tie_broken(primary: np.ndarray, secondary: np.ndarray) -> np.ndarray:
    """Ranks of ``primary`` with its ties ordered by ``secondary`` (lexicographic; equal in
    both stays tied). Uses no labels."""
    order = np.lexsort((secondary, primary))
    p, q = primary[order], secondary[order]
    new = np.r_[True, (p[1:] != p[:-1]) | (q[1:] != q[:-1])]
    ranks = np.empty(len(primary), dtype=np.float64)
    ranks[order] = np.cumsum(new)
    return ranks


def cross_fitted_stack(scores: dict[str, np.ndarray], y: np.ndarray, sel: np.ndarray) -> np.ndarray:
    """The stacked combination of ``scores`` (:func:`~synthleak.games.nobox.stack_scores`),
    each candidate scored by a fit that never saw their label.

    Evaluation-half candidates get the fit on the whole selection half; selection-half
    candidates get the fit on the other fold of the selection half (two folds, alternate
    positions, so each holds half of its members and half of its non-members). The selection
    figures are then out of sample like any other attack's, and the stacked combination can be
    chosen as the best without its fit favouring it.
    """
    sel = np.asarray(sel, dtype=bool)
    out = stack_scores(scores, y, sel)[0]
    idx = np.flatnonzero(sel)
    folds = np.arange(len(idx)) % 2
    for k in (0, 1):
        fit_on = np.zeros(len(y), dtype=bool)
        fit_on[idx[folds != k]] = True
        out[idx[folds == k]] = stack_scores(scores, y, fit_on)[0][idx[folds == k]]
    return out


def _figures(
    y: np.ndarray, s: np.ndarray, sel: np.ndarray, rng_all: Any, rng_ev: Any
) -> PersonAttack:
    ev = ~sel
    return PersonAttack(
        auc_estimate(y, s, rng=rng_all),
        tpr_estimates(y, s),
        auc(y[sel], s[sel]),
        tpr_at_fpr(y[sel], s[sel], 0.1),
        auc_estimate(y[ev], s[ev], rng=rng_ev),
        tpr_estimates(y[ev], s[ev]),
    )


@dataclass(frozen=True)
class PersonMembershipGame:
    """No-box membership of persons in a relational release (module docstring).

    Parameters
    ----------
    attacks : sequence of str, default :data:`~synthleak.games.nobox.DEFAULT_ATTACKS`
        Registered no-box attacks played on the person-level view and on the root rows.
    child_attacks : bool, default True
        Also play the child-row attacks (:data:`CHILD_ATTACKS`).
    root_attacks : bool, default True
        Also play ``attacks`` on the root table's own columns (the row-level figure).
    root : str, optional
        The table of persons; default the schema's only root.
    n_members, n_non_members : int, optional
        As in :class:`~synthleak.games.nobox.NoBoxMembershipGame` (persons).
    max_categories : int, default 30
        See :func:`~synthleak.data.relational.person_views`.
    select_by : {"auc", "tpr@0.1"}, default "auc"
        What the best attack is chosen by, on the selection half.
    """

    attacks: Sequence[str] = DEFAULT_ATTACKS
    child_attacks: bool = True
    root_attacks: bool = True
    root: str | None = None
    n_members: int | None = None
    n_non_members: int | None = None
    max_categories: int = 30
    select_by: str = "auc"

    def run(
        self,
        original: RelationalData,
        synthetic: RelationalData,
        control: RelationalData,
        *,
        seed: int,
    ) -> PersonMembershipResult:
        """Play the game; ``original`` trained the generator, ``control`` did not."""
        if self.select_by not in SELECT_BY:
            raise InputError(f"select_by must be one of {list(SELECT_BY)}, got {self.select_by!r}")
        for name, part in (("original", original), ("synthetic", synthetic), ("control", control)):
            if not isinstance(part, RelationalData):
                raise InputError(f"{name} must be RelationalData, got {type(part).__name__}")
        views = person_views(
            {"original": original, "synthetic": synthetic, "control": control},
            root=self.root,
            max_categories=self.max_categories,
        )
        sch = original.schema
        root = self.root or sch.roots[0]
        game = NoBoxMembershipGame(
            attacks=tuple(self.attacks),
            n_members=self.n_members,
            n_non_members=self.n_non_members,
            n_exposed=0,
            copies=False,
            ensemble=False,
        )

        def play(cols: list[str] | None, g: NoBoxMembershipGame = game) -> NoBoxMembershipResult:
            o, s, c = (views[p] for p in ("original", "synthetic", "control"))
            if cols is not None:
                o, s, c = o[cols], s[cols], c[cols]
            frames = [f.reset_index(drop=True) for f in (o, s, c)]
            release = Release(frames[0], frames[1], frames[2], schema=pooled_schema(frames))
            return g.run(release, seed=seed)

        view = play(None)
        member_rows, non_rows = view.member_rows, view.non_member_rows
        y = np.r_[np.ones(len(member_rows)), np.zeros(len(non_rows))].astype(np.int64)
        sel = view.selection.astype(bool)
        scores: dict[str, np.ndarray] = dict(view.scores)
        notes = list(view.notes)
        for name, o in view.attacks.items():
            if o.error:
                notes.append(f"view attack {name!r} could not be scored: {o.error}")
        if self.root_attacks:
            own = [c for c in views["original"].columns if "." not in str(c)]
            if own:
                rr = play(own)
                # the same seed draws the same members and non-members
                assert np.array_equal(rr.member_rows, member_rows)
                scores.update({f"root:{a}": s for a, s in rr.scores.items()})
                # the distance attacks again under the Minkowski distance: on a root table of
                # numeric codes it can see what the generalised cosine does not, and the reverse
                dist = [a for a in self.attacks if a in MINKOWSKI_ATTACKS]
                if dist:
                    mk = NoBoxMembershipGame(
                        attacks=tuple(dist),
                        n_members=self.n_members,
                        n_non_members=self.n_non_members,
                        n_exposed=0,
                        copies=False,
                        ensemble=False,
                        attack_params={a: {"metric": "minkowski"} for a in dist},
                    )
                    rm = play(own, mk)
                    assert np.array_equal(rm.member_rows, member_rows)
                    scores.update({f"root:{a}@minkowski": s for a, s in rm.scores.items()})
        ref_rows = np.setdiff1d(np.arange(len(views["control"])), non_rows)
        if self.child_attacks:
            scores.update(
                child_row_scores(
                    original,
                    synthetic,
                    control,
                    root=root,
                    member_rows=member_rows,
                    non_member_rows=non_rows,
                    reference_rows=ref_rows,
                )
            )
        if self.child_attacks:
            # a coarse root table ties many persons at one score (an exact copy of a parent row
            # is distance 0 for members and non-members alike); their child rows break the tie
            tb = scores["child-dcr-diff"]
            for name in [n for n in scores if n.startswith("root:")]:
                scores[f"{name}|child-dcr-diff"] = tie_broken(scores[name], tb)
        if len(scores) >= 2:
            scores["stacked"] = cross_fitted_stack(scores, y, sel)
        figures = {
            a: _figures(
                y,
                s,
                sel,
                _METRIC.sub(a).rng(int(seed)),
                _METRIC.sub(f"{a}/evaluation").rng(int(seed)),
            )
            for a, s in scores.items()
        }

        def merit(a: str) -> float:
            f = figures[a]
            v = f.selection_auc if self.select_by == "auc" else f.selection_tpr
            return v if np.isfinite(v) else -np.inf

        best = max(figures, key=merit)
        okeys = views["original"].index.to_numpy()
        ckeys = views["control"].index.to_numpy()
        s_best = np.asarray(scores[best], dtype=np.float64)
        s_mem, s_non = s_best[: len(member_rows)], s_best[len(member_rows) :]
        top = np.argsort(-s_mem, kind="stable")[:N_EXPOSED]
        exposed = tuple(
            ExposedPerson(
                _plain(okeys[member_rows[i]]),
                float(s_mem[i]),
                float(100.0 * np.mean(s_non < s_mem[i])) if len(s_non) else float("nan"),
            )
            for i in top
        )
        return PersonMembershipResult(
            figures,
            best,
            self.select_by,
            [_plain(k) for k in okeys[member_rows]],
            [_plain(k) for k in ckeys[non_rows]],
            len(ref_rows),
            len(views["synthetic"]),
            tuple(notes),
            exposed,
            sel.astype(np.int64),
            {a: np.asarray(s, dtype=np.float64) for a, s in scores.items()},
        )


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
