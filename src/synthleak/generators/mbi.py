"""``mst``: the MST mechanism of McKenna, Miklau and Sheldon (2021) on top of private-pgm (``mbi``).

MST is (epsilon, delta)-differentially private. It spends its zCDP budget ``rho`` in three equal
parts:

1. **one-way marginals** of every attribute, Gaussian noise; values whose noisy count is below
   ``3 sigma`` are merged into one "rare" value (domain compression);
2. **selection**: the pairs of attributes that a model fitted to the one-way marginals explains
   worst (L1 error of its two-way marginal, sensitivity 1) are picked by the exponential mechanism
   one edge at a time, building a maximum spanning tree (``d - 1`` edges);
3. **two-way marginals** on the tree edges, Gaussian noise.

Private-pgm's graphical-model estimation (mirror descent) then fits a Markov random field to all
the noisy measurements, and records are drawn from it. The attribute domains come from the
schema (categorical domains as given, continuous columns cut into ``bins`` *uniform* bins over
the schema range plus a missing bin), never from the data: supply a schema you did not read off
the private data for the guarantee to hold.

The mbi v2 package (JAX) ships the estimation and sampling but not the MST mechanism itself, so
steps 1-3 are implemented here following the reference implementation
(``private-pgm/mechanisms/mst.py``) and the zCDP-to-(epsilon, delta) conversion of Canonne,
Kamath and Steinke (2020, ``cdp2adp``).

References
----------
McKenna et al. (2021), "Winning the NIST Contest: A scalable and general approach to
differentially private synthetic data", Journal of Privacy and Confidentiality 11(3)
(arXiv:2108.04978), Sec. 4 (MST).
McKenna et al. (2019), "Graphical-model based estimation and inference for differential
privacy", ICML (private-pgm).
Canonne et al. (2020), "The discrete Gaussian for differential privacy", NeurIPS
(Proposition 1.3 / the cdp2adp conversion).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import math
import warnings
from typing import Any

import numpy as np

from synthleak.constraints import Interval, constraints
from synthleak.data.encoding import Discretiser
from synthleak.data.table import Table
from synthleak.errors import MissingExtraError
from synthleak.generators._adapt import draw_seed, global_seed
from synthleak.generators.base import BaseGenerator, GeneratorInfo, params_of, register_generator


# --- privacy accounting (zCDP <-> approximate DP) ---------------------------------------------
def cdp_delta(rho: float, eps: float) -> float:
    """Smallest delta such that rho-zCDP implies (eps, delta)-DP
    (Canonne et al. 2020, Prop. 1.3).
    """
    if rho < 0 or eps < 0:
        raise ValueError("rho and eps must be >= 0")
    if rho == 0:
        return 0.0
    amin, amax = 1.01, (eps + 1) / (2 * rho) + 2
    alpha = amin
    for _ in range(200):  # bisection: converged to float precision long before
        alpha = (amin + amax) / 2
        derivative = (2 * alpha - 1) * rho - eps + math.log1p(-1.0 / alpha)
        if derivative < 0:
            amin = alpha
        else:
            amax = alpha
    delta = math.exp((alpha - 1) * (alpha * rho - eps) + alpha * math.log1p(-1 / alpha)) / (
        alpha - 1.0
    )
    return min(delta, 1.0)


def cdp_rho(eps: float, delta: float) -> float:
    """Largest rho such that rho-zCDP implies (eps, delta)-DP
    (binary search on :func:`cdp_delta`).
    """
    if eps < 0 or delta <= 0:
        raise ValueError("eps must be >= 0 and delta > 0")
    if delta >= 1:
        return 0.0
    lo, hi = 0.0, eps + 1.0
    for _ in range(200):  # bisection: converged to float precision long before
        mid = (lo + hi) / 2
        if cdp_delta(mid, eps) <= delta:
            lo = mid
        else:
            hi = mid
    return lo


# --- mbi access ---------------------------------------------------------------------------------
def _require_mbi() -> None:
    if importlib.util.find_spec("mbi") is None or importlib.util.find_spec("jax") is None:
        raise MissingExtraError("mbi", "mbi", "the mst generator")


def _import_mbi() -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # mbi warns about JAX float32 / compilation cache
            import mbi
            from mbi.estimation import MirrorDescent  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError("mbi", "mbi", "the mst generator") from exc
    return mbi


@dataclasses.dataclass(frozen=True)
class _TailWeightedQuery:
    """Datavector with its last entry scaled by ``tail``: the compressed one-way measurement.

    Hashable by value (unlike ``mbi.WeightedQuery``), so JAX reuses compiled programs across fits
    with the same compressed domain.
    """

    tail: float

    def __call__(self, f: Any) -> Any:
        v = f.datavector()
        return v.at[-1].multiply(self.tail)

    def op_norm_sq(self) -> float:
        return 1.0


MAX_PROGRAM_SHAPES = 32
"""Model shapes whose compiled JAX programs a process keeps (:func:`_keep_programs_bounded`)."""

_PROGRAM_SHAPES: set[tuple[Any, ...]] = set()


def _keep_programs_bounded(shape: tuple[Any, ...]) -> None:
    """Bound the JAX programs a long-lived process keeps.

    JAX keeps every program it compiles, and each new model shape (compressed domain, tree,
    tail weights) compiles new ones: about 17 MB a fit of six Adult columns, so a shadow-model
    worker fitting hundreds of datasets grew by gigabytes until it ran out of memory. A shape
    seen before reuses its programs; when a new shape would make more than
    :data:`MAX_PROGRAM_SHAPES`, every compiled program is dropped first (later fits compile
    theirs again).
    """
    if shape in _PROGRAM_SHAPES:
        return
    if len(_PROGRAM_SHAPES) >= MAX_PROGRAM_SHAPES:
        import jax

        jax.clear_caches()
        _PROGRAM_SHAPES.clear()
    _PROGRAM_SHAPES.add(shape)


def _marginal(codes: np.ndarray, cols: tuple[int, ...], sizes: np.ndarray) -> np.ndarray:
    """Counts of the marginal on ``cols`` as a flat C-order vector (float64)."""
    shape = tuple(int(sizes[c]) for c in cols)
    flat = np.ravel_multi_index(tuple(codes[:, c].astype(np.int64) for c in cols), shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).astype(np.float64)


class MST(BaseGenerator):
    """The MST mechanism (see the module docstring).

    Parameters
    ----------
    epsilon : float, default 1.0
        privacy budget epsilon.
        A finite number > 0.
    delta : float, default 1e-9
        privacy parameter delta.
        In (0, 1).
    bins : int, default 20
        uniform bins per continuous column (schema range).
    iters : int, default 1000
        mirror-descent iterations per estimation.
        Of each graphical-model estimation.

    Attributes
    ----------
    rho_ : float
        The zCDP budget spent.
    edges_ : list of (int, int)
        The selected spanning-tree edges (column positions in schema order).

    Notes
    -----
    Differentially private with respect to the training records under add/remove-one
    neighbouring, given a data-independent schema. The same ``rng`` gives the same output on the
    same machine (JAX on CPU is deterministic for these programs).

    Cost: JAX compiles the estimation programs for each new (compressed) domain shape; that
    first fit is much slower than later fits with the same shapes (see benchmarks/bench_adapters.py:
    0.6 s compiled against about two minutes compiling on a heavily loaded 2-core machine).
    """

    deterministic = True
    _parameter_constraints = constraints(
        epsilon=Interval(float, 0, math.inf, closed="neither"),
        delta=Interval(float, 0, 1, closed="neither"),
        bins=Interval(int, 1, None),
        iters=Interval(int, 1, None),
    )

    def __init__(
        self, epsilon: float = 1.0, delta: float = 1e-9, bins: int = 20, iters: int = 1000
    ) -> None:
        super().__init__()
        _require_mbi()
        self.epsilon = epsilon
        self.delta = delta
        self.bins = bins
        self.iters = iters

    @property
    def claimed_epsilon(self) -> float:  # type: ignore[override]
        """The (epsilon, delta)-DP guarantee's ``epsilon`` (a parameter)."""
        return float(self.epsilon)

    @property
    def claimed_delta(self) -> float:  # type: ignore[override]
        """The (epsilon, delta)-DP guarantee's ``delta`` (a parameter)."""
        return float(self.delta)

    def fit(self, table: Table, *, rng: np.random.Generator) -> MST:
        """Measure, select and estimate the graphical model; returns self."""
        mbi = _import_mbi()
        from mbi.estimation import MirrorDescent

        disc = Discretiser(table.schema, self.bins, "uniform")
        codes = disc.transform(table)
        sizes = disc.sizes
        d = len(sizes)
        rho = cdp_rho(self.epsilon, self.delta)
        sigma = math.sqrt(3.0 / (2.0 * rho))

        # 1. one-way marginals (budget rho/3) and domain compression
        sd1 = sigma * math.sqrt(d)
        supports: list[np.ndarray] = []
        comp_codes = np.empty((len(table), d), dtype=np.int64)
        comp_sizes = np.empty(d, dtype=np.int64)
        log1_raw: list[tuple[np.ndarray, float | None]] = []
        for f in range(d):
            y = _marginal(codes, (f,), sizes) + rng.normal(0.0, sd1, int(sizes[f]))
            sup = y >= 3 * sd1
            supports.append(sup)
            k = int(sup.sum())
            mapping = np.full(int(sizes[f]), k, dtype=np.int64)
            mapping[sup] = np.arange(k)
            comp_codes[:, f] = mapping[codes[:, f].astype(np.int64)]
            if k == sizes[f]:
                comp_sizes[f] = k
                log1_raw.append((y, None))
            else:
                m = int(sizes[f]) - k
                comp_sizes[f] = k + 1
                tail = 1.0 / math.sqrt(m)
                log1_raw.append((np.append(y[sup], y[~sup].sum() * tail), tail))

        names = [f"a{f}" for f in range(d)]
        domain = mbi.Domain(names, [int(s) for s in comp_sizes])
        log1 = [
            mbi.LinearMeasurement(y, (names[f],), sd1)
            if tail is None
            else mbi.LinearMeasurement(y, (names[f],), sd1, query=_TailWeightedQuery(tail))
            for f, (y, tail) in enumerate(log1_raw)
        ]

        # 2. selection of a spanning tree by the exponential mechanism (budget rho/3)
        edges: list[tuple[int, int]] = []
        tails = tuple(tail for _, tail in log1_raw)
        if d > 1:
            _keep_programs_bounded((tuple(comp_sizes.tolist()), tails, self.iters))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = MirrorDescent().estimate(domain, log1, iters=self.iters)
            pairs = list(itertools.combinations(range(d), 2))
            # the one-way model is a product distribution: its two-way marginals are outer
            # products of its one-way marginals (what est.project((a, b)) computes, without a
            # compiled variable-elimination program per pair)
            one = [np.asarray(est.project((nm,)).datavector(), dtype=np.float64) for nm in names]
            total = float(est.total)
            weights = {}
            for a, b in pairs:
                xhat = np.outer(one[a], one[b]).ravel() / max(total, 1e-12)
                x = _marginal(comp_codes, (a, b), comp_sizes)
                weights[a, b] = float(np.abs(x - xhat).sum())
            eps_em = math.sqrt(8.0 * (rho / 3.0) / (d - 1))
            parent = list(range(d))

            def find(i: int) -> int:
                while parent[i] != i:
                    parent[i] = parent[parent[i]]
                    i = parent[i]
                return i

            for _ in range(d - 1):
                cands = [e for e in pairs if find(e[0]) != find(e[1])]
                q = np.array([weights[e] for e in cands])
                scores = 0.5 * eps_em * (q - q.max())  # sensitivity 1, not monotonic
                p = np.exp(scores - scores.max())
                e = cands[int(rng.choice(len(cands), p=p / p.sum()))]
                edges.append(e)
                parent[find(e[0])] = find(e[1])

        # 3. two-way marginals on the tree (budget rho/3)
        log2 = []
        if edges:
            sd2 = sigma * math.sqrt(len(edges))
            for a, b in edges:
                x = _marginal(comp_codes, (a, b), comp_sizes)
                log2.append(
                    mbi.LinearMeasurement(
                        x + rng.normal(0.0, sd2, x.size), (names[a], names[b]), sd2
                    )
                )

        _keep_programs_bounded((tuple(comp_sizes.tolist()), tails, tuple(edges), self.iters))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model_ = MirrorDescent().estimate(domain, log1 + log2, iters=self.iters)
        self.disc_ = disc
        self.supports_ = supports
        self.names_ = names
        self.rho_ = rho
        self.edges_ = edges
        self.schema_ = table.schema
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` records drawn from the fitted graphical model."""
        d = len(self.names_)
        comp = np.zeros((n, d), dtype=np.int64)
        if n > 0:
            with global_seed(draw_seed(rng)), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                data = self.model_.synthetic_data(n).to_dict()
            for f, name in enumerate(self.names_):
                comp[:, f] = np.asarray(data[name], dtype=np.int64)[:n]
        codes = np.empty((n, d), dtype=np.int64)
        for f, sup in enumerate(self.supports_):
            kept = np.flatnonzero(sup)
            rare = np.flatnonzero(~sup)
            c = comp[:, f]
            out = np.empty(n, dtype=np.int64)
            is_rare = c >= len(kept)
            out[~is_rare] = kept[c[~is_rare]]
            if is_rare.any():
                out[is_rare] = rng.choice(rare, size=int(is_rare.sum()))
            codes[:, f] = out
        return self.disc_.inverse(codes, rng=rng)


register_generator(
    GeneratorInfo(
        "mst",
        MST,
        params_of(MST),
        "MST (McKenna et al. 2021): noisy 1- and 2-way marginals on a private spanning tree "
        "+ private-pgm",
        extra="mbi",
        differentially_private=True,
    )
)
