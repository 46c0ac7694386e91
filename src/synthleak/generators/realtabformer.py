"""``realtabformer``: the GPT-2 tabular generator of Solatorio and Dupriez (2023),
trained from scratch.

REalTabFormer writes every record as a sequence of tokens, one per column value, and trains a
GPT-2 language model on those sequences; sampling generates sequences token by token, each
position restricted to the values seen in that column. The adapter builds the GPT-2
configuration locally (``n_layer``, ``n_embd``, ``n_head``; REalTabFormer's default is a 6-layer,
768-wide model) and trains it from random weights: no weights are downloaded at any point, and
the Hugging Face libraries are imported with their offline switches set.

Data handed to REalTabFormer: categorical columns as the *text* of their integer codes (so a
numeric-looking category is a category token, not a number, and the missing code is one more
category); continuous columns as numbers (REalTabFormer's own numeric encoding; ``NaN`` is its
missing token). Columns are renamed ``c0, c1, ..., v0, ...`` so no column name can clash with
REalTabFormer's token syntax. Generated continuous values are clipped to the schema range and
rounded for integer columns, so the output always has the training schema.

Training: ``n_critic=0`` trains for exactly ``epochs`` epochs; ``n_critic > 0`` (the library's
default, 5) uses REalTabFormer's overfitting critic, which every ``n_critic`` epochs samples
synthetic data, compares its distance-to-closest-record distribution with that of held-out
records, and stops when the critic has not improved for ``n_critic_stop`` rounds (Solatorio and
Dupriez 2023, Sec. 3.3); ``epochs`` is then the maximum. Checkpoints go to a temporary
directory that is removed after ``fit``. Any ``epochs`` works with the critic, including runs
shorter than one critic interval: the adapter gives the critic's sampling its options
(``gen_batch``; REalTabFormer 0.2.4 unpacks a missing ``gen_kwargs`` and fails) and turns off the
library's full save every 5 critic epochs (which 0.2.4 attempts before the model has the id
the save needs).

Reproducibility: the Hugging Face trainer and the sampler draw from the global numpy, ``random``
and torch generators; the adapter seeds them (and REalTabFormer's ``random_state`` and the
trainer's ``seed``) from ``rng`` around ``fit`` and ``sample`` and restores them afterwards
(:func:`synthleak.generators._adapt.global_seed`). On CPU with the same torch build and thread
count the same seed gives the same output.

Install with ``pip install 'synthleak[realtabformer]'``: REalTabFormer 0.2.4 passes
``overwrite_output_dir`` to ``transformers.TrainingArguments``, which transformers 5 removed, so
the extra pins ``transformers<5``.

References
----------
Solatorio and Dupriez, "REaLTabFormer: Generating realistic relational and tabular data using
transformers", 2023 (arXiv:2302.02041). Used as the target generator by Plasencia Palacios
(2024), Table 1.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import tempfile
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from synthleak.constraints import InstanceOf, Interval, constraints
from synthleak.data.table import Table
from synthleak.errors import GeneratorFailure, InputError, MissingExtraError
from synthleak.generators._adapt import draw_seed, global_seed
from synthleak.generators.base import BaseGenerator, GeneratorInfo, params_of, register_generator

_FEATURE = "the realtabformer generator"
#: Environment switches that keep the Hugging Face libraries from reaching the network.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def _require_realtabformer() -> None:
    """Raise :class:`MissingExtraError` when ``realtabformer`` is not installed (cheap check)."""
    if importlib.util.find_spec("realtabformer") is None:
        raise MissingExtraError("realtabformer", "realtabformer", _FEATURE)


@contextlib.contextmanager
def offline_env() -> Iterator[None]:
    """Set the Hugging Face offline switches (:data:`OFFLINE_ENV`); restore them on exit."""
    saved = {k: os.environ.get(k) for k in OFFLINE_ENV}
    os.environ.update(OFFLINE_ENV)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _import_realtabformer() -> tuple[Any, Any]:
    """``(REaLTabFormer, GPT2Config)``, imported offline."""
    try:
        with offline_env(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from realtabformer import REaLTabFormer
            from transformers import GPT2Config
    except ImportError as exc:
        raise MissingExtraError("realtabformer", "realtabformer", _FEATURE) from exc
    return REaLTabFormer, GPT2Config


@contextlib.contextmanager
def _quiet(log: io.StringIO) -> Iterator[None]:
    """Capture REalTabFormer's prints and progress bars; silence the datasets progress bars."""
    bars = None
    try:
        from datasets.utils import logging as ds_logging

        bars = ds_logging.is_progress_bar_enabled()
        ds_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - datasets comes with realtabformer
        ds_logging = None
    try:
        with (
            contextlib.redirect_stdout(log),
            contextlib.redirect_stderr(log),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            yield
    finally:
        if ds_logging is not None and bars:
            ds_logging.enable_progress_bar()


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run with ``n`` torch CPU threads (0: unchanged); restore the previous count on exit."""
    if n <= 0:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _tail(log: io.StringIO, limit: int = 400) -> str:
    text = log.getvalue().strip()
    return text if len(text) <= limit else "..." + text[-limit:]


class REaLTabFormerGenerator(BaseGenerator):
    """Adapter over ``realtabformer.REaLTabFormer`` (tabular model; see the module docstring).

    Parameters
    ----------
    epochs : int, default 1000
        training epochs (maximum when n_critic > 0).
        REalTabFormer's default.
    batch_size : int, default 8
        records per device step.
        With ``gradient_accumulation_steps`` 4 (REalTabFormer's setting) an optimiser step
        sees 32 records.
    gradient_accumulation_steps : int, default 4
        device steps per optimiser step.
    n_layer : int, default 6
        GPT-2 layers.
        REalTabFormer's default: GPT-2 with 6 layers.
    n_embd : int, default 768
        GPT-2 width (multiple of n_head).
        The one rule across parameters, checked after the declared constraints.
    n_head : int, default 12
        GPT-2 attention heads.
    learning_rate : float, default 5e-5
        AdamW learning rate.
        The Hugging Face trainer's default, which REalTabFormer keeps.
    n_critic : int, default 5
        epochs between overfitting-critic rounds (0: none).
        With 0, training runs exactly ``epochs``.
    n_critic_stop : int, default 2
        critic rounds without improvement before stopping.
    mask_rate : float, default 0
        share of tokens masked during training.
        Tokens replaced by a mask token (regularisation); in [0, 1).
    gen_batch : int, default 128
        records generated per batch.
        When sampling.
    device : str, default "cpu"
        torch device (cpu, cuda, ...).
        For training and sampling.
    threads : int, default 0
        torch CPU threads while fitting/sampling (0: torch's).
        Restored afterwards. On a machine shared with other jobs, ``threads=1`` can be several
        times faster than oversubscribed cores.

    Notes
    -----
    Not differentially private. The critic limits over-fitting as measured by distances to
    closest records; it is no privacy guarantee.
    """

    deterministic = True
    _parameter_constraints = constraints(
        epochs=Interval(int, 1, None),
        batch_size=Interval(int, 1, None),
        gradient_accumulation_steps=Interval(int, 1, None),
        n_layer=Interval(int, 1, None),
        n_embd=Interval(int, 1, None),
        n_head=Interval(int, 1, None),
        learning_rate=Interval(float, 0, None, closed="neither"),
        n_critic=Interval(int, 0, None),
        n_critic_stop=Interval(int, 1, None),
        mask_rate=Interval(float, 0, 1, closed="left"),
        gen_batch=Interval(int, 1, None),
        device=InstanceOf(str),
        threads=Interval(int, 0, None),
    )

    def __init__(
        self,
        epochs: int = 1000,
        batch_size: int = 8,
        gradient_accumulation_steps: int = 4,
        n_layer: int = 6,
        n_embd: int = 768,
        n_head: int = 12,
        learning_rate: float = 5e-5,
        n_critic: int = 5,
        n_critic_stop: int = 2,
        mask_rate: float = 0.0,
        gen_batch: int = 128,
        device: str = "cpu",
        threads: int = 0,
    ) -> None:
        super().__init__()
        _require_realtabformer()
        self.epochs = epochs
        self.batch_size = batch_size
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.n_layer = n_layer
        self.n_embd = n_embd
        self.n_head = n_head
        self.learning_rate = learning_rate
        self.n_critic = n_critic
        self.n_critic_stop = n_critic_stop
        self.mask_rate = mask_rate
        self.gen_batch = gen_batch
        self.device = device
        self.threads = threads

    def _check_parameter_rules(self) -> None:
        """The one rule across parameters: GPT-2's width splits evenly over its heads."""
        if self.n_embd % self.n_head:
            raise InputError(
                f"n_embd={self.n_embd} must be a multiple of n_head={self.n_head}",
                parameter="n_embd",
            )

    # --- frames --------------------------------------------------------------------------
    def _frame(self, table: Table) -> pd.DataFrame:
        data: dict[str, Any] = {}
        for j in range(table.codes.shape[1]):
            data[f"c{j}"] = pd.Series(table.codes[:, j].astype(np.int64).astype(str), dtype=object)
        for j, col in enumerate(table.schema.continuous):
            v = table.values[:, j].astype(np.float64)
            if col.integer and not np.isnan(v).any():
                data[f"v{j}"] = np.round(v).astype(np.int64)
            else:
                data[f"v{j}"] = v
        return pd.DataFrame(data)

    def _decode(self, out: pd.DataFrame, n: int) -> Table:
        schema = self.schema_
        who = f"realtabformer ({self.spec or 'realtabformer'})"
        codes = np.empty((n, len(schema.categorical)), dtype=np.int64)
        for j, col in enumerate(schema.categorical):
            c = pd.to_numeric(out[f"c{j}"], errors="coerce").to_numpy(dtype=np.float64)
            bad = np.isnan(c) | (c < 0) | (c >= col.size)
            if bad.any():
                raise GeneratorFailure(f"{who} generated an unknown category in {col.name!r}")
            codes[:, j] = c.astype(np.int64)
        values = np.empty((n, len(schema.continuous)), dtype=np.float64)
        for j, col in enumerate(schema.continuous):
            v = pd.to_numeric(out[f"v{j}"], errors="coerce").to_numpy(dtype=np.float64)
            if not col.has_missing and np.isnan(v).any():
                raise GeneratorFailure(f"{who} generated a missing value in {col.name!r}")
            v = np.clip(v, col.low, col.high)
            if col.integer:
                v = np.clip(np.round(v), np.ceil(col.low), np.floor(col.high))
            values[:, j] = v
        return Table.from_arrays(schema, codes, values)

    # --- protocol ------------------------------------------------------------------------
    def fit(self, table: Table, *, rng: np.random.Generator) -> REaLTabFormerGenerator:
        """Train REalTabFormer from scratch on ``table``; returns self."""
        rtf_cls, gpt2_config = _import_realtabformer()
        if len(table) < 2:
            raise InputError("realtabformer needs at least 2 training records")
        frame = self._frame(table)
        seed = draw_seed(rng) + 1  # REalTabFormer skips its seeding when random_state is 0
        log = io.StringIO()
        with (
            tempfile.TemporaryDirectory(prefix="synthleak-rtf-") as tmp,
            offline_env(),
            torch_threads(self.threads),
            global_seed(seed),
            _quiet(log),
        ):
            config = gpt2_config(n_layer=self.n_layer, n_embd=self.n_embd, n_head=self.n_head)
            extra: dict[str, Any] = {}
            if self.n_critic == 0:
                extra["save_strategy"] = "no"
            model = rtf_cls(
                model_type="tabular",
                tabular_config=config,
                checkpoints_dir=os.path.join(tmp, "checkpoints"),
                samples_save_dir=os.path.join(tmp, "samples"),
                full_save_dir=os.path.join(tmp, "full"),
                epochs=self.epochs,
                batch_size=self.batch_size,
                random_state=seed,
                mask_rate=self.mask_rate,
                gradient_accumulation_steps=self.gradient_accumulation_steps,
                learning_rate=self.learning_rate,
                seed=seed,
                data_seed=seed,
                report_to="none",
                disable_tqdm=True,
                logging_strategy="no",
                use_cpu=self.device == "cpu",
                dataloader_pin_memory=False,
                **extra,
            )
            try:
                model.fit(
                    frame,
                    device=self.device,
                    n_critic=self.n_critic,
                    n_critic_stop=self.n_critic_stop,
                    # 0.2.4 unpacks gen_kwargs (None by default) at every critic round, and its
                    # periodic full save needs an experiment id that exists only after fit
                    gen_kwargs={"gen_batch": self.gen_batch},
                    save_full_every_epoch=0,
                )
            except (KeyboardInterrupt, MemoryError):
                raise
            except Exception as exc:
                raise GeneratorFailure(
                    f"realtabformer: fit failed ({type(exc).__name__}: {exc}); output tail: "
                    f"{_tail(log) or '(empty)'}"
                ) from exc
        self.model_ = model
        self.schema_ = table.schema
        self.n_train_ = len(table)
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` records generated by the fitted model, with the training schema."""
        if n == 0:
            schema = self.schema_
            return Table.from_arrays(
                schema,
                np.zeros((0, len(schema.categorical)), dtype=np.int64),
                np.zeros((0, len(schema.continuous)), dtype=np.float32),
            )
        seed = draw_seed(rng) + 1
        log = io.StringIO()
        self.model_.random_state = seed  # the sampler's final row shuffle
        with offline_env(), torch_threads(self.threads), global_seed(seed), _quiet(log):
            try:
                out = self.model_.sample(n_samples=n, gen_batch=self.gen_batch, device=self.device)
            except (KeyboardInterrupt, MemoryError):
                raise
            except Exception as exc:
                raise GeneratorFailure(
                    f"realtabformer: sample failed ({type(exc).__name__}: {exc}); output tail: "
                    f"{_tail(log) or '(empty)'}"
                ) from exc
        if len(out) < n:
            raise GeneratorFailure(f"realtabformer returned {len(out)} record(s), {n} were asked")
        return self._decode(out.iloc[:n].reset_index(drop=True), n)


register_generator(
    GeneratorInfo(
        "realtabformer",
        REaLTabFormerGenerator,
        params_of(REaLTabFormerGenerator),
        "GPT-2 tabular generator REalTabFormer (Solatorio and Dupriez 2023), trained from scratch",
        extra="realtabformer",
    )
)
