"""The 'Verbatim copies of persons' histories' section (report/sections/person_copies.py)."""

from __future__ import annotations

from dataclasses import replace

from tests.games.person_parts import parts, replay
from tests.stages.test_person_copies import only_person_copies, run  # noqa: F401 (the fixture)

from synthleak.harm import FindingKey
from synthleak.report.blocks import PERSONS_SHOWN, Paragraph, TableBlock, finding, verdict_text
from synthleak.report.document import build_document
from synthleak.report.sections.person_copies import section


def test_the_section_shows_rates_against_control_and_persons_by_root_key(
    only_person_copies: None,  # noqa: F811
) -> None:
    original, control, _ = parts(3)
    r = run(original, replay(original, 10**7), control)
    sec = section(r)
    assert sec is not None
    assert "person-copies" in [s.anchor for s in build_document(r).sections]
    text = " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))
    assert "row of table 'person'" in text and "control" in text and "Row level" in text
    # the root table's row-level figure, named by its table: every root row is copied
    assert "of the rows of 'person' (their own columns), 1.000 of the original's" in text
    assert verdict_text(finding(r, FindingKey.COPIES_PERSON_HISTORY)) in text
    rates, keys = [b for b in sec.blocks if isinstance(b, TableBlock)]
    assert rates.rows[0][0] == "whole history replayed" and "–" in rates.rows[0][6]
    assert keys.header == ("person (person key)",)
    pc = r.person_copies
    assert pc is not None
    assert [row[0] for row in keys.rows] == [str(k) for k in pc.replayed_keys[:PERSONS_SHOWN]]
    # root keys of the original (the release's keys, 10**7 on, are never shown)
    assert {int(row[0]) for row in keys.rows} <= set(original.frames["person"]["pid"])
    assert "report.json" in keys.caption
    assert section(replace(r, person_copies=None)) is None
