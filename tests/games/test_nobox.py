"""The no-box membership game: oracles on real data, the null at the audit's sizes, the strongest
attack without a winner's curse, per-record exposure, typed result, one-line input errors."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak.data.release import Release
from synthleak.errors import InputError
from synthleak.games.nobox import (
    DEFAULT_ATTACKS,
    NoBoxMembershipGame,
    NoBoxMembershipResult,
    exposure_percentiles,
    probit_ranks,
    stack_scores,
    tpr_table,
)
from synthleak.generators import make_generator
from synthleak.runtime import Runtime

N_ORI, N_CTL = 4000, 1000  # the audit's shape: original four times the control


@cache
def _adult() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    df = sl.datasets.load_adult()
    perm = np.random.default_rng(0).permutation(len(df))
    ori = df.iloc[perm[:N_ORI]].reset_index(drop=True)
    ctl = df.iloc[perm[N_ORI : N_ORI + N_CTL]].reset_index(drop=True)
    rest = df.iloc[perm[N_ORI + N_CTL :]].reset_index(drop=True)
    return ori, ctl, rest


def _play(ori: pd.DataFrame, syn: pd.DataFrame, ctl: pd.DataFrame, seed: int = 0, **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("n_exposed", 0)
    kw.setdefault("copies", False)
    return NoBoxMembershipGame(**kw).run(Release(ori, syn, ctl), seed=seed)


# --- oracles ------------------------------------------------------------------------------------


def test_bootstrap_release_of_adult_is_caught() -> None:
    """A release resampling the training data: 3n draws copy 95% of the members (m = n would
    copy 63% and cap any attack near AUC 0.82, see DESIGN.md on oracle arithmetic)."""
    ori, ctl, _ = _adult()
    syn = ori.sample(3 * N_ORI, replace=True, random_state=1)
    res = _play(ori, syn, ctl)
    assert res.best is not None and res.best.auc.value >= 0.9 and res.best.auc.ci_low > 0.85
    assert res.attacks["dcr"].auc.value >= 0.9
    assert res.attacks["dcr"].tpr_at_fpr["0.01"] > 0.5


def test_bootstrap_release_of_the_uk_census_is_caught(shared_datasets: Path) -> None:
    """All-categorical data with 13% duplicate records (a non-member often has an exact twin)."""
    df = pd.read_csv(shared_datasets / "uk_census2011_teaching_nano_10k.csv")
    df = df.drop(columns=["row_index_in_full_file", "Person ID"])  # identifiers
    perm = np.random.default_rng(0).permutation(len(df))
    ori = df.iloc[perm[:N_ORI]].reset_index(drop=True)
    ctl = df.iloc[perm[N_ORI : N_ORI + N_CTL]].reset_index(drop=True)
    res = _play(ori, ori.sample(3 * N_ORI, replace=True, random_state=1), ctl)
    assert res.best is not None and res.best.auc.value >= 0.9
    null = _play(ori, df.iloc[perm[N_ORI + N_CTL :]].reset_index(drop=True), ctl)
    for name, o in null.attacks.items():
        assert o.auc.ci_low <= 0.5 <= o.auc.ci_high, name


def test_null_independent_release_every_ci_covers_one_half() -> None:
    """An independent real sample carries nothing about the members. Over five independent
    replicates at the audit's 4:1 shape, each attack's 95% CI covers 0.5 at least 4 times in 5 and
    the mean AUC stays within 0.02 of 0.5 (a 95% CI misses 0.5 once in twenty by chance; we do not
    require 25 intervals to all cover it)."""
    df = sl.datasets.load_adult()
    cover = dict.fromkeys(DEFAULT_ATTACKS, 0)
    aucs: dict[str, list[float]] = {a: [] for a in DEFAULT_ATTACKS}
    best_cover = 0
    for seed in range(5):
        # independent replicates: a fresh original / control / release draw per seed
        perm = np.random.default_rng(100 + seed).permutation(len(df))
        ori = df.iloc[perm[:N_ORI]].reset_index(drop=True)
        ctl = df.iloc[perm[N_ORI : N_ORI + N_CTL]].reset_index(drop=True)
        syn = df.iloc[perm[N_ORI + N_CTL : 2 * N_ORI + N_CTL]]
        res = _play(ori, syn, ctl, seed=seed)
        for name, o in res.attacks.items():
            cover[name] += o.auc.ci_low <= 0.5 <= o.auc.ci_high
            aucs[name].append(o.auc.value)
        assert res.best is not None
        best_cover += res.best.auc.ci_low <= 0.5 <= res.best.auc.ci_high
    assert all(c >= 4 for c in cover.values()), cover
    assert all(abs(np.mean(v) - 0.5) < 0.02 for v in aucs.values()), aucs
    assert best_cover >= 4  # the evaluation half carries no winner's curse


def test_nonprivate_release_sits_between_null_and_copy() -> None:
    """nonprivate with m = n resamples each training record with probability 0.63."""
    ori, ctl, _ = _adult()
    table = sl.Table.from_frame(ori, sl.infer_schema(ori))
    rng = np.random.default_rng(5)
    syn = make_generator("nonprivate").fit(table, rng=rng).sample(N_ORI, rng=rng).to_frame()
    res = _play(ori, syn, ctl)
    assert res.best is not None and 0.7 < res.best.auc.value < 0.9


# --- the strongest attack and the per-record exposure ---------------------------------------------


def test_best_is_chosen_on_the_selection_half_and_reported_on_the_other() -> None:
    ori, ctl, _ = _adult()
    res = _play(ori, ori.sample(2 * N_ORI, replace=True, random_state=2), ctl)
    sel = res.selection.astype(bool)
    y = res.labels.astype(bool)
    assert sel[y].sum() == y.sum() // 2 and sel[~y].sum() == (~y).sum() // 2
    best = res.best
    assert best is not None
    assert best.selection_auc == max(o.selection_auc for o in res.attacks.values())
    assert best.selected_on == sel.sum() and best.evaluated_on == (~sel).sum()
    from synthleak.metrics.privacy import auc

    s = res.scores[best.attack]
    assert best.auc.value == pytest.approx(auc(y[~sel], s[~sel]))
    assert res.attacks[best.attack].evaluation_auc == pytest.approx(best.auc.value)


def test_exposure_of_the_most_isolated_and_named_records() -> None:
    ori, ctl, _ = _adult()
    syn = ori.sample(2 * N_ORI, replace=True, random_state=3)
    res = _play(ori, syn, ctl, n_exposed=3, rows=(7, 11), attacks=("dcr", "dcr-diff"))
    assert [r.selected_by for r in res.records] == ["v_k"] * 3 + ["rows"] * 2
    assert [r.row for r in res.records][3:] == [7, 11]
    table = sl.Table.from_frame(ori, sl.infer_schema(ori))
    v = sl.vulnerability_scores(table, k=5)
    assert [r.row for r in res.records][:3] == list(np.argsort(-v, kind="stable")[:3])
    n_mem = res.member_rows.size
    for r in res.records:
        for a in ("dcr", "dcr-diff"):
            pct, p = exposure_percentiles(np.array([r.scores[a]]), res.scores[a][n_mem:])
            assert r.percentiles[a] == pytest.approx(pct[0]) and r.p_values[a] == pytest.approx(
                p[0]
            )
    frame = res.to_frame("record")
    assert len(frame) == 10 and set(frame["attack"]) == {"dcr", "dcr-diff"}


def test_exposure_percentiles_and_p_values() -> None:
    non = np.array([1.0, 2.0, 2.0, 3.0])
    pct, p = exposure_percentiles(np.array([0.0, 2.0, 5.0]), non)
    np.testing.assert_allclose(pct, [0.0, 50.0, 100.0])
    np.testing.assert_allclose(p, [5 / 5, 4 / 5, 1 / 5])


def test_tpr_is_none_with_a_reason_when_too_few_non_members() -> None:
    y = np.r_[np.ones(50), np.zeros(150)]
    s = np.r_[np.full(50, 2.0), np.linspace(0, 1, 150)]
    tprs, notes = tpr_table(y, s)
    assert tprs["0.1"] == 1.0 and tprs["0.01"] == 1.0 and tprs["0.001"] is None
    assert len(notes) == 1 and "at least 1000 non-members, have 150" in notes[0]


# --- the ensemble and the low-FPR figures -------------------------------------------------------


def test_ensemble_is_weighted_on_the_selection_half_only() -> None:
    """Changing the evaluation half's labels changes nothing in the ensemble's weights; its
    reported AUC is the AUC of the stacked score on the evaluation half."""
    ori, ctl, _ = _adult()
    res = _play(ori, ori.sample(3 * N_ORI, replace=True, random_state=6), ctl)
    ens = res.ensemble
    assert ens is not None and set(ens.attacks) == set(res.scores)
    y, sel = res.labels, res.selection.astype(bool)
    stacked, weights, intercept = stack_scores(res.scores, y, sel)
    assert weights == pytest.approx(ens.weights) and intercept == pytest.approx(ens.intercept)
    flipped = y.copy()
    flipped[~sel] = 1 - flipped[~sel]
    _, w2, i2 = stack_scores(res.scores, flipped, sel)
    assert w2 == pytest.approx(weights) and i2 == pytest.approx(intercept)
    from synthleak.metrics.privacy import auc

    assert ens.auc.value == pytest.approx(auc(y[~sel], stacked[~sel]))
    assert ens.evaluated_on == (~sel).sum() and ens.selected_on == sel.sum()
    assert ens.auc.ci_low > 0.85  # a copy: the combination sees it as the best attack does
    for t in ens.tpr_at_fpr.values():
        assert t.n_non_members == (~sel & (y == 0)).sum()
    assert _play(ori, ori, ctl, ensemble=False, attacks=("dcr", "mc")).ensemble is None
    assert _play(ori, ori, ctl, attacks=("dcr",)).ensemble is None  # one attack: nothing to stack


def test_probit_ranks_are_monotone_and_centred() -> None:
    z = probit_ranks(np.array([5.0, 1.0, 3.0, 3.0]))
    assert z[1] < z[2] == z[3] < z[0] and abs(z.sum()) < 1e-12


def test_every_attack_best_and_ensemble_carry_tpr_intervals() -> None:
    ori, ctl, rest = _adult()
    res = _play(ori, rest, ctl)  # 500 non-members: FPR 0.001 is not resolvable
    for o in res.attacks.values():
        assert set(o.tpr_intervals) == {"0.1", "0.01", "0.001"}
        assert o.tpr_intervals["0.001"].value is None
        t = o.tpr_intervals["0.01"]
        assert t.value == o.tpr_at_fpr["0.01"] and t.n_non_members == 500
        assert t.ci_low is not None and t.ci_high is not None and t.ci_low <= 0.01 <= t.ci_high
    assert res.best is not None and res.best.tpr_at_fpr["0.1"].n_non_members == 250
    assert res.best.tpr_at_fpr["0.001"].value is None  # 250 held-out non-members
    s = res.summary()
    assert s["attacks"]["dcr"]["tpr_at_fpr_ci"]["0.001"]["tpr"] is None
    assert "not resolvable" in s["attacks"]["dcr"]["tpr_at_fpr_ci"]["0.001"]["note"]
    assert s["ensemble"]["tpr_at_fpr"]["0.1"]["n_non_members"] == 250
    back = NoBoxMembershipResult.from_json(res.to_json())
    assert back.same_as(res) and back.ensemble == res.ensemble


# --- typed result, determinism ------------------------------------------------------------------


def test_result_round_trip_frames_and_summary() -> None:
    ori, ctl, _ = _adult()
    small_ori, small_ctl = ori.iloc[:600], ctl.iloc[:200]
    syn = small_ori.sample(600, replace=True, random_state=4)
    game = NoBoxMembershipGame(attacks=("dcr", "domias"), n_exposed=2, rows=(1,))
    res = game.run(Release(small_ori, syn, small_ctl), seed=3)
    back = NoBoxMembershipResult.from_json(res.to_json())
    assert back.same_as(res) and back.member_rows.dtype == np.int64
    assert game.run(Release(small_ori, syn, small_ctl), seed=3).same_as(res)  # same seed
    assert not game.run(Release(small_ori, syn, small_ctl), seed=4).same_as(res)
    assert list(res.to_frame()["attack"]) == ["dcr", "domias"]
    cand = res.to_frame("candidate")
    assert len(cand) == 200 and set(cand["role"]) == {"member", "non-member"}
    s = res.summary()
    assert s["mode"] == "no-box" and s["best"]["selected_on"] + s["best"]["evaluated_on"] == 200
    assert s["attacks"]["dcr"]["tpr_at_fpr"]["0.001"] is None
    assert s["copies"]["exact"]["n_copied_training_rows"] > 0
    with pytest.raises(InputError, match="level must be"):
        res.to_frame("nope")


def test_sampled_fits_state_their_sizes_and_keep_the_verdicts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Radii and bandwidths from a sample of the reference, the classifier on a sample of each
    side: the note states the sizes, and the verdicts on a null release and on a copied one
    are those of the full computation; same seed, same result."""
    from synthleak.attacks import mia_nobox, mia_nobox_extra

    ori, ctl, rest = _adult()
    null = rest.iloc[:2000].reset_index(drop=True)
    copy = ori.sample(3 * N_ORI, replace=True, random_state=1)
    sampled = ("neighbourhood", "gen-lra", "mc", "classifier")  # the attacks that sample
    kw = {"n_members": 200, "n_non_members": 400, "attacks": sampled}
    full = {
        name: _play(ori, syn, ctl, seed=3, **kw) for name, syn in (("null", null), ("copy", copy))
    }
    monkeypatch.setattr(mia_nobox, "FIT_QUERIES", 150)
    monkeypatch.setattr(mia_nobox_extra, "FIT_QUERIES", 150)
    monkeypatch.setattr(mia_nobox, "CLASSIFIER_TRAIN", 300)
    for name, syn in (("null", null), ("copy", copy)):
        res = _play(ori, syn, ctl, seed=3, **kw)
        assert res.best is not None and full[name].best is not None
        assert any(
            "200 of 4000 original records as members and 400 control records" in n
            and "from 150 of the 600 reference records" in n
            and "classifier trained on 300 synthetic and 300 reference records" in n
            and f"against all {len(syn)} synthetic" in n
            for n in res.notes
        )
        if name == "null":
            for r in (res, full[name]):
                assert r.best is not None and r.best.auc.ci_low < 0.5 < r.best.auc.ci_high
        else:
            for r in (res, full[name]):
                assert r.best is not None and r.best.auc.value >= 0.9
        assert res.same_as(_play(ori, syn, ctl, seed=3, **kw))


def test_workers_do_not_change_the_result() -> None:
    ori, ctl, _ = _adult()
    rel = Release(ori.iloc[:500], ori.iloc[:500].sample(500, random_state=0), ctl.iloc[:200])
    game = NoBoxMembershipGame(attacks=("dcr", "neighbourhood"), n_exposed=0, copies=False)
    one = game.run(rel, seed=1)
    two = game.run(rel, seed=1, runtime=Runtime(workers=2))
    assert one.same_as(two)


# --- input errors -------------------------------------------------------------------------------


def test_bad_input_is_a_one_line_input_error_naming_the_parameter() -> None:
    ori, ctl, _ = _adult()
    syn = ori.iloc[:300]
    with pytest.raises(InputError, match="needs control"):
        NoBoxMembershipGame().run(Release(ori, syn), seed=0)
    with pytest.raises(InputError, match="control has 30 records"):
        NoBoxMembershipGame().run(Release(ori, syn, ctl.iloc[:30]), seed=0)
    with pytest.raises(InputError, match="n_non_members=990 leaves 10"):
        NoBoxMembershipGame(n_non_members=990).run(Release(ori, syn, ctl), seed=0)
    with pytest.raises(InputError, match="n_members=5000 but original has 4000"):
        NoBoxMembershipGame(n_members=5000).run(Release(ori, syn, ctl), seed=0)
    with pytest.raises(InputError, match="n_members must be an integer >= 20"):
        NoBoxMembershipGame(n_members=3).run(Release(ori, syn, ctl), seed=0)
    with pytest.raises(InputError, match="rows"):
        NoBoxMembershipGame(rows=(4000,)).run(Release(ori, syn, ctl), seed=0)
    with pytest.raises(InputError, match="same columns"):
        NoBoxMembershipGame().run(Release(ori, syn.drop(columns="age"), ctl), seed=0)
    with pytest.raises(InputError, match="unknown nobox-membership attack 'lira'"):
        NoBoxMembershipGame(attacks=("lira",)).run(Release(ori, syn, ctl), seed=0)
    with pytest.raises(InputError, match="takes a Release"):
        NoBoxMembershipGame().run(ori, seed=0)  # type: ignore[arg-type]
