"""Gen-LRA, kde, mc, dpi, logan: definitions against direct evaluations, oracles at the game's
shapes (the contract and its small oracles are in tests/attacks/test_contract.py)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest

import synthleak as sl
from synthleak import NotFittedError, Table
from synthleak.attacks.base import AttackFamily, list_attacks
from synthleak.attacks.mia_nobox_extra import (
    DPIAttack,
    GenLRAAttack,
    KDEAttack,
    LoganAttack,
    MonteCarloAttack,
    _dense_features,
    _Kernel,
    release_bandwidth,
)
from synthleak.data.release import Release
from synthleak.errors import InputError
from synthleak.games.nobox import NoBoxMembershipGame
from synthleak.references import get as get_reference
from synthleak.vulnerability import pairwise_distances

NEW = ("gen-lra", "kde", "mc", "dpi", "logan")
N_ORI, N_CTL = 2000, 500  # original four times the control, as the audit


def _tables() -> tuple[Table, Table, Table]:
    df = sl.datasets.load_adult().iloc[:900]
    t = Table.from_frame(df, sl.infer_schema(df))
    return t.take(np.arange(500)), t.take(np.arange(500, 800)), t.take(np.arange(800, 900))


def test_registered_with_references_and_plain_docs() -> None:
    infos = {i.name: i for i in list_attacks(AttackFamily.NOBOX_MEMBERSHIP)}
    for name in NEW:
        assert infos[name].doc and infos[name].references
        for key in infos[name].references:
            get_reference(key)


def test_kernel_sums_equal_a_direct_step_kernel() -> None:
    syn, ref, recs = _tables()
    h = release_bandwidth(syn, ref, 0.1)
    d_all = pairwise_distances(ref, syn).min(axis=1)
    assert h == pytest.approx(np.quantile(d_all[d_all > 0], 0.1))
    kern = _Kernel(h, 6, 3.0)
    direct = kern.at(pairwise_distances(recs, syn)).sum(axis=1)
    np.testing.assert_allclose(kern.sums(recs, syn, "cosine", 2), direct, rtol=1e-9, atol=1e-12)
    assert kern.at(np.array([0.0]))[0] == pytest.approx(np.exp(-0.5 * (0.5**2)))
    assert kern.at(np.array([3.0 * h * 1.0001]))[0] == 0.0


def test_kde_and_gen_lra_definitions() -> None:
    syn, ref, recs = _tables()
    rng = np.random.default_rng(0)
    kde = KDEAttack().fit(syn, ref, rng=rng)
    k = kde.kernel_
    s_syn = k.at(pairwise_distances(recs, syn)).sum(axis=1)
    s_ref = k.at(pairwise_distances(recs, ref)).sum(axis=1)
    want = np.log((s_syn + k.floor) / len(syn)) - np.log((s_ref + k.floor) / len(ref))
    np.testing.assert_allclose(kde.score(recs), want, atol=1e-9)

    lra = GenLRAAttack(k=5).fit(syn, ref, rng=rng)
    d = pairwise_distances(recs, syn)
    s_ref_syn = k.at(pairwise_distances(syn, ref)).sum(axis=1)
    want = np.empty(len(recs))
    for i in range(len(recs)):
        nn = np.argsort(d[i], kind="stable")[:5]
        want[i] = np.log1p(k.at(d[i, nn]) / (s_ref_syn[nn] + k.floor)).sum()
    got = lra.score(recs)
    # ties among equally distant neighbours may pick other records at the 5th place
    assert np.mean(np.isclose(got, want, atol=1e-9)) > 0.95


def test_mc_and_dpi_definitions() -> None:
    syn, ref, recs = _tables()
    rng = np.random.default_rng(0)
    mc = MonteCarloAttack(calibrate=False).fit(syn, ref, rng=rng)
    eps = np.quantile(pairwise_distances(ref, syn).min(axis=1), 0.1)
    assert mc.epsilon_ == pytest.approx(eps)
    np.testing.assert_allclose(
        mc.score(recs), (pairwise_distances(recs, syn) <= eps).sum(axis=1) / len(syn)
    )
    dpi = DPIAttack(k=7).fit(syn, ref, rng=rng)
    pooled = np.c_[pairwise_distances(recs, ref), pairwise_distances(recs, syn)]
    nearest = np.argsort(pooled, axis=1, kind="stable")[:, :7]
    c_syn = (nearest >= len(ref)).sum(axis=1)
    want = np.log((c_syn + 0.5) / len(syn)) - np.log((7 - c_syn + 0.5) / len(ref))
    # equally distant neighbours at the 7th place may be taken from either sample
    assert np.mean(np.isclose(dpi.score(recs), want)) > 0.95


def test_logan_scores_are_log_odds_and_reproducible() -> None:
    syn, ref, recs = _tables()
    a = LoganAttack(hidden=16, max_iter=20).fit(syn, ref, rng=np.random.default_rng(1))
    b = LoganAttack(hidden=16, max_iter=20).fit(syn, ref, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(a.score(recs), b.score(recs))
    p = a.model_.predict_proba(_dense_features(recs))[:, 1]
    np.testing.assert_allclose(a.score(recs), np.log(p) - np.log1p(-p), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("cls", [GenLRAAttack, KDEAttack, MonteCarloAttack, DPIAttack, LoganAttack])
def test_lifecycle_and_bad_parameters(cls) -> None:  # type: ignore[no-untyped-def]
    syn, ref, recs = _tables()
    with pytest.raises(NotFittedError):
        cls().score(recs)
    bad = {
        GenLRAAttack: {"k": 0},
        KDEAttack: {"quantile": 1.5},
        MonteCarloAttack: {"quantile": 0},
        DPIAttack: {"k": -1},
        LoganAttack: {"hidden": 0},
    }[cls]
    with pytest.raises(InputError):
        cls(**bad).fit(syn, ref, rng=np.random.default_rng(0))


# --- oracles at the game's shapes -----------------------------------------------------------


@cache
def _adult(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    df = sl.datasets.load_adult()
    perm = np.random.default_rng(1000 + seed).permutation(len(df))
    ori = df.iloc[perm[:N_ORI]].reset_index(drop=True)
    ctl = df.iloc[perm[N_ORI : N_ORI + N_CTL]].reset_index(drop=True)
    rest = df.iloc[perm[N_ORI + N_CTL : 2 * N_ORI + N_CTL]].reset_index(drop=True)
    return ori, ctl, rest


def _game(seed: int, copy: bool):  # type: ignore[no-untyped-def]
    ori, ctl, rest = _adult(seed)
    syn = ori.sample(3 * N_ORI, replace=True, random_state=seed) if copy else rest
    game = NoBoxMembershipGame(attacks=NEW, n_exposed=0, copies=False)
    return game.run(Release(ori, syn, ctl), seed=seed)


def test_copy_oracle_a_3n_bootstrap_of_the_training_data_is_seen() -> None:
    """Release = 3n draws with replacement from the training data (95% of members copied)."""
    res = _game(0, copy=True)
    for name in ("gen-lra", "kde", "mc"):
        assert res.attacks[name].auc.ci_low > 0.75, name
    # dpi counts synthetic records among 20 pooled neighbours: with a release 24 times the
    # reference nearly all neighbours are synthetic for everyone, so it sees copies faintly;
    # logan learns distributions, and a bootstrap has the population's
    assert res.attacks["dpi"].auc.value > 0.5
    assert res.ensemble is not None and res.ensemble.auc.ci_low > 0.8


def _null_runs(seeds: range) -> list:  # type: ignore[type-arg]
    return [_game(s, copy=False) for s in seeds]


def _check_null(runs: list, min_share: float) -> None:  # type: ignore[type-arg]
    names = [*NEW, "ensemble"]
    cover = dict.fromkeys(names, 0)
    tpr_cover = dict.fromkeys(names, 0)
    tpr_total = dict.fromkeys(names, 0)
    for res in runs:
        outs = {a: (res.attacks[a].auc, res.attacks[a].tpr_intervals) for a in NEW}
        outs["ensemble"] = (res.ensemble.auc, res.ensemble.tpr_at_fpr)
        for a, (est, tprs) in outs.items():
            cover[a] += est.ci_low <= 0.5 <= est.ci_high
            for t in tprs.values():
                if t.value is None:
                    assert t.note and "not resolvable" in t.note
                    continue
                tpr_total[a] += 1
                tpr_cover[a] += t.ci_low <= t.fpr <= t.ci_high
    for a in names:
        assert cover[a] >= min_share * len(runs), (a, cover[a])
        assert tpr_cover[a] >= min_share * tpr_total[a], (a, tpr_cover[a], tpr_total[a])


def test_null_oracle_disjoint_real_release() -> None:
    """Release = other real people. Three seeds at the audit's 4:1 shape: every AUC interval and
    every TPR-at-FPR interval (the ensemble's too) covers its null value in at least two of
    three (95% intervals; we do not require all 18 to cover)."""
    _check_null(_null_runs(range(3)), 2 / 3)


@pytest.mark.slow
def test_null_oracle_disjoint_real_release_twenty_seeds() -> None:
    """Twenty seeds: coverage at least 85% for every attack and the ensemble."""
    _check_null(_null_runs(range(20)), 0.85)


def test_same_seed_same_result_whatever_the_workers() -> None:
    from synthleak.runtime import Runtime

    ori, ctl, rest = _adult(0)
    rel = Release(ori.iloc[:600], rest.iloc[:600], ctl.iloc[:200])
    game = NoBoxMembershipGame(attacks=NEW, n_exposed=0, copies=False)
    one = game.run(rel, seed=5)
    two = game.run(rel, seed=5, runtime=Runtime(workers=2))
    assert one.same_as(two) and one.ensemble == two.ensemble


def test_declared_constraints_reject_bad_hyperparameters_by_name() -> None:
    """The hyperparameters are declared (``_parameter_constraints``) and checked when ``fit``
    starts, before any input is looked at: a bad value raises InputError naming it."""
    import numpy as np

    from synthleak.attacks.mia_nobox_extra import (
        DPIAttack,
        GenLRAAttack,
        KDEAttack,
        LoganAttack,
        MonteCarloAttack,
    )
    from synthleak.errors import InputError

    cases = [
        (GenLRAAttack(k=0), "k"),
        (GenLRAAttack(rings=0), "rings"),
        (KDEAttack(quantile=0.0), "quantile"),
        (KDEAttack(reach=-1.0), "reach"),
        (KDEAttack(metric="l1"), "metric"),
        (MonteCarloAttack(calibrate="yes"), "calibrate"),
        (MonteCarloAttack(quantile=2.0), "quantile"),
        (DPIAttack(k=0), "k"),
        (LoganAttack(hidden=0), "hidden"),
        (LoganAttack(max_train=0), "max_train"),
        (LoganAttack(learning_rate=0.0), "learning_rate"),
    ]
    for attack, parameter in cases:
        with pytest.raises(InputError, match=f"^{parameter}=") as exc:
            attack.fit(None, None, rng=np.random.default_rng(0))
        assert exc.value.parameter == parameter
