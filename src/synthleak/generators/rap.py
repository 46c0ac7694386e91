"""``rap`` and ``rap-softmax``: relaxed adaptive projection on 3-way marginals.

Both generators hold a *relaxed* synthetic dataset of ``size`` rows: every column is a block of
numbers, one per value of its (discretised) domain, and a marginal query is answered by the
product of the blocks of its columns averaged over the rows (the continuous relaxation of a
counting query). Adam moves the relaxed data to make these answers match the real ones:

``min_S  sum over selected marginals A of || Q_A(S) - Q_A(D) ||_2^2``

in ``rounds`` rounds; each round adds the ``marginals`` worst-answered 3-way marginals to the
selected set and runs ``iterations / rounds`` Adam steps on all marginals selected so far.

* ``rap`` (non-private, Aydore et al.): blocks live in ``[0, 1]`` (projected gradient: clipped
  after every step); marginals are selected by their true L1 error; answers are exact.
* ``rap-softmax`` (differentially private, Liu et al.): every block is the softmax of free
  logits; marginals are selected with the exponential mechanism on their L1 error and measured
  with the Gaussian mechanism; the privacy accounting (zero-concentrated DP) is in
  :func:`rap_budget`.

The final records are drawn per column from each relaxed row's block (normalised for ``rap``),
and continuous columns are drawn uniformly inside their bin (:class:`Discretiser`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from threadpoolctl import threadpool_limits

from synthleak.constraints import Interval, Options, constraints
from synthleak.data.encoding import Discretiser
from synthleak.data.table import Table
from synthleak.errors import InputError
from synthleak.generators.base import (
    BaseGenerator,
    GeneratorInfo,
    parameter_docs,
    params_of,
    register_generator,
)

#: Marginals with more cells than this are left out of the workload (their relaxed answers
#: would need ``size x cells`` floats per step); none of Adult's or the UK census' is.
MAX_MARGINAL_CELLS = 50_000
#: Early stopping within a round (as the RAP reference implementation): stop when the loss
#: fell by less than ``_MIN_IMPROVEMENT`` (relative) over the last ``_WINDOW`` steps.
_WINDOW = 20
_MIN_IMPROVEMENT = 1e-3


class Relaxation(StrEnum):
    """How the relaxed one-hot blocks are parameterised."""

    CLIP = "clip"  # Aydore et al.: values in [0, 1], projected by clipping
    SOFTMAX = "softmax"  # Liu et al.: softmax of free logits, each block sums to 1


# --------------------------------------------------------------------------------------
# privacy accounting
# --------------------------------------------------------------------------------------
def rho_from_epsilon_delta(epsilon: float, delta: float) -> float:
    """The zCDP parameter rho whose (epsilon, delta)-DP guarantee is ``epsilon``.

    rho-zCDP implies ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP (Bun and Steinke 2016,
    Prop. 1.3); solving for rho gives ``rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2``.
    """
    if not (epsilon > 0):
        raise InputError(f"epsilon={epsilon} is invalid: give a privacy budget > 0")
    if not (0.0 < delta < 1.0):
        raise InputError(f"delta={delta} is invalid: give a value in (0, 1), such as 1/n^2")
    if math.isinf(epsilon):
        return math.inf
    log_term = math.log(1.0 / delta)
    return (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2


def epsilon_from_rho(rho: float, delta: float) -> float:
    """The epsilon of the (epsilon, delta)-DP guarantee implied by rho-zCDP (Bun and Steinke)."""
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


@dataclass(frozen=True)
class RapBudget:
    """Per-step privacy parameters of ``rap-softmax``.

    Attributes
    ----------
    rho : float
        Total zCDP budget.
    n_steps : int
        Number of (select, measure) steps: one per selected marginal.
    epsilon_select : float
        Pure-DP parameter of each exponential-mechanism selection (``epsilon_select^2 / 8``-zCDP).
    sigma : float
        Standard deviation of the Gaussian noise added to every cell of a measured marginal
        (marginals normalised to sum to 1).
    score_sensitivity : float
        Sensitivity of the selection score (L1 error of a normalised marginal): ``2 / n``.
    l2_sensitivity : float
        L2 sensitivity of a normalised marginal: ``sqrt(2) / n``.
    """

    rho: float
    n_steps: int
    epsilon_select: float
    sigma: float
    score_sensitivity: float
    l2_sensitivity: float

    @property
    def rho_spent(self) -> float:
        """zCDP actually spent: selections plus measurements (equals ``rho``)."""
        per_step = self.epsilon_select**2 / 8.0 + self.l2_sensitivity**2 / (2.0 * self.sigma**2)
        return self.n_steps * per_step


def rap_budget(
    epsilon: float, delta: float, n: int, n_steps: int, measure_fraction: float = 0.5
) -> RapBudget:
    """Split an (epsilon, delta) budget over ``n_steps`` selections and measurements.

    Neighbouring datasets differ by replacing one of ``n`` records (``n`` is public). A
    marginal normalised by ``n`` then moves by at most ``1/n`` in two cells: its L1 error (the
    selection score) has sensitivity ``2/n`` and the marginal has L2 sensitivity ``sqrt(2)/n``.

    * total: ``rho = rho_from_epsilon_delta(epsilon, delta)``;
    * each of the ``n_steps`` exponential mechanisms gets ``rho_s = (1 - f) rho / n_steps``,
      run with ``epsilon_select = sqrt(8 rho_s)`` (an epsilon-DP exponential mechanism is
      ``epsilon^2/8``-zCDP, Cesar and Rogers 2021);
    * each of the ``n_steps`` Gaussian measurements gets ``rho_m = f rho / n_steps``, run with
      ``sigma = l2 / sqrt(2 rho_m) = 1 / (n sqrt(rho_m))`` (the Gaussian mechanism is
      ``l2^2 / (2 sigma^2)``-zCDP, Bun and Steinke 2016);

    and zCDP composes by addition, so the whole run is rho-zCDP, hence (epsilon, delta)-DP.
    ``f`` is ``measure_fraction``.
    """
    rho = rho_from_epsilon_delta(epsilon, delta)
    if n < 1 or n_steps < 1:
        raise InputError("the privacy budget needs at least one record and one step")
    if not (0.0 < measure_fraction < 1.0):
        raise InputError(f"measure_fraction={measure_fraction} is invalid: give a value in (0, 1)")
    score_sens = 2.0 / n
    l2 = math.sqrt(2.0) / n
    if math.isinf(rho):
        return RapBudget(rho, n_steps, math.inf, 0.0, score_sens, l2)
    rho_s = (1.0 - measure_fraction) * rho / n_steps
    rho_m = measure_fraction * rho / n_steps
    return RapBudget(
        rho, n_steps, math.sqrt(8.0 * rho_s), l2 / math.sqrt(2.0 * rho_m), score_sens, l2
    )


def exponential_mechanism(
    scores: np.ndarray, epsilon: float, sensitivity: float, *, rng: np.random.Generator
) -> int:
    """Index drawn with probability proportional to ``exp(epsilon * score / (2 sensitivity))``.

    Implemented as report-noisy-max with Gumbel noise, which samples exactly that
    distribution; ``-inf`` scores are never drawn; an infinite ``epsilon`` returns the argmax.
    """
    if math.isinf(epsilon):
        return int(np.argmax(scores))
    logits = scores * (epsilon / (2.0 * sensitivity))
    return int(np.argmax(logits + rng.gumbel(size=scores.shape)))


# --------------------------------------------------------------------------------------
# relaxed marginals
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Marginal:
    cols: tuple[int, ...]  # attribute indices, largest domain first
    shape: tuple[int, ...]

    @property
    def cells(self) -> int:
        return int(np.prod(self.shape))


def _answers(m: _Marginal, blocks: list[np.ndarray]) -> np.ndarray:
    """Relaxed answers of marginal ``m``: mean over rows of the product of its blocks (flat).

    Blocks are stored transposed, ``(domain size, rows)``, so every elementwise product runs
    along the long row axis and every contraction is one matrix product.
    """
    xs = [blocks[c] for c in m.cols]
    rows = xs[0].shape[1]
    if len(xs) == 1:
        return xs[0].mean(axis=1)
    rest = xs[1]
    for x in xs[2:]:
        rest = (rest[:, None, :] * x[None, :, :]).reshape(-1, rows)
    return (xs[0] @ rest.T).ravel() / rows


def _loss_grad(
    m: _Marginal, target: np.ndarray, blocks: list[np.ndarray], grads: list[np.ndarray]
) -> float:
    """Add the gradient of ``||answers - target||^2`` to ``grads``; return the loss.

    With ``A = a bc^T / rows`` (``bc`` the row-wise outer product of the other blocks) and
    ``E = A - target``: ``d/da = 2 E bc / rows`` and ``d/d(bc) = 2 E^T a / rows``, which is
    contracted with ``c`` (resp. ``b``) to give the gradients of ``b`` (resp. ``c``).
    """
    xs = [blocks[c] for c in m.cols]
    rows = xs[0].shape[1]
    if len(xs) == 1:
        err = xs[0].mean(axis=1) - target
        grads[m.cols[0]] += (2.0 / rows) * err[:, None]
        return float(err @ err)
    if len(xs) == 2:
        a, b = xs
        err = (a @ b.T) / rows - target.reshape(m.shape)
        e2 = err * (2.0 / rows)
        grads[m.cols[0]] += e2 @ b
        grads[m.cols[1]] += e2.T @ a
        return float(np.sum(err * err))
    a, b, c = xs
    nb, nc = m.shape[1], m.shape[2]
    bc = (b[:, None, :] * c[None, :, :]).reshape(nb * nc, rows)
    err = (a @ bc.T) / rows - target.reshape(m.shape[0], nb * nc)
    e2 = err * (2.0 / rows)
    grads[m.cols[0]] += e2 @ bc
    dbc = (e2.T @ a).reshape(nb, nc, rows)
    grads[m.cols[1]] += (dbc * c[None, :, :]).sum(axis=1)
    grads[m.cols[2]] += (dbc * b[:, None, :]).sum(axis=0)
    return float(np.sum(err * err))


def _softmax_backward(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Gradient with respect to the logits of ``x = softmax(logits, axis=0)``
    given ``g = dL/dx``.
    """
    return x * (g - (x * g).sum(axis=0, keepdims=True))


def _true_answers(m: _Marginal, codes: np.ndarray) -> np.ndarray:
    flat = np.zeros(len(codes), dtype=np.int64)
    for c, size in zip(m.cols, m.shape, strict=True):
        flat = flat * size + codes[:, c].astype(np.int64)
    return (np.bincount(flat, minlength=m.cells) / len(codes)).astype(np.float32)


def _workload(
    sizes: np.ndarray, k: int, max_workload: int, rng: np.random.Generator
) -> list[_Marginal]:
    k = min(k, len(sizes))
    out = []
    for combo in itertools.combinations(range(len(sizes)), k):
        cols = tuple(sorted(combo, key=lambda c: (-int(sizes[c]), c)))
        m = _Marginal(cols, tuple(int(sizes[c]) for c in cols))
        if m.cells <= MAX_MARGINAL_CELLS:
            out.append(m)
    if not out:
        raise InputError(
            f"rap: every {k}-way marginal has more than {MAX_MARGINAL_CELLS} cells: "
            "use fewer bins or merge rare categories"
        )
    if 0 < max_workload < len(out):
        keep = np.sort(rng.choice(len(out), size=max_workload, replace=False))
        out = [out[i] for i in keep]
    return out


# --------------------------------------------------------------------------------------
# the generator
# --------------------------------------------------------------------------------------
class RAP(BaseGenerator):
    """Relaxed adaptive projection (see the module docstring).

    Parameters
    ----------
    iterations : int, default 1000
        Adam steps at most, over all rounds (Annamalai et al. 2024: 2000).
        Spread evenly over the rounds; a round stops early when its loss falls
        by less than 0.1% over 20 steps (as the RAP reference implementation). Annamalai et al.
        (2024), appendix A, use 2000: ``iterations=2000`` reproduces it at about twice the time.
    rounds : int, default 10
        adaptive rounds T.
        RAP's ``T``; at least one iteration per round.
    marginals : int, default 5
        3-way marginals selected per round K.
        RAP's ``K`` ( Liu et al. sweep T in 2..100, K in 5..100).
    size : int, default 300
        rows of the relaxed dataset.
        RAP's ``n'``. Aydore et al. and Liu et al. use 1000; 300 keeps
        a fit on 1,000 Adult records within the 10 s budget. The cost grows linearly with it:
        ``size=1000`` took about 3x longer and lowered Adult's 3-way TVD to the training data
        from 0.108 to 0.084 (``benchmarks/RESULTS_synthpop_rap.md``).
    bins : int, default 10
        uniform bins per continuous column (schema range).
        Missing values get a bin.
    lr : float, default 0.1
        Adam learning rate.
        Liu et al. use 0.1 for the softmax relaxation.
    relaxation : Relaxation
        ``CLIP`` for ``rap``, ``SOFTMAX`` for ``rap-softmax``.
    epsilon : float, default inf
        privacy budget (inf = no privacy).
        With ``inf``: exact answers, greedy selection.
    delta : float, optional
        DP delta (default 1/n^2).
        The failure probability of (epsilon, delta)-DP; default ``1/n^2`` (Annamalai et al. (2024),
        appendix A, after Liu et al.), with ``n`` the number of training records.
    k : int, default 3
        Order of the marginals in the workload.
    max_workload : int, default 1000
        Keep at most this many marginals, a random (data-independent) subset, when the data
        has more ``k``-way marginals than that (Adult has 455 and keeps all).

    Attributes
    ----------
    disc_ : Discretiser
        Uniform bins over the schema (the domain of the relaxed data).
    probs_ : list of ndarray
        Per column, the ``(size, domain size)`` probabilities of every relaxed row.
    selected_ : list of tuple
        Column indices (schema order) of the selected marginals, in selection order.
    targets_ : list of ndarray
        Their measured answers (noisy under DP), flat in the order of ``workload_``'s cells.
    budget_ : RapBudget or None
        The privacy accounting (``None`` without privacy); ``delta_`` the delta used.
    losses_ : list of float
        Loss after every Adam step.

    Notes
    -----
    *Workload.* All ``k``-way marginals of the discretised columns except those with more than
    :data:`MAX_MARGINAL_CELLS` cells, capped at ``max_workload``. Only the ``rounds x marginals``
    adaptively selected ones enter the loss (the adaptive projection of Aydore et al.); on Adult the
    defaults select 50 of 455. Annamalai et al. (2024), appendix A, run RAP on all 3-way marginals;
    the adaptive selection keeps one fit within seconds on two cores.

    *Privacy (rap-softmax).* With a finite ``epsilon`` the domain - categories, ranges, bins
    - comes from the schema only and never from the data (bins are uniform over the schema's
    ``low``/``high``), so supply a schema that was not read off the private data
    (``--schema``; reprosyn issue #38 shows the leak otherwise). The number of records ``n`` is
    treated as public. Accounting: :func:`rap_budget`. ``rap`` (``epsilon=inf``) offers no
    privacy.

    *Utility under DP on small data.* The Gaussian noise is per cell of a normalised marginal,
    ``sigma = 1 / (n sqrt(rho_m))``: with ``n = 1000``, ``epsilon = 10`` and the defaults it is
    about 0.009, far above the ~1e-4 mass of a cell of a 10,000-cell marginal, and columns that no
    selected marginal touches stay near uniform. Expect 3-way errors close to or above ``indhist``'s
    below ``epsilon`` around 100 at that size (Annamalai et al. (2024), Sec. 6.4, also report large
    errors for RAP-softmax); utility grows with ``n`` and ``epsilon``.

    References
    ----------
    Aydore et al., "Differentially private query release through adaptive projection",
    ICML 2021 (RAP). Liu, Vietri and Wu, "Iterative methods for private synthetic data:
    unifying framework and new methods", NeurIPS 2021 (RAP-softmax). Annamalai, Gadotti and
    Rocher, USENIX Security 2024, Sec. 5.2 and appendix A (parameters: 2000 iterations, all
    3-way marginals, delta = 1/n^2).
    """

    _parameter_constraints = constraints(
        iterations=Interval(int, 1, None),
        rounds=Interval(int, 1, None),
        marginals=Interval(int, 1, None),
        size=Interval(int, 1, None),
        bins=Interval(int, 1, None),
        lr=Interval(float, 0, math.inf, closed="neither"),
        relaxation=Options(Relaxation),
        epsilon=Interval(float, 0, None, closed="neither"),  # inf: no privacy
        delta=(Interval(float, 0, 1, closed="neither"), None),
        k=Interval(int, 1, None),
        max_workload=Interval(int, 0, None),
    )

    def __init__(
        self,
        iterations: int = 1000,
        rounds: int = 10,
        marginals: int = 5,
        size: int = 300,
        bins: int = 10,
        lr: float = 0.1,
        relaxation: Relaxation = Relaxation.CLIP,
        epsilon: float = math.inf,
        delta: float | None = None,
        k: int = 3,
        max_workload: int = 1000,
    ) -> None:
        super().__init__()
        self.iterations = int(iterations)
        self.rounds = int(rounds)
        self.marginals = int(marginals)
        self.size = int(size)
        self.bins = int(bins)
        self.lr = float(lr)
        self.relaxation = relaxation
        self.epsilon = float(epsilon)
        self.delta = None if delta is None else float(delta)
        self.k = int(k)
        self.max_workload = int(max_workload)

    def _check_parameter_rules(self) -> None:
        """The one rule across parameters: at least one iteration per round."""
        if self.iterations < self.rounds:
            raise InputError(
                f"iterations={self.iterations} is smaller than rounds={self.rounds}: "
                "give at least one iteration per round",
                parameter="iterations",
            )

    @property
    def claimed_epsilon(self) -> float | None:  # type: ignore[override]
        """``epsilon`` when finite (``rap-softmax``); ``None`` without privacy (``rap``)."""
        return self.epsilon if math.isfinite(self.epsilon) else None

    @property
    def claimed_delta(self) -> float | None:  # type: ignore[override]
        """``delta``; its default ``1/n^2`` is known once fitted (``None`` before, and when
        no epsilon is claimed)."""
        if self.claimed_epsilon is None:
            return None
        if self.delta is not None:
            return self.delta
        return getattr(self, "delta_", None)

    # --- relaxed data -------------------------------------------------------------------
    def _blocks(self, theta: list[np.ndarray]) -> list[np.ndarray]:
        if self.relaxation == Relaxation.CLIP:
            return theta
        out = []
        for t in theta:
            e = np.exp(t - t.max(axis=0, keepdims=True))
            out.append(e / e.sum(axis=0, keepdims=True))
        return out

    def fit(self, table: Table, *, rng: np.random.Generator) -> RAP:
        """Select, measure and project (see the class docstring).

        Parameters
        ----------
        table : Table
            The training (private) data; its schema fixes the domain.
        rng : numpy.random.Generator
            Drives initialisation, workload subsampling, selection and noise.

        Notes
        -----
        BLAS runs single-threaded here: the matrix products are small, so threads cost more
        than they save (and oversubscribe the machine when shadow models run in parallel).
        """
        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit(table, rng)

    def _fit(self, table: Table, rng: np.random.Generator) -> RAP:
        n = len(table)
        if n == 0:
            raise InputError("rap cannot be fitted on an empty table: give at least one record")
        private = math.isfinite(self.epsilon)
        self.schema_ = table.schema
        disc = Discretiser(table.schema, self.bins, "uniform")  # schema only: DP-safe
        self.disc_ = disc
        sizes = disc.sizes
        codes = disc.transform(table)
        workload = _workload(sizes, self.k, self.max_workload, rng)
        per_round = min(self.marginals, len(workload))
        n_steps = min(self.rounds * per_round, len(workload))
        rounds = math.ceil(n_steps / per_round)
        delta = self.delta if self.delta is not None else min(1.0 / n**2, 0.5)
        budget = rap_budget(self.epsilon, delta, n, n_steps) if private else None
        self.budget_ = budget
        self.delta_ = delta if private else None

        truth = [_true_answers(m, codes) for m in workload]
        f32 = np.float32
        if self.relaxation == Relaxation.CLIP:
            theta = []
            for s in sizes:
                x = rng.random((int(s), self.size)).astype(f32)
                theta.append(x / x.sum(axis=0, keepdims=True))
        else:
            theta = [rng.standard_normal((int(s), self.size)).astype(f32) for s in sizes]
        m1 = [np.zeros_like(t) for t in theta]
        m2 = [np.zeros_like(t) for t in theta]
        beta1, beta2, eps_adam = 0.9, 0.999, 1e-8
        step = 0
        selected: list[int] = []
        targets: list[np.ndarray] = []
        remaining = np.ones(len(workload), dtype=bool)
        steps_per_round = [
            self.iterations // rounds + (1 if r < self.iterations % rounds else 0)
            for r in range(rounds)
        ]
        self.losses_: list[float] = []
        for r in range(rounds):
            blocks = self._blocks(theta)
            scores = np.array(
                [
                    float(np.abs(_answers(m, blocks) - t).sum()) if remaining[i] else -np.inf
                    for i, (m, t) in enumerate(zip(workload, truth, strict=True))
                ]
            )
            take = min(per_round, n_steps - len(selected))
            for _ in range(take):
                if budget is None:
                    i = int(np.argmax(scores))
                else:
                    i = exponential_mechanism(
                        scores, budget.epsilon_select, budget.score_sensitivity, rng=rng
                    )
                scores[i] = -np.inf
                remaining[i] = False
                selected.append(i)
                ans = truth[i]
                if budget is not None:
                    ans = (ans + budget.sigma * rng.standard_normal(ans.shape)).astype(f32)
                targets.append(ans)
            active = [workload[i] for i in selected]
            checkpoint = math.inf
            for it in range(steps_per_round[r]):
                blocks = self._blocks(theta)
                grads = [np.zeros_like(t) for t in theta]
                loss = 0.0
                for m, tgt in zip(active, targets, strict=True):
                    loss += _loss_grad(m, tgt, blocks, grads)
                if self.relaxation == Relaxation.SOFTMAX:
                    grads = [_softmax_backward(x, g) for x, g in zip(blocks, grads, strict=True)]
                step += 1
                c1 = 1.0 - beta1**step
                c2 = 1.0 - beta2**step
                for j, g in enumerate(grads):
                    m1[j] *= beta1
                    m1[j] += (1.0 - beta1) * g
                    m2[j] *= beta2
                    m2[j] += (1.0 - beta2) * (g * g)
                    theta[j] -= (self.lr / c1) * m1[j] / (np.sqrt(m2[j] / c2) + eps_adam)
                    if self.relaxation == Relaxation.CLIP:
                        np.clip(theta[j], 0.0, 1.0, out=theta[j])
                self.losses_.append(loss)
                if (it + 1) % _WINDOW == 0:  # early stop: < 0.1% better over the window
                    if loss > (1.0 - _MIN_IMPROVEMENT) * checkpoint:
                        break
                    checkpoint = loss
        probs = []
        for block in self._blocks(theta):
            pr = np.asarray(block, dtype=np.float64).T  # (rows, domain size)
            tot = pr.sum(axis=1, keepdims=True)
            uniform = np.full_like(pr, 1.0 / pr.shape[1])
            probs.append(np.where(tot > 0, pr / np.where(tot > 0, tot, 1.0), uniform))
        self.probs_ = probs
        self.workload_ = workload
        self.selected_ = [workload[i].cols for i in selected]
        self.targets_ = targets  # measured (noisy under DP) answers of the selected marginals
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` records: relaxed rows used in turn (shuffled), each column drawn from its block."""
        rows = rng.permutation(np.arange(n) % self.size)
        codes = np.empty((n, len(self.probs_)), dtype=np.int64)
        for f, p in enumerate(self.probs_):
            cdf = np.cumsum(p[rows], axis=1)
            u = rng.random(n) * cdf[:, -1] if n else np.zeros(0)
            codes[:, f] = np.minimum((cdf < u[:, None]).sum(axis=1), p.shape[1] - 1)
        return self.disc_.inverse(codes, rng=rng)


def _rap(
    iterations: int = 1000,
    rounds: int = 10,
    marginals: int = 5,
    size: int = 300,
    bins: int = 10,
    lr: float = 0.1,
) -> RAP:
    return RAP(iterations, rounds, marginals, size, bins, lr, Relaxation.CLIP)


def _rap_softmax(
    epsilon: float = 10.0,
    delta: float | None = None,
    iterations: int = 1000,
    rounds: int = 10,
    marginals: int = 5,
    size: int = 300,
    bins: int = 10,
    lr: float = 0.1,
) -> RAP:
    return RAP(iterations, rounds, marginals, size, bins, lr, Relaxation.SOFTMAX, epsilon, delta)


#: The one-line docs of RAP's parameters (its docstring), for the two factories below.
_DOCS = parameter_docs(RAP)
register_generator(
    GeneratorInfo(
        "rap",
        _rap,
        params_of(_rap, doc=_DOCS),
        "relaxed adaptive projection on 3-way marginals (no privacy)",
    )
)
register_generator(
    GeneratorInfo(
        "rap-softmax",
        _rap_softmax,
        params_of(_rap_softmax, doc=_DOCS),
        "relaxed adaptive projection with softmax blocks, (epsilon, delta)-DP",
        differentially_private=True,
        aliases=("rap_softmax",),
    )
)
