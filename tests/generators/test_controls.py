"""Positive controls: ``leaky`` copies training records in; ``mutant-privbayes`` claims a DP it
lacks.
"""

from __future__ import annotations

import numpy as np
import pytest

import synthleak as sl
from synthleak.errors import InputError
from synthleak.generators import claimed_delta, claimed_epsilon, make_generator
from synthleak.generators.controls import Leaky, MutantPrivBayes

from .helpers import check_output


def _in_training(out: sl.Table, train: sl.Table) -> np.ndarray:
    return np.isin(out.row_keys(), train.row_keys())


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.35, 1.0])
def test_leaky_copies_exactly_the_fraction(adult_1000: sl.Table, fraction: float) -> None:
    gen = make_generator(f"leaky:fraction={fraction},base=indhist")
    assert isinstance(gen, Leaky) and gen.fraction == fraction and gen.base == "indhist"
    gen.fit(adult_1000, rng=np.random.default_rng(0))
    out = gen.sample(400, rng=np.random.default_rng(1))
    check_output(out, adult_1000.schema, 400)
    k = round(fraction * 400)
    assert len(gen.positions_) == k == len(set(gen.positions_.tolist()))
    # the copied positions hold exactly the drawn training records
    assert out.take(gen.positions_).equals(adult_1000.take(gen.leaked_))
    # indhist on 15 Adult columns almost never reproduces a whole training record by chance
    others = np.setdiff1d(np.arange(400), gen.positions_)
    if len(others):
        assert _in_training(out.take(others), adult_1000).mean() < 0.02


def test_leaky_base_takes_the_rest_of_the_spec() -> None:
    gen = make_generator("leaky:fraction=0.05,base=baynet:k=1,bins=7")
    assert gen.base == "baynet:k=1,bins=7"
    assert gen.base_generator.k == 1 and gen.base_generator.bins == 7
    with pytest.raises(InputError, match=r"fraction=1\.5 is invalid: fraction must be a number in"):
        make_generator("leaky:fraction=1.5")
    with pytest.raises(InputError, match="unknown generator 'nosuch'"):
        make_generator("leaky:base=nosuch")


def test_leaky_repeats_its_base_claim() -> None:
    assert claimed_epsilon(make_generator("leaky")) is None
    gen = make_generator("leaky:fraction=0.1,base=privbayes:epsilon=0.5")
    assert claimed_epsilon(gen) == 0.5 and claimed_delta(gen) == 0.0


def test_leaky_more_draws_than_training_records(adult_1000: sl.Table) -> None:
    small = adult_1000.take(np.arange(5))
    gen = make_generator("leaky:fraction=1").fit(small, rng=np.random.default_rng(0))
    out = gen.sample(50, rng=np.random.default_rng(0))
    assert _in_training(out, small).all()


def test_mutant_privbayes_is_baynet_claiming_epsilon(adult_1000: sl.Table) -> None:
    mutant = make_generator("mutant-privbayes:epsilon=1,k=2")
    assert isinstance(mutant, MutantPrivBayes)
    assert claimed_epsilon(mutant) == 1.0 and claimed_delta(mutant) == 0.0
    out = mutant.fit(adult_1000, rng=np.random.default_rng(3)).sample(
        300, rng=np.random.default_rng(4)
    )
    assert mutant.epsilon == 1.0  # the claim survives fitting
    ref = make_generator("baynet:k=2").fit(adult_1000, rng=np.random.default_rng(3))
    assert out.equals(ref.sample(300, rng=np.random.default_rng(4)))
    # the honest PrivBayes at the same epsilon adds noise: a different release
    honest = make_generator("privbayes:epsilon=1,k=2").fit(adult_1000, rng=np.random.default_rng(3))
    assert not honest.sample(300, rng=np.random.default_rng(4)).equals(out)


def test_mutant_registry_entry_says_it_is_broken() -> None:
    info = {i.name: i for i in sl.list_generators()}["mutant-privbayes"]
    assert "BROKEN" in info.doc and info.differentially_private
    with pytest.raises(InputError, match=r"epsilon=0\.0 is invalid"):
        make_generator("mutant-privbayes:epsilon=0").fit(
            sl.Table.from_frame(
                sl.datasets.load_adult().head(50),
                sl.infer_schema(sl.datasets.load_adult().head(50)),
            ),
            rng=np.random.default_rng(0),
        )
