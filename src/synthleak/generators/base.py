"""The :class:`Generator` protocol, the registry and spec strings.

One spec syntax for every generator: ``NAME`` or ``NAME:key=value,key=value,...``.

* ``NAME`` is a registered name (``baynet``, ``privbayes``, ``rap-softmax``, ...). Adapters over
  a family of third-party models have a namespaced name, ``FAMILY:MODEL``, and their parameters
  follow a second colon: ``sdv:gaussiancopula``, ``sdv:ctgan:epochs=2,batch_size=100``.
* ``python:``, ``env:`` and ``command:`` start with a target, then the same ``,key=value``
  list: ``python:pkg.module:Class,epochs=2`` (keyword arguments for the class or factory),
  ``env:ENV:pkg.module:Class,epochs=2`` (the class run in the Python environment ``ENV``, a name
  or a path without ``:``) and ``command:"Rscript s.R {input} {output} {n}",timeout=120``.
* A parameter that is itself a spec comes last and takes the rest of the string:
  ``leaky:fraction=0.1,base=baynet:k=2,bins=10`` (``bins`` belongs to ``baynet``).

Keys are case-insensitive and ``-`` equals ``_`` (``batch-size=100``). :func:`make_generator`
parses a spec into an unfitted generator; :func:`list_generators` lists what is registered with
each parameter and its default.

Claimed privacy
---------------
A generator that claims differential privacy says so with ``claimed_epsilon`` (and
``claimed_delta``, ``0.0`` for pure DP), attributes or properties that are ``None`` for a
generator that claims nothing (:class:`BaseGenerator`'s default). :func:`claimed_epsilon` reads
them from any object. The claim is what the generator *promises*, read from its parameters; an
audit tests it (a claim is not evidence of privacy: see the ``mutant-privbayes`` generator).
"""

from __future__ import annotations

import inspect
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, runtime_checkable

import numpy as np

from synthleak.constraints import Constrained, check_params
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


class BaseGenerator(Constrained):
    """Convenience base: stores the spec and the training schema, checks fitted state.

    :meth:`sample` is a template: it checks that the generator is fitted and that ``n`` is a
    count, then calls :meth:`_sample` with ``n`` as an ``int``; a generator implements
    ``_sample`` (``fit`` sets ``schema_``, which marks it fitted). Hyperparameter constraints
    declared in ``_parameter_constraints`` are checked when ``fit`` starts
    (:class:`synthleak.constraints.Constrained`).

    ``claimed_epsilon`` and ``claimed_delta`` are ``None``: the generator claims no differential
    privacy. DP generators override them (module docstring, "Claimed privacy").
    """

    name: str = ""
    spec: str = ""
    claimed_epsilon: float | None = None
    claimed_delta: float | None = None

    def __init__(self) -> None:
        self.schema_: Any = None

    def _check_fitted(self) -> None:
        if getattr(self, "schema_", None) is None:
            raise NotFittedError(
                f"generator {self.spec or type(self).__name__} is not fitted: "
                "call fit(table, rng=...) first"
            )

    @staticmethod
    def _check_n(n: int) -> None:
        if int(n) != n or n < 0:
            raise InputError(f"cannot sample {n} records: give a number >= 0")

    def sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """``n`` synthetic records with the training table's schema.

        Raises :class:`~synthleak.errors.NotFittedError` before ``fit`` and
        :class:`~synthleak.errors.InputError` when ``n`` is not a count >= 0; the records come
        from :meth:`_sample`.
        """
        self._check_fitted()
        self._check_n(n)
        return self._sample(int(n), rng=rng)

    def _sample(self, n: int, *, rng: np.random.Generator) -> Table:
        """The generator's own sampling, given a fitted generator and an ``int`` ``n >= 0``."""
        raise NotImplementedError(f"{type(self).__name__} implements neither sample nor _sample")

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


_SCALARS = (bool, int, float, str)


def _param_type(annotation: Any, default: Any) -> type:
    """The spec type of a parameter: its annotation's enum or scalar (``X | None`` reads as
    ``X``; an enum wins over ``str`` in ``Enum | str``), else the default's type."""
    args = typing.get_args(annotation) if isinstance(annotation, types.UnionType) else ()
    options = [a for a in args if a is not type(None)] or [annotation]
    for a in options:
        if isinstance(a, type) and issubclass(a, Enum):
            return a
    for a in options:
        if a in _SCALARS:
            return typing.cast(type, a)
    return type(default) if default is not None else str


_PARAM_LINE = re.compile(r"^(\s*)([A-Za-z_][\w, ]*?)\s*:\s*\S")


def parameter_docs(obj: Any) -> dict[str, str]:
    """Each parameter's one-line documentation, read from the numpydoc ``Parameters`` section
    of ``obj``'s docstring: the first line of its description, without a final full stop
    (``a, b : float`` documents both)."""
    lines = inspect.cleandoc(obj.__doc__ or "").splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Parameters") + 2
    except StopIteration:
        return {}
    docs: dict[str, str] = {}
    names: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            names = []
            continue
        if not line.startswith(" "):
            if line.strip().startswith("---"):  # the next section's underline: stop
                break
            head = _PARAM_LINE.match(line)
            names = [n.strip() for n in head.group(2).split(",")] if head else []
            continue
        for name in names:
            docs.setdefault(name, line.strip().removesuffix("."))
        names = []
    return docs


def params_of(
    factory: Callable[..., Any],
    *,
    doc: Mapping[str, str] | None = None,
    exclude: tuple[str, ...] = (),
) -> tuple[Param, ...]:
    """The :class:`Param` list of ``factory`` (a class or a function), derived, not restated.

    Names, order and defaults come from its signature (``*args``, ``**kwargs`` and the names in
    ``exclude`` are left out: parameters a spec string cannot give), each type from the
    annotation (:func:`_param_type`), each one-line doc from ``doc`` when given, else from the
    ``Parameters`` section of the factory's docstring (:func:`parameter_docs`). A parameter
    without a default or without its doc raises ``TypeError`` (a registration bug).
    """
    target = factory.__init__ if isinstance(factory, type) else factory  # type: ignore[misc]
    docs = dict(doc) if doc is not None else parameter_docs(factory)
    hints = typing.get_type_hints(target)
    out = []
    for name, p in inspect.signature(factory).parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or name in exclude:
            continue
        if p.default is p.empty or name not in docs:
            raise TypeError(f"{factory.__qualname__}: parameter {name!r} needs a default and a doc")
        out.append(Param(name, _param_type(hints.get(name), p.default), p.default, docs[name]))
    return tuple(out)


def domain_note(generator: Any, spec: str, *, inferred: bool, game: bool = False) -> str | None:
    """What a release of ``generator`` (named ``spec``) leaks outside its epsilon claim through
    its domain (every column's categories and range), or ``None``: when the generator learns
    its domain from the training records itself (a ``domain_from_records`` attribute saying
    how), or when the domain it was given was read from the private data (``inferred``). No
    note for a generator that claims no differential privacy. With ``game``, also that a
    shadow-model game does not measure it (every dataset it draws has that domain)."""
    eps = claimed_epsilon(generator)
    own = getattr(generator, "domain_from_records", None)
    if eps is None or not (own or inferred):
        return None
    unseen = (
        " The shadow-model game does not measure this: every dataset it draws has that domain."
        if game
        else ""
    )
    claim = f"'{spec}' claims epsilon = {eps:g}, but"
    leak = "a category only one training record holds can reach the release."
    if own:
        return f"{claim} {own}, outside that claim: {leak}{unseen} No schema prevents it"
    return (
        f"{claim} the domain it was given (every column's categories and range) was read from "
        f"the private data, outside that claim: {leak}{unseen} Give a schema written without "
        "looking at the records (--schema; 'synthleak schema DATA --out FILE' writes one to "
        "edit) to keep the claim"
    )


def claimed_epsilon(generator: Any) -> float | None:
    """The epsilon that ``generator`` claims, ``None`` when it claims no differential privacy.

    Reads the ``claimed_epsilon`` attribute, property or no-argument method of any object (a
    generator without it claims nothing). ``inf`` counts as no claim.
    """
    return _claim(generator, "claimed_epsilon")


def claimed_delta(generator: Any) -> float | None:
    """The delta that ``generator`` claims with its epsilon, ``0.0`` for pure DP.

    ``None`` when no epsilon is claimed, or when the delta is not known yet (``rap-softmax``'s
    default ``1/n^2`` is known once fitted). An object that claims an epsilon and has no
    ``claimed_delta`` attribute claims pure DP.
    """
    if claimed_epsilon(generator) is None:
        return None
    if not hasattr(generator, "claimed_delta"):
        return 0.0
    return _claim(generator, "claimed_delta")


def _claim(generator: Any, attribute: str) -> float | None:
    value = getattr(generator, attribute, None)
    if callable(value):
        value = value()
    if value is None:
        return None
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return None
    return value


@dataclass(frozen=True)
class GeneratorInfo:
    """Registry entry.

    ``free_params``: the factory also takes keyword arguments that are not declared in
    ``params``; :func:`make_generator` passes them as raw strings in one ``options`` dict
    (``python:`` forwards them to the user's class).
    """

    name: str
    factory: Callable[..., Any]
    params: tuple[Param, ...] = ()
    doc: str = ""
    extra: str | None = None
    differentially_private: bool = False
    aliases: tuple[str, ...] = field(default=())
    free_params: bool = False


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


#: Families of namespaced generators: ``sdv:ctgan`` is one registered name.
NAMESPACES = ("sdv", "dpmm", "smartnoise", "synthcity")
#: Parameters that are themselves specs: the value takes the rest of the spec string.
SPEC_PARAMS = ("base",)


def _split_params(spec: str, rest: str) -> dict[str, str]:
    params: dict[str, str] = {}
    while rest.strip():
        part, comma, tail = rest.partition(",")
        key, eq, value = part.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not eq or not key:
            raise InputError(
                f"generator spec {spec!r}: {part.strip()!r} is not key=value "
                "(example: privbayes:epsilon=1,k=2)"
            )
        if key in SPEC_PARAMS:
            params[key] = (value + comma + tail).strip()
            break
        params[key] = value.strip()
        rest = tail
    return params


def _quoted(text: str) -> tuple[str, str] | None:
    """``("inside", "after")`` when ``text`` starts with a quoted string, else ``None``."""
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"'":
        end = text.find(text[0], 1)
        if end > 0:
            return text[1:end], text[end + 1 :]
    return None


def split_spec(spec: str) -> tuple[str, str, str]:
    """``(head, joiner, params)``: the part of a spec that names the generator (with a
    namespace's model, ``python:``'s target, ``command:``'s command line), the character that
    joins parameters to it (``":"`` or ``","``), and the ``key=value,...`` text after it:
    ``head + joiner + params`` is the same spec. The one reading of a spec's grammar, which
    :func:`parse_spec` interprets and a grid of parameters
    (``synthleak.comparison.expand_grid``) spans."""
    spec = spec.strip()
    name, colon, rest = spec.partition(":")
    low = name.strip().lower()
    if not colon:
        return spec, ":", ""
    if low in NAMESPACES:
        member, sep, tail = rest.partition(":")
        if "," in member:  # sdv:ctgan,epochs=2 -> the parameters start at the comma
            member, _, more = member.partition(",")
            tail = more + (sep + tail if sep else "")
        return f"{name}:{member.strip()}", ":", tail
    if low == "command":
        quoted = _quoted(rest)
        if quoted is None:  # the whole rest is the command line
            return spec, ",", ""
        after = quoted[1].strip()
        if after and not after.startswith(","):
            raise InputError(
                f"generator spec {spec!r}: after the quoted command line put ,key=value "
                '(example: command:"prog {input} {output} {n}",timeout=60)'
            )
        return spec[: len(spec) - len(after)].strip(), ",", after[1:]
    if low in ("python", "env"):
        head, _, tail = rest.partition(",")
        return f"{name}:{head.strip()}", ",", tail
    return name.strip(), ":", rest


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split a spec string (module docstring) into the generator name and raw parameters.

    ``command:...`` puts the (unquoted) command line in ``cmd`` and ``python:module:Class`` the
    target in ``target``; parameters that follow them come after a comma
    (:func:`split_spec` reads the grammar).
    """
    spec = spec.strip()
    if not spec:
        raise InputError(
            "empty generator spec: give one such as 'baynet:k=2' (see synthleak generators)"
        )
    head, _, tail = split_spec(spec)
    name, _, rest = head.partition(":")
    name = name.strip().lower()
    if name in NAMESPACES and not rest.strip():
        raise InputError(
            f"generator spec {spec!r} names no {name} model: write it as {name}:MODEL "
            f"(e.g. sdv:gaussiancopula; see synthleak generators)"
        )
    params = _split_params(spec, tail)
    if name in NAMESPACES:
        return f"{name}:{rest.strip().lower()}", params
    if name == "command":
        quoted = _quoted(rest)
        return name, {"cmd": rest.strip() if quoted is None else quoted[0], **params}
    if name == "python":
        return name, {"target": rest.strip(), **params}
    if name == "env":
        python, _, target = rest.partition(":")
        return name, {"python": python.strip(), "target": target.strip(), **params}
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
    if unknown and not info.free_params:
        allowed = ", ".join(known_params) or "none"
        raise InputError(
            f"generator {name!r} has no parameter(s) {unknown}: its parameters are {allowed}"
        )
    kwargs: dict[str, Any] = {p.name: p.default for p in info.params}
    kwargs.update({k: known_params[k].parse(v, name) for k, v in raw.items() if k in known_params})
    if info.free_params:
        kwargs["options"] = {k: raw[k] for k in unknown}
    gen = info.factory(**kwargs)
    declared = getattr(type(gen), "_parameter_constraints", None)
    if declared:  # a bad value fails here, with the spec, not when fit starts
        try:
            check_params(gen, declared)
            gen._check_parameter_rules()
        except InputError as exc:
            raise InputError(f"generator {name!r}: {exc}", parameter=exc.parameter) from None
    gen.name = info.name
    gen.spec = spec.strip()
    return gen
