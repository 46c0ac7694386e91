"""Finding keys and the harm class of each (:mod:`synthleak.harm`)."""

from __future__ import annotations

import json

from synthleak.harm import Harm, harm_class
from synthleak.metrics.privacy import RiskEstimate
from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel


def test_finding_keys_are_the_strings_the_json_records() -> None:
    """A finding keyed by a :class:`FindingKey` writes the plain key and reads back equal to
    it, so the stages and the report can name keys by constant while reports stay readable."""
    from synthleak.harm import (
        PEOPLE_COPIES,
        FindingKey,
        attribute_game_key,
        singling_out_key,
        sweep_key,
    )
    from synthleak.verdicts import Finding, MetricKind

    tm = ThreatModel(AdversaryGoal.MEMBERSHIP, GeneratorAccess.NO_BOX, "the release")
    est = RiskEstimate(0.6, 0.55, 0.65, 0.95, 200, 0.5)
    for key in FindingKey:
        f = Finding(key, str(key), MetricKind.AUC, est, tm)
        doc = json.loads(f.to_json())
        assert doc["key"] == key.value and type(doc["key"]) is str
        assert Finding.from_json(f.to_json()).key == key
    assert "copies.exact" in PEOPLE_COPIES and FindingKey.COPIES_EXACT in PEOPLE_COPIES
    assert singling_out_key("univariate") == "singling_out.univariate"
    assert attribute_game_key("recon", 500) == "attribute.recon.m500"
    assert sweep_key("income") == "attribute.sweep.income"


def test_each_key_has_its_harm_class() -> None:
    assert harm_class("copies.exact") is Harm.PUBLISHED
    assert harm_class("copies.rare_values") is Harm.PUBLISHED
    assert harm_class("singling_out.univariate") is Harm.SINGLED_OUT
    assert harm_class("linkability") is Harm.SINGLED_OUT
    assert harm_class("attribute.sweep.income") is Harm.SINGLED_OUT
    assert harm_class("membership.nobox") is Harm.MEMBERSHIP
    assert list(Harm) == sorted(Harm)  # most harmful first
