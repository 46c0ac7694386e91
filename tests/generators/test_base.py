"""The generator registry, spec strings and :class:`BaseGenerator` (generators/base.py)."""

from __future__ import annotations

import pytest

from synthleak.errors import InputError, NotFittedError
from synthleak.generators import (
    BaseGenerator,
    Generator,
    GeneratorInfo,
    Param,
    list_generators,
    make_generator,
    parse_spec,
    register_generator,
)
from synthleak.generators import base as base_mod
from synthleak.generators.simple import IndHist


@pytest.mark.parametrize(
    ("spec", "name", "params"),
    [
        ("indhist", "indhist", {}),
        ("  IndHist:bins=5 ", "indhist", {"bins": "5"}),
        ("privbayes:epsilon=1, k=2", "privbayes", {"epsilon": "1", "k": "2"}),
        ("rap-softmax:epsilon=10", "rap-softmax", {"epsilon": "10"}),
        ("ctgan:batch-size=100", "ctgan", {"batch_size": "100"}),
        (
            'command:"Rscript s.R {input} {output} {n}"',
            "command",
            {"cmd": "Rscript s.R {input} {output} {n}"},
        ),
        ("command:'a,b=c {input}'", "command", {"cmd": "a,b=c {input}"}),
        ("python:pkg.mod:Class", "python", {"target": "pkg.mod:Class"}),
    ],
)
def test_parse_spec(spec: str, name: str, params: dict[str, str]) -> None:
    assert parse_spec(spec) == (name, params)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty generator spec"),
        ("indhist:bins", "is not key=value"),
        ("indhist:=3", "is not key=value"),
    ],
)
def test_parse_spec_errors(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_spec(spec)


def test_make_generator_sets_name_spec_and_params() -> None:
    gen = make_generator("indhist:bins=7")
    assert isinstance(gen, IndHist) and isinstance(gen, Generator)
    assert gen.bins == 7 and gen.name == "indhist" and gen.spec == "indhist:bins=7"
    assert make_generator("indhist").bins == 20  # default
    assert repr(gen) == "IndHist('indhist:bins=7')"


def test_unknown_generator_and_parameter() -> None:
    with pytest.raises(InputError, match=r"unknown generator 'nope': choose one of .*indhist"):
        make_generator("nope")
    with pytest.raises(
        InputError, match=r"has no parameter\(s\) \['depth'\]: its parameters are bins"
    ):
        make_generator("indhist:depth=3")
    with pytest.raises(InputError, match="its parameters are none"):
        make_generator("nonprivate:k=1")


@pytest.mark.parametrize(
    ("ptype", "raw", "value"),
    [
        (int, "3", 3),
        (float, "0.5", 0.5),
        (float, "1e-9", 1e-9),
        (bool, "yes", True),
        (bool, "0", False),
        (str, "x", "x"),
    ],
)
def test_param_parse(ptype: type, raw: str, value: object) -> None:
    assert Param("p", ptype, None).parse(raw, "g") == value


@pytest.mark.parametrize(
    ("ptype", "raw"), [(int, "2.5"), (float, "nan"), (float, "abc"), (bool, "maybe")]
)
def test_param_parse_errors(ptype: type, raw: str) -> None:
    with pytest.raises(InputError, match=f"parameter p={raw!r} is not a valid {ptype.__name__}"):
        Param("p", ptype, None).parse(raw, "g")


def test_duplicate_registration_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base_mod, "_REGISTRY", dict(base_mod._REGISTRY))
    with pytest.raises(ValueError, match="'indhist' is already registered"):
        register_generator(GeneratorInfo("indhist", IndHist))
    with pytest.raises(ValueError, match="'nonprivate' is already registered"):
        register_generator(GeneratorInfo("fresh", IndHist, aliases=("nonprivate",)))
    assert "fresh" not in base_mod._REGISTRY  # nothing half-registered


def test_aliases_listed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base_mod, "_REGISTRY", dict(base_mod._REGISTRY))
    info = register_generator(
        GeneratorInfo("zz-test", IndHist, (Param("bins", int, 3),), "t", aliases=("zz-alias",))
    )
    names = [i.name for i in list_generators()]
    assert names.count("zz-test") == 1 and "zz-alias" not in names
    assert names == sorted(names)
    gen = make_generator("zz-alias")
    assert gen.name == "zz-test" and gen.bins == 3 and info.aliases == ("zz-alias",)


def test_base_generator_checks() -> None:
    gen = BaseGenerator()
    with pytest.raises(NotFittedError, match="not fitted"):
        gen._check_fitted()
    for bad in (-1, 2.5):
        with pytest.raises(InputError, match="give a number >= 0"):
            BaseGenerator._check_n(bad)  # type: ignore[arg-type]
    BaseGenerator._check_n(0)
    gen.schema_ = object()
    gen._check_fitted()
