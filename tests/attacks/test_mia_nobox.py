from __future__ import annotations

import numpy as np
import pytest

from synthleak import NotFittedError, Table
from synthleak.attacks.mia_nobox import ClosestRecordSignal, closest_distances
from synthleak.metrics.privacy import auc
from synthleak.vulnerability import pairwise_distances


def test_closest_distances_match_the_full_matrix(adult_1000: Table) -> None:
    recs, syn = adult_1000.take(np.arange(300)), adult_1000.take(np.arange(300, 1000))
    np.testing.assert_allclose(
        closest_distances(recs, syn, block=7), pairwise_distances(recs, syn).min(axis=1)
    )


def test_oracles(adult_1000: Table) -> None:
    members, controls = adult_1000.take(np.arange(0, 300)), adult_1000.take(np.arange(500, 800))
    copy = ClosestRecordSignal().fit(members)  # synthetic = training data: maximal signal
    y = np.r_[np.ones(300), np.zeros(300)]
    s = np.r_[copy.score(members), copy.score(controls)]
    assert auc(y, s) > 0.99
    indep = ClosestRecordSignal().fit(adult_1000.take(np.arange(800, 1000)))  # independent data
    s = np.r_[indep.score(members), indep.score(controls)]
    assert abs(auc(y, s) - 0.5) < 0.08
    with pytest.raises(NotFittedError):
        ClosestRecordSignal().score(members)
