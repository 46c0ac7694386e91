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
