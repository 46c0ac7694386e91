"""What a failed contract check raises (:class:`ContractError`, naming the clause), and the two
parameter clauses that attacks and generators share (after scikit-learn's common checks): the
declared constraints name exactly the constructor's parameters, and an invalid value of each
declared parameter raises :class:`~synthleak.errors.InputError` naming it."""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from synthleak.constraints import (
    Constraint,
    InstanceOf,
    Interval,
    Options,
    SequenceOf,
    allows,
)
from synthleak.errors import InputError, MissingExtraError, SynthleakError

PARAMETER_CLAUSES = (
    "constraints declare every parameter",
    "an invalid value raises InputError",
)
"""The parameter clauses :func:`check_parameters` checks, in order."""


class ContractError(AssertionError, SynthleakError):
    """An attack or generator breaks a clause of its contract.

    An :class:`AssertionError` (so a test runner reports it as a failed check) whose message
    names the object, the clause and what was observed.

    Attributes
    ----------
    subject : str
        The object checked (its class name or spec).
    clause : str
        The clause it breaks, e.g. ``"fit returns self"``.
    detail : str
        What the check observed.
    """

    def __init__(self, subject: str, clause: str, detail: str) -> None:
        self.subject, self.clause, self.detail = subject, clause, detail
        super().__init__(f"{subject} breaks the contract clause {clause!r}: {detail}")

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        return type(self), (self.subject, self.clause, self.detail)


@contextmanager
def clause(subject: str, name: str) -> Iterator[None]:
    """Run one clause's checks: a failed ``assert`` or an unexpected exception inside becomes a
    :class:`ContractError` naming ``name`` (a missing optional extra is not a breach: its
    :class:`~synthleak.errors.MissingExtraError` passes through)."""
    try:
        yield
    except (ContractError, MissingExtraError):
        raise
    except AssertionError as exc:
        raise ContractError(subject, name, str(exc) or "an assertion failed") from exc
    except Exception as exc:
        raise ContractError(subject, name, f"raised {type(exc).__name__}: {exc}") from exc


def constructor_parameters(cls: type) -> tuple[str, ...]:
    """The named parameters of ``cls.__init__`` (not ``self``, ``*args`` or ``**kwargs``)."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):  # no signature to read (a builtin ``__init__``)
        return ()
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(n for n, p in sig.parameters.items() if p.kind in named)


def _misses(c: Constraint) -> list[Any]:
    """Values just outside the one constraint ``c`` (nearest first)."""
    if isinstance(c, Interval):
        step = 1 if c.kind is int else 0.5
        out: list[Any] = []
        if c.low is not None:
            out.append(c.low if c.closed in ("right", "neither") else c.low - step)
        if c.high is not None:
            out.append(c.high if c.closed in ("left", "neither") else c.high + step)
        if c.kind is int:
            low = 0 if c.low is None else c.low
            out.append(float(math.floor(low) + 1.5))
        return [*out, "not-a-number"]
    if isinstance(c, Options):
        return ["not-one-of-the-options"]
    if isinstance(c, InstanceOf):
        return [1.5 if c.kind is not float else "text", "text"]
    if isinstance(c, SequenceOf):
        return [*([[m] for m in _misses(c.item)]), "not-a-list"]
    return []


def invalid_value(allowed: Constraint | tuple[Constraint, ...]) -> Any:
    """A value that ``allowed`` (one constraint or a tuple of alternatives) rejects: just out of
    an :class:`~synthleak.constraints.Interval`, a non-member of
    :class:`~synthleak.constraints.Options`, else a value of the wrong type."""
    forms = allowed if isinstance(allowed, tuple) else (allowed,)
    for form in forms:
        for value in _misses(form):
            if not allows(allowed, value):
                return value
    for value in ("not-a-valid-value", 1.5, -1, [object()]):
        if not allows(allowed, value):
            return value
    raise ValueError(f"no value is outside {allowed!r}")


def check_parameters(obj: Any, who: str, fit: Callable[[Any], Any]) -> None:
    """The two parameter clauses (:data:`PARAMETER_CLAUSES`) on ``obj``, an unfitted attack or
    generator; ``fit(fresh)`` fits an object of ``obj``'s class made with one invalid value.

    ``type(obj)._parameter_constraints`` must name each ``__init__`` parameter once, or
    ``_unconstrained_parameters`` names it with a reason; then, for each declared parameter, the
    class is made again with ``obj``'s parameters (read from its attributes of the same names)
    but an :func:`invalid_value` of that one, and making or fitting it must raise
    :class:`~synthleak.errors.InputError` naming the parameter.
    """
    cls = type(obj)
    declared: Mapping[str, Any] = getattr(cls, "_parameter_constraints", {}) or {}
    free: Mapping[str, str] = getattr(cls, "_unconstrained_parameters", {}) or {}
    params = constructor_parameters(cls)
    with clause(who, PARAMETER_CLAUSES[0]):
        missing = [p for p in params if p not in declared and p not in free]
        assert not missing, (
            f"no constraint declared for parameter(s) {missing} of __init__: declare each in "
            "_parameter_constraints (synthleak.constraints)"
        )
        extra = [k for k in (*declared, *free) if k not in params]
        assert not extra, f"constraints declared for {extra}, which __init__ does not take"
        both = sorted(set(declared) & set(free))
        assert not both, f"{both} are both declared and listed as unconstrained"
        reasonless = [k for k, why in free.items() if not (isinstance(why, str) and why.strip())]
        assert not reasonless, f"unconstrained parameter(s) {reasonless} give no reason"
    with clause(who, PARAMETER_CLAUSES[1]):
        absent = [p for p in params if not hasattr(obj, p)]
        assert not absent, (
            f"__init__ stores no attribute for parameter(s) {absent}: keep each as given"
        )
        kwargs = {p: getattr(obj, p) for p in params}
        for name, allowed in declared.items():
            bad = invalid_value(allowed)
            try:
                fit(cls(**{**kwargs, name: bad}))
            except MissingExtraError:
                raise
            except InputError as exc:
                named = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", str(exc))
                assert exc.parameter == name or named, (
                    f"{name}={bad!r} raised an InputError that does not name {name}: {exc}"
                )
            else:
                raise AssertionError(f"{name}={bad!r} was accepted: fit raised nothing")
