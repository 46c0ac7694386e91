"""Contrastive singling out: tiny encoder training (small hidden size, few epochs)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import synthleak as sl
from synthleak.attacks.contrastive import (
    ContrastiveEncoder,
    ContrastiveSinglingOut,
    knn_outlier_scores,
)
from synthleak.errors import InputError, MissingExtraError

pytest.importorskip("torch")

TINY = {"hidden": 16, "epochs": 3, "batch_size": 100, "embed_dim": 8}


@pytest.fixture(scope="module")
def syn(adult_table: sl.Table) -> sl.Table:
    return adult_table.sample(300, rng=np.random.default_rng(2))


def test_encoder_embeddings_are_normalised_and_seeded(syn: sl.Table) -> None:
    a = ContrastiveEncoder(**TINY).fit(syn, rng=np.random.default_rng(0))
    ea = a.transform(syn)
    assert ea.shape == (len(syn), 8)
    np.testing.assert_allclose(np.linalg.norm(ea, axis=1), 1.0, atol=1e-5)
    assert a.losses_[-1] < a.losses_[0]  # the InfoNCE loss goes down
    small = syn.take(np.arange(100))
    one = {**TINY, "epochs": 1}
    b = ContrastiveEncoder(**one).fit(small, rng=np.random.default_rng(7)).transform(small)
    c = ContrastiveEncoder(**one).fit(small, rng=np.random.default_rng(7)).transform(small)
    np.testing.assert_allclose(b, c, atol=1e-6)  # same rng, same network


def test_default_architecture_is_the_paper() -> None:
    enc = ContrastiveEncoder()
    assert (enc.hidden, enc.n_layers) == (1024, 3)


def test_knn_outlier_scores_find_the_isolated_point() -> None:
    rng = np.random.default_rng(0)
    pts = rng.normal(0, 0.05, (200, 8)) + np.eye(8)[0]
    pts[17] = -np.eye(8)[0]  # far from the cluster
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    scores = knn_outlier_scores(pts.astype(np.float32), k=5, block=64)
    assert int(np.argmax(scores)) == 17


def test_contrastive_predicates_single_out(syn: sl.Table) -> None:
    attack = ContrastiveSinglingOut(n_cols=3, encoder=TINY).fit(syn, rng=np.random.default_rng(0))
    preds = attack.predicates(30, rng=np.random.default_rng(1))
    assert len(preds) == 30
    np.testing.assert_array_equal(preds.count(attack.synthetic_), 1)
    assert np.all(preds.n_atoms == 3)
    assert attack.outliers_.size >= 50
    # predicates describe outlier records only
    for i in range(len(preds)):
        rows = preds.take([i]).matches(attack.synthetic_, cap=1).rows
        assert set(rows.tolist()) <= set(attack.outliers_.tolist())


def test_errors(syn: sl.Table, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError, match="outlier_fraction"):
        ContrastiveSinglingOut(outlier_fraction=0).fit(syn, rng=np.random.default_rng(0))
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(MissingExtraError, match=r"synthleak\[torch\]"):
        ContrastiveEncoder(**TINY).fit(syn, rng=np.random.default_rng(0))
