"""Tests of the target-attention membership attack (Meeus et al. (2023), appendix A)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import synthleak as sl
from synthleak.attacks import mia_attention
from synthleak.attacks.base import AttackFamily, make_attack
from synthleak.attacks.mia_attention import (
    AttentionNetwork,
    AttentionScoring,
    TargetAttentionAttack,
    forward,
    n_features,
    preprocess,
)
from synthleak.data.encoding import minmax, one_hot
from synthleak.errors import InputError, MissingExtraError, NotFittedError
from synthleak.metrics.privacy import auc
from synthleak.vulnerability import target_distances

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def adult() -> sl.Table:
    df = sl.datasets.load_adult().iloc[:5000]
    return sl.Table.from_frame(df, sl.infer_schema(df))


def _datasets(
    population: sl.Table,
    target: sl.Table,
    n: int,
    m: int,
    rng: np.random.Generator,
    plant: bool,
) -> tuple[list[sl.Table], np.ndarray]:
    """Balanced datasets of m random records; IN ones hold the target when ``plant``."""
    labels = rng.permutation(np.arange(n) % 2)
    out = []
    for y in labels:
        t = population.sample(m, rng=rng)
        if plant and y:
            t = sl.Table.concat([t.take(np.arange(m - 1)), target])
        out.append(t)
    return out, labels


def _split(adult: sl.Table) -> tuple[sl.Table, sl.Table]:
    """An isolated target (largest nearest-neighbour distance among the first 50 records) and the
    other records: a copy of it is then a clean signal, as for the vulnerable records the attack
    is meant for."""
    nn = []
    for i in range(50):
        d = target_distances(adult.take([i]), adult)
        d[i] = np.inf
        nn.append(d.min())
    i = int(np.argmax(nn))
    return adult.take([i]), adult.take(np.setdiff1d(np.arange(len(adult)), [i]))


def _small(**kw: object) -> TargetAttentionAttack:
    params: dict[str, object] = {"top_x": 20, "epochs": 100, "patience": None}
    params.update(kw)
    return TargetAttentionAttack(**params)  # type: ignore[arg-type]


# --- distance (eq. 5) ---------------------------------------------------------------------
def test_target_distances_match_eq5_brute_force(adult: sl.Table) -> None:
    target, rest = adult.take([3]), adult.take(np.arange(0, 300))
    h, ht = one_hot(rest).astype(np.float64), one_hot(target).astype(np.float64)[0]
    c, ct = minmax(rest).astype(np.float64), minmax(target).astype(np.float64)[0]
    n_cat, n_cont = rest.codes.shape[1], rest.values.shape[1]
    f = n_cat + n_cont
    cos_h = h @ ht / (np.linalg.norm(h, axis=1) * np.linalg.norm(ht))
    cos_c = c @ ct / (np.linalg.norm(c, axis=1) * np.linalg.norm(ct))
    expected = 1 - n_cat / f * cos_h - n_cont / f * cos_c
    got = target_distances(target, rest)
    np.testing.assert_allclose(got, expected, atol=1e-6)
    assert got[3] == pytest.approx(0.0, abs=1e-6)  # the target itself
    assert np.all((got >= 0) & (got <= 1))


def test_target_distances_rejects_two_targets(adult: sl.Table) -> None:
    with pytest.raises(InputError, match="one record"):
        target_distances(adult.take([0, 1]), adult)


# --- preprocessing ------------------------------------------------------------------------
def test_preprocess_unique_multiplicity_ranking_and_padding(adult: sl.Table) -> None:
    target = adult.take([0])
    # 3 copies of the target, 2 of record 5, 1 of record 7: three unique records
    ds = adult.take([5, 0, 7, 0, 5, 0])
    pre = preprocess(target, [ds, adult.take(np.arange(10, 60))], top_x=8)
    assert pre.mask[0].tolist() == [True] * 3 + [False] * 5
    assert pre.mask[1].all()
    mult = np.expm1(pre.dense[0, :3, -2])
    dist = pre.dense[0, :3, -1]
    assert mult[0] == pytest.approx(3.0) and dist[0] == pytest.approx(0.0, abs=1e-6)
    assert np.all(np.diff(pre.dense[1, :, -1]) >= 0)  # ranked by increasing distance
    assert sorted(np.round(mult, 4).tolist()) == [1.0, 2.0, 3.0]
    rec = pre.records()
    assert rec.shape == (2, 8, n_features(adult.schema))
    assert np.all(rec[0, 3:] == 0)  # padding is zero
    # the first record is the target: its preprocessed row equals the preprocessed target
    # except for the multiplicity
    t = pre.target()
    np.testing.assert_allclose(rec[0, 0, :-2], t[:-2])
    np.testing.assert_array_equal(rec[0, 0, : pre.n_onehot], one_hot(target)[0])
    assert t[-1] == 0.0 and t[-2] == pytest.approx(np.log(2.0))


def test_forward_masks_padding(adult: sl.Table) -> None:
    """Padded slots get zero attention: changing them does not change the output."""
    target = adult.take([0])
    pre = preprocess(target, [adult.take(np.arange(10, 15))], top_x=10)
    net = AttentionNetwork(pre.n_features)
    params = net.init(torch, torch.Generator().manual_seed(0))
    rec = torch.from_numpy(pre.records())
    mask = torch.from_numpy(pre.mask)
    t = torch.from_numpy(pre.target())
    with torch.no_grad():
        a = forward(torch, params, rec, mask, t)
        rec2 = rec.clone()
        rec2[0, 5:] = 7.0
        b = forward(torch, params, rec2, mask, t)
    assert torch.equal(a, b)


# --- learning -----------------------------------------------------------------------------
@pytest.mark.parametrize("scoring", list(AttentionScoring))
def test_learns_planted_signal(adult: sl.Table, scoring: AttentionScoring) -> None:
    target, rest = _split(adult)
    rng = np.random.default_rng(11)
    train, y_train = _datasets(rest, target, 160, 100, rng, plant=True)
    test, y_test = _datasets(rest, target, 200, 100, rng, plant=True)
    attack = _small(scoring=scoring, epochs=25).fit(
        target, train, y_train, rng=np.random.default_rng(0)
    )
    scores = attack.score(test)
    assert scores.shape == (200,)
    assert np.all((scores > 0) & (scores < 1))
    assert auc(y_test, scores) >= 0.95
    assert attack.history_["val_loss"][attack.best_epoch_ - 1] == min(attack.history_["val_loss"])


def test_pure_noise_gives_chance_auc(adult: sl.Table) -> None:
    target, rest = _split(adult)
    rng = np.random.default_rng(5)
    train, y_train = _datasets(rest, target, 200, 100, rng, plant=False)
    test, y_test = _datasets(rest, target, 400, 100, rng, plant=False)
    attack = _small(epochs=15).fit(target, train, y_train, rng=np.random.default_rng(1))
    # 200 IN / 200 OUT test datasets: the AUC of an uninformed score has sd ~0.029
    assert abs(auc(y_test, attack.score(test)) - 0.5) <= 0.1


def test_same_seed_same_scores(adult: sl.Table) -> None:
    target, rest = _split(adult)
    rng = np.random.default_rng(2)
    train, y_train = _datasets(rest, target, 60, 50, rng, plant=True)
    test, _ = _datasets(rest, target, 20, 50, rng, plant=True)

    def run(seed: int) -> np.ndarray:
        a = _small(epochs=5).fit(target, train, y_train, rng=np.random.default_rng(seed))
        return a.score(test)

    first = run(3)
    np.testing.assert_array_equal(first, run(3))
    assert not np.array_equal(first, run(4))


def test_early_stopping_and_checkpoint(adult: sl.Table) -> None:
    target, rest = _split(adult)
    rng = np.random.default_rng(4)
    train, y_train = _datasets(rest, target, 60, 50, rng, plant=False)
    attack = _small(epochs=200, patience=3).fit(target, train, y_train, rng=rng)
    assert attack.n_epochs_ < 200
    assert attack.n_epochs_ - attack.best_epoch_ == 3
    assert (
        len(attack.history_["train_loss"]) == len(attack.history_["val_loss"]) == attack.n_epochs_
    )


def test_collapse_check_spots_a_dead_network(adult: sl.Table) -> None:
    target, rest = _split(adult)
    rng = np.random.default_rng(8)
    train, y_train = _datasets(rest, target, 40, 50, rng, plant=True)
    attack = _small(epochs=3).fit(target, train, y_train, rng=rng)
    pre = preprocess(target, train, 20)
    x, m = torch.from_numpy(pre.records()), torch.from_numpy(pre.mask)
    yy = torch.from_numpy(y_train.astype(np.float32))
    data = mia_attention._FitData(x, m, x, m, yy, yy, torch.from_numpy(pre.target()))
    scoring = AttentionScoring.KEYS
    assert not mia_attention._collapsed(torch, attack.params_, data, scoring)
    dead = {k: v.clone() for k, v in attack.params_.items()}
    dead["pred_b1"][:] = -1e3  # every ReLU of MLP_pred off: the logit is pred_b2 for all inputs
    assert mia_attention._collapsed(torch, dead, data, scoring)


def test_collapsed_network_is_retrained(adult: sl.Table, monkeypatch: pytest.MonkeyPatch) -> None:
    target, rest = _split(adult)
    rng = np.random.default_rng(9)
    train, y_train = _datasets(rest, target, 60, 50, rng, plant=True)
    test, _ = _datasets(rest, target, 20, 50, rng, plant=True)

    def fit(**kw: object) -> TargetAttentionAttack:
        return _small(epochs=4, **kw).fit(target, train, y_train, rng=np.random.default_rng(3))

    paper = fit(restarts=0)
    ours = fit(restarts=2)
    # a fit that does not collapse is the paper's single run, unchanged
    assert paper.attempts_ == ours.attempts_ == 1
    np.testing.assert_array_equal(paper.score(test), ours.score(test))
    calls: list[int] = []

    def first_run_collapses(*args: object, **kwargs: object) -> bool:
        calls.append(1)
        return len(calls) == 1

    monkeypatch.setattr(mia_attention, "_collapsed", first_run_collapses)
    retried = fit(restarts=2)
    assert retried.attempts_ == 2
    assert not np.array_equal(retried.score(test), paper.score(test))
    monkeypatch.setattr(mia_attention, "_collapsed", lambda *a, **k: True)
    assert fit(restarts=2).attempts_ == 3  # capped
    assert fit(restarts=0).attempts_ == 1


def test_no_validation_keeps_last_epoch(adult: sl.Table) -> None:
    target, rest = _split(adult)
    rng = np.random.default_rng(4)
    train, y_train = _datasets(rest, target, 30, 50, rng, plant=False)
    attack = _small(epochs=4, validation_fraction=0.0).fit(target, train, y_train, rng=rng)
    assert attack.best_epoch_ == attack.n_epochs_ == 4
    assert attack.history_["val_loss"] == []


def test_threads_restored(adult: sl.Table) -> None:
    target, rest = _split(adult)
    rng = np.random.default_rng(6)
    train, y_train = _datasets(rest, target, 20, 30, rng, plant=False)
    before = torch.get_num_threads()
    _small(epochs=1, n_threads=1).fit(target, train, y_train, rng=rng)
    assert torch.get_num_threads() == before


# --- errors and registry --------------------------------------------------------------------
def test_not_fitted(adult: sl.Table) -> None:
    with pytest.raises(NotFittedError):
        TargetAttentionAttack().score([adult.take(np.arange(10))])


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"scoring": "queries"}, "keys, values"),
        ({"top_x": 0}, "top_x"),
        ({"dropout": 1.0}, "dropout"),
        ({"patience": 0}, "patience"),
        ({"validation_fraction": 1.0}, "validation_fraction"),
        ({"restarts": -1}, "restarts"),
    ],
)
def test_bad_parameters(adult: sl.Table, kw: dict[str, object], match: str) -> None:
    target, rest = _split(adult)
    ds = [rest.take(np.arange(i, i + 20)) for i in range(4)]
    with pytest.raises(InputError, match=match):
        TargetAttentionAttack(**kw).fit(
            target, ds, np.array([0, 1, 0, 1]), rng=np.random.default_rng(0)
        )  # type: ignore[arg-type]


def test_bad_labels(adult: sl.Table) -> None:
    target, rest = _split(adult)
    ds = [rest.take(np.arange(i, i + 20)) for i in range(4)]
    with pytest.raises(InputError, match="both IN"):
        TargetAttentionAttack().fit(target, ds, np.zeros(4), rng=np.random.default_rng(0))


def test_schema_mismatch(adult: sl.Table) -> None:
    target, rest = _split(adult)
    other = rest.select(rest.schema.names[:-1])
    with pytest.raises(InputError, match="different schemas"):
        preprocess(target, [other])


def test_registered() -> None:
    attack = make_attack(AttackFamily.MEMBERSHIP, "attention", epochs=3)
    assert isinstance(attack, TargetAttentionAttack)
    assert attack.epochs == 3


def test_missing_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(MissingExtraError, match=r"synthleak\[torch\]") as err:
        TargetAttentionAttack()
    assert err.value.extra == "torch"


def test_module_imports_without_torch() -> None:
    """torch is imported lazily: no module-level import (the registry imports this module)."""
    import ast
    import inspect

    import synthleak.attacks.mia_attention as mod

    tree = ast.parse(inspect.getsource(mod))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    assert names and not any(n.split(".")[0] == "torch" for n in names)
