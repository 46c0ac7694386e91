"""Attribute inference of persons from their child rows (:mod:`synthleak.games.person_attribute`):
the null and copy oracles at the audit's size ratio (four original persons per control person)."""

from __future__ import annotations

import numpy as np
import pytest
from tests.games.person_parts import parts, replay

from synthleak.data.relational import RelationalData, person_views
from synthleak.data.release import Release
from synthleak.errors import InputError
from synthleak.games.person_attribute import PersonAttributeResult, play_person_attribute

SEEDS = range(3)


def play(original: RelationalData, synthetic: RelationalData, control: RelationalData, seed: int):
    v = person_views({"original": original, "synthetic": synthetic, "control": control})
    release = Release(v["original"], v["synthetic"], v["control"])
    keys = v["original"].index.to_numpy()
    return play_person_attribute(
        release, keys, root="person", child_tables=["visit"], secret="region", seed=seed
    )


def test_null_oracle_a_release_of_other_people_reveals_nothing_beyond_the_control() -> None:
    diffs = []
    for seed in SEEDS:
        original, control, others = parts(seed)
        r = play(original, others, control, seed)
        d = r.game.advantage
        assert d.ci_low <= 0.0 <= d.ci_high, seed
        diffs.append(d.value)
        assert all(c.startswith("visit.") for c in r.known) and r.secret == "region"
    assert abs(float(np.mean(diffs))) < 0.08


@pytest.mark.parametrize("seed", SEEDS)
def test_copy_oracle_replayed_histories_reveal_the_attribute_by_root_key(seed: int) -> None:
    original, control, _ = parts(seed)
    r = play(original, replay(original, 10**7), control, seed)
    d = r.game.advantage
    assert d.ci_low > 0.25 and r.game.accuracy.value > 0.95
    keys = set(original.frames["person"]["pid"])
    assert r.inferred and set(r.inferred) <= keys and r.n_inferred >= len(r.inferred)


def test_round_trip_and_bad_arguments() -> None:
    original, control, others = parts(1, n_control=50)
    r = play(original, others, control, 0)
    assert PersonAttributeResult.from_json(r.to_json()).same_as(r)
    v = person_views({"original": original, "synthetic": others, "control": control})
    release = Release(v["original"], v["synthetic"], v["control"])
    keys = v["original"].index.to_numpy()
    kw = {"root": "person", "child_tables": ["visit"], "seed": 0}
    with pytest.raises(InputError, match="not a column of table 'person'"):
        play_person_attribute(release, keys, secret="visit.n_rows", **kw)
    with pytest.raises(InputError, match="one key per row"):
        play_person_attribute(release, keys[1:], secret="region", **kw)
    with pytest.raises(InputError, match="give known"):
        play_person_attribute(
            release, keys, root="person", child_tables=["other"], secret="region", seed=0
        )
