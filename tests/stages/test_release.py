"""The ``release`` stage of the audit (:mod:`synthleak.stages.release`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from tests.stages.audit_helpers import TINY

from synthleak.pipeline import audit


def test_a_dp_generator_given_a_domain_read_from_the_data_is_noted(split) -> None:
    """The generator's epsilon claim does not cover a domain read from the private data, and
    the shadow-model game cannot see it: the audit says so when it inferred the schema."""
    train = split[0].take(np.arange(400))
    frame = train.to_frame()
    plan = replace(TINY, mia_targets=0, mia_controls=0, aia_games=0)
    inferred = audit(frame, generator="privbayes:epsilon=1", plan=plan, seed=0)
    (note,) = [n for n in inferred.notes if "the domain it was given" in n]
    assert "claims epsilon = 1" in note and "shadow-model game does not measure" in note
    given = audit(frame, generator="privbayes:epsilon=1", plan=plan, seed=0, schema=train.schema)
    assert not [n for n in given.notes if "the domain it was given" in n]
