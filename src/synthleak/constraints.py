"""Declarative parameter constraints, checked once (after scikit-learn's
``_parameter_constraints``).

An attack or generator declares what each hyperparameter may be, next to its class::

    class MyAttack(NoBoxMembershipAttack):
        _parameter_constraints = constraints(
            k=Interval(int, 1, None),
            metric=Options(("euclidean", "gower")),
            patience=(Interval(int, 1, None), None),  # None allows None
        )

and :class:`Constrained` checks every declared parameter when ``fit`` starts (every ``fit`` a
subclass defines is wrapped once, when the class is created), so no ``fit`` hand-writes the
checks. A bad value raises :class:`~synthleak.errors.InputError` naming the parameter:
``k=0 is invalid: k must be an integer >= 1``.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from synthleak.errors import InputError


@dataclass(frozen=True)
class Interval:
    """A number of ``kind`` (``int`` or ``float``) between ``low`` and ``high`` (``None``:
    unbounded; ``closed`` says which ends belong). ``int`` accepts integral floats (``2.0``),
    ``float`` any real number; neither accepts ``bool`` or NaN."""

    kind: type
    low: float | None = None
    high: float | None = None
    closed: Literal["both", "left", "right", "neither"] = "both"

    def __post_init__(self) -> None:
        if self.kind not in (int, float):
            raise TypeError(f"Interval kind must be int or float, got {self.kind!r}")

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False
        v = float(value)
        if math.isnan(v) or (self.kind is int and not (math.isfinite(v) and v.is_integer())):
            return False
        if self.low is not None and (
            v < self.low or (v == self.low and self.closed in ("right", "neither"))
        ):
            return False
        return self.high is None or not (
            v > self.high or (v == self.high and self.closed in ("left", "neither"))
        )

    def describe(self) -> str:
        what = "an integer" if self.kind is int else "a number"
        low_in = self.closed in ("both", "left")
        high_in = self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            left, right = "[" if low_in else "(", "]" if high_in else ")"
            return f"{what} in {left}{self.low:g}, {self.high:g}{right}"
        if self.low is not None:
            return f"{what} {'>=' if low_in else '>'} {self.low:g}"
        if self.high is not None:
            return f"{what} {'<=' if high_in else '<'} {self.high:g}"
        return what


@dataclass(frozen=True)
class Options:
    """One of ``values`` (strings, or the values of an :class:`~enum.Enum`)."""

    values: tuple[Any, ...]

    def __init__(self, values: Iterable[Any] | type[Enum]) -> None:
        if isinstance(values, type) and issubclass(values, Enum):
            values = [m.value for m in values]
        object.__setattr__(self, "values", tuple(values))

    def accepts(self, value: Any) -> bool:
        value = value.value if isinstance(value, Enum) else value
        return any(value == v for v in self.values)

    def describe(self) -> str:
        return "one of " + ", ".join(str(v) for v in self.values)


@dataclass(frozen=True)
class InstanceOf:
    """An instance of ``kind`` (``bool``: ``True`` or ``False``; ``str``: text)."""

    kind: type

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.kind)

    def describe(self) -> str:
        return "True or False" if self.kind is bool else f"a {self.kind.__name__}"


@dataclass(frozen=True)
class SequenceOf:
    """A list or tuple (``min_len`` items or more) whose every item ``item`` accepts."""

    item: Interval | Options | InstanceOf
    min_len: int = 0

    def accepts(self, value: Any) -> bool:
        return (
            isinstance(value, (list, tuple))
            and len(value) >= self.min_len
            and all(self.item.accepts(v) for v in value)
        )

    def describe(self) -> str:
        least = f"{self.min_len} or more " if self.min_len else ""
        return f"a list of {least}items, each {self.item.describe()}"


Constraint = Interval | Options | InstanceOf | SequenceOf | None
"""One allowed form of a parameter; ``None`` allows the value ``None``."""


Constraints = Mapping[str, Constraint | tuple[Constraint, ...]]
"""Parameter name to its constraint, or a tuple of alternatives."""

N_JOBS: tuple[Constraint, ...] = (Interval(int, 1, None), Options((-1,)))
"""A joblib/scikit-learn ``n_jobs``: a count of workers, or ``-1`` for every core."""


def constraints(
    *inherited: Constraints, **declared: Constraint | tuple[Constraint, ...]
) -> Constraints:
    """A read-only mapping of parameter constraints: those ``inherited`` (a parent class's
    ``_parameter_constraints``), then those ``declared`` (which win)."""
    out: dict[str, Constraint | tuple[Constraint, ...]] = {}
    for parent in inherited:
        out.update(parent)
    out.update(declared)
    return MappingProxyType(out)


def _accepts(c: Constraint, value: Any) -> bool:
    return value is None if c is None else c.accepts(value)


def allows(allowed: Constraint | tuple[Constraint, ...], value: Any) -> bool:
    """Whether ``value`` meets ``allowed`` (one constraint, or any of a tuple of alternatives)."""
    forms = allowed if isinstance(allowed, tuple) else (allowed,)
    return any(_accepts(c, value) for c in forms)


def _describe(c: Constraint) -> str:
    return "None" if c is None else c.describe()


def check_params(obj: Any, constraints: Mapping[str, Constraint | tuple[Constraint, ...]]) -> None:
    """Raise :class:`InputError` naming the first attribute of ``obj`` that none of its
    constraints accept."""
    for name, allowed in constraints.items():
        forms = allowed if isinstance(allowed, tuple) else (allowed,)
        value = getattr(obj, name)
        if not any(_accepts(c, value) for c in forms):
            desc = " or ".join(_describe(c) for c in forms)
            raise InputError(f"{name}={value!r} is invalid: {name} must be {desc}", parameter=name)


def _validating(fit: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fit)
    def fit_checked(self: Constrained, *args: Any, **kwargs: Any) -> Any:
        check_params(self, type(self)._parameter_constraints)
        self._check_parameter_rules()
        return fit(self, *args, **kwargs)

    fit_checked._checks_params = True  # type: ignore[attr-defined]
    return fit_checked


class Constrained:
    """Base of classes with declared parameter constraints, checked when ``fit`` starts.

    A subclass declares ``_parameter_constraints`` (parameter name to a constraint or a tuple of
    alternatives), built with :func:`constraints`; a parent's constraints apply to a subclass
    that passes them on (``constraints(Parent._parameter_constraints, k=...)``).

    Every constructor parameter is declared, once: the public contract checks
    (:mod:`synthleak.testing`) fail a class whose declared keys differ from its ``__init__``
    parameters. A parameter no constraint can state (a free ``options`` mapping handed to a
    user's class) is named in ``_unconstrained_parameters`` with the reason instead. A rule
    across parameters (ctgan's ``batch_size`` a multiple of ``pac``) is one explicit check in
    :meth:`_check_parameter_rules`, run right after the declared constraints.
    """

    _parameter_constraints: ClassVar[Constraints] = MappingProxyType({})
    _unconstrained_parameters: ClassVar[Mapping[str, str]] = MappingProxyType({})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if (
            callable(fit)
            and not getattr(fit, "__isabstractmethod__", False)
            and not getattr(fit, "_checks_params", False)
        ):
            setattr(cls, "fit", _validating(fit))  # noqa: B010

    def _check_parameter_rules(self) -> None:
        """Rules across parameters, checked after each parameter's own constraints (when
        ``fit`` starts, and when a generator is made from a spec); none by default."""
