"""The 'Attribute inference of persons' section (report/sections/person_attribute.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tests.games.person_parts import parts, replay
from tests.stages.test_person_attribute import only_person_attribute, run  # noqa: F401

from synthleak.report.blocks import PERSONS_SHOWN, Paragraph, TableBlock
from synthleak.report.document import build_document
from synthleak.report.sections.person_attribute import section


@pytest.mark.usefixtures("only_person_attribute")
def test_the_section_compares_with_control_persons_and_names_root_keys() -> None:
    original, control, _ = parts(4)
    r = run(original, replay(original, 10**7), control, secret="region")
    sec = section(r)
    assert sec is not None
    assert "person-attribute" in [s.anchor for s in build_document(r).sections]
    text = " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))
    assert "child rows" in text and "'region'" in text and "control" in text
    rates, named = [b for b in sec.blocks if isinstance(b, TableBlock)]
    assert [row[0] for row in rates.rows] == ["original (training)", "control (baseline)", "excess"]
    pa = r.person_attribute
    assert pa is not None
    assert named.header == ("person (person key)",)
    assert [row[0] for row in named.rows] == [str(k) for k in pa.inferred[:PERSONS_SHOWN]]
    assert {int(row[0]) for row in named.rows} <= set(original.frames["person"]["pid"])
    assert section(replace(r, person_attribute=None)) is None
