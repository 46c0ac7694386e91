"""The 'Membership inference of persons' section (report/sections/person_membership.py)."""

from __future__ import annotations

from dataclasses import replace

from tests.stages.test_person_membership import (  # noqa: F401 (the fixture)
    _one_view_attack,
    parts,
    person_audit,
    replay,
)

from synthleak.report.blocks import Paragraph, TableBlock, finding, verdict_text
from synthleak.report.document import build_document
from synthleak.report.sections.person_membership import section
from synthleak.stages.person_membership import KEY


def test_the_section_names_persons_by_root_key_and_sets_itself_apart_from_row_level() -> None:
    original, control, _ = parts(1)
    r = person_audit(original, replay(original, 9000), control)
    sec = section(r)
    assert sec is not None
    assert "person-membership" in [s.anchor for s in build_document(r).sections]
    text = " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))
    assert "a row of table 'person'" in text and "row-level" in text and "child rows" in text
    assert f"Verdict: {verdict_text(finding(r, KEY))}." in text
    tables = [b for b in sec.blocks if isinstance(b, TableBlock)]
    attacks, exposed = tables
    assert {row[0] for row in attacks.rows} == set(r.person_membership.attacks)
    assert all("–" in row[2] and "–" in row[4] for row in attacks.rows)  # AUC and TPR intervals
    assert exposed.header[0] == "person (person key)"
    keys = {str(k) for k in original.frames["person"]["pid"]}
    assert [row[0] for row in exposed.rows] == [str(p.key) for p in r.person_membership.exposed]
    assert set(row[0] for row in exposed.rows) <= keys
    # the keys are the root table's (9000 on: the release's keys are never shown)
    assert all(int(row[0]) < 9000 for row in exposed.rows)
    assert section(replace(r, person_membership=None)) is None
