"""``ctgan``: the conditional tabular GAN of Xu et al. (2019), through the PyPI ``ctgan`` package.

The adapter hands CTGAN a DataFrame built from the :class:`~synthleak.data.table.Table`:
categorical columns as their integer codes (declared discrete, so the missing code is one more
category), continuous columns as floats. CTGAN rejects missing continuous values, so each
nullable continuous column gets a discrete missing-indicator column (the gap is filled with the
column mean for training) and the generated indicator puts ``NaN`` back. Generated continuous
values are clipped to the schema range and rounded for integer columns; generated codes are the
training schema's codes, so the output always has the training schema.

Reproducibility: ctgan draws from numpy's global RNG and torch's default generator. The adapter
seeds both (and ``random``) from ``rng`` around ``fit`` and ``sample`` and restores them after
(:func:`synthleak.generators._adapt.global_seed`). On CPU with the same torch build and thread
count, the same seed gives the same output (tested); across machines or torch versions it may not.

References
----------
Xu, Skoularidou, Cuesta-Infante and Veeramachaneni, "Modeling tabular data using conditional
GAN", NeurIPS 2019 (arXiv:1907.00503). Used as a target generator by Annamalai, Gadotti and
Rocher (2024), Sec. 5.2 (CTGAN).
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any

import numpy as np
import pandas as pd

from synthleak.constraints import InstanceOf, Interval, constraints
from synthleak.data.table import Table
from synthleak.errors import InputError, MissingExtraError
from synthleak.generators._adapt import draw_seed, global_seed
from synthleak.generators.base import BaseGenerator, GeneratorInfo, params_of, register_generator


def _require_ctgan() -> None:
    """Raise :class:`MissingExtraError` when the ``ctgan`` package is not installed
    (cheap check).
    """
    if importlib.util.find_spec("ctgan") is None:
        raise MissingExtraError("ctgan", "ctgan", "the ctgan generator")


def _import_ctgan() -> Any:
    try:
        from ctgan import CTGAN
    except ImportError as exc:
        raise MissingExtraError("ctgan", "ctgan", "the ctgan generator") from exc
    return CTGAN


class CTGANGenerator(BaseGenerator):
    """Adapter over ``ctgan.CTGAN`` (see the module docstring).

    Parameters
    ----------
    epochs : int, default 300
        training epochs.
        CTGAN's default is 300.
    batch_size : int, default 500
        records per step (even, multiple of pac).
        The one rule across parameters: checked after the declared constraints.
    embedding_dim : int, default 128
        size of the generator's noise input.
    discriminator_steps : int, default 1
        discriminator updates per generator update.
    pac : int, default 10
        records per discriminator input (PacGAN).
    generator_lr : float, default 2e-4
        generator learning rate.
        Adam's.
    discriminator_lr : float, default 2e-4
        discriminator learning rate.
        Adam's.
    log_frequency : bool, default True
        log-frequency conditional sampling.
        Use log frequencies in the training-by-sampling conditional vectors.

    The first line of each description is the one ``synthleak generators`` shows; the
    constraints below are checked when the generator is made from a spec and when ``fit``
    starts.

    Notes
    -----
    Not differentially private: CTGAN trains on the raw records and reads category frequencies and
    continuous modes off them.
    """

    deterministic = True
    _parameter_constraints = constraints(
        epochs=Interval(int, 1, None),
        batch_size=Interval(int, 1, None),
        embedding_dim=Interval(int, 1, None),
        discriminator_steps=Interval(int, 1, None),
        pac=Interval(int, 1, None),
        generator_lr=Interval(float, 0, None, closed="neither"),
        discriminator_lr=Interval(float, 0, None, closed="neither"),
        log_frequency=InstanceOf(bool),
    )

    def __init__(
        self,
        epochs: int = 300,
        batch_size: int = 500,
        embedding_dim: int = 128,
        discriminator_steps: int = 1,
        pac: int = 10,
        generator_lr: float = 2e-4,
        discriminator_lr: float = 2e-4,
        log_frequency: bool = True,
    ) -> None:
        super().__init__()
        _require_ctgan()
        self.epochs = epochs
        self.batch_size = batch_size
        self.embedding_dim = embedding_dim
        self.discriminator_steps = discriminator_steps
        self.pac = pac
        self.generator_lr = generator_lr
        self.discriminator_lr = discriminator_lr
        self.log_frequency = log_frequency

    def _frame(self, table: Table) -> pd.DataFrame:
        """The training frame: codes, filled continuous values, missing indicators."""
        data: dict[str, Any] = {}
        for j, name in enumerate(self.cat_names_):
            data[name] = table.codes[:, j].astype(np.int64)
        for j, name in enumerate(self.cont_names_):
            v = table.values[:, j].astype(np.float64)
            miss = np.isnan(v)
            if name in self.indicators_:
                data[self.indicators_[name]] = miss.astype(np.int64)
            data[name] = np.where(miss, self.fill_[j], v)
        return pd.DataFrame(data)

    def _check_parameter_rules(self) -> None:
        """The one rule across parameters (CTGAN's own): ``batch_size`` is even and a multiple
        of ``pac``; checked after the declared constraints."""
        batch_size, pac = int(self.batch_size), int(self.pac)
        if batch_size % pac or batch_size % 2:
            raise InputError(
                f"batch_size={batch_size} must be even and a multiple of pac={pac}: "
                f"use e.g. batch_size={max(2, pac) * max(1, batch_size // max(2, pac))}",
                parameter="batch_size",
            )

    def fit(self, table: Table, *, rng: np.random.Generator) -> CTGANGenerator:
        """Train CTGAN on ``table``; returns self."""
        ctgan_cls = _import_ctgan()
        if len(table) < 2:
            raise InputError("ctgan needs at least 2 training records")
        schema = table.schema
        self.cat_names_ = [f"c{j}" for j in range(len(schema.categorical))]
        self.cont_names_ = [f"v{j}" for j in range(len(schema.continuous))]
        self.indicators_ = {
            f"v{j}": f"m{j}" for j, col in enumerate(schema.continuous) if col.has_missing
        }
        fill = []
        for j, col in enumerate(schema.continuous):
            v = table.values[:, j]
            ok = v[~np.isnan(v)]
            fill.append(float(ok.mean()) if ok.size else float(col.low))
        self.fill_ = fill
        frame = self._frame(table)
        discrete = self.cat_names_ + list(self.indicators_.values())
        model = ctgan_cls(
            epochs=self.epochs,
            batch_size=self.batch_size,
            embedding_dim=self.embedding_dim,
            discriminator_steps=self.discriminator_steps,
            pac=self.pac,
            generator_lr=self.generator_lr,
            discriminator_lr=self.discriminator_lr,
            log_frequency=self.log_frequency,
            enable_gpu=False,
            verbose=False,
        )
        with global_seed(draw_seed(rng)), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(frame, discrete_columns=discrete)
        self.model_ = model
        self.schema_ = schema
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` records with the training schema."""
        schema = self.schema_
        if n == 0:
            return Table.from_arrays(
                schema,
                np.zeros((0, len(schema.categorical)), dtype=np.int64),
                np.zeros((0, len(schema.continuous)), dtype=np.float32),
            )
        with global_seed(draw_seed(rng)), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = self.model_.sample(n)
        codes = np.empty((n, len(schema.categorical)), dtype=np.int64)
        for j, col in enumerate(schema.categorical):
            c = pd.to_numeric(out[self.cat_names_[j]], errors="coerce").to_numpy(dtype=np.float64)
            codes[:, j] = np.clip(np.nan_to_num(c, nan=0.0), 0, col.size - 1).astype(np.int64)
        values = np.empty((n, len(schema.continuous)), dtype=np.float64)
        for j, col in enumerate(schema.continuous):
            v = out[self.cont_names_[j]].to_numpy(dtype=np.float64)
            v = np.clip(v, col.low, col.high)
            if col.integer:
                v = np.clip(np.round(v), np.ceil(col.low), np.floor(col.high))
            name = self.cont_names_[j]
            if name in self.indicators_:
                miss = pd.to_numeric(out[self.indicators_[name]], errors="coerce").to_numpy() == 1
                v = np.where(miss, np.nan, v)
            values[:, j] = v
        return Table.from_arrays(schema, codes, values)


register_generator(
    GeneratorInfo(
        "ctgan",
        CTGANGenerator,
        params_of(CTGANGenerator),
        "conditional tabular GAN (Xu et al. 2019) via the ctgan package",
        extra="ctgan",
    )
)
