"""The :class:`Generator` protocol, the registry and spec strings.

A spec string names a registered generator and its parameters: ``baynet:k=2``,
``privbayes:epsilon=1,k=2``, ``rap-softmax:epsilon=10``, ``command:"Rscript s.R {input} {output} {n}"``,
``python:pkg.module:Class``. :func:`make_generator` parses it into an unfitted generator;
:func:`list_generators` lists what is registered with each parameter and its default.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, runtime_checkable

import numpy as np

from synthleak.data.table import Table
from synthleak.errors import InputError, NotFittedError


@runtime_checkable
class Generator(Protocol):
    """What every generator does: learn from a table, then sample tables with its schema."""

    def fit(self, table: Table, *, rng: np.random.Generator) -> Generator:
        """Learn from ``table``; returns self."""
        ...

    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` synthetic records with the training table's schema."""
        ...


class BaseGenerator:
    """Convenience base: stores the spec and the training schema, checks fitted state."""

    name: str = ""
    spec: str = ""

    def __init__(self) -> None:
        self.schema_: Any = None

    def _check_fitted(self) -> None:
        if getattr(self, "schema_", None) is None:
            raise NotFittedError(
                f"generator {self.spec or type(self).__name__} is not fitted: call fit(table, rng=...) first"
            )

    @staticmethod
    def _check_n(n: int) -> None:
        if int(n) != n or n < 0:
            raise InputError(f"cannot sample {n} records: give a number >= 0")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


@dataclass(frozen=True)
class Param:
    """A generator parameter: name, type, default and one line of documentation."""

    name: str
    type: type
    default: Any
    doc: str = ""

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The values of an enum-typed parameter; ``None`` for any other type."""
        if issubclass(self.type, Enum):
            return tuple(str(m.value) for m in self.type)
        return None

    def parse(self, raw: str, generator: str) -> Any:
        try:
            if self.type is bool:
                low = raw.lower()
                if low not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(raw)
                return low in ("true", "1", "yes")
            if self.type is float:
                value = float(raw)
                if math.isnan(value):
                    raise ValueError(raw)
                return value
            if self.type is int:
                return int(raw)
            return self.type(raw)
        except ValueError:
            what = (
                "one of " + ", ".join(self.choices)
                if self.choices
                else f"a valid {self.type.__name__}"
            )
            raise InputError(
                f"generator {generator!r}: parameter {self.name}={raw!r} is not {what}"
            ) from None


@dataclass(frozen=True)
class GeneratorInfo:
    """Registry entry."""

    name: str
    factory: Callable[..., Any]
    params: tuple[Param, ...] = ()
    doc: str = ""
    extra: str | None = None
    differentially_private: bool = False
    aliases: tuple[str, ...] = field(default=())


_REGISTRY: dict[str, GeneratorInfo] = {}


def register_generator(info: GeneratorInfo) -> GeneratorInfo:
    """Add a generator to the registry; a duplicate name raises ``ValueError``."""
    for key in (info.name, *info.aliases):
        if key in _REGISTRY:
            raise ValueError(f"a generator named {key!r} is already registered")
    for key in (info.name, *info.aliases):
        _REGISTRY[key] = info
    return info


def list_generators() -> list[GeneratorInfo]:
    """Registered generators, sorted by name (aliases not repeated)."""
    return sorted({id(i): i for i in _REGISTRY.values()}.values(), key=lambda i: i.name)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,...`` into the name and raw parameters.

    ``command:...`` keeps everything after the colon as ``cmd`` (quotes stripped) and
    ``python:module:Class`` keeps ``module:Class`` as ``target``.
    """
    spec = spec.strip()
    if not spec:
        raise InputError(
            "empty generator spec: give one such as 'baynet:k=2' (see synthleak generators)"
        )
    name, _, rest = spec.partition(":")
    name = name.strip().lower()
    if name == "command":
        cmd = rest.strip()
        if len(cmd) >= 2 and cmd[0] == cmd[-1] and cmd[0] in "\"'":
            cmd = cmd[1:-1]
        return name, {"cmd": cmd}
    if name == "python":
        return name, {"target": rest.strip()}
    params: dict[str, str] = {}
    if rest.strip():
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                raise InputError(
                    f"generator spec {spec!r}: {part!r} is not key=value (example: privbayes:epsilon=1,k=2)"
                )
            params[key.strip().lower().replace("-", "_")] = value.strip()
    return name, params


def make_generator(spec: str) -> Any:
    """An unfitted generator from a spec string (see module docstring)."""
    name, raw = parse_spec(spec)
    info = _REGISTRY.get(name)
    if info is None:
        known = ", ".join(i.name for i in list_generators())
        raise InputError(f"unknown generator {name!r}: choose one of {known}")
    known_params = {p.name: p for p in info.params}
    unknown = sorted(set(raw) - set(known_params))
    if unknown:
        allowed = ", ".join(known_params) or "none"
        raise InputError(
            f"generator {name!r} has no parameter(s) {unknown}: its parameters are {allowed}"
        )
    kwargs = {p.name: p.default for p in info.params}
    kwargs.update({k: known_params[k].parse(v, name) for k, v in raw.items()})
    gen = info.factory(**kwargs)
    gen.name = info.name
    gen.spec = spec.strip()
    return gen
