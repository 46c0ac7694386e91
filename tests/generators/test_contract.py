"""The generator contract (``synthleak.testing.check_generator``) on every registered generator.

New generators are picked up from :func:`list_generators` automatically and run through the same
public check a user runs on their own generator; the registry entries are checked here too. Slow
ones run with tiny settings (``SPECS``); generators whose optional extra is missing are skipped
with the reason; generators that need an argument (``command``, ``python``, ``env``) get a small
test program / class (``env`` runs its class in a second environment made here with
``venv --without-pip``). A generator may declare ``deterministic = False`` to opt out of the
same-seed check.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from synthleak.data.table import Table
from synthleak.errors import MissingExtraError
from synthleak.generators import (
    claimed_delta,
    claimed_epsilon,
    list_generators,
    make_generator,
)
from synthleak.testing import check_generator, contract_table

# tiny settings for the slow generators; every other generator runs with its defaults
SPECS = {
    "ctgan": "ctgan:epochs=1,batch_size=50,pac=5",
    "sdv:ctgan": "sdv:ctgan:epochs=1,batch_size=50,pac=5",
    "sdv:copulagan": "sdv:copulagan:epochs=1,batch_size=50,pac=5",
    "sdv:tvae": "sdv:tvae:epochs=1,batch_size=50",
    "realtabformer": (
        "realtabformer:epochs=1,n_critic=0,n_layer=1,n_embd=16,n_head=2,gen_batch=256,threads=1"
    ),
    "leaky": "leaky:fraction=0.2,base=baynet:k=1",
    "mutant-privbayes": "mutant-privbayes:epsilon=1,k=1",
    "mst": "mst:epsilon=5,iters=100",
    "rap": "rap:iterations=50,rounds=2",
    "rap-softmax": "rap-softmax:iterations=50,rounds=2",
    # DP libraries in their own environments (skipped unless synthleak env create made them)
    "dpmm:mst": "dpmm:mst:n_iters=50",
    "dpmm:aim": "dpmm:aim:n_iters=50",
    "dpmm:privbayes": "dpmm:privbayes:n_iters=50",
    "smartnoise:patectgan": "smartnoise:patectgan:epochs=1,batch_size=50",
    "smartnoise:dpctgan": "smartnoise:dpctgan:epochs=1,batch_size=50",
    "synthcity:ddpm": "synthcity:ddpm:n_iter=3,num_timesteps=10",
    "synthcity:arf": "synthcity:arf:num_trees=5,max_iters=1",
    "synthcity:nflow": "synthcity:nflow:n_iter=3",
    "synthcity:pategan": "synthcity:pategan:n_iter=1",
    "synthcity:dpgan": "synthcity:dpgan:n_iter=3",
    "synthcity:aim": "synthcity:aim:epsilon=5",
}

# the "external program" of the command generator: resample rows of {input} with {seed}
PROGRAM = textwrap.dedent(
    """
    import csv, random, sys
    inp, out, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(inp, newline="") as fh:
        rows = list(csv.reader(fh))
    rnd = random.Random(seed)
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(rows[0])
        w.writerows(rows[1 + rnd.randrange(len(rows) - 1)] for _ in range(n))
    """
)
USER_CLASS = textwrap.dedent(
    """
    class Resampler:
        def fit(self, table, *, rng):
            self.table = table
            return self
        def sample(self, n, *, rng):
            return self.table.take(rng.integers(0, len(self.table), n))
    """
)
# the class of the env: generator, run by the worker in a second environment (stdlib only)
ENV_CLASS = textwrap.dedent(
    """
    import random
    class Resampler:
        synthleak_format = "records"
        def fit(self, data, *, seed):
            self.rows = data
        def sample(self, n, *, seed):
            rnd = random.Random(seed)
            return [rnd.choice(self.rows) for _ in range(n)]
    """
)

# the package's own generators; test modules elsewhere register throw-away ones (deliberately
# flaky oracles) in the same process, which this suite must not hold to the contract
INFOS = {
    info.name: info
    for info in list_generators()
    if getattr(info.factory, "__module__", "").startswith("synthleak.")
}
NAMES = sorted(INFOS)


@pytest.fixture(scope="module")
def helpers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("contract")
    (root / "contract_prog.py").write_text(PROGRAM)
    (root / "contract_user_gen.py").write_text(USER_CLASS)
    (root / "contract_env_gen.py").write_text(ENV_CLASS)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    sys.path.insert(0, str(root))
    prog = f"{shlex.quote(sys.executable)} {shlex.quote(str(root / 'contract_prog.py'))}"
    yield {
        "command": f'command:"{prog} {{input}} {{output}} {{n}} {{seed}}"',
        "python": "python:contract_user_gen:Resampler",
        "env": f"env:{root / 'venv'}:{root / 'contract_env_gen.py'}:Resampler",
    }
    sys.path.remove(str(root))
    sys.modules.pop("contract_user_gen", None)


def spec_for(name: str, helpers: dict[str, str]) -> str:
    return helpers.get(name) or SPECS.get(name, name)


def make(name: str, helpers: dict[str, str]) -> Any:
    try:
        return make_generator(spec_for(name, helpers))
    except MissingExtraError as exc:
        pytest.skip(f"{name}: optional extra {exc.extra!r} is not installed")


@pytest.fixture(scope="module")
def train() -> Table:
    """The contract's training table (mixed kinds, missing values)."""
    return contract_table()


def test_registry_covers_the_builtins() -> None:
    assert {"nonprivate", "indhist", "command", "python", "ctgan", "mst"} <= set(NAMES)
    assert {"sdv:gaussiancopula", "sdv:ctgan", "sdv:tvae", "sdv:copulagan"} <= set(NAMES)
    assert {"realtabformer", "leaky", "mutant-privbayes"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_privacy_claim_matches_the_registry(name: str, helpers: dict[str, str]) -> None:
    """A generator registered as DP claims an epsilon; one that is not claims none (by default)."""
    gen = make(name, helpers)
    eps, delta = claimed_epsilon(gen), claimed_delta(gen)
    if INFOS[name].differentially_private:
        assert eps is not None and eps > 0, f"{name} is registered as DP but claims no epsilon"
        assert delta is None or 0.0 <= delta < 1.0
    elif name != "leaky":  # leaky repeats its base's claim
        assert eps is None and delta is None, f"{name} claims epsilon={eps} but is not DP"


@pytest.mark.parametrize("name", NAMES)
def test_registry_entry_is_consistent(name: str) -> None:
    info = INFOS[name]
    assert info.doc, f"{name} has no description"
    names = [p.name for p in info.params]
    assert len(names) == len(set(names))
    for p in info.params:
        assert (
            p.default is None
            or isinstance(p.default, p.type)
            or (p.type is float and isinstance(p.default, int))
        ), f"{name}.{p.name}: default {p.default!r} is not a {p.type.__name__}"


@pytest.mark.parametrize("name", NAMES)
def test_check_generator(name: str, helpers: dict[str, str]) -> None:
    gen = make(name, helpers)
    assert gen.name == name
    check_generator(gen)


def test_check_generator_takes_a_spec(helpers: dict[str, str]) -> None:
    check_generator(helpers["python"])


# --- fidelity sanity of the two reference generators -----------------------------------------
def test_nonprivate_releases_training_records(train: Table, helpers: dict[str, str]) -> None:
    gen = make("nonprivate", helpers).fit(train, rng=np.random.default_rng(0))
    out = gen.sample(3 * len(train), rng=np.random.default_rng(0))
    assert set(out.row_keys().tolist()) <= set(train.row_keys().tolist())
    # 1 - (1 - 1/n)^(3n) ~ 0.95 of the records are released; allow margin
    assert len(set(out.row_keys().tolist())) / len(set(train.row_keys().tolist())) > 0.85


def test_indhist_keeps_marginals_and_breaks_correlations(
    train: Table, helpers: dict[str, str]
) -> None:
    gen = make("indhist", helpers).fit(train, rng=np.random.default_rng(0))
    out = gen.sample(6000, rng=np.random.default_rng(0))
    for j, col in enumerate(train.schema.categorical):
        p = np.bincount(train.codes[:, j], minlength=col.size) / len(train)
        q = np.bincount(out.codes[:, j], minlength=col.size) / len(out)
        assert 0.5 * np.abs(p - q).sum() < 0.05, col.name
    miss_train = np.isnan(train.column("height")).mean()
    assert abs(np.isnan(out.column("height")).mean() - miss_train) < 0.03
    # training: colour == red implies size == S; independent sampling breaks that
    red = train.schema["colour"].categories.index("red")
    s = train.schema["size"].categories.index("S")
    is_red = out.column("colour") == red
    assert np.mean(train.column("size")[train.column("colour") == red] == s) == 1.0
    assert np.mean(out.column("size")[is_red] == s) < 0.7
