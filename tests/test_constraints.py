from __future__ import annotations

import math
from abc import abstractmethod
from importlib.util import find_spec
from typing import Any

import numpy as np
import pytest

from synthleak.attacks.base import make_attack
from synthleak.constraints import (
    Constrained,
    InstanceOf,
    Interval,
    Options,
    SequenceOf,
    check_params,
    constraints,
)
from synthleak.errors import InputError
from synthleak.generators import make_generator
from synthleak.modes import InferenceModel


@pytest.mark.parametrize(
    ("constraint", "good", "bad", "text"),
    [
        (
            Interval(int, 1, None),
            [1, 2.0, np.int64(7)],
            [0, 1.5, True, math.nan],
            "an integer >= 1",
        ),
        (
            Interval(float, 0, 1, "left"),
            [0, 0.5, np.float32(0.9)],
            [1, -0.1, "0.5"],
            "a number in [0, 1)",
        ),
        (Interval(float, 0, None, "neither"), [1e-9, math.inf], [0, -1, math.nan], "a number > 0"),
        (Interval(float, None, 1, "neither"), [-math.inf, 0.99], [1, 2], "a number < 1"),
        (Options(InferenceModel), ["rf", InferenceModel.RF], ["forest", None], "one of rf"),
        (InstanceOf(bool), [True, False], [1, "yes"], "True or False"),
        (
            SequenceOf(Interval(float, 0, None)),
            [(), (0, 0.5), [1.0]],
            [(-0.1,), (0, "1"), 0.5, "0.5", None],
            "a list of items, each a number >= 0",
        ),
        (SequenceOf(InstanceOf(str), 1), [("a",)], [()], "a list of 1 or more items"),
    ],
)
def test_constraints_accept_and_describe(constraint: Any, good: list, bad: list, text: str) -> None:
    assert all(constraint.accepts(v) for v in good)
    assert not any(constraint.accepts(v) for v in bad)
    assert constraint.describe().startswith(text)


class _Obj:
    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)


def test_check_params_names_the_parameter_and_allows_alternatives() -> None:
    declared = constraints(k=Interval(int, 1, None), patience=(Interval(int, 1, None), None))
    check_params(_Obj(k=3, patience=None), declared)
    with pytest.raises(
        InputError, match=r"^patience=0 is invalid: patience must be an integer >= 1 or None$"
    ) as info:
        check_params(_Obj(k=3, patience=0), declared)
    assert info.value.parameter == "patience"
    with pytest.raises(TypeError):
        declared["k"] = None  # type: ignore[index]


class _Base(Constrained):
    _parameter_constraints = constraints(k=Interval(int, 1, None))

    def __init__(self, k: int = 1, scale: float = 1.0) -> None:
        self.k, self.scale = k, scale
        self.calls = 0

    @abstractmethod
    def fit(self) -> Any: ...


class _Child(_Base):
    _parameter_constraints = constraints(
        _Base._parameter_constraints, scale=Interval(float, 0, None, "neither")
    )

    def fit(self) -> Any:
        self.calls += 1
        return self


def test_fit_checks_the_declared_parameters_first_and_only_then_runs() -> None:
    assert _Child(k=2, scale=0.5).fit().calls == 1
    for kw, name in (({"k": 0}, "k"), ({"scale": 0.0}, "scale")):
        child = _Child(**kw)
        with pytest.raises(InputError) as info:
            child.fit()
        assert info.value.parameter == name and child.calls == 0
    assert getattr(_Base.fit, "__isabstractmethod__", False)  # abstract fits are not wrapped


@pytest.mark.parametrize(
    ("family", "name", "params", "parameter"),
    [
        ("attribute", "dcr", {"block": 0}, "block"),
        ("attribute", "infer", {"model": "forest"}, "model"),
        ("attribute", "infer", {"max_train": 0}, "max_train"),
        (
            "linkability",
            "nearest-neighbour",
            {"aux_a": ["a"], "aux_b": ["b"], "n_neighbors": 1.5},
            "n_neighbors",
        ),
        pytest.param(
            "membership",
            "attention",
            {"dropout": 1.0},
            "dropout",
            marks=pytest.mark.skipif(find_spec("torch") is None, reason="needs the torch extra"),
        ),
        ("singling-out", "contrastive", {"outlier_fraction": 0}, "outlier_fraction"),
        ("membership", "lira", {"radii": (0.0, -1.0)}, "radii"),
        ("membership", "meta", {"radii": (-0.1,)}, "radii"),
    ],
)
def test_attacks_reject_a_bad_hyperparameter_by_name(
    family: str, name: str, params: dict[str, Any], parameter: str
) -> None:
    attack = make_attack(family, name, **params)
    with pytest.raises(InputError, match=f"^{parameter}=") as info:
        attack.fit(None, None, None, rng=np.random.default_rng(0))  # type: ignore[attr-defined]
    assert info.value.parameter == parameter


@pytest.mark.parametrize(
    ("spec", "parameter"),
    [
        ("baynet:k=0", "k"),
        ("baynet:bins=0", "bins"),
        ("privbayes:epsilon=0", "epsilon"),
        ("privbayes:beta=1", "beta"),
        ("mutant-privbayes:epsilon=-1", "epsilon"),
    ],
)
def test_generators_reject_a_bad_parameter_by_name(spec: str, parameter: str) -> None:
    """When made from the spec, the message names the generator, then the parameter."""
    name = spec.partition(":")[0]
    with pytest.raises(InputError, match=f"^generator '{name}': {parameter}=") as info:
        make_generator(spec)
    assert info.value.parameter == parameter


def test_allows_reads_one_constraint_or_alternatives_and_n_jobs() -> None:
    from synthleak.constraints import N_JOBS, allows

    assert allows(Interval(int, 1, None), 3) and not allows(Interval(int, 1, None), 0)
    assert allows((Interval(int, 1, None), None), None)
    assert [allows(N_JOBS, v) for v in (1, 4, -1, 0, -2, 1.5)] == [True] * 3 + [False] * 3
