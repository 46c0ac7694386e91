"""Relational parts for the person-level games' oracles: one population of persons (a root row
and a few child rows each), split at random into the original, the control (the audit's real
size ratio, four original persons per control person) and other people (the null oracle's
release), and a release replaying the original's histories under new keys (the copy oracle)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthleak.data.relational import RelationalData, RelationalSchema

SCHEMA = RelationalSchema.build(
    {"person": "pid", "visit": "vid"},
    [("visit", "pid", "person")],
    categorical={"person": ["sex", "region"], "visit": ["kind"]},
)


def population(n: int, rng: np.random.Generator, first_key: int = 0) -> RelationalData:
    """Persons with an age, a sex, an income, a region and one to a dozen visits (an amount, a
    kind), whose region follows their visits (so a person's history says something about
    them)."""
    pid = np.arange(first_key, first_key + n)
    n_visits = rng.poisson(3, n) + 1
    owner = np.repeat(pid, n_visits)
    m = len(owner)
    kind = rng.choice(list("xyz"), m)
    visit = pd.DataFrame(
        {
            "vid": np.arange(m) + 10 * first_key,
            "pid": owner,
            "amount": np.round(rng.lognormal(3, 1, m), 1),
            "kind": kind,
        }
    )
    share_x = pd.Series(kind == "x").groupby(owner).mean().reindex(pid).to_numpy()
    region = np.where(rng.random(n) < 0.7, np.where(share_x > 0.34, "a", "b"), "c")
    person = pd.DataFrame(
        {
            "pid": pid,
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["f", "m"], n),
            "income": np.round(rng.lognormal(10, 0.5, n), 2),
            "region": region,
        }
    )
    return RelationalData(SCHEMA, {"person": person, "visit": visit})


def subset(data: RelationalData, keys: np.ndarray) -> RelationalData:
    person, visit = data.frames["person"], data.frames["visit"]
    return RelationalData(
        data.schema,
        {
            "person": person[person["pid"].isin(keys)].reset_index(drop=True),
            "visit": visit[visit["pid"].isin(keys)].reset_index(drop=True),
        },
    )


def replay(data: RelationalData, first_key: int) -> RelationalData:
    """The same persons' histories under new keys (a generator that copied them)."""
    person = data.frames["person"].copy()
    new = dict(zip(person["pid"], np.arange(first_key, first_key + len(person)), strict=True))
    person["pid"] = person["pid"].map(new)
    visit = data.frames["visit"].copy()
    visit["pid"] = visit["pid"].map(new)
    visit["vid"] = np.arange(len(visit)) + 10 * first_key
    return RelationalData(data.schema, {"person": person, "visit": visit})


def parts(seed: int, n_control: int = 100) -> tuple[RelationalData, RelationalData, RelationalData]:
    """Original (4 x ``n_control`` persons), control (``n_control``) and other people (as many
    as the original): one population split at random."""
    rng = np.random.default_rng(seed)
    n_orig = 4 * n_control
    n = 2 * n_orig + n_control
    everyone = population(n, rng)
    keys = rng.permutation(n)
    original = subset(everyone, keys[:n_orig])
    control = subset(everyone, keys[n_orig : n_orig + n_control])
    others = subset(everyone, keys[n_orig + n_control :])
    return original, control, replay(others, 10**6)
