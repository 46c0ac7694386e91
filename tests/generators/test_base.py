"""The generator registry, spec strings and :class:`BaseGenerator` (generators/base.py)."""

from __future__ import annotations

import pytest

from synthleak.constraints import Interval, constraints
from synthleak.errors import InputError, NotFittedError
from synthleak.generators import (
    BaseGenerator,
    Generator,
    GeneratorInfo,
    Param,
    claimed_delta,
    claimed_epsilon,
    list_generators,
    make_generator,
    parse_spec,
    register_generator,
)
from synthleak.generators import base as base_mod
from synthleak.generators.base import parameter_docs, params_of, split_spec
from synthleak.generators.rap import Relaxation
from synthleak.generators.simple import IndHist

#: Specs and what parse_spec reads in them.
SPECS = [
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
    (
        "python:pkg.mod:Class,epochs=2,Flag=false",
        "python",
        {"target": "pkg.mod:Class", "epochs": "2", "flag": "false"},
    ),
    (
        'command:"p {input} {output}",timeout=5,claimed_epsilon=1',
        "command",
        {"cmd": "p {input} {output}", "timeout": "5", "claimed_epsilon": "1"},
    ),
    ("sdv:gaussiancopula", "sdv:gaussiancopula", {}),
    ("SDV:CTGAN:epochs=2,batch-size=100", "sdv:ctgan", {"epochs": "2", "batch_size": "100"}),
    ("sdv:ctgan,epochs=2", "sdv:ctgan", {"epochs": "2"}),
    (
        "leaky:fraction=0.1,base=baynet:k=2,bins=10",
        "leaky",
        {"fraction": "0.1", "base": "baynet:k=2,bins=10"},
    ),
    (
        "leaky:base=python:m:C,x=1",
        "leaky",
        {"base": "python:m:C,x=1"},
    ),
]


@pytest.mark.parametrize(("spec", "name", "params"), SPECS)
def test_parse_spec(spec: str, name: str, params: dict[str, str]) -> None:
    assert parse_spec(spec) == (name, params)


@pytest.mark.parametrize(("spec", "name", "params"), SPECS)
def test_split_spec_gives_the_parts_parse_spec_reads(
    spec: str, name: str, params: dict[str, str]
) -> None:
    head, joiner, rest = split_spec(spec)
    assert parse_spec(head + (joiner + rest if rest else "")) == (name, params)
    assert parse_spec(head) == (name, {k: v for k, v in params.items() if k in ("cmd", "target")})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty generator spec"),
        ("indhist:bins", "is not key=value"),
        ("indhist:=3", "is not key=value"),
        ("sdv:", "names no sdv model"),
        ('command:"p {input} {output}" x', "after the quoted command line"),
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


class _Claims:
    def __init__(self, epsilon: object, delta: object = "absent") -> None:
        self.claimed_epsilon = epsilon
        if delta != "absent":
            self.claimed_delta = delta


@pytest.mark.parametrize(
    ("obj", "epsilon", "delta"),
    [
        (object(), None, None),  # no attribute: no claim
        (_Claims(None), None, None),
        (_Claims(float("inf"), 0.1), None, None),  # inf claims nothing
        (_Claims(2), 2.0, 0.0),  # no delta attribute: pure DP
        (_Claims(2, 1e-5), 2.0, 1e-5),
        (_Claims(2, None), 2.0, None),  # delta not known yet
        (_Claims(lambda: 3.0, lambda: 1e-6), 3.0, 1e-6),  # methods work too
    ],
)
def test_claimed_epsilon_and_delta(obj: object, epsilon: object, delta: object) -> None:
    assert claimed_epsilon(obj) == epsilon
    assert claimed_delta(obj) == delta


def test_dp_generators_claim_their_parameters() -> None:
    assert claimed_epsilon(make_generator("privbayes:epsilon=0.5")) == 0.5
    assert claimed_delta(make_generator("privbayes:epsilon=0.5")) == 0.0
    assert claimed_epsilon(make_generator("privbayes:epsilon=inf")) is None
    assert claimed_epsilon(make_generator("baynet")) is None
    assert claimed_epsilon(make_generator("rap-softmax:epsilon=3,delta=1e-7")) == 3.0
    assert claimed_delta(make_generator("rap-softmax:epsilon=3,delta=1e-7")) == 1e-7
    assert claimed_delta(make_generator("rap-softmax:epsilon=3")) is None  # 1/n^2 after fit
    assert claimed_epsilon(make_generator("rap")) is None
    assert claimed_epsilon(make_generator("indhist")) is None


def test_domain_note_names_where_a_dp_domain_comes_from() -> None:
    """A claim says nothing of a domain read from the records: by the schema inferred from the
    private data, or by the library itself (synthcity's DP plugins, whatever the schema)."""
    from synthleak.generators.base import domain_note
    from synthleak.generators.env import DpmmGenerator, SmartNoiseGenerator, SynthcityGenerator

    class Claims:
        claimed_epsilon = 1.0

    class Learns(Claims):
        domain_from_records = "it reads the categories from the records"

    assert domain_note(Claims(), "g", inferred=False) is None  # a public schema keeps the claim
    inferred = domain_note(Claims(), "g", inferred=True)
    assert inferred is not None and "read from the private data" in inferred
    assert "--schema" in inferred and "shadow-model game" not in inferred
    own = domain_note(Learns(), "g", inferred=False, game=True)
    assert own is not None and "it reads the categories from the records, outside" in own
    assert "No schema prevents it" in own and "shadow-model game does not measure" in own
    assert domain_note(object(), "g", inferred=True) is None  # no claim, nothing to say
    assert SynthcityGenerator.domain_from_records  # the adapters hand the others the schema's
    assert not hasattr(DpmmGenerator, "domain_from_records")
    assert not hasattr(SmartNoiseGenerator, "domain_from_records")


class Knobs(BaseGenerator):
    """A generator whose spec parameters are derived from its signature and docstring.

    Parameters
    ----------
    k : int, default 2
        degree of the model.
        A second line that the registry does not show.
    mode : {"a", "b"}, default "a"
        how to go on.
    rate, scale : float
        a shared line.
    table : list of str, optional
        an API-only list.

    Notes
    -----
    rate : this is not a parameter
    """

    _parameter_constraints = constraints(k=Interval(int, 1, None))

    def __init__(
        self,
        k: int = 2,
        mode: Relaxation | str = Relaxation.CLIP,
        rate: float | None = None,
        scale: float = 1.0,
        table: list[str] | None = None,
        **extra: str,
    ) -> None:
        super().__init__()
        self.k, self.mode, self.rate, self.scale, self.table = k, mode, rate, scale, table


def test_params_are_derived_from_the_signature_and_the_docstring() -> None:
    assert parameter_docs(Knobs) == {
        "k": "degree of the model",
        "mode": "how to go on",
        "rate": "a shared line",
        "scale": "a shared line",
        "table": "an API-only list",
    }
    params = params_of(Knobs, exclude=("table",))
    assert params == (
        Param("k", int, 2, "degree of the model"),
        Param("mode", Relaxation, Relaxation.CLIP, "how to go on"),
        Param("rate", float, None, "a shared line"),
        Param("scale", float, 1.0, "a shared line"),
    )
    assert params_of(Knobs, doc={"k": "k", "mode": "m", "rate": "r", "scale": "s", "table": "t"})[
        0
    ] == Param("k", int, 2, "k")
    with pytest.raises(TypeError, match="'table' needs a default and a doc"):
        params_of(Knobs, doc={"k": "k", "mode": "m", "rate": "r", "scale": "s"})


def test_a_spec_value_outside_the_constraints_fails_when_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(base_mod, "_REGISTRY", dict(base_mod._REGISTRY))
    register_generator(GeneratorInfo("knobs", Knobs, params_of(Knobs, exclude=("table",))))
    assert make_generator("knobs:k=3").k == 3
    with pytest.raises(InputError, match=r"generator 'knobs': k=0 is invalid: k must be an"):
        make_generator("knobs:k=0")


# parameters of registered classes that a spec string cannot give (a list of columns; the
# free keyword arguments of python: and env:, which make_generator gathers into options)
_API_ONLY = {"synthpop": ("visit_sequence",), "python": ("options",), "env": ("options",)}


@pytest.mark.parametrize(
    "info",
    [
        i
        for i in list_generators()
        if isinstance(i.factory, type) and i.factory.__module__.startswith("synthleak.")
    ],
    ids=lambda i: i.name,
)
def test_a_class_registry_entry_is_its_signature(info: GeneratorInfo) -> None:
    """No registered class restates its signature: every Param is derived (the family
    adapters, whose factories take ``**kwargs``, keep their explicit tables)."""
    assert info.params == params_of(info.factory, exclude=_API_ONLY.get(info.name, ()))
