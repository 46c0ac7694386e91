"""Contrastive-learning embeddings for singling out (the ``contrastive`` singling-out attack).

An encoder is trained on the synthetic data only, by contrastive learning: a random masking
function makes two views of every record; the network maps the views to L2-normalised
embeddings, and a cross-entropy (InfoNCE) loss over cosine similarities pulls the two views of a
record together and pushes views of different records apart. Categorical columns enter through
embedding layers (one extra "masked" token each), continuous columns are min-max scaled (with a
masked/missing indicator). The network has three hidden layers of 1024 units with GELU and
dropout, as in Plasencia Palacios et al. (2024).

The records that are outliers in embedding space — the largest mean cosine distance to their
``k`` nearest synthetic neighbours — are the ones most likely to be unique. Singling-out
predicates are built from them exactly as the multivariate attack builds them from random
records (``n_cols`` random columns; categorical ``==``, continuous ``>=``/``<=`` towards the
tail) and kept when they single out in the synthetic data; the game scores them on the original
and control records.

Needs the optional extra ``synthleak[torch]`` (:class:`~synthleak.errors.MissingExtraError`
otherwise). Training is seeded from the ``rng`` passed to :meth:`ContrastiveSinglingOut.fit`
(``torch.random.fork_rng``, so the global torch state is left untouched).

References
----------
Plasencia Palacios (2024), Sec. 2 and Fig. 1. Shenkar and Wolf (2022) (masking views).
Giomi et al. (2023), Sec. 4.1 (queries from records).

Notes
-----
Threat model: no-box (the synthetic data only).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from synthleak.attacks.base import AttackFamily, AttackInfo, register_attack
from synthleak.attacks.singling_out import DEFAULT_BATCH, DEFAULT_MAX_ATTEMPTS, RecordSinglingOut
from synthleak.constraints import InstanceOf, Interval, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError, MissingExtraError, check_fitted


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingExtraError("torch", "torch", "the contrastive singling-out attack") from exc
    return torch


def _build_net(
    torch: Any,
    sizes: list[int],
    n_cont: int,
    hidden: int,
    n_layers: int,
    embed_dim: int,
    dropout: float,
) -> Any:
    nn = torch.nn

    class Encoder(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            dims = [min(32, max(2, (s + 1) // 2)) for s in sizes]
            self.embeddings = nn.ModuleList(
                nn.Embedding(s + 1, d) for s, d in zip(sizes, dims, strict=True)
            )
            layers: list[Any] = []
            width = sum(dims) + 2 * n_cont
            for _ in range(n_layers):
                layers += [nn.Linear(width, hidden), nn.GELU(), nn.Dropout(dropout)]
                width = hidden
            layers.append(nn.Linear(width, embed_dim))
            self.mlp = nn.Sequential(*layers)

        def forward(self, codes: Any, values: Any, missing: Any) -> Any:
            parts = [emb(codes[:, j]) for j, emb in enumerate(self.embeddings)]
            parts += [values, missing]
            z = self.mlp(torch.cat(parts, dim=1))
            return nn.functional.normalize(z, dim=1)

    return Encoder()


class ContrastiveEncoder:
    """Contrastive (InfoNCE) record encoder; defaults follow Plasencia Palacios et al. (2024),
    Sec. 2.

    Parameters
    ----------
    hidden : int, default 1024
        Units per hidden layer.
    n_layers : int, default 3
        Hidden layers (Linear, GELU, Dropout).
    embed_dim : int, default 64
        Embedding dimension (L2-normalised).
    dropout : float, default 0.1
    mask_prob : float, default 0.3
        Probability that a column is masked in a view.
    temperature : float, default 0.1
        Softmax temperature of the InfoNCE loss on cosine similarities.
    epochs : int, default 10
    batch_size : int, default 512
    lr : float, default 1e-3
        AdamW learning rate.
    """

    def __init__(
        self,
        hidden: int = 1024,
        n_layers: int = 3,
        embed_dim: int = 64,
        dropout: float = 0.1,
        mask_prob: float = 0.3,
        temperature: float = 0.1,
        epochs: int = 10,
        batch_size: int = 512,
        lr: float = 1e-3,
    ) -> None:
        self.hidden = hidden
        self.n_layers = n_layers
        self.embed_dim = embed_dim
        self.dropout = dropout
        self.mask_prob = mask_prob
        self.temperature = temperature
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr

    def _inputs(self, table: Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Codes, min-max scaled values (ranges of the training data; NaN -> 0), missing flags."""
        codes = table.codes.astype(np.int64)
        raw = table.values.astype(np.float32)
        missing = np.isnan(raw).astype(np.float32)
        vals = np.clip((raw - self.low_) / self.span_, 0.0, 1.0)
        return codes, np.nan_to_num(vals, nan=0.0).astype(np.float32), missing

    def fit(self, table: Table, *, rng: np.random.Generator) -> ContrastiveEncoder:
        """Train on ``table`` (the synthetic data)."""
        torch = _import_torch()
        if len(table) < 2:
            raise InputError("contrastive training needs at least 2 synthetic records")
        if not 0 <= self.mask_prob < 1:
            raise InputError(f"mask_prob={self.mask_prob} must lie in [0, 1)")
        self.schema_ = table.schema
        present = np.where(np.isnan(table.values), np.float32(np.nan), table.values)
        with np.errstate(all="ignore"):
            low = (
                np.nan_to_num(np.nanmin(present, axis=0, initial=np.inf), posinf=0.0)
                if present.shape[1]
                else np.zeros(0)
            )
            high = (
                np.nan_to_num(np.nanmax(present, axis=0, initial=-np.inf), neginf=0.0)
                if present.shape[1]
                else np.zeros(0)
            )
        self.low_ = np.asarray(low, dtype=np.float32)
        self.span_ = np.where(high > low, high - low, 1.0).astype(np.float32)
        codes, vals, missing = self._inputs(table)
        sizes = [c.size for c in table.schema.categorical]
        seed = int(rng.integers(0, 2**62))
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            net = _build_net(
                torch,
                sizes,
                vals.shape[1],
                self.hidden,
                self.n_layers,
                self.embed_dim,
                self.dropout,
            )
            opt = torch.optim.AdamW(net.parameters(), lr=self.lr)
            c_t = torch.from_numpy(codes)
            v_t = torch.from_numpy(vals)
            m_t = torch.from_numpy(missing)
            mask_tok = torch.tensor(sizes, dtype=torch.int64)
            n = len(table)
            bs = min(self.batch_size, n)
            net.train()
            self.losses_: list[float] = []
            for _ in range(self.epochs):
                perm = torch.randperm(n)
                total, steps = 0.0, 0
                for s in range(0, n - 1, bs):
                    b = perm[s : s + bs]
                    if b.numel() < 2:
                        continue
                    views = []
                    for _v in range(2):
                        mc = torch.rand(b.numel(), len(sizes)) < self.mask_prob
                        mv = torch.rand(b.numel(), vals.shape[1]) < self.mask_prob
                        cc = torch.where(mc, mask_tok.expand(b.numel(), -1), c_t[b])
                        vv = torch.where(mv, torch.zeros(()), v_t[b])
                        mm = torch.maximum(m_t[b], mv.float())
                        views.append(net(cc, vv, mm))
                    logits = views[0] @ views[1].T / self.temperature
                    target = torch.arange(b.numel())
                    loss = 0.5 * (
                        torch.nn.functional.cross_entropy(logits, target)
                        + torch.nn.functional.cross_entropy(logits.T, target)
                    )
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    total += float(loss.detach())
                    steps += 1
                self.losses_.append(total / max(steps, 1))
        net.eval()
        self.net_ = net
        return self

    def transform(self, table: Table) -> np.ndarray:
        """L2-normalised embeddings (n, embed_dim), float32, of unmasked records."""
        check_fitted(self, "net_")
        torch = _import_torch()
        codes, vals, missing = self._inputs(table)
        out = []
        with torch.no_grad():
            for s in range(0, len(table), 4096):
                out.append(
                    self.net_(
                        torch.from_numpy(codes[s : s + 4096]),
                        torch.from_numpy(vals[s : s + 4096]),
                        torch.from_numpy(missing[s : s + 4096]),
                    ).numpy()
                )
        return (
            np.concatenate(out).astype(np.float32)
            if out
            else np.zeros((0, self.embed_dim), np.float32)
        )


def knn_outlier_scores(emb: np.ndarray, k: int = 5, block: int = 512) -> np.ndarray:
    """Mean cosine distance of each (L2-normalised) embedding to its ``k`` nearest others."""
    n = emb.shape[0]
    k = min(k, n - 1)
    if k < 1:
        return np.zeros(n)
    out = np.empty(n)
    for s in range(0, n, block):
        sim = emb[s : s + block] @ emb.T
        rows = np.arange(sim.shape[0])
        sim[rows, s + rows] = -np.inf  # exclude self
        top = np.partition(-sim, k - 1, axis=1)[:, :k]
        out[s : s + block] = 1.0 + top.mean(axis=1)  # 1 - mean similarity
    return out


class ContrastiveSinglingOut(RecordSinglingOut):
    """Singling out from the outliers of a contrastive embedding of the synthetic data.

    Parameters
    ----------
    n_cols : int, default 3
        Columns per predicate.
    outlier_fraction : float, default 0.05
        Predicates are built from records drawn among this top fraction of outlier scores (at
        least 50 records).
    k : int, default 5
        Neighbours of the k-NN outlier score.
    max_attempts, batch_size : as :class:`~synthleak.attacks.singling_out.MultivariateSinglingOut`.
    encoder : dict, optional
        Keyword arguments of :class:`ContrastiveEncoder` (e.g. ``{"epochs": 2, "hidden": 64}``).

    Notes
    -----
    Threat model: no-box (the synthetic data only).

    References
    ----------
    Plasencia Palacios (2024), Sec. 2.
    """

    name = "contrastive"
    _parameter_constraints = constraints(
        RecordSinglingOut._parameter_constraints,
        outlier_fraction=Interval(float, 0, 1, closed="right"),
        k=Interval(int, 1, None),
        encoder=(InstanceOf(dict), None),
    )

    def __init__(
        self,
        n_cols: int = 3,
        outlier_fraction: float = 0.05,
        k: int = 5,
        max_attempts: int | None = DEFAULT_MAX_ATTEMPTS,
        batch_size: int = DEFAULT_BATCH,
        encoder: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(n_cols=n_cols, max_attempts=max_attempts, batch_size=batch_size)
        self.outlier_fraction = outlier_fraction
        self.k = k
        self.encoder = encoder

    def fit(self, synthetic: Table, *, rng: np.random.Generator) -> ContrastiveSinglingOut:
        """Train the encoder on the distinct synthetic records and score outliers."""
        table = self._fit_records(synthetic)
        self.encoder_ = ContrastiveEncoder(**(self.encoder or {})).fit(table, rng=rng)
        self.embeddings_ = self.encoder_.transform(table)
        self.outlier_scores_ = knn_outlier_scores(self.embeddings_, self.k)
        pool = min(len(table), max(50, int(np.ceil(self.outlier_fraction * len(table)))))
        self.outliers_ = np.argsort(-self.outlier_scores_, kind="stable")[:pool]
        return self

    def _record_rows(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.outliers_[rng.integers(0, self.outliers_.size, size=size)]


register_attack(
    AttackInfo(
        "contrastive",
        AttackFamily.SINGLING_OUT,
        ContrastiveSinglingOut,
        "conjunctions from the outliers of a contrastive embedding of the synthetic data",
        extra="torch",
        references=("plasencia2024", "shenkar2022", "giomi2023"),
    )
)
