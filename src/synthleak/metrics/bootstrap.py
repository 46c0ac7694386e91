"""The compiled kernel of :func:`synthleak.metrics.privacy.auc_estimate`'s bootstrap.

Kept apart from :mod:`synthleak.metrics.privacy` so that importing the metrics (the command
line does, for ``--help``) does not import numba.
"""

from __future__ import annotations

import numpy as np

from synthleak.runtime.jit import njit


@njit(cache=True, boundscheck=False)
def boot_counts(
    code: np.ndarray,
    lt: np.ndarray,
    at: np.ndarray,
    eq: np.ndarray,
    u: int,
    bi_p: np.ndarray,
    bi_n: np.ndarray,
) -> np.ndarray:  # pragma: no cover - compiled (tests/metrics/test_bootstrap.py)
    """Per draw ``b``: the Mann-Whitney count of positives ``bi_p[b]`` over negatives
    ``bi_n[b]`` (a tie weighs a half), from the negatives' distinct-score codes ``code``, each
    positive's number ``lt`` of distinct negative scores below it, and ``eq`` where it equals
    the distinct score ``at``."""
    n_boot = bi_p.shape[0]
    out = np.empty(n_boot)
    counts = np.zeros(u, dtype=np.int64)
    below = np.zeros(u + 1, dtype=np.int64)
    for b in range(n_boot):
        counts[:] = 0
        for j in range(bi_n.shape[1]):
            counts[code[bi_n[b, j]]] += 1
        for v in range(u):
            below[v + 1] = below[v] + counts[v]
        whole = 0  # negatives below, summed over the draw's positives
        ties = 0  # negatives equal, summed likewise (each weighs a half)
        for i in range(bi_p.shape[1]):
            p = bi_p[b, i]
            whole += below[lt[p]]
            if eq[p]:
                ties += counts[at[p]]
        out[b] = whole + 0.5 * ties
    return out
