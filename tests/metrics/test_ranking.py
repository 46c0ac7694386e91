"""Rank statistics: Spearman with bootstrap CI, top-k precision, selector validation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from synthleak.metrics.ranking import (
    RankValidation,
    rank_validation,
    spearman,
    spearman_ci,
    top_k_precision,
)


def test_spearman_matches_scipy_and_ci_contains_it() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=50), rng.normal(size=50)
    assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic)
    rho, lo, hi = spearman_ci(x, x + 0.1 * y, rng=np.random.default_rng(1), n_boot=200)
    assert lo <= rho <= hi and rho > 0.9
    assert np.isnan(spearman(np.ones(5), x[:5]))


def test_top_k_precision() -> None:
    risk = np.array([0.9, 0.8, 0.5, 0.5, 0.95, 0.4])
    assert top_k_precision(np.array([5.0, 4, 0, 0, 3, 0]), risk, k=3) == 1.0
    assert top_k_precision(np.array([0.0, 0, 5, 4, 0, 3]), risk, k=3) == 0.0


def test_rank_validation_leaves_out_undefined_risks() -> None:
    risk = np.array([0.9, 0.8, 0.5, 0.5, 0.95, 0.4, np.nan])
    v = rank_validation(risk, {"s": np.arange(7.0)}, rng=np.random.default_rng(2), k=2, n_boot=50)
    assert v.n_records == 6 and v.chance_precision == pytest.approx(2 / 6)
    assert RankValidation.from_json(v.to_json()) == v
