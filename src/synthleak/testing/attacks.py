"""``check_attack``: the attack contract of each family, run on any attack object.

The project runs it on every registered attack (``tests/attacks/test_contract.py``); run it on
your own attack before a long audit. Each family has an adapter here: how to fit an attack of the
family on a release that copies its data and on a release of other people, what its output looks
like, and its signal (AUC, accuracy, risk). The data are the bundled Adult records.

* ``membership``: 80 shadow and 80 test datasets of 60 records; "copy": the IN datasets hold two
  copies of an isolated target record. Signal: AUC over the test datasets.
* ``nobox-membership``: 300 members and 300 non-members, 600 reference records; "copy": the
  release is the members. Signal: AUC.
* ``attribute``: 400 training records whose 100 targets (unique quasi-identifiers) had their
  secret (``income``) randomised (Annamalai et al. 2024, Sec. 4.1); "copy": the release repeats
  them. Signal: accuracy of the top class on the targets.
* ``singling-out``: 100 predicates; "copy": the release is the 1,000 original records. Signal:
  share singling out one original record minus one control record (equal sizes).
* ``linkability``: 200 original and 200 control targets; "copy": the release is the 800
  original records. Signal: difference of the two link rates. The attack must be built with
  ``aux_a=LINKABILITY_AUX[0], aux_b=LINKABILITY_AUX[1]`` (Adult columns).

"independent": the release is other real records of the same population.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from synthleak.attacks.base import FAMILY_BASE, Attack, AttackFamily, fit_membership
from synthleak.attacks.predicates import PredicateSet, unique_rows
from synthleak.data.datasets import load_adult
from synthleak.data.profile import infer_schema
from synthleak.data.table import Table
from synthleak.errors import InputError, NotFittedError
from synthleak.games.secret import attribute_codes, singleton_rows
from synthleak.metrics.privacy import auc
from synthleak.queries import TableStack
from synthleak.testing.contract import PARAMETER_CLAUSES, ContractError, check_parameters, clause
from synthleak.vulnerability import vulnerability_scores

ATTACK_CLAUSES = (
    "is an attack of a family",
    *PARAMETER_CLAUSES,
    "__init__ stores hyperparameters only",
    "use before fit raises NotFittedError",
    "fit returns self",
    "output has the family's type and shape",
    "same rng, same output",
    "a copy gives a strong signal",
    "independent data gives the baseline",
)
"""The clauses :func:`check_attack` checks, in order."""

LINKABILITY_AUX = (
    ("age", "workclass", "fnlwgt", "education"),
    ("fnlwgt", "hours-per-week", "occupation", "race"),
)
"""The two halves of the linkability contract's targets (Adult columns; both hold the
near-unique ``fnlwgt``, so a copy links them)."""


@dataclass(frozen=True)
class FamilyAdapter:
    """How to exercise the attacks of one family.

    ``fit(attack, case, rng)`` fits on the data of ``case`` (``"copy"`` or ``"independent"``) and
    returns what ``fit`` returned; ``output(attack, case, rng)`` is the fitted attack's output;
    ``check_output(output, case)`` asserts its type and shape; ``same(a, b)`` compares two
    outputs; ``signal(output, case)`` is the family's strength of attack. On a copy the signal
    must reach ``copy_at_least`` (an attack weak on copies by design: exceed
    ``independent_at_most``), on independent data stay at most ``independent_at_most``.
    """

    family: AttackFamily
    fit: Callable[[Attack, str, np.random.Generator], Any]
    output: Callable[[Attack, str, np.random.Generator], Any]
    check_output: Callable[[Any, str], None]
    same: Callable[[Any, Any], bool]
    signal: Callable[[Any, str], float]
    copy_at_least: float
    independent_at_most: float


@cache
def _adult(n: int) -> Table:
    df = load_adult().iloc[:n]
    return Table.from_frame(df, infer_schema(df))


# --- membership (black box): shadow datasets with the target planted -------------------------
_MIA_SHADOW, _MIA_TEST, _MIA_M = 80, 80, 60


@cache
def _mia_data() -> tuple[Table, Table]:
    table = _adult(3000)
    # the record farthest from its nearest neighbour among the first 40: copies of it stand out
    scores = vulnerability_scores(table.take(np.arange(40)), k=1)
    i = int(np.argmax(scores))
    rest = table.take(np.setdiff1d(np.arange(len(table)), [i]))
    return table.take([i]), rest


@cache
def _mia_pools(case: str) -> tuple[TableStack, np.ndarray, TableStack, np.ndarray]:
    target, rest = _mia_data()
    rng = np.random.default_rng(0 if case == "copy" else 1)

    def pool(size: int) -> tuple[TableStack, np.ndarray]:
        labels = rng.permutation(np.arange(size) % 2)
        sets = []
        for y in labels:
            t = rest.sample(_MIA_M, rng=rng)
            if case == "copy" and y:
                t = Table.concat([t.take(np.arange(_MIA_M - 2)), target, target])
            sets.append(t)
        return TableStack.from_tables(sets), labels

    return (*pool(_MIA_SHADOW), *pool(_MIA_TEST))


def _mia_fit(attack: Attack, case: str, rng: np.random.Generator) -> Any:
    target, rest = _mia_data()
    shadow, y, _, _ = _mia_pools(case)
    # the population, and the known training records of an exact-knowledge attacker: the
    # records the datasets are drawn from, none of them the target
    return fit_membership(attack, target, shadow, y, rng=rng, population=rest, known=rest)  # type: ignore[arg-type]


def _mia_check(out: np.ndarray, case: str) -> None:
    assert out.shape == (_MIA_TEST,), f"score gave shape {out.shape}, not ({_MIA_TEST},)"
    assert np.isfinite(out).all(), "score gave non-finite values"


MEMBERSHIP = FamilyAdapter(
    family=AttackFamily.MEMBERSHIP,
    fit=_mia_fit,
    output=lambda attack, case, rng: np.asarray(attack.score(_mia_pools(case)[2])),  # type: ignore[attr-defined]
    check_output=_mia_check,
    same=lambda a, b: bool(np.array_equal(a, b)),
    signal=lambda out, case: auc(_mia_pools(case)[3], out),
    # 80 IN/OUT test datasets: an uninformed AUC has s.d. about 0.065
    copy_at_least=0.9,
    independent_at_most=0.5 + 3 * 0.065,
)


# --- no-box membership: a release, a reference sample, candidates ----------------------------
_NB = 300


@cache
def _nobox_data(case: str) -> tuple[Table, Table, Table, np.ndarray]:
    table = _adult(4000)
    perm = np.random.default_rng(0).permutation(len(table))
    members, non_members = table.take(perm[:_NB]), table.take(perm[_NB : 2 * _NB])
    reference = table.take(perm[2 * _NB : 4 * _NB])
    synthetic = members if case == "copy" else table.take(perm[4 * _NB : 6 * _NB])
    records = Table.concat([members, non_members])
    return synthetic, reference, records, np.r_[np.ones(_NB), np.zeros(_NB)]


def _nobox_fit(attack: Attack, case: str, rng: np.random.Generator) -> Any:
    synthetic, reference, _, _ = _nobox_data(case)
    return attack.fit(synthetic, reference, rng=rng)  # type: ignore[attr-defined]


def _nobox_check(out: np.ndarray, case: str) -> None:
    assert out.shape == (2 * _NB,), f"score gave shape {out.shape}, not ({2 * _NB},)"
    assert out.dtype == np.float64, f"score gave {out.dtype}, not float64"
    assert np.isfinite(out).all(), "score gave non-finite values"


NOBOX_MEMBERSHIP = FamilyAdapter(
    family=AttackFamily.NOBOX_MEMBERSHIP,
    fit=_nobox_fit,
    output=lambda attack, case, rng: np.asarray(attack.score(_nobox_data(case)[2])),  # type: ignore[attr-defined]
    check_output=_nobox_check,
    same=lambda a, b: bool(np.array_equal(a, b)),
    signal=lambda out, case: auc(_nobox_data(case)[3], out),
    # 300 members against 300 non-members: an uninformed AUC has s.d. about 0.024. On a copy the
    # weakest default attack (neighbourhood: a quarter of non-members also have a synthetic
    # record in its radius) reaches about 0.8, the others 0.95 and above.
    copy_at_least=0.75,
    independent_at_most=0.5 + 3 * 0.024,
)


# --- attribute inference: secrets randomised as in the game ----------------------------------
_AIA_TRAIN, _AIA_TARGETS, _AIA_OTHER = 400, 100, 3000
_AIA_QUASI_IDS = ["age", "workclass", "education", "marital-status", "occupation", "race", "sex"]


@cache
def _aia_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``X`` of D, the domain sizes, the target rows, their randomised secret, D' (codes)."""
    prep = attribute_codes(_adult(5000), "income", _AIA_QUASI_IDS, bins=10)
    D = prep.codes[:_AIA_TRAIN].copy()
    rng = np.random.default_rng(0)
    rows = np.flatnonzero(singleton_rows(D[:, :-1]))
    targets = np.sort(rng.choice(rows, _AIA_TARGETS, False))
    D[targets, -1] = rng.integers(0, prep.n_classes, _AIA_TARGETS)
    return (
        D[:, :-1],
        prep.sizes[:-1],
        targets,
        D[targets, -1],
        np.vstack([D, prep.codes[_AIA_TRAIN:]]),
    )


def _aia_release(case: str) -> np.ndarray:
    X, _, _, _, codes = _aia_data()
    if case == "copy":
        return np.tile(codes[: len(X)], (8, 1))
    return codes[len(X) : len(X) + _AIA_OTHER]


def _aia_fit(attack: Attack, case: str, rng: np.random.Generator) -> Any:
    X, sizes, _, _, _ = _aia_data()
    return attack.fit(X, sizes, rng=rng)  # type: ignore[attr-defined]


def _aia_output(attack: Attack, case: str, rng: np.random.Generator) -> np.ndarray:
    targets = _aia_data()[2]
    S = _aia_release(case)
    return np.asarray(attack.score(S[:, :-1], S[:, -1], targets, 2, rng=rng))  # type: ignore[attr-defined]


def _aia_check(out: np.ndarray, case: str) -> None:
    assert out.shape == (_AIA_TARGETS, 2), f"score gave shape {out.shape}, not ({_AIA_TARGETS}, 2)"
    assert np.isfinite(out).all(), "score gave non-finite values"


ATTRIBUTE = FamilyAdapter(
    family=AttackFamily.ATTRIBUTE,
    fit=_aia_fit,
    output=_aia_output,
    check_output=_aia_check,
    same=lambda a, b: bool(np.array_equal(a, b)),
    signal=lambda out, case: float(np.mean(out.argmax(axis=1) == _aia_data()[3])),
    # 100 randomised binary secrets: a guess has s.d. 0.05 around 0.5
    copy_at_least=0.85,
    independent_at_most=0.5 + 3 * 0.05,
)


# --- singling out: predicates learnt from a release ------------------------------------------
_SO_N = 100  # predicates asked for


@cache
def _so_tables() -> dict[str, Table]:
    t = _adult(3000)
    return {
        "original": t.take(np.arange(0, 1000)),
        "control": t.take(np.arange(1000, 2000)),
        "independent": t.take(np.arange(2000, 3000)),
    }


def _so_synthetic(case: str) -> Table:
    return _so_tables()["original" if case == "copy" else "independent"]


def _so_check(out: PredicateSet, case: str) -> None:
    assert isinstance(out, PredicateSet), f"predicates gave a {type(out).__name__}"
    assert 1 <= len(out) <= _SO_N, f"{len(out)} predicates for n={_SO_N}"
    assert len(out.first_unique()) == len(out), "the predicates are not distinct"
    assert np.all(out.n_atoms >= 1), "a predicate has no condition"
    counts = out.count(unique_rows(_so_synthetic(case)))
    assert np.all(counts == 1), "a predicate does not single out one synthetic record"


def _so_signal(out: PredicateSet, case: str) -> float:
    t = _so_tables()
    return float(np.mean(out.count(t["original"]) == 1) - np.mean(out.count(t["control"]) == 1))


SINGLING_OUT = FamilyAdapter(
    family=AttackFamily.SINGLING_OUT,
    fit=lambda attack, case, rng: attack.fit(_so_synthetic(case), rng=rng),  # type: ignore[attr-defined]
    output=lambda attack, case, rng: attack.predicates(_SO_N, rng=rng),  # type: ignore[attr-defined]
    check_output=_so_check,
    same=lambda a, b: len(a) == len(b) and bool(np.array_equal(a.keys(), b.keys())),
    signal=_so_signal,
    # a copy: every predicate singles out its original record, the control far less often;
    # independent data: a difference of two shares of 100 predicates, s.d. about 0.06
    copy_at_least=0.5,
    independent_at_most=0.2,
)


# --- linkability: link the two halves of targets through a release ---------------------------
_LINK_T = 200


@cache
def _link_tables() -> dict[str, Table]:
    t = _adult(2400)
    return {
        "original": t.take(np.arange(0, 800)),
        "control": t.take(np.arange(800, 1600)),
        "independent": t.take(np.arange(1600, 2400)),
    }


def _link_fit(attack: Attack, case: str, rng: np.random.Generator) -> Any:
    t = _link_tables()
    return attack.fit(t["original" if case == "copy" else "independent"], rng=rng)  # type: ignore[attr-defined]


def _link_output(attack: Attack, case: str, rng: np.random.Generator) -> tuple[Any, Any]:
    t = _link_tables()
    first = np.arange(_LINK_T)
    return (
        np.asarray(attack.links(t["original"].take(first))),  # type: ignore[attr-defined]
        np.asarray(attack.links(t["control"].take(first))),  # type: ignore[attr-defined]
    )


def _link_check(out: tuple[np.ndarray, np.ndarray], case: str) -> None:
    for links in out:
        assert links.shape == (_LINK_T,), f"links gave shape {links.shape}, not ({_LINK_T},)"
        assert links.dtype == bool, f"links gave {links.dtype}, not bool"


LINKABILITY = FamilyAdapter(
    family=AttackFamily.LINKABILITY,
    fit=_link_fit,
    output=_link_output,
    check_output=_link_check,
    same=lambda a, b: all(np.array_equal(x, y) for x, y in zip(a, b, strict=True)),
    signal=lambda out, case: float(out[0].mean() - out[1].mean()),
    # a copy links nearly every original target; independent data: two link rates of 200
    # targets, their difference has s.d. below 0.05
    copy_at_least=0.5,
    independent_at_most=0.15,
)

ADAPTERS: dict[AttackFamily, FamilyAdapter] = {
    a.family: a for a in (MEMBERSHIP, NOBOX_MEMBERSHIP, ATTRIBUTE, SINGLING_OUT, LINKABILITY)
}
"""The contract adapter of every attack family."""


def check_attack(
    attack: Attack, *, oracles: bool = True, weak_on_copies: str | None = None
) -> None:
    """Check that ``attack`` keeps its family's contract; raise on the first broken clause.

    The same checks the project runs on every registered attack: the attack derives from its
    family's base class (:data:`synthleak.attacks.base.FAMILY_BASE`); its class declares a
    constraint for each constructor parameter and an invalid value of each makes construction or
    ``fit`` raise :class:`~synthleak.errors.InputError` naming it
    (:func:`synthleak.testing.contract.check_parameters`); ``__init__`` sets no fitted
    attribute (names ending in ``_``); using it before ``fit`` raises
    :class:`~synthleak.errors.NotFittedError`; ``fit`` returns the attack; the output has the
    family's type and shape; the same ``rng`` gives the same output; and two oracles: a release
    that copies the data gives a strong signal, a release of other real people the baseline
    (the module docstring gives each family's data and thresholds). The attack is copied for
    every fit; the object given is never fitted. Seconds for most attacks (four fits).

    Parameters
    ----------
    attack : Attack
        An unfitted attack, built with its hyperparameters (a linkability attack with
        :data:`LINKABILITY_AUX`).
    oracles : bool
        ``False`` checks the lifecycle only (no copy or independent-data oracle).
    weak_on_copies : str, optional
        Why the attack sees an exact copy only faintly by design; it must then beat the
        independent-data bound on a copy rather than the copy bound.

    Raises
    ------
    ContractError
        An :class:`AssertionError` naming the broken clause (:data:`ATTACK_CLAUSES`).
    """
    if weak_on_copies is not None and not isinstance(weak_on_copies, str):
        raise InputError("weak_on_copies is the reason, as a string: give one or leave it None")
    who = f"{type(attack).__name__} attack" + (
        f" {attack.name!r}" if getattr(attack, "name", "") else ""
    )
    with clause(who, "is an attack of a family"):
        family = getattr(attack, "family", None)
        assert family in FAMILY_BASE, (
            f"it has no attack family (family={family!r}): derive from one of "
            + ", ".join(b.__name__ for b in FAMILY_BASE.values())
        )
        base = FAMILY_BASE[AttackFamily(family)]
        assert isinstance(attack, base), f"a {family} attack must derive from {base.__name__}"
    adapter = ADAPTERS[AttackFamily(family)]
    check_parameters(attack, who, lambda a: adapter.fit(a, "copy", np.random.default_rng(0)))
    with clause(who, "__init__ stores hyperparameters only"):
        fitted = sorted(k for k, v in vars(attack).items() if k.endswith("_") and v is not None)
        assert not fitted, f"fitted attributes exist before fit: {fitted}"
    with clause(who, "use before fit raises NotFittedError"):
        try:
            adapter.output(copy.deepcopy(attack), "copy", np.random.default_rng(0))
        except NotFittedError:
            pass
        else:
            raise AssertionError("the unfitted attack returned an output")
    outs = []
    for _ in range(2):
        fresh = copy.deepcopy(attack)
        with clause(who, "fit returns self"):
            returned = adapter.fit(fresh, "copy", np.random.default_rng(7))
            assert returned is fresh, f"fit returned {type(returned).__name__}, not the attack"
        with clause(who, "output has the family's type and shape"):
            out = adapter.output(fresh, "copy", np.random.default_rng(8))
            adapter.check_output(out, "copy")
        outs.append(out)
    with clause(who, "same rng, same output"):
        assert adapter.same(outs[0], outs[1]), "two fits with the same rng gave different outputs"
    if not oracles:
        return
    for case in ("copy", "independent"):
        fresh = copy.deepcopy(attack)
        name = (
            "a copy gives a strong signal"
            if case == "copy"
            else ("independent data gives the baseline")
        )
        with clause(who, name):
            adapter.fit(fresh, case, np.random.default_rng(3))
            out = adapter.output(fresh, case, np.random.default_rng(4))
            adapter.check_output(out, case)
            value = adapter.signal(out, case)
            if case == "independent":
                bound = adapter.independent_at_most
                assert value <= bound, f"signal {value:.3f} on independent data, above {bound:.3f}"
            elif weak_on_copies:
                bound = adapter.independent_at_most
                assert value > bound, (
                    f"signal {value:.3f} on a copy, not above {bound:.3f} (weak on copies: "
                    f"{weak_on_copies})"
                )
            else:
                bound = adapter.copy_at_least
                assert value >= bound, f"signal {value:.3f} on a copy, below {bound:.3f}"


__all__ = [
    "ADAPTERS",
    "ATTACK_CLAUSES",
    "LINKABILITY_AUX",
    "ContractError",
    "FamilyAdapter",
    "check_attack",
]
