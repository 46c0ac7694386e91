"""The compiled count of :func:`synthleak.metrics.privacy.auc_estimate`'s bootstrap."""

from __future__ import annotations

import numpy as np

from synthleak.metrics.bootstrap import boot_counts


def test_boot_counts_are_the_mann_whitney_counts_of_each_draw() -> None:
    """Per draw: the pairs (positive, negative) with the positive above, plus half the ties,
    counted pair by pair."""
    r = np.random.default_rng(2)
    pos = r.integers(0, 5, 9).astype(float)
    neg = r.integers(0, 5, 7).astype(float)
    uniq, code = np.unique(neg, return_inverse=True)
    lt = np.searchsorted(uniq, pos, side="left")
    at = np.minimum(lt, uniq.size - 1)
    eq = (lt < uniq.size) & (uniq[at] == pos)
    bi_p, bi_n = r.integers(0, 9, (30, 9)), r.integers(0, 7, (30, 7))
    got = boot_counts(code.ravel(), lt, at, eq, uniq.size, bi_p, bi_n)
    for b in range(30):
        p, n = pos[bi_p[b]][:, None], neg[bi_n[b]][None, :]
        assert got[b] == (p > n).sum() + 0.5 * (p == n).sum()
