"""Relational generators: fit on linked tables, sample linked tables with as many persons.

A relational generator learns from a :class:`~synthleak.data.relational.RelationalData` (a root
table of persons and their child rows) and samples one with the same schema:

* ``fit(data, *, rng)`` returns the generator;
* ``sample(n, *, rng)`` returns a :class:`RelationalData` holding ``n`` persons (rows of the root
  table) and whatever child rows the generator makes for them; its foreign keys must all resolve
  (checked by :meth:`RelationalData.validate`). :meth:`BaseRelationalGenerator.sample_like`
  samples as many persons as it was fitted on.

Spec strings, as for single-table generators (:func:`make_relational_generator`):

``sdv:hma``
    SDV's ``HMASynthesizer`` (hierarchical modelling: a Gaussian copula per table, each parent
    row augmented with its children's distribution parameters; Patki et al. 2016), in the
    ``sdv`` extra, imported when fitted. Its sampling draws from numpy's global RNG and SDV's
    own seed, both set from ``rng`` (and restored afterwards), so a seed gives one release.
``python:pkg.module:Class,key=value,...``
    A user's class or factory, called with the keyword arguments at every ``fit``. Either it
    follows this protocol (``fit`` takes a keyword ``rng``; ``sample(n, rng=...)`` returns a
    ``RelationalData`` or a dict of table name to DataFrame), or it is a frame-dictionary
    generator: ``fit(frames)`` with a dict of table name to DataFrame and ``sample(n)``
    returning such a dict (numpy's and ``random``'s global RNGs are seeded from ``rng`` around
    each call).
``command:"CMD {input} {output} {n}",timeout=600``
    An external program (ClavaDDPM, REaLTabFormer's relational model, an R script): the
    training tables are written as one CSV per table to the folder ``{input}``, with the SDV
    metadata beside them as ``{input}/metadata.json``; the program writes one CSV per table
    to the folder ``{output}`` with ``{n}`` persons in the root table. ``{seed}`` is a seed
    drawn from ``rng``. The command line is split with :func:`shlex.split` before
    substitution and runs without a shell.

Every release is read back with the training schema and validated (a missing table, a key that
is not unique, an orphaned foreign key fail the run with
:class:`~synthleak.errors.GeneratorFailure`), and must hold ``n`` persons. Categorical columns
are read back as text when the training column was text.
"""

from __future__ import annotations

import json
import shlex
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from synthleak.constraints import Constrained, InstanceOf, Interval, check_params, constraints
from synthleak.data.relational import RelationalData, RelationalSchema
from synthleak.errors import GeneratorFailure, InputError, MissingExtraError, NotFittedError
from synthleak.generators._adapt import draw_seed, global_seed
from synthleak.generators.base import parse_spec
from synthleak.generators.external import (
    _import_target,
    _literal,
    _parameters,
    _takes_rng,
    run_command,
)

__all__ = [
    "BaseRelationalGenerator",
    "CommandRelationalGenerator",
    "HMAGenerator",
    "PythonRelationalGenerator",
    "RelationalGenerator",
    "make_relational_generator",
    "sdv_multi_table_metadata",
]


@runtime_checkable
class RelationalGenerator(Protocol):
    """What a relational generator does: learn linked tables, sample linked tables."""

    def fit(self, data: RelationalData, *, rng: np.random.Generator) -> RelationalGenerator:
        """Learn from ``data``; returns self."""
        ...

    def sample(self, n: int, *, rng: np.random.Generator) -> RelationalData:
        """Linked tables with ``n`` persons (root rows) and the training schema."""
        ...


def sdv_multi_table_metadata(data: RelationalData) -> dict[str, Any]:
    """SDV multi-table metadata (the dict of ``Metadata.load_from_dict``) for ``data``: keys
    as ``id``, the schema's categorical columns and text columns as ``categorical``, numbers
    as ``numerical``."""
    sch = data.schema
    tables: dict[str, Any] = {}
    for t in sch.tables:
        df = data.frames[t]
        keys = {sch.primary_keys[t]} | {fk.column for fk in sch.foreign_keys if fk.child == t}
        cols: dict[str, Any] = {}
        for c in map(str, df.columns):
            if c in keys:
                cols[c] = {"sdtype": "id"}
            elif c in sch.categorical.get(t, ()) or not (
                pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
            ):
                cols[c] = {"sdtype": "categorical"}
            else:
                cols[c] = {"sdtype": "numerical"}
        spec: dict[str, Any] = {"columns": cols}
        if sch.primary_keys[t] is not None:
            spec["primary_key"] = sch.primary_keys[t]
        tables[t] = spec
    rels = [
        {
            "parent_table_name": fk.parent,
            "parent_primary_key": sch.key_of(fk.parent),
            "child_table_name": fk.child,
            "child_foreign_key": fk.column,
        }
        for fk in sch.foreign_keys
    ]
    return {"tables": tables, "relationships": rels, "METADATA_SPEC_VERSION": "V1"}


class BaseRelationalGenerator(Constrained):
    """Base of the relational generators: keeps the training schema and its root table,
    checks the fitted state and ``n``, and checks every release (:meth:`_release`)."""

    name: str = ""
    spec: str = ""
    claimed_epsilon: float | None = None
    claimed_delta: float | None = None

    def __init__(self) -> None:
        self.schema_: RelationalSchema | None = None

    def _fitted(self, data: RelationalData) -> None:
        if not isinstance(data, RelationalData):
            raise InputError(
                f"a relational generator fits on RelationalData, got {type(data).__name__}"
            )
        if len(data.schema.roots) != 1:
            raise InputError(
                f"a relational generator needs one table of persons: the schema has root "
                f"tables {list(data.schema.roots)}"
            )
        self.schema_ = data.schema
        self.root_ = data.schema.roots[0]
        self.n_persons_ = len(data.frames[self.root_])
        self.dtypes_ = {t: data.frames[t].dtypes.to_dict() for t in data.schema.tables}

    def sample(self, n: int, *, rng: np.random.Generator) -> RelationalData:
        """``n`` persons with their child rows (checked: schema, keys, links, ``n``)."""
        if self.schema_ is None:
            raise NotFittedError(
                f"relational generator {self.spec or type(self).__name__} is not fitted: "
                "call fit(data, rng=...) first"
            )
        if isinstance(n, bool) or int(n) != n or n < 1:
            raise InputError(f"cannot sample {n} persons: give a number >= 1")
        return self._sample(int(n), rng=rng)

    def sample_like(self, *, rng: np.random.Generator) -> RelationalData:
        """As many persons as the training data held."""
        return self.sample(self.n_persons_, rng=rng)

    def _sample(self, n: int, *, rng: np.random.Generator) -> RelationalData:
        raise NotImplementedError(f"{type(self).__name__} implements neither sample nor _sample")

    def _release(self, frames: Any, n: int, who: str) -> RelationalData:
        """The generator's output as checked RelationalData with ``n`` persons."""
        assert self.schema_ is not None
        if isinstance(frames, RelationalData):
            frames = frames.frames
        if not isinstance(frames, Mapping):
            raise GeneratorFailure(
                f"{who} returned {type(frames).__name__}: return RelationalData or a dict of "
                "table name to DataFrame"
            )
        out: dict[str, pd.DataFrame] = {}
        for t in self.schema_.tables:
            df = frames.get(t)
            if not isinstance(df, pd.DataFrame):
                raise GeneratorFailure(f"{who} returned no table {t!r}")
            missing = [c for c in self.dtypes_[t] if c not in df.columns]
            if missing:
                raise GeneratorFailure(f"{who}: table {t!r} lacks column(s) {missing}")
            df = df[list(self.dtypes_[t])].reset_index(drop=True)
            for c, dt in self.dtypes_[t].items():  # text stays text, numbers numbers
                if dt.kind == "O" and df[c].dtype.kind != "O":
                    df[c] = df[c].astype(str).where(df[c].notna(), None)
            out[t] = df
        try:
            data = RelationalData(self.schema_, out).validate()
        except InputError as exc:
            raise GeneratorFailure(f"{who} released invalid linked tables: {exc}") from None
        got = len(data.frames[self.root_])
        if got != n:
            raise GeneratorFailure(f"{who} released {got} person(s) but {n} were asked for")
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


class HMAGenerator(BaseRelationalGenerator):
    """SDV's ``HMASynthesizer`` (module docstring), in the ``sdv`` extra.

    Parameters
    ----------
    verbose : bool, default False
        whether SDV prints its progress bars.
    """

    _parameter_constraints = constraints(verbose=InstanceOf(bool))

    def __init__(self, verbose: bool = False) -> None:
        super().__init__()
        self.verbose = verbose

    def fit(self, data: RelationalData, *, rng: np.random.Generator) -> HMAGenerator:
        """Fit HMA on the tables (SDV metadata from the schema)."""
        try:
            from sdv.metadata import Metadata
            from sdv.multi_table import HMASynthesizer
        except ImportError:
            raise MissingExtraError("sdv", "sdv", "sdv:hma") from None
        self._fitted(data)
        meta = Metadata.load_from_dict(sdv_multi_table_metadata(data))
        synth = HMASynthesizer(meta, verbose=self.verbose)
        try:
            with global_seed(draw_seed(rng)):
                synth.fit({t: df.copy() for t, df in data.frames.items()})
        except Exception as exc:
            raise GeneratorFailure(f"sdv:hma: fit failed ({type(exc).__name__}: {exc})") from exc
        self.model_ = synth
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> RelationalData:
        from synthleak.generators.sdv import reseed_sampling

        synth = self.model_
        seed = draw_seed(rng)
        synth.reset_sampling()
        synth._numpy_seed = seed  # SDV's own multi-table sampling seed (reset_sampling's)
        for i, table_synth in enumerate(synth._table_synthesizers.values()):
            reseed_sampling(table_synth, (seed + 7919 * (i + 1)) % (2**31 - 1))
        try:
            with global_seed(seed):
                out = synth.sample(n, main_table_name=self.root_)
        except Exception as exc:
            raise GeneratorFailure(f"sdv:hma: sample failed ({type(exc).__name__}: {exc})") from exc
        return self._release(out, n, "sdv:hma")


class PythonRelationalGenerator(BaseRelationalGenerator):
    """A user's relational generator class or factory (module docstring).

    Parameters
    ----------
    target : str
        package.module:Class with fit/sample on linked tables.
    options : dict of str to str, optional
        Keyword arguments for the class, as raw spec strings (Python literal rules).
    """

    _parameter_constraints = constraints(target=InstanceOf(str))
    _unconstrained_parameters = MappingProxyType(
        {"options": "keyword arguments for the user's class, which checks them itself"}
    )

    def __init__(self, target: str = "", options: dict[str, str] | None = None) -> None:
        super().__init__()
        self.target, self.options = target, options
        check_params(self, self._parameter_constraints)
        self.target = target.strip()
        self.cls_ = _import_target(self.target)
        self.kwargs = {k: _literal(v) for k, v in (options or {}).items()}
        params = _parameters(self.cls_)
        if params is not None:
            unknown = sorted(set(self.kwargs) - set(params))
            if unknown:
                raise InputError(
                    f"python generator {self.target!r} takes no keyword argument(s) {unknown}: "
                    f"its parameters are {', '.join(params) or 'none'}"
                )

    def fit(self, data: RelationalData, *, rng: np.random.Generator) -> PythonRelationalGenerator:
        """Make the user object and fit it (on ``data``, or on its dict of frames)."""
        who = f"python generator {self.target!r}"
        self._fitted(data)
        try:
            model = self.cls_(**self.kwargs)
            self.protocol_ = _takes_rng(model.fit)
            if self.protocol_:
                model.fit(data, rng=rng)
            else:
                with global_seed(draw_seed(rng)):
                    model.fit({t: df.copy() for t, df in data.frames.items()})
        except (InputError, GeneratorFailure):
            raise
        except Exception as exc:
            raise GeneratorFailure(f"{who}: fit failed ({type(exc).__name__}: {exc})") from exc
        self.model_ = model
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> RelationalData:
        who = f"python generator {self.target!r}"
        try:
            if self.protocol_:
                out = self.model_.sample(n, rng=rng)
            else:
                with global_seed(draw_seed(rng)):
                    out = self.model_.sample(n)
        except (InputError, GeneratorFailure):
            raise
        except Exception as exc:
            raise GeneratorFailure(f"{who}: sample failed ({type(exc).__name__}: {exc})") from exc
        return self._release(out, n, who)


class CommandRelationalGenerator(BaseRelationalGenerator):
    """An external program on a folder of CSVs (module docstring).

    Parameters
    ----------
    cmd : str
        command line with {input} {output} {n} {seed} placeholders (folders for input and output).
    timeout : float, default 600
        seconds per run before the program is stopped.
    """

    _parameter_constraints = constraints(
        cmd=InstanceOf(str), timeout=Interval(float, 0, None, closed="neither")
    )

    def __init__(self, cmd: str = "", timeout: float = 600.0) -> None:
        super().__init__()
        self.cmd, self.timeout = cmd, timeout
        check_params(self, self._parameter_constraints)
        self.cmd, self.timeout = cmd.strip(), float(timeout)
        if not self.cmd:
            raise InputError(
                'the command generator needs a command line: command:"CMD {input} {output} {n}"'
            )
        try:
            self.argv_ = shlex.split(self.cmd)
        except ValueError as exc:
            raise InputError(
                f"cannot split the command {self.cmd!r} ({exc}): check its quotes"
            ) from None
        for ph in ("{input}", "{output}"):
            if not any(ph in a for a in self.argv_):
                raise InputError(
                    f"the command {self.cmd!r} has no {ph} placeholder: the program reads the "
                    "training tables from the folder {input} and writes one CSV per table to "
                    "the folder {output}"
                )

    def fit(self, data: RelationalData, *, rng: np.random.Generator) -> CommandRelationalGenerator:
        """Keep the training tables; the program fits and samples in one run at ``sample``."""
        self._fitted(data)
        self.data_ = data
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> RelationalData:
        seed = draw_seed(rng)
        who = f"the command {self.cmd!r}"
        with tempfile.TemporaryDirectory(prefix="synthleak-relcmd-") as tmp:
            inp, out = Path(tmp) / "input", Path(tmp) / "output"
            inp.mkdir()
            out.mkdir()
            for t, df in self.data_.frames.items():
                df.to_csv(inp / f"{t}.csv", index=False)
            (inp / "metadata.json").write_text(json.dumps(sdv_multi_table_metadata(self.data_)))
            run_command(self.argv_, who, self.timeout, tmp, inp=inp, out=out, n=n, seed=seed)
            frames: dict[str, pd.DataFrame] = {}
            for t in self.data_.schema.tables:
                f = out / f"{t}.csv"
                if not f.is_file():
                    raise GeneratorFailure(f"{who} wrote no table {t}.csv to {{output}}")
                text = {c: str for c, dt in self.dtypes_[t].items() if dt.kind == "O"}
                try:
                    frames[t] = pd.read_csv(
                        f, dtype=text, keep_default_na=False, na_values=[""], low_memory=False
                    )
                except (pd.errors.EmptyDataError, pd.errors.ParserError) as exc:
                    raise GeneratorFailure(
                        f"{who} wrote {t}.csv that is not a readable CSV "
                        f"({str(exc).splitlines()[0]})"
                    ) from None
        return self._release(frames, n, who)


_RELATIONAL = {
    "sdv:hma": HMAGenerator,
    "python": PythonRelationalGenerator,
    "command": CommandRelationalGenerator,
}


def make_relational_generator(spec: str) -> BaseRelationalGenerator:
    """An unfitted relational generator from a spec (module docstring): ``sdv:hma``,
    ``python:pkg.module:Class,...`` or ``command:"CMD {input} {output} {n}",timeout=...``."""
    name, raw = parse_spec(spec)
    cls = _RELATIONAL.get(name)
    if cls is None:
        raise InputError(
            f"unknown relational generator {name!r}: choose sdv:hma, python:MODULE:CLASS or "
            'command:"CMD {input} {output} {n}"'
        )
    kwargs: dict[str, Any] = {}
    if cls is PythonRelationalGenerator:
        target = raw.pop("target", "")
        kwargs = {"target": target, "options": raw}
    elif cls is CommandRelationalGenerator:
        kwargs["cmd"] = raw.pop("cmd", "")
        if "timeout" in raw:
            try:
                kwargs["timeout"] = float(raw.pop("timeout"))
            except ValueError:
                raise InputError(
                    f"generator {name!r}: timeout is not a number of seconds"
                ) from None
    elif "verbose" in raw:
        kwargs["verbose"] = _literal(raw.pop("verbose")) is True
    if raw and cls is not PythonRelationalGenerator:
        raise InputError(f"generator {name!r} has no parameter(s) {sorted(raw)}")
    gen = cls(**kwargs)
    gen.name, gen.spec = name, spec.strip()
    return gen
