"""SDV's single-table synthesizers as generators: ``sdv:gaussiancopula``, ``sdv:ctgan``,
``sdv:tvae``, ``sdv:copulagan``.

Spec syntax: ``sdv:MODEL`` or ``sdv:MODEL:key=value,...`` with the synthesizer's main parameters
and SDV's defaults (``synthleak generators`` lists them), e.g. ``sdv:ctgan:epochs=2`` or
``sdv:gaussiancopula:default_distribution=norm``. Tuple parameters (layer sizes) are written
with ``x``: ``sdv:tvae:compress_dims=64x64``.

Metadata: :func:`sdv_metadata` builds SDV metadata from synthleak's
:class:`~synthleak.data.schema.Schema`: categorical columns are ``categorical``, continuous ones
``numerical`` (SDV 1: ``Int64`` when the schema says integer, else ``Float``), a column whose schema
kind is ``datetime`` is ``datetime`` when its values are datetimes, and any other kind is
``numerical``; no primary key (every record is a person). The synthesizer is fitted on
``table.to_frame()`` (the original category values; SDV 2's single-table synthesizers take it as a
one-table dictionary, :func:`sdv_fit_data`) and its output is encoded back with the training schema
(:func:`~synthleak.generators._adapt.frame_to_table`: categories mapped by value, continuous values
clipped to the schema range and rounded for integer columns).

Reproducibility: SDV seeds its models with a fixed seed at the first ``sample`` and draws from
the global numpy and torch generators while fitting. The adapter fits inside
:func:`~synthleak.generators._adapt.global_seed` (seeded from ``rng``, restored afterwards),
and before every ``sample`` resets SDV's sampling state and seeds the model and SDV's
reverse transformers from ``rng``: the same seed gives the same records, and two calls with
the same seed give the same records. Training runs on the CPU (``enable_gpu=False``).

Any other SDV synthesizer (or a differently configured one) is a one-liner through the
``python:`` generator, which passes SDV metadata to a constructor with a ``metadata``
parameter: ``python:sdv.single_table:GaussianCopulaSynthesizer,enforce_min_max_values=false``.

References
----------
Patki, Wedge and Veeramachaneni, "The Synthetic Data Vault", IEEE DSAA 2016 (SDV).
Xu, Skoularidou, Cuesta-Infante and Veeramachaneni, "Modeling tabular data using conditional
GAN", NeurIPS 2019 (arXiv:1907.00503): CTGAN, TVAE and the copula GAN variant.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthleak.constraints import Options, check_params, constraints
from synthleak.data.schema import ColumnKind, Schema
from synthleak.data.table import Table
from synthleak.errors import GeneratorFailure, InputError, MissingExtraError
from synthleak.generators._adapt import draw_seed, frame_to_table, global_seed
from synthleak.generators.base import BaseGenerator, GeneratorInfo, Param, register_generator

TABLE_NAME = "data"


def _require_sdv() -> None:
    if importlib.util.find_spec("sdv") is None:
        raise MissingExtraError("sdv", "sdv", "the sdv generators")


def sdv_metadata(schema: Schema, frame: pd.DataFrame | None = None) -> Any:
    """SDV ``Metadata`` of one table (named ``"data"``) built from ``schema``.

    Parameters
    ----------
    schema : Schema
        Column kinds: categorical -> ``categorical``; continuous -> ``numerical`` (with SDV 1
        ``computer_representation`` ``Int64`` when integer, else ``Float``); a ``datetime`` kind ->
        ``datetime`` when ``frame`` holds datetimes in that column; any other kind -> ``numerical``.
    frame : DataFrame, optional
        The data that will be fitted, consulted only for datetime columns.

    Returns
    -------
    sdv.metadata.Metadata
        No primary key.

    Raises
    ------
    MissingExtraError
        When SDV is not installed.
    """
    _require_sdv()
    from sdv.metadata import Metadata

    modern = sdv_major() >= 2
    columns: dict[str, dict[str, Any]] = {}
    for col in schema.columns:
        kind = getattr(col.kind, "value", col.kind)
        if col.kind is ColumnKind.CATEGORICAL:
            columns[col.name] = {"sdtype": "categorical"}
        elif (
            kind == "datetime"
            and frame is not None
            and col.name in frame
            and pd.api.types.is_datetime64_any_dtype(frame[col.name])
        ):
            columns[col.name] = {"sdtype": "datetime"}
        else:
            columns[col.name] = {"sdtype": "numerical"}
            if modern is False:  # SDV 1 reads the representation; SDV 2 deprecates it
                rep = "Int64" if getattr(col, "integer", False) else "Float"
                columns[col.name]["computer_representation"] = rep
    return Metadata.load_from_dict(
        {"tables": {TABLE_NAME: {"columns": columns}}, "METADATA_SPEC_VERSION": "V1"}
    )


def sdv_major() -> int:
    """Major version of the installed SDV (0 when unknown)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return int(version("sdv").split(".")[0])
    except (PackageNotFoundError, ValueError):
        return 0


def sdv_fit_data(frame: pd.DataFrame) -> Any:
    """``frame`` in the form the installed SDV's ``fit`` takes: a DataFrame (SDV 1), or a
    ``{"data": frame}`` dictionary (SDV 2, whose single-table synthesizers take one-table dicts)."""
    return {TABLE_NAME: frame} if sdv_major() >= 2 else frame


def sdv_output(out: Any) -> Any:
    """A synthesizer's ``sample`` output as a DataFrame (SDV 2 returns ``{table: frame}``)."""
    if isinstance(out, dict) and len(out) == 1:
        (out,) = out.values()
    return out


def _dims(raw: str, name: str, model: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(p) for p in str(raw).lower().split("x") if p.strip())
    except ValueError:
        dims = ()
    if not dims or min(dims) < 1:
        raise InputError(
            f"sdv:{model}: {name}={raw!r} is not a list of layer sizes: write e.g. {name}=256x256"
        )
    return dims


def reseed_sampling(synth: Any, seed: int) -> None:
    """Reset SDV's sampling state and seed its model and reverse transformers from ``seed``."""
    reset = getattr(synth, "reset_sampling", None)
    if callable(reset):
        reset()
    seeds = np.random.SeedSequence(seed).generate_state(2)
    try:  # SDV internals (sdv 1.x-2.x); without them SDV's fixed seed applies
        hyper = synth._data_processor._hyper_transformer
        sub = np.random.SeedSequence(int(seeds[0]))
        for transformer in hyper.field_transformers.values():
            for t in transformer if isinstance(transformer, list) else [transformer]:
                if hasattr(t, "set_random_state") and getattr(t, "random_states", None):
                    state = np.random.RandomState(int(sub.spawn(1)[0].generate_state(1)[0]))
                    t.set_random_state(state, "reverse_transform")
    except AttributeError:
        pass
    set_state = getattr(synth, "_set_random_state", None)
    if callable(set_state):
        set_state(int(seeds[1]) % (2**31 - 1))


class SDVGenerator(BaseGenerator):
    """One SDV single-table synthesizer behind the Generator protocol (module docstring).

    Parameters
    ----------
    model : str
        ``gaussiancopula``, ``ctgan``, ``tvae`` or ``copulagan``.
    **params
        The synthesizer's keyword arguments (already parsed; layer sizes as tuples).

    Attributes
    ----------
    synthesizer_ : sdv.single_table.BaseSingleTableSynthesizer
        The fitted SDV synthesizer.

    Notes
    -----
    Not differentially private: every SDV model reads its statistics or trains on the raw
    records.
    """

    deterministic = True
    CLASSES: ClassVar[dict[str, str]] = {
        "gaussiancopula": "GaussianCopulaSynthesizer",
        "ctgan": "CTGANSynthesizer",
        "tvae": "TVAESynthesizer",
        "copulagan": "CopulaGANSynthesizer",
    }

    # the model is checked here (the keyword arguments depend on it); the synthesizer's own
    # keyword arguments (**params) are the library's, checked below per model, not declared
    _parameter_constraints = constraints(model=Options(tuple(CLASSES)))

    def __init__(self, model: str, **params: Any) -> None:
        super().__init__()
        _require_sdv()
        self.model = model
        check_params(self, self._parameter_constraints)
        for key in ("epochs", "batch_size", "embedding_dim", "pac", "discriminator_steps"):
            if key in params and params[key] < 1:
                raise InputError(f"sdv:{model}: {key} must be >= 1, got {params[key]}")
        if model in ("ctgan", "copulagan") and params["batch_size"] % params["pac"]:
            raise InputError(
                f"sdv:{model}: batch_size={params['batch_size']} must be a multiple of "
                f"pac={params['pac']}"
            )
        if model == "tvae" and params["batch_size"] < 2:
            raise InputError("sdv:tvae: batch_size must be >= 2")
        self.model = model
        self.params = dict(params)

    def _make(self, schema: Schema, frame: pd.DataFrame) -> Any:
        import sdv.single_table as single_table

        cls = getattr(single_table, self.CLASSES[self.model])
        kwargs = dict(self.params)
        if self.model in ("ctgan", "tvae", "copulagan"):
            kwargs["enable_gpu"] = False
        return cls(sdv_metadata(schema, frame), **kwargs)

    def fit(self, table: Table, *, rng: np.random.Generator) -> SDVGenerator:
        """Fit the SDV synthesizer on ``table.to_frame()``; returns self."""
        _require_sdv()
        if len(table) < 2:
            raise InputError(f"sdv:{self.model} needs at least 2 training records")
        frame = table.to_frame()
        with global_seed(draw_seed(rng)), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synth = self._make(table.schema, frame)
            try:
                synth.fit(sdv_fit_data(frame))
            except (KeyboardInterrupt, MemoryError):
                raise
            except Exception as exc:
                raise GeneratorFailure(
                    f"sdv:{self.model}: fit failed ({type(exc).__name__}: {exc})"
                ) from exc
        self.synthesizer_ = synth
        self.schema_ = table.schema
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` records with the training schema."""
        if n == 0:
            return Table.from_arrays(
                self.schema_,
                np.zeros((0, len(self.schema_.categorical)), dtype=np.int64),
                np.zeros((0, len(self.schema_.continuous)), dtype=np.float32),
            )
        seed = draw_seed(rng)
        with global_seed(seed), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reseed_sampling(self.synthesizer_, seed)
            try:
                out = sdv_output(self.synthesizer_.sample(num_rows=n))
            except (KeyboardInterrupt, MemoryError):
                raise
            except Exception as exc:
                raise GeneratorFailure(
                    f"sdv:{self.model}: sample failed ({type(exc).__name__}: {exc})"
                ) from exc
        if len(out) != n:
            raise GeneratorFailure(f"sdv:{self.model} returned {len(out)} record(s), {n} asked")
        return frame_to_table(out.reset_index(drop=True), self.schema_, source=f"sdv:{self.model}")


# --- registry -----------------------------------------------------------------------------------
_COMMON = (
    Param("enforce_min_max_values", bool, True, "clip numbers to the training range"),
    Param("enforce_rounding", bool, True, "round numbers to the training precision"),
)
_GAN = (
    Param("epochs", int, 300, "training epochs"),
    Param("batch_size", int, 500, "records per step (multiple of pac)"),
    Param("embedding_dim", int, 128, "size of the generator's noise input"),
    Param("generator_dim", str, "256x256", "generator layer sizes"),
    Param("discriminator_dim", str, "256x256", "discriminator layer sizes"),
    Param("generator_lr", float, 2e-4, "generator learning rate"),
    Param("discriminator_lr", float, 2e-4, "discriminator learning rate"),
    Param("discriminator_steps", int, 1, "discriminator updates per generator update"),
    Param("pac", int, 10, "records per discriminator input (PacGAN)"),
    Param("log_frequency", bool, True, "log-frequency conditional sampling"),
)
_COPULA = (Param("default_distribution", str, "beta", "marginal family of numerical columns"),)
_TVAE = (
    Param("epochs", int, 300, "training epochs"),
    Param("batch_size", int, 500, "records per step"),
    Param("embedding_dim", int, 128, "size of the latent space"),
    Param("compress_dims", str, "128x128", "encoder layer sizes"),
    Param("decompress_dims", str, "128x128", "decoder layer sizes"),
    Param("l2scale", float, 1e-5, "L2 weight regularisation"),
    Param("loss_factor", int, 2, "weight of the reconstruction loss"),
)
_DIMS = ("generator_dim", "discriminator_dim", "compress_dims", "decompress_dims")


def _factory(model: str) -> Any:
    def make(**params: Any) -> SDVGenerator:
        for key in _DIMS:
            if key in params:
                params[key] = _dims(params[key], key, model)
        return SDVGenerator(model, **params)

    make.__module__ = __name__
    make.__name__ = f"sdv_{model}"
    return make


for _model, _params, _doc in (
    ("gaussiancopula", _COMMON + _COPULA, "SDV Gaussian copula (GaussianCopulaSynthesizer)"),
    ("ctgan", _COMMON + _GAN, "SDV CTGAN (CTGANSynthesizer)"),
    ("tvae", _COMMON + _TVAE, "SDV tabular VAE (TVAESynthesizer)"),
    ("copulagan", _COMMON + _GAN + _COPULA, "SDV copula GAN (CopulaGANSynthesizer)"),
):
    register_generator(GeneratorInfo(f"sdv:{_model}", _factory(_model), _params, _doc, extra="sdv"))
