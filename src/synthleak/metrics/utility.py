"""Utility metrics: MRE_{>10} over random 3-way marginals and the average k-TVD.

Both compare marginal histograms of the original and the synthetic data on a common discrete
domain (continuous columns are discretised with :class:`~synthleak.data.encoding.Discretiser`,
``bins`` uniform bins over the schema range).

* ``MRE_{>10}``: over every cell of the chosen marginals whose count in the original data is
  above ``threshold`` (10), the mean of ``|Q(D) - Q(S)| / Q(D)`` with ``Q`` the cell's fraction
  of records (Annamalai et al. (2024a), Sec. 5.3.1, after the NIST DP synthetic data challenge).
* ``k-TVD``: the mean over the chosen marginals of ``1/2 * sum_v |Q_v(D) - Q_v(S)|``
  (Annamalai et al. (2024a), Definitions 5.1 and 5.2).

Memory bound
------------
Marginals are counted sparsely, over the cells that occur in the data, never over the full
product of domain sizes (three text-like columns with 1,000-5,000 levels each span about 10^10
cells). :func:`joint_marginal_counts` builds one integer key per record (mixed-radix codes in
int64 while the product of the sizes fits; beyond that the partial key is renumbered with
``np.unique`` over the observed values, which are at most ``n + m``) and counts the distinct keys
with ``np.unique``. Memory is O(n + m) per marginal, whatever the domain sizes; time is
O((n + m) log(n + m)) per marginal. Cells absent from both datasets add nothing to either metric,
so the values equal those of dense counting (tested against it on small domains).

References
----------
Annamalai et al. (2024a), "A linear reconstruction approach for attribute inference attacks
against synthetic data", USENIX Security, Sec. 5.3 (5.3.1 MRE_{>10}, 5.3.2 3-TVD).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from synthleak.data.encoding import Discretiser
from synthleak.data.table import Table
from synthleak.errors import InputError


def random_marginals(n_attrs: int, k: int, count: int, *, rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct random k-subsets of ``range(n_attrs)`` (all of them if fewer exist)."""
    if k > n_attrs:
        raise InputError(f"{k}-way marginals need at least {k} columns, the data has {n_attrs}")
    total = math.comb(n_attrs, k)
    if total <= count or total <= 4 * count:
        allc = np.array(list(itertools.combinations(range(n_attrs), k)), dtype=np.int64)
        if total <= count:
            return allc
        return allc[np.sort(rng.choice(total, size=count, replace=False))]
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[int, ...]] = []
    while len(out) < count:
        c = tuple(sorted(rng.choice(n_attrs, size=k, replace=False).tolist()))
        if c not in seen:
            seen.add(c)
            out.append(c)
    return np.array(out, dtype=np.int64)


#: Largest product of domain sizes :func:`marginal_counts` will allocate densely.
DENSE_CELL_LIMIT = 1 << 24

_KEY_LIMIT = 1 << 62  # mixed-radix keys stay below this, so int64 never overflows


def _cell_keys(codes: np.ndarray, sizes: np.ndarray, attrs: np.ndarray) -> np.ndarray:
    """One int64 key per row, equal iff the rows agree on ``attrs`` (O(rows) memory)."""
    key = np.zeros(codes.shape[0], dtype=np.int64)
    space = 1
    for a in attrs:
        size = int(sizes[a])
        if space * size >= _KEY_LIMIT:
            # renumber the observed partial keys: at most ``rows`` distinct values remain
            uniq, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64).ravel()
            space = max(int(uniq.size), 1)
        key = key * size + codes[:, a].astype(np.int64)
        space *= size
    return key


def joint_marginal_counts(
    original: np.ndarray, synthetic: np.ndarray, sizes: np.ndarray, attrs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Counts of the marginal on ``attrs`` in both datasets, over the cells either one holds.

    Parameters
    ----------
    original, synthetic : ndarray of shape (n, F) and (m, F), integer
        Codes in ``[0, sizes[f])`` for every column ``f``.
    sizes : ndarray of shape (F,)
        Domain size of every column.
    attrs : ndarray of int
        The columns of the marginal.

    Returns
    -------
    (counts_original, counts_synthetic) : tuple of int64 ndarrays of equal length
        One entry per cell occurring in either dataset, in increasing order of the dense
        (mixed-radix) cell index. Memory is O(n + m), not O(prod(sizes[attrs])).
    """
    n = original.shape[0]
    both = np.concatenate([original, synthetic]) if synthetic.shape[0] else original
    keys = _cell_keys(both, sizes, attrs)
    uniq, inv = np.unique(keys, return_inverse=True)
    inv = inv.ravel()
    return (
        np.bincount(inv[:n], minlength=uniq.size),
        np.bincount(inv[n:], minlength=uniq.size),
    )


def marginal_counts(codes: np.ndarray, sizes: np.ndarray, attrs: np.ndarray) -> np.ndarray:
    """Dense cell counts of the marginal on ``attrs`` (flattened, length ``prod(sizes[attrs])``).

    Only for small domains (at most :data:`DENSE_CELL_LIMIT` cells); the metrics use the sparse
    :func:`joint_marginal_counts`.
    """
    space = math.prod(int(sizes[a]) for a in attrs)
    if space > DENSE_CELL_LIMIT:
        raise InputError(
            f"the marginal on columns {list(map(int, attrs))} has {space:,} cells, too many to "
            "count densely: use joint_marginal_counts, which counts only the cells in the data"
        )
    return np.bincount(_cell_keys(codes, sizes, attrs), minlength=space)


def mre_from_codes(
    original: np.ndarray,
    synthetic: np.ndarray,
    sizes: np.ndarray,
    marginals: np.ndarray,
    threshold: float = 10.0,
) -> float:
    """MRE over the cells of ``marginals`` whose original count exceeds ``threshold``."""
    n, m = original.shape[0], synthetic.shape[0]
    errs = []
    for attrs in marginals:
        co, cs = joint_marginal_counts(original, synthetic, sizes, attrs)
        keep = co > threshold
        if not keep.any():
            continue
        qo = co[keep] / n
        qs = cs[keep] / m if m else np.zeros(int(keep.sum()))
        errs.append(np.abs(qo - qs) / qo)
    if not errs:
        return float("nan")
    return float(np.concatenate(errs).mean())


def tvd_from_codes(
    original: np.ndarray, synthetic: np.ndarray, sizes: np.ndarray, marginals: np.ndarray
) -> float:
    """Mean total variation distance over ``marginals``."""
    n, m = original.shape[0], synthetic.shape[0]
    if n == 0 or m == 0:
        return float("nan")
    vals = []
    for attrs in marginals:
        co, cs = joint_marginal_counts(original, synthetic, sizes, attrs)
        qo, qs = co / n, cs / m
        vals.append(0.5 * np.abs(qo - qs).sum())
    return float(np.mean(vals)) if vals else float("nan")


def _codes(
    original: Table, synthetic: Table, bins: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if original.schema.names != synthetic.schema.names:
        raise InputError(
            "the original and synthetic data have different columns: give two files with the same columns"
        )
    disc = Discretiser(original.schema, bins)
    return disc.transform(original), disc.transform(synthetic), disc.sizes


def mre_gt10(
    original: Table,
    synthetic: Table,
    *,
    k: int = 3,
    n_marginals: int = 100,
    threshold: float = 10.0,
    bins: int = 20,
    rng: np.random.Generator,
) -> float:
    """Mean relative error of random k-way marginal cells with original count > ``threshold``.

    References
    ----------
    Annamalai et al. (2024a), Sec. 5.3.1.
    """
    o, s, sizes = _codes(original, synthetic, bins)
    marg = random_marginals(len(sizes), k, n_marginals, rng=rng)
    return mre_from_codes(o, s, sizes, marg, threshold)


def tvd_k(
    original: Table,
    synthetic: Table,
    *,
    k: int = 3,
    n_marginals: int = 100,
    bins: int = 20,
    rng: np.random.Generator,
) -> float:
    """Average k-TVD over random k-subsets of attributes (Definition 5.2).

    References
    ----------
    Annamalai et al. (2024a), Sec. 5.3.2.
    """
    o, s, sizes = _codes(original, synthetic, bins)
    marg = random_marginals(len(sizes), k, n_marginals, rng=rng)
    return tvd_from_codes(o, s, sizes, marg)


def utility_report(
    original: Table,
    synthetic: Table,
    *,
    k: int = 3,
    n_marginals: int = 100,
    threshold: float = 10.0,
    bins: int = 20,
    rng: np.random.Generator,
) -> dict[str, float | int]:
    """Both metrics on the same random marginals: ``{"mre_gt10", "tvd3", "marginals", ...}``."""
    if len(original) == 0 or len(synthetic) == 0:
        raise InputError("utility needs non-empty original and synthetic data")
    o, s, sizes = _codes(original, synthetic, bins)
    marg = random_marginals(len(sizes), k, n_marginals, rng=rng)
    return {
        "mre_gt10": mre_from_codes(o, s, sizes, marg, threshold),
        f"tvd{k}": tvd_from_codes(o, s, sizes, marg),
        "k": k,
        "marginals": len(marg),
        "threshold": threshold,
        "n_original": len(original),
        "n_synthetic": len(synthetic),
    }
