"""The target-attention membership attack (Meeus et al. (2023), appendix A, Algorithm 1).

A small neural network reads the synthetic records closest to the target and predicts whether
the target was in the generator's training data. Unlike the query-based attack, whose features
are fixed counting queries, the network learns which records matter through an attention
mechanism driven by the target's own embedding.

Pipeline
--------
1. **Preprocessing** (:func:`preprocess`). For every synthetic dataset: its unique records and
   their multiplicity; the generalized cosine distance of eq. 5
   (:func:`synthleak.vulnerability.target_distances`)
   between every unique record and the target; the ``top_x`` closest unique records, ranked by
   increasing distance (ties: larger multiplicity first), padded with zeros and masked out when a
   dataset has fewer unique records. Each record becomes ``F'`` features: the one-hot categorical
   attributes (eq. 1-2, the missing code is one more category), the continuous attributes
   min-max scaled by the schema range (eq. 3-4, plus a missing indicator for nullable columns),
   ``log(1 + multiplicity)`` and the distance. The target is encoded the same way with
   multiplicity 1 and distance 0. All datasets become one dense ``(n_datasets, top_x, F')``
   array, built once.
2. **Network** (:class:`AttentionNetwork` parameters, :func:`forward`): ``MLP_emb`` (one hidden
   layer of ``emb_hidden`` ReLU units, dropout) embeds records and target; ``W_q`` maps the target
   to a query, ``W_k``/``W_v`` map records to keys and values; softmax target-attention weights
   over the (unmasked) records; the attention-weighted sum of values goes through ``MLP_pred``
   (one hidden layer of ``pred_hidden`` ReLU units, dropout) to one logit; the sigmoid of the
   logit is the membership probability.
3. **Training** per target with binary cross-entropy on the shadow datasets: Adamax, mini-batches
   of ``batch_size``, up to ``epochs`` epochs, a stratified ``validation_fraction`` held out and
   the parameters of the epoch with the lowest validation loss kept.

Deviations from the paper, all documented and switchable where it matters
---------------------------------------------------------------------------
* Continuous attributes are min-max scaled by the schema range before entering the network
  (``scale_continuous=True``); the paper leaves them untouched, which makes training unstable
  when a column such as ``capital-gain`` ranges over 10^5 while one-hot inputs are 0/1.
  ``scale_continuous=False`` feeds the raw values (missing -> 0). The distance always uses the
  scaled values, as eq. 3-5 prescribe.
* Multiplicity enters as ``log(1 + m)`` rather than ``m``, for the same reason (a common record
  of a categorical dataset can repeat hundreds of times).
* Algorithm 1 line 11 scores record ``j`` with the *values*, ``a_j = <q_t, v_j>``, while the text
  ("a query vector for the target record and keys and values for the records") and the standard
  attention mechanism (Vaswani et al.) use the *keys*, ``a_j = <q_t, k_j>``. The default is the
  standard ``AttentionScoring.KEYS``; ``AttentionScoring.VALUES`` is the literal Algorithm 1 (with
  it ``W_k`` is unused). Scores are not scaled by ``1/sqrt(F_att)``, as in Algorithm 1.
* The paper trains for 500 epochs and keeps the best-validation checkpoint. We keep the same
  checkpoint rule and, by default, also stop once the validation loss has not improved for
  ``patience=25`` epochs (``patience=None`` runs all epochs); the kept model is the same
  whenever the best epoch is followed by fewer than ``patience`` worse ones, and training takes
  a fraction of the time.
* The paper's learning rate is printed as "10e-3", which is 0.01 as a Python/C literal (the
  likely source) and 10^-3 as prose. We use ``learning_rate=1e-2``: on a planted signal (the
  target copied into the IN datasets, 200 shadow datasets, 100 epochs) it reached AUC 0.98
  where 1e-3 reached 0.61 (keys scoring, patience 25).
* Collapse restarts (``restarts=2``): when the kept network gives every validation dataset the
  same output (the ReLUs of ``MLP_pred`` died), it is retrained from a fresh initialisation. In
  the full Table 3 run 10 of 78 networks collapsed on the first try (AUC exactly 0.5); all
  learned on the retry. ``restarts=0`` is the paper's single run; fits that do not collapse are
  identical either way.

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS: appendix A of the arXiv version (preprocessing, Algorithm 1,
hyperparameters), Sec. 4, eq. 1-5 (encoding and distance); appendix A of the ESORICS version
(training: 500 epochs, Adamax, batch 20, 10 % validation, best-validation checkpoint, hidden
sizes 20 and 10, ReLU, dropout 0.15). Vaswani et al. (2017), "Attention is all you need"
(NeurIPS).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast

import numpy as np

from synthleak.attacks.base import AttackFamily, AttackInfo, MembershipAttack, register_attack
from synthleak.constraints import InstanceOf, Interval, Options, constraints
from synthleak.data.encoding import minmax, minmax_missing
from synthleak.data.schema import Schema
from synthleak.data.table import Table
from synthleak.errors import InputError, MissingExtraError, check_fitted
from synthleak.vulnerability import target_distances

__all__ = [
    "AttentionNetwork",
    "AttentionScoring",
    "PreprocessedDatasets",
    "TargetAttentionAttack",
    "forward",
    "preprocess",
]


class AttentionScoring(StrEnum):
    """How a record's attention score is computed from the target query.

    ``KEYS``: ``a_j = <q_t, k_j>``, the standard attention mechanism (default).
    ``VALUES``: ``a_j = <q_t, v_j>``, Algorithm 1 line 11 as printed.
    """

    KEYS = "keys"
    VALUES = "values"


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise MissingExtraError("torch", "torch", "the attention attack") from exc
    return torch


# --------------------------------------------------------------------------------------
# distance (eq. 5) and preprocessing
# --------------------------------------------------------------------------------------
def _check_same_schema(target: Table, table: Table) -> None:
    if table.schema != target.schema:
        raise InputError(
            "the synthetic dataset and the target have different schemas: "
            "encode both with the schema of the original data"
        )


@dataclass(frozen=True)
class PreprocessedDatasets:
    """Synthetic datasets as the network reads them, stored compactly.

    Record ``j`` of dataset ``i`` has the ``F'`` features ``[one_hot, dense]`` where ``one_hot``
    has a 1 at each index ``codes[i, j]`` (code + offset of its column) and ``dense`` is
    ``[continuous, missing flags, log(1 + multiplicity), distance]``. :meth:`records` expands
    them into the ``(n_datasets, top_x, F')`` matrix the network reads (a gather-based first
    layer on the indices was measured 7x slower than the dense product on CPU, so the network
    multiplies the dense matrix).

    Attributes
    ----------
    codes : ndarray (n_datasets, top_x, n_categorical), int64
        One-hot indices of the top-X unique records closest to the target (0 for padding).
    dense : ndarray (n_datasets, top_x, n_dense), float32
        Dense features (0 for padding).
    mask : ndarray (n_datasets, top_x), bool
        True for real records, False for padding.
    target_codes : ndarray (n_categorical,), int64
    target_dense : ndarray (n_dense,), float32
        The preprocessed target (multiplicity 1, distance 0).
    n_onehot : int
        Width of the one-hot block.
    """

    codes: np.ndarray
    dense: np.ndarray
    mask: np.ndarray
    target_codes: np.ndarray
    target_dense: np.ndarray
    n_onehot: int

    @property
    def n_features(self) -> int:
        """``F'``."""
        return self.n_onehot + self.dense.shape[-1]

    def records(self) -> np.ndarray:
        """The dense ``(n_datasets, top_x, F')`` matrix ``D_{s,p}`` of the paper (padding zero)."""
        n, x, _ = self.codes.shape
        out = np.zeros((n, x, self.n_features), dtype=np.float32)
        ii, jj = np.meshgrid(np.arange(n), np.arange(x), indexing="ij")
        for c in range(self.codes.shape[2]):
            out[ii, jj, self.codes[:, :, c]] = 1.0
        out[..., self.n_onehot :] = self.dense
        out[~self.mask] = 0.0
        return out

    def take(self, rows: slice | np.ndarray) -> PreprocessedDatasets:
        """A subset of the datasets."""
        return PreprocessedDatasets(
            self.codes[rows],
            self.dense[rows],
            self.mask[rows],
            self.target_codes,
            self.target_dense,
            self.n_onehot,
        )

    def target(self) -> np.ndarray:
        """The dense preprocessed target ``x_{t,p}`` (F',)."""
        out = np.zeros(self.n_features, dtype=np.float32)
        out[self.target_codes] = 1.0
        out[self.n_onehot :] = self.target_dense
        return out


def _dense_features(table: Table, *, scale_continuous: bool) -> np.ndarray:
    """Continuous attributes (scaled or raw, missing -> 0) and missing flags of nullable ones."""
    if not table.values.shape[1]:
        return np.zeros((len(table), 0), dtype=np.float32)
    if scale_continuous:
        cont = minmax(table)
    else:
        cont = np.nan_to_num(table.values, nan=0.0).astype(np.float32)
    return np.concatenate([cont, minmax_missing(table)], axis=1).astype(np.float32)


def _offsets(schema: Schema) -> np.ndarray:
    sizes = [c.size for c in schema.categorical]
    return (
        np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        if sizes
        else np.zeros(0, np.int64)
    )


def n_features(schema: Schema) -> int:
    """``F'``: the number of features per preprocessed record (one-hot, continuous, flags, +2)."""
    n_onehot = sum(c.size for c in schema.categorical)
    n_cont = len(schema.continuous)
    n_flags = sum(1 for c in schema.continuous if c.has_missing)
    return n_onehot + n_cont + n_flags + 2


def preprocess(
    target: Table, datasets: Sequence[Table], top_x: int = 100, *, scale_continuous: bool = True
) -> PreprocessedDatasets:
    """Preprocess synthetic datasets for the target-attention network (appendix A).

    Parameters
    ----------
    target : Table
        The target record (one row).
    datasets : sequence of Table
        Synthetic datasets with the target's schema.
    top_x : int
        Number of closest unique records kept per dataset.
    scale_continuous : bool
        Min-max scale continuous attributes by the schema range (see the module notes).

    Returns
    -------
    PreprocessedDatasets

    References
    ----------
    Meeus et al. (2023), appendix A (preprocessing paragraph).
    """
    if len(target) != 1:
        raise InputError(f"the target must be one record, got {len(target)}")
    if top_x < 1:
        raise InputError(f"top_x must be at least 1, got {top_x}")
    schema = target.schema
    offsets = _offsets(schema)
    n_cat = len(schema.categorical)
    n_dense = n_features(schema) - sum(c.size for c in schema.categorical)
    codes = np.zeros((len(datasets), top_x, n_cat), dtype=np.int64)
    dense = np.zeros((len(datasets), top_x, n_dense), dtype=np.float32)
    mask = np.zeros((len(datasets), top_x), dtype=bool)
    for i, ds in enumerate(datasets):
        _check_same_schema(target, ds)
        if len(ds) == 0:
            continue
        _, first, counts = np.unique(ds.row_keys(), return_index=True, return_counts=True)
        uniq = ds.take(first)
        dist = target_distances(target, uniq)
        order = np.lexsort((-counts, dist))[:top_x]
        k = order.size
        sel = uniq.take(order)
        codes[i, :k] = sel.codes.astype(np.int64) + offsets
        dense[i, :k, :-2] = _dense_features(sel, scale_continuous=scale_continuous)
        dense[i, :k, -2] = np.log1p(counts[order])
        dense[i, :k, -1] = dist[order]
        mask[i, :k] = True
    t_dense = np.empty(n_dense, dtype=np.float32)
    t_dense[:-2] = _dense_features(target, scale_continuous=scale_continuous)[0]
    t_dense[-2] = math.log1p(1.0)
    t_dense[-1] = 0.0
    t_codes = target.codes[0].astype(np.int64) + offsets
    return PreprocessedDatasets(
        codes, dense, mask, t_codes, t_dense, sum(c.size for c in schema.categorical)
    )


# --------------------------------------------------------------------------------------
# network (Algorithm 1), written functionally so that torch is imported only when used
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AttentionNetwork:
    """Sizes of the target-attention network.

    ``n_in`` = F'; ``MLP_emb``: n_in -> emb_hidden -> emb_size; ``W_q``, ``W_k``, ``W_v``:
    emb_size -> att_size (no bias); ``MLP_pred``: att_size -> pred_hidden -> 1.
    """

    n_in: int
    emb_size: int = 20
    emb_hidden: int = 20
    att_size: int = 15
    pred_hidden: int = 10

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Parameter name -> shape (weights are ``(out, in)`` as in ``torch.nn.Linear``)."""
        return {
            "emb_w1": (self.emb_hidden, self.n_in),
            "emb_b1": (self.emb_hidden,),
            "emb_w2": (self.emb_size, self.emb_hidden),
            "emb_b2": (self.emb_size,),
            "w_q": (self.att_size, self.emb_size),
            "w_k": (self.att_size, self.emb_size),
            "w_v": (self.att_size, self.emb_size),
            "pred_w1": (self.pred_hidden, self.att_size),
            "pred_b1": (self.pred_hidden,),
            "pred_w2": (1, self.pred_hidden),
            "pred_b2": (1,),
        }

    def init(self, torch: Any, generator: Any) -> dict[str, Any]:
        """Parameters initialised like ``torch.nn.Linear`` (uniform +-1/sqrt(fan_in)), seeded."""
        params: dict[str, Any] = {}
        for name, shape in self.shapes().items():
            fan_in = shape[1] if len(shape) == 2 else self.shapes()[name.replace("_b", "_w")][1]
            bound = 1.0 / math.sqrt(fan_in)
            p = torch.empty(shape, dtype=torch.float32)
            torch.nn.init.uniform_(p, -bound, bound, generator=generator)
            params[name] = p.requires_grad_(True)
        return params


def _dropout(torch: Any, x: Any, p: float, generator: Any | None) -> Any:
    if generator is None or p <= 0.0:
        return x
    keep = torch.rand(x.shape, generator=generator) >= p
    return x * keep / (1.0 - p)


def forward(
    torch: Any,
    params: dict[str, Any],
    records: Any,
    mask: Any,
    target: Any,
    *,
    scoring: AttentionScoring = AttentionScoring.KEYS,
    dropout: float = 0.0,
    generator: Any | None = None,
) -> Any:
    """Algorithm 1: membership logits ``h_pred`` (before the sigmoid) for a batch of datasets.

    Parameters
    ----------
    torch : module
        The torch module.
    params : dict of tensors
        From :meth:`AttentionNetwork.init`.
    records : tensor (B, X, F'), float32
        Preprocessed datasets ``D_{s,p}`` (:meth:`PreprocessedDatasets.records`).
    mask : tensor (B, X), bool
        True for real records, False for padding (padding gets zero attention).
    target : tensor (F',), float32
        The preprocessed target ``x_{t,p}`` (:meth:`PreprocessedDatasets.target`).
    scoring : AttentionScoring
    dropout : float
        Dropout ratio, applied after each hidden ReLU layer when ``generator`` is given
        (training); ``generator=None`` is evaluation mode.
    generator : torch.Generator or None

    Returns
    -------
    tensor (B,)
    """
    F = torch.nn.functional

    def mlp_emb(x: Any) -> Any:  # lines 4-5
        h = F.relu(F.linear(x, params["emb_w1"], params["emb_b1"]))
        h = _dropout(torch, h, dropout, generator)
        return F.linear(h, params["emb_w2"], params["emb_b2"])

    d_emb = mlp_emb(records)  # (B, X, E)
    t_emb = mlp_emb(target.unsqueeze(0))  # (1, E)
    q = F.linear(t_emb, params["w_q"])  # (1, A)   line 7
    v = F.linear(d_emb, params["w_v"])  # (B, X, A)   line 9
    k = v if scoring is AttentionScoring.VALUES else F.linear(d_emb, params["w_k"])  # line 8
    a = (k * q.unsqueeze(0)).sum(-1)  # (B, X)   line 11
    a = a.masked_fill(~mask, -1e9)
    w = torch.softmax(a, dim=1)  # line 12
    d_att = (w.unsqueeze(-1) * v).sum(1)  # (B, A)   line 14
    h = F.relu(F.linear(d_att, params["pred_w1"], params["pred_b1"]))  # line 15
    h = _dropout(torch, h, dropout, generator)
    return F.linear(h, params["pred_w2"], params["pred_b2"]).squeeze(-1)


@contextlib.contextmanager
def _torch_threads(torch: Any, n: int | None) -> Iterator[None]:
    if n is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _stratified_split(
    y: np.ndarray, fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Indices (train, validation): ``fraction`` of each class held out (at least one when >= 2)."""
    val: list[np.ndarray] = []
    for c in (0, 1):
        idx = rng.permutation(np.flatnonzero(y == c))
        k = round(fraction * idx.size)
        k = min(max(k, 1), idx.size - 1) if fraction > 0 and idx.size >= 2 else 0
        val.append(idx[:k])
    v = np.sort(np.concatenate(val))
    t = np.setdiff1d(np.arange(y.size), v)
    return t, v


@dataclass
class _FitData:
    """Training and validation tensors of one fit (records, masks, labels) and the target."""

    x_tr: Any
    m_tr: Any
    x_va: Any
    m_va: Any
    y_tr: Any
    y_va: Any
    t: Any


@dataclass
class _Run:
    """Outcome of one training run."""

    params: dict[str, Any]
    history: dict[str, list[float]]
    best_epoch: int
    epochs: int


def _collapsed(
    torch: Any, params: dict[str, Any], data: _FitData, scoring: AttentionScoring
) -> bool:
    """Whether the network gives every dataset the same logit (dead ReLUs: a useless attack).

    Checked on the validation datasets (the training datasets when there is no validation set),
    never on the test datasets the attack is scored on.
    """
    x, m = (data.x_va, data.m_va) if len(data.y_va) else (data.x_tr[:200], data.m_tr[:200])
    if len(x) < 2:
        return False
    with torch.no_grad():
        z = forward(torch, params, x, m, data.t, scoring=scoring)
    return bool(float(z.max() - z.min()) < 1e-6)


# --------------------------------------------------------------------------------------
# the attack
# --------------------------------------------------------------------------------------
class TargetAttentionAttack(MembershipAttack):
    """Target-attention membership attack (appendix A of Meeus et al.).

    Parameters
    ----------
    top_x : int
        Closest unique synthetic records read per dataset (paper: 100).
    emb_size, emb_hidden : int
        ``F_emb`` and the hidden width of ``MLP_emb`` (paper: 20, 20).
    att_size : int
        ``F_att`` (paper: 15).
    pred_hidden : int
        Hidden width of ``MLP_pred`` (paper: 10).
    dropout : float
        Dropout ratio after each hidden layer (paper: 0.15).
    epochs : int
        Maximum number of epochs (paper: 500).
    batch_size : int
        Mini-batch size (paper: 20).
    learning_rate : float
        Adamax learning rate (paper: "10e-3" = 0.01).
    validation_fraction : float
        Share of each class held out for checkpoint selection (paper: 0.1). 0 disables it and
        keeps the last epoch.
    patience : int or None
        Stop after this many epochs without a better validation loss; ``None`` runs all epochs.
    scoring : AttentionScoring or str
        ``keys`` (standard, default) or ``values`` (Algorithm 1 line 11 as printed).
    scale_continuous : bool
        Min-max scale continuous inputs by the schema range (the paper does not).
    n_threads : int or None
        torch intra-op threads while fitting and scoring (restored afterwards); 1 suits this
        tiny network and process-pool workers; ``None`` leaves torch's setting alone.
    restarts : int
        Our addition: when the kept network gives every validation dataset the same output (it
        collapsed: with Adamax at lr 0.01 the ReLUs of ``MLP_pred`` can all die, and the attack
        then scores AUC exactly 0.5), train again from a fresh initialisation, at most this many
        times. The check uses only the validation datasets. 0 is the paper's single run; a fit
        that does not collapse is identical either way.

    Attributes
    ----------
    params_ : dict of tensors
        The kept (best-validation) parameters.
    target_ : Table
    network_ : AttentionNetwork
    history_ : dict with ``train_loss`` and ``val_loss`` lists (one value per epoch run)
    best_epoch_ : int
        1-based epoch whose parameters were kept.
    n_epochs_ : int
        Epochs actually run (in the kept training run).
    attempts_ : int
        Training runs made (1 + restarts used).
    timings_ : dict
        Wall seconds spent preprocessing (``preprocess_s``) and training (``train_s``), and
        the process CPU seconds of each (``preprocess_cpu_s``, ``train_cpu_s``).

    Notes
    -----
    Threat model: the adversary knows the target record, the generator's algorithm (black box:
    it trains shadow generators) and has auxiliary data from the same distribution; the game
    supplies the labelled shadow synthetic datasets. The attack never samples datasets itself.
    Randomness: a ``torch.Generator`` seeded from ``rng`` drives initialisation, shuffling and
    dropout, so the same ``rng`` state gives the same scores (on the same torch build).

    References
    ----------
    Meeus et al. (2023), appendix A and Algorithm 1 (arXiv version); appendix A of the
    ESORICS version (training details).
    """

    name = "attention"
    _parameter_constraints = constraints(
        top_x=Interval(int, 1, None),
        emb_size=Interval(int, 1, None),
        emb_hidden=Interval(int, 1, None),
        att_size=Interval(int, 1, None),
        pred_hidden=Interval(int, 1, None),
        epochs=Interval(int, 1, None),
        batch_size=Interval(int, 1, None),
        dropout=Interval(float, 0, 1, closed="left"),
        validation_fraction=Interval(float, 0, 1, closed="left"),
        learning_rate=Interval(float, 0, None, closed="neither"),
        restarts=Interval(int, 0, None),
        patience=(Interval(int, 1, None), None),
        scoring=Options(AttentionScoring),
        scale_continuous=InstanceOf(bool),
        n_threads=(Interval(int, 1, None), None),
    )

    def __init__(
        self,
        top_x: int = 100,
        emb_size: int = 20,
        emb_hidden: int = 20,
        att_size: int = 15,
        pred_hidden: int = 10,
        dropout: float = 0.15,
        epochs: int = 500,
        batch_size: int = 20,
        learning_rate: float = 1e-2,
        validation_fraction: float = 0.1,
        patience: int | None = 25,
        scoring: AttentionScoring | str = AttentionScoring.KEYS,
        scale_continuous: bool = True,
        n_threads: int | None = 1,
        restarts: int = 2,
    ) -> None:
        _import_torch()  # fail before the caller spends time on shadow models
        self.top_x = top_x
        self.emb_size = emb_size
        self.emb_hidden = emb_hidden
        self.att_size = att_size
        self.pred_hidden = pred_hidden
        self.dropout = dropout
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.scoring = scoring
        self.scale_continuous = scale_continuous
        self.n_threads = n_threads
        self.restarts = restarts
        self.params_: dict[str, Any] | None = None

    # -- fit / score -----------------------------------------------------------------
    def fit(
        self,
        target: Table,
        datasets: Sequence[Table],
        labels: np.ndarray,
        *,
        rng: np.random.Generator,
    ) -> TargetAttentionAttack:
        """Train the network on labelled shadow synthetic datasets; returns self."""
        torch = _import_torch()
        y = self._check_fit_input(target, datasets, labels)
        scoring = AttentionScoring(self.scoring)  # declared, checked when fit starts
        t0, c0 = time.perf_counter(), time.process_time()
        pre = preprocess(target, datasets, self.top_x, scale_continuous=self.scale_continuous)
        t1, c1 = time.perf_counter(), time.process_time()
        net = AttentionNetwork(
            pre.n_features, self.emb_size, self.emb_hidden, self.att_size, self.pred_hidden
        )
        tr, va = _stratified_split(y, self.validation_fraction, rng)
        with _torch_threads(torch, self.n_threads):
            records = pre.records()
            data = _FitData(
                x_tr=torch.from_numpy(records[tr]),
                m_tr=torch.from_numpy(pre.mask[tr]),
                x_va=torch.from_numpy(records[va]),
                m_va=torch.from_numpy(pre.mask[va]),
                y_tr=torch.from_numpy(y[tr].astype(np.float32)),
                y_va=torch.from_numpy(y[va].astype(np.float32)),
                t=torch.from_numpy(pre.target()),
            )
            del records
            # the first attempt's seed is the first draw after the split, so a run that needs
            # no restart is identical to the paper's single training run
            attempts = 0
            while True:
                run = self._train_once(torch, net, data, scoring, int(rng.integers(0, 2**62)))
                attempts += 1
                if attempts > int(self.restarts) or not _collapsed(
                    torch, run.params, data, scoring
                ):
                    break
        best_params, history, best_epoch, epoch = (
            run.params,
            run.history,
            run.best_epoch,
            run.epochs,
        )
        self.attempts_ = attempts
        self.timings_ = {
            "preprocess_s": t1 - t0,
            "train_s": time.perf_counter() - t1,
            "preprocess_cpu_s": c1 - c0,
            "train_cpu_s": time.process_time() - c1,
        }
        self.target_ = target
        self.network_ = net
        self.scoring_ = scoring
        self.history_ = history
        self.best_epoch_ = best_epoch
        self.n_epochs_ = epoch
        self.params_ = best_params
        return self

    def _train_once(
        self,
        torch: Any,
        net: AttentionNetwork,
        data: _FitData,
        scoring: AttentionScoring,
        seed: int,
    ) -> _Run:
        """One training run from a fresh initialisation (Adamax, best-validation checkpoint)."""
        gen = torch.Generator().manual_seed(seed)
        params = net.init(torch, gen)
        opt = torch.optim.Adamax(list(params.values()), lr=self.learning_rate)
        bce = torch.nn.functional.binary_cross_entropy_with_logits
        history: dict[str, list[float]] = {"train_loss": [], "val_loss": []}
        best_loss, best_epoch = math.inf, 0
        best_params = {k: p.detach().clone() for k, p in params.items()}
        n_tr, n_va, bs = len(data.y_tr), len(data.y_va), int(self.batch_size)
        since_best = 0
        epoch = 0
        for epoch in range(1, int(self.epochs) + 1):
            perm = torch.randperm(n_tr, generator=gen)
            total = 0.0
            for start in range(0, n_tr, bs):
                b = perm[start : start + bs]
                logits = forward(
                    torch,
                    params,
                    data.x_tr[b],
                    data.m_tr[b],
                    data.t,
                    scoring=scoring,
                    dropout=self.dropout,
                    generator=gen,
                )
                loss = bce(logits, data.y_tr[b])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(b)
            history["train_loss"].append(total / max(n_tr, 1))
            if n_va == 0:
                best_epoch = epoch
                continue
            with torch.no_grad():
                vl = float(
                    bce(
                        forward(torch, params, data.x_va, data.m_va, data.t, scoring=scoring),
                        data.y_va,
                    )
                )
            history["val_loss"].append(vl)
            if vl < best_loss:
                best_loss, best_epoch, since_best = vl, epoch, 0
                best_params = {k: p.detach().clone() for k, p in params.items()}
            else:
                since_best += 1
                if self.patience is not None and since_best >= self.patience:
                    break
        if n_va == 0:
            best_params = {k: p.detach().clone() for k, p in params.items()}
        return _Run(best_params, history, best_epoch, epoch)

    def predict_logits(self, datasets: Sequence[Table], *, batch: int = 512) -> np.ndarray:
        """Membership logits ``h_pred`` (before the sigmoid), one per dataset."""
        check_fitted(self, "params_")
        torch = _import_torch()
        params = cast(dict[str, Any], self.params_)
        pre = preprocess(self.target_, datasets, self.top_x, scale_continuous=self.scale_continuous)
        out = np.empty(len(datasets), dtype=np.float64)
        with _torch_threads(torch, self.n_threads), torch.no_grad():
            t = torch.from_numpy(pre.target())
            for s in range(0, len(datasets), batch):
                sub = slice(s, s + batch)
                x = torch.from_numpy(pre.take(sub).records())
                m = torch.from_numpy(pre.mask[sub])
                z = forward(torch, params, x, m, t, scoring=self.scoring_)
                out[s : s + batch] = z.double().numpy()
        return out

    def score(self, datasets: Sequence[Table]) -> np.ndarray:
        """Membership probability ``sigmoid(h_pred)`` of the target for every dataset."""
        z = self.predict_logits(datasets)
        return 1.0 / (1.0 + np.exp(-z))


register_attack(
    AttackInfo(
        "attention",
        AttackFamily.MEMBERSHIP,
        TargetAttentionAttack,
        "target attention: a neural network attends over the synthetic records closest to the "
        "target",
        extra="torch",
        references=("meeus2023", "vaswani2017"),
    )
)
