from __future__ import annotations

import pytest

from synthleak.threat import AdversaryGoal, GeneratorAccess, ThreatModel


@pytest.mark.parametrize("goal", list(AdversaryGoal))
@pytest.mark.parametrize("access", list(GeneratorAccess))
def test_every_threat_model_reads_in_plain_words(
    goal: AdversaryGoal, access: GeneratorAccess
) -> None:
    tm = ThreatModel(goal, access, "an auxiliary sample of 10,000 records", {"aux": 10000})
    lines = tm.assumptions()
    assert len(lines) == 3 and all(line.endswith(".") for line in lines)
    assert ThreatModel.from_dict(tm.to_dict()) == tm


def test_threat_models_take_goal_and_access_from_the_attack_family() -> None:
    import string

    from synthleak.attacks.base import AttackFamily
    from synthleak.threat import KNOWLEDGE, threat_model

    for game, text in KNOWLEDGE.items():
        fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
        tm = threat_model(AttackFamily.ATTRIBUTE, game, {"n": 1}, **dict.fromkeys(fields, "x"))
        assert tm.goal is AdversaryGoal.ATTRIBUTE and tm.generator_access is GeneratorAccess.NO_BOX
        assert "{" not in tm.data_knowledge and tm.details == {"n": 1}
    tm = threat_model(AttackFamily.MEMBERSHIP, "riskmap")
    assert (tm.goal, tm.generator_access) == (AdversaryGoal.MEMBERSHIP, GeneratorAccess.BLACK_BOX)
    assert tm.assumptions()[2] == (
        "The attacker knows the target record and records of the same population to train "
        "shadow models on."
    )
    with pytest.raises(KeyError):
        threat_model(AttackFamily.LINKABILITY, "linkability", aux_a=["a"])  # aux_b missing


def test_no_threat_model_is_written_by_hand_outside_threat_py() -> None:
    """Every finding's threat model comes from :func:`threat_model` (its family's goal and
    access), so a finding cannot claim an access its attacks do not have."""
    from pathlib import Path

    import synthleak

    root = Path(synthleak.__file__).parent
    by_hand = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name != "threat.py" and "ThreatModel(" in p.read_text()
    ]
    assert by_hand == []
