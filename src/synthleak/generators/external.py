"""Generators that live outside synthleak: an external program, or a user's Python class.

``command:"CMD {input} {output} {n}"``
    Runs a program (R's synthpop, a DataSynthesizer script, ...) once per :meth:`sample` call.
    The training table is written to a temporary CSV (``{input}``); the program must write ``n``
    records with the same columns to ``{output}`` (CSV). Placeholders: ``{input}``, ``{output}``,
    ``{n}``, ``{seed}`` (a seed drawn from the ``rng`` given to ``sample``). The command line is
    split with :func:`shlex.split` *before* substitution, so paths with spaces are safe, and it
    runs without a shell. A timeout can follow the quoted command:
    ``command:"Rscript synth.R {input} {output} {n}",timeout=120``.

``python:pkg.module:Class`` or ``python:pkg.module:Class,key=value,...``
    Imports ``Class`` (a class or any factory function) from ``pkg.module`` and calls it with
    the spec's keyword arguments at every ``fit``. Values are read as Python literals: ``true``/
    ``false``, ``none``, integers, floats, anything else a string (quotes optional). Two hooks
    make third-party synthesizers one-liners:

    * when the class has a ``synthleak_metadata(schema)`` static or class method, its result is
      passed as ``metadata=`` (a protocol for libraries that describe data their own way);
    * otherwise, when the constructor has a ``metadata`` parameter that the spec does not set,
      SDV metadata built from the training schema is passed
      (:func:`synthleak.generators.sdv.sdv_metadata`). So an SDV synthesizer needs no wrapper:
      ``python:sdv.single_table:GaussianCopulaSynthesizer,enforce_min_max_values=false``.

    Two kinds of object are accepted:

    * a synthleak generator: its ``fit`` takes a keyword ``rng`` (the
      :class:`~synthleak.generators.base.Generator` protocol: ``fit(table, *, rng)``,
      ``sample(n, *, rng)`` returning a :class:`~synthleak.data.table.Table`);
    * a DataFrame generator: ``fit(df)`` and ``sample(n)`` returning a DataFrame with the training
      columns (the SDV/ctgan style). It is fitted on ``table.to_frame()`` and its output is
      encoded with the training schema. numpy's, ``random``'s and torch's global RNGs are seeded
      from ``rng`` around each call (and restored afterwards), so a class that draws from them is
      reproducible. SDV 2's synthesizers (``fit`` takes a one-table dictionary, ``sample``
      returns one) are recognised by their module and handled.

Claimed privacy: both accept ``claimed_epsilon=`` and ``claimed_delta=`` (default 0, pure DP)
spec parameters, which only *declare* what the program or class promises; synthleak never
takes them as evidence (``python:`` does not forward them to the class):
``command:"dpsynth {input} {output} {n}",claimed_epsilon=1``.

Notes
-----
The output of both is checked against the training schema: same columns, categories in the
domain, missing values only where the schema allows them; continuous values are clipped to the
schema range. Failures raise :class:`~synthleak.errors.GeneratorFailure` naming the command or
class (shadow modelling counts them); a bad spec raises :class:`~synthleak.errors.InputError`.
"""

from __future__ import annotations

import importlib
import inspect
import re
import shlex
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from synthleak.constraints import InstanceOf, Interval, check_params, constraints
from synthleak.data.table import Table
from synthleak.errors import GeneratorFailure, InputError
from synthleak.generators._adapt import draw_seed, frame_to_table, global_seed
from synthleak.generators.base import BaseGenerator, GeneratorInfo, params_of, register_generator

PLACEHOLDERS = ("{input}", "{output}", "{n}", "{seed}")
_STDERR_TAIL = 600
_TIMEOUT_SUFFIX = re.compile(r'^(["\'])(?P<cmd>.*)\1\s*,\s*timeout\s*=\s*(?P<t>[^,]+)$', re.S)


def _tail(text: str | bytes | None, limit: int = _STDERR_TAIL) -> str:
    if text is None:
        return ""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


def run_command(
    argv: Sequence[str],
    who: str,
    timeout: float,
    cwd: str,
    *,
    inp: Path,
    out: Path,
    n: int,
    seed: int,
) -> subprocess.CompletedProcess[bytes]:
    """Run an external generator's program once: ``{input}``, ``{output}``, ``{n}`` and ``{seed}``
    in its arguments replaced, in ``cwd``, stopped after ``timeout`` seconds. A program that
    cannot start, runs too long or exits non-zero is a :class:`GeneratorFailure` naming ``who``
    and the tail of its standard error."""
    subs = {"{input}": str(inp), "{output}": str(out), "{n}": str(n), "{seed}": str(seed)}
    args = []
    for a in argv:
        for ph, val in subs.items():
            a = a.replace(ph, val)
        args.append(a)
    try:
        proc = subprocess.run(args, capture_output=True, timeout=timeout, cwd=cwd, check=False)
    except FileNotFoundError:
        raise GeneratorFailure(
            f"{who} cannot run: program {args[0]!r} not found (check the PATH or give a full path)"
        ) from None
    except PermissionError:
        raise GeneratorFailure(f"{who} cannot run: program {args[0]!r} is not executable") from None
    except subprocess.TimeoutExpired as exc:
        raise GeneratorFailure(
            f"{who} did not finish within {timeout:g} s and was stopped; "
            f"stderr tail: {_tail(exc.stderr) or '(empty)'}"
        ) from None
    if proc.returncode != 0:
        raise GeneratorFailure(
            f"{who} failed with exit code {proc.returncode}; "
            f"stderr tail: {_tail(proc.stderr) or '(empty)'}"
        )
    return proc


def _read_output_csv(path: Path, table_schema: Any) -> pd.DataFrame:
    """Read the program's CSV: categoricals as text (so '01' stays '01'), '' as missing."""
    cat = {c.name: str for c in table_schema.categorical}
    return pd.read_csv(path, dtype=cat, keep_default_na=False, na_values=[""], low_memory=False)


#: The constraints of a declared DP claim (``inf`` and ``None`` declare nothing).
CLAIM_CONSTRAINTS = constraints(
    claimed_epsilon=(Interval(float, 0, None, closed="neither"), None),
    claimed_delta=(Interval(float, 0, 1, closed="left"), None),
)


class CommandGenerator(BaseGenerator):
    """Run an external program as the generator (see the module docstring).

    Parameters
    ----------
    cmd : str
        command line with {input} {output} {n} {seed} placeholders.
        ``{input}`` and ``{output}`` are required, ``{n}`` and ``{seed}`` optional; empty
        (the default) is refused: the spec's command line fills it.
    timeout : float, default 600
        seconds per run before the program is stopped.
        Each ``sample`` call's run is killed after it.
    claimed_epsilon : float, optional
        epsilon the program claims (declared only).
        Never checked here; ``None`` or ``inf``: no claim.
    claimed_delta : float, default 0
        delta of that claim.

    Notes
    -----
    Deterministic when the program is deterministic given ``{seed}``. ``sample(0)`` returns an
    empty table without running the program. Extra rows in the output are dropped (the first
    ``n`` are kept); fewer rows than ``n`` is a failure.
    """

    # made here from the spec (the command line is parsed once), so checked here, before
    # parsing; a timeout written after the command line (``... timeout=60``) is checked again
    _parameter_constraints = constraints(
        CLAIM_CONSTRAINTS, cmd=InstanceOf(str), timeout=Interval(float, 0, None, closed="neither")
    )

    def __init__(
        self,
        cmd: str = "",
        timeout: float = 600.0,
        claimed_epsilon: float | None = None,
        claimed_delta: float = 0.0,
    ) -> None:
        super().__init__()
        self.cmd, self.timeout = cmd, timeout
        self.claimed_epsilon, self.claimed_delta = claimed_epsilon, claimed_delta
        check_params(self, self._parameter_constraints)
        self.claimed_epsilon, self.claimed_delta = _check_claim(
            "command", claimed_epsilon, claimed_delta
        )
        cmd = cmd.strip()
        m = _TIMEOUT_SUFFIX.match(cmd)
        if m:
            cmd = m.group("cmd")
            try:
                timeout = float(m.group("t"))
            except ValueError:
                raise InputError(
                    f"command generator: timeout={m.group('t')!r} is not a number of seconds"
                ) from None
        if not cmd:
            raise InputError(
                'the command generator needs a command line: command:"CMD {input} {output} {n}"'
            )
        try:
            argv = shlex.split(cmd)
        except ValueError as exc:
            raise InputError(
                f"cannot split the command {cmd!r} ({exc}): check its quotes"
            ) from None
        for ph in ("{input}", "{output}"):
            if not any(ph in a for a in argv):
                raise InputError(
                    f"the command {cmd!r} has no {ph} placeholder: "
                    "the program must read the training "
                    "CSV from {input} and write the synthetic CSV to {output}"
                )
        self.cmd = cmd
        self.timeout = timeout
        check_params(self, self._parameter_constraints)
        self.timeout = float(timeout)
        self.argv_ = argv

    def fit(self, table: Table, *, rng: np.random.Generator) -> CommandGenerator:
        """Keep the training table; the program fits and samples in one run at ``sample``."""
        self.schema_ = table.schema
        self.data_ = table
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """Run the program and read its ``n`` records back with the training schema."""
        seed = draw_seed(rng)
        if n == 0:
            return self.data_.take(np.zeros(0, dtype=np.intp))
        who = f"the command {self.cmd!r}"
        with tempfile.TemporaryDirectory(prefix="synthleak-cmd-") as tmp:
            inp, out = Path(tmp) / "input.csv", Path(tmp) / "output.csv"
            self.data_.to_frame().to_csv(inp, index=False)
            proc = run_command(self.argv_, who, self.timeout, tmp, inp=inp, out=out, n=n, seed=seed)
            if not out.is_file():
                raise GeneratorFailure(
                    f"{who} exited without writing the output file {{output}}; "
                    f"stderr tail: {_tail(proc.stderr) or '(empty)'}"
                )
            try:
                frame = _read_output_csv(out, self.schema_)
            except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as exc:
                raise GeneratorFailure(
                    f"{who} wrote an output file that is not a readable CSV "
                    f"({str(exc).splitlines()[0]})"
                ) from None
        if len(frame) < n:
            raise GeneratorFailure(f"{who} wrote {len(frame)} record(s) but {n} were asked for")
        return frame_to_table(frame.iloc[:n], self.schema_, source=who)


def _check_claim(
    who: str, epsilon: float | None, delta: float
) -> tuple[float | None, float | None]:
    """A declared (epsilon, delta), checked against :data:`CLAIM_CONSTRAINTS` by the caller;
    ``inf`` declares nothing (``None, None``)."""
    if epsilon is None or epsilon == float("inf"):
        return None, None
    return float(epsilon), float(delta)


def _literal(raw: str) -> Any:
    """A spec value as a Python value: bool, None, int, float, else the (unquoted) string."""
    text = raw.strip()
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _import_target(target: str) -> Any:
    """The class or factory named by ``target`` (any callable: typed ``Any``)."""
    mod_name, sep, cls_name = target.strip().rpartition(":")
    if not sep:
        mod_name, _, cls_name = target.strip().rpartition(".")
    if not mod_name or not cls_name:
        raise InputError(
            f"python generator target {target!r} is not 'package.module:Class': "
            "write it as python:mypkg.synth:MyGenerator"
        )
    try:
        module = importlib.import_module(mod_name)
    except ImportError as exc:
        raise InputError(
            f"python generator: cannot import module {mod_name!r} ({exc}): "
            "install it or put its folder on PYTHONPATH"
        ) from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise InputError(
            f"python generator: module {mod_name!r} has no attribute {cls_name!r}: "
            "check the class name"
        )
    if not callable(cls):
        raise InputError(f"python generator: {target!r} is not a class or factory")
    return cls


def _parameters(factory: Any) -> list[str] | None:
    """Keyword parameter names of a class or factory; ``None`` when it takes ``**kwargs`` or
    its signature cannot be read."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    names = []
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            return None
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            names.append(p.name)
    return names


def _takes_rng(method: Any) -> bool:
    try:
        return "rng" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


class PythonGenerator(BaseGenerator):
    """A user's class or factory as a generator (module docstring: kinds, hooks, claims).

    Parameters
    ----------
    target : str
        package.module:Class with fit/sample (Table or DataFrame API).
        Or ``package.module.Class``; empty (the default) is refused: the spec's target
        fills it.
    claimed_epsilon : float, optional
        epsilon the class claims (declared only).
        Never checked here; ``None``: no claim.
    claimed_delta : float, default 0
        delta of that claim.
    options : dict of str to str, optional
        Keyword arguments for the class, as raw spec strings (read with Python literal rules).

    Attributes
    ----------
    model_ : object
        The fitted user object.
    table_api_ : bool
        True when the class follows synthleak's Table protocol, False when DataFrame-based.
    """

    # made here from the spec (the class is imported once), so checked here
    _parameter_constraints = constraints(CLAIM_CONSTRAINTS, target=InstanceOf(str))
    _unconstrained_parameters = MappingProxyType(
        {"options": "keyword arguments for the user's class, which checks them itself"}
    )

    def __init__(
        self,
        target: str = "",
        claimed_epsilon: float | None = None,
        claimed_delta: float = 0.0,
        options: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.target, self.options = target, options
        self.claimed_epsilon, self.claimed_delta = claimed_epsilon, claimed_delta
        check_params(self, self._parameter_constraints)
        self.target = target.strip()
        self.claimed_epsilon, self.claimed_delta = _check_claim(
            "python", claimed_epsilon, claimed_delta
        )
        self.cls_ = _import_target(self.target)
        self.kwargs = {k: _literal(v) for k, v in (options or {}).items()}
        for meth in ("fit", "sample"):
            if not callable(getattr(self.cls_, meth, None)) and inspect.isclass(self.cls_):
                raise InputError(
                    f"python generator {self.target!r} has no {meth}() method: the class needs "
                    "fit(...) and sample(n, ...)"
                )
        params = _parameters(self.cls_)
        if params is not None:
            unknown = sorted(set(self.kwargs) - set(params))
            if unknown:
                raise InputError(
                    f"python generator {self.target!r} takes no keyword argument(s) {unknown}: "
                    f"its parameters are {', '.join(params) or 'none'}"
                )
        self.metadata_hook_ = (
            "synthleak_metadata"
            if callable(getattr(self.cls_, "synthleak_metadata", None))
            else "sdv"
            if params is not None and "metadata" in params and "metadata" not in self.kwargs
            else None
        )
        self.sdv_style_ = getattr(self.cls_, "__module__", "").split(".")[0] == "sdv"

    def _kwargs(self, table: Table) -> dict[str, Any]:
        kwargs = dict(self.kwargs)
        if self.metadata_hook_ == "synthleak_metadata":
            kwargs["metadata"] = self.cls_.synthleak_metadata(table.schema)
        elif self.metadata_hook_ == "sdv":
            from synthleak.generators.sdv import sdv_metadata

            kwargs["metadata"] = sdv_metadata(table.schema, table.to_frame())
        return kwargs

    def fit(self, table: Table, *, rng: np.random.Generator) -> PythonGenerator:
        """Make and fit the user object (on the table, or on ``table.to_frame()``)."""
        who = f"python generator {self.target!r}"
        try:
            model = self.cls_(**self._kwargs(table))
        except (InputError, GeneratorFailure):
            raise
        except Exception as exc:
            raise GeneratorFailure(f"{who}: cannot create {self.target}() ({exc})") from exc
        for meth in ("fit", "sample"):
            if not callable(getattr(model, meth, None)):
                raise InputError(
                    f"{who} made a {type(model).__name__} without a {meth}() method: the object "
                    "needs fit(...) and sample(n, ...)"
                )
        table_api = _takes_rng(model.fit)
        try:
            if table_api:
                model.fit(table, rng=rng)
            else:
                frame = table.to_frame()
                if self.sdv_style_:
                    from synthleak.generators.sdv import sdv_fit_data

                    frame = sdv_fit_data(frame)
                with global_seed(draw_seed(rng)):
                    model.fit(frame)
        except (InputError, GeneratorFailure):
            raise
        except Exception as exc:
            raise GeneratorFailure(f"{who}: fit failed ({type(exc).__name__}: {exc})") from exc
        self.model_ = model
        self.table_api_ = table_api
        self.schema_ = table.schema
        return self

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` records from the user object, checked against the training schema."""
        who = f"python generator {self.target!r}"
        try:
            if self.table_api_:
                out = self.model_.sample(n, rng=rng)
            else:
                seed = draw_seed(rng)
                with global_seed(seed):
                    if self.sdv_style_:  # SDV keeps its own sampling seed: set it from rng
                        from synthleak.generators.sdv import reseed_sampling

                        reseed_sampling(self.model_, seed)
                    out = self.model_.sample(n)
        except (InputError, GeneratorFailure):
            raise
        except Exception as exc:
            raise GeneratorFailure(f"{who}: sample failed ({type(exc).__name__}: {exc})") from exc
        if isinstance(out, dict) and len(out) == 1:  # SDV 2: {table name: frame}
            (out,) = out.values()
        if isinstance(out, Table):
            if out.schema != self.schema_:
                raise GeneratorFailure(
                    f"{who} returned a table whose schema differs from the training schema"
                )
            table = out
        elif isinstance(out, pd.DataFrame):
            table = frame_to_table(out, self.schema_, source=who)
        else:
            raise GeneratorFailure(
                f"{who}: sample returned {type(out).__name__}; "
                "return a synthleak Table or a DataFrame"
            )
        if len(table) != n:
            raise GeneratorFailure(f"{who} returned {len(table)} record(s) but {n} were asked for")
        return table


register_generator(
    GeneratorInfo(
        "command",
        CommandGenerator,
        params_of(CommandGenerator),
        'external program: command:"CMD {input} {output} {n}"',
    )
)
register_generator(
    GeneratorInfo(
        "python",
        PythonGenerator,
        params_of(PythonGenerator, exclude=("options",)),
        "a user's Python class or factory: python:package.module:Class,key=value,...",
        free_params=True,
    )
)
