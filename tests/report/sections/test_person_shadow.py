"""The 'Shadow-model membership inference of persons' section (report/sections/person_shadow.py)."""

from __future__ import annotations

from dataclasses import replace

from tests.stages.test_person_membership import parts
from tests.stages.test_person_shadow import (  # noqa: F401 (the fixtures)
    PLAN,
    only_person_shadow,
    spec,
)

from synthleak.pipeline import audit
from synthleak.report.blocks import Paragraph, TableBlock, finding, verdict_text
from synthleak.report.document import build_document
from synthleak.report.sections.person_shadow import section
from synthleak.stages.person_shadow import KEY


def test_the_section_states_the_game_and_names_targets_by_root_key(
    spec: str,  # noqa: F811 (the fixture)
    only_person_shadow: None,  # noqa: F811
) -> None:
    original, control, others = parts(1)
    r = audit(original, synthetic=others, control=control, generator=spec, plan=PLAN, seed=0)
    sec = section(r)
    assert sec is not None
    assert "person-shadow" in [s.anchor for s in build_document(r).sections]
    text = " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))
    assert spec in text and "8 shadow releases" in text and "a row of table 'person'" in text
    assert f"Verdict: {verdict_text(finding(r, KEY))}." in text
    attacks, targets = [b for b in sec.blocks if isinstance(b, TableBlock)]
    assert {row[0] for row in attacks.rows} == set(r.person_shadow.attacks)
    assert all("–" in row[2] for row in attacks.rows)
    assert targets.header[0] == "person (person key)"
    keys = {str(k) for k in original.frames["person"]["pid"]}
    assert {row[0] for row in targets.rows} <= keys and len(targets.rows) == 6
    assert section(replace(r, person_shadow=None)) is None
