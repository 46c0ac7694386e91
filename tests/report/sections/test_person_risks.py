"""The 'Singling out and linkability of persons' section (report/sections/person_risks.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tests.games.person_parts import parts, replay
from tests.stages.test_person_risks import only_these, run  # noqa: F401 (the fixture)

from synthleak.report.blocks import Paragraph, TableBlock
from synthleak.report.document import build_document
from synthleak.report.sections.person_risks import section


@pytest.mark.usefixtures("only_these")
def test_the_section_shows_person_risks_beside_the_root_rows_and_names_root_keys() -> None:
    original, control, _ = parts(3, n_control=50)
    r = run(original, replay(original, 10**7), control)
    sec = section(r)
    assert sec is not None
    assert "person-risks" in [s.anchor for s in build_document(r).sections]
    text = " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))
    assert "row of table 'person'" in text and "row-level figure" in text
    risks, named = [b for b in sec.blocks if isinstance(b, TableBlock)]
    units = [row[1] for row in risks.rows]
    assert units.count("persons") == 3
    # the row-level figures of the root table: singling out (two attacks) and linkability
    assert units.count("rows of 'person' alone") == 3
    games = [row[0] for row in risks.rows if row[1] == "rows of 'person' alone"]
    assert "linkability (age, sex to income, region)" in games
    # the root rows' multivariate figure here spans 0 to 1 (every predicate singles out an
    # original row, the excess at 50 control persons not above 0): not measured, with what it
    # needs, never "1.000" with an interval "0.000 – 1.000"
    vacuous = ("singling out (multivariate)", "rows of 'person' alone", "n/a", "n/a")
    assert [row[:4] for row in risks.rows if row[2] == "n/a"] == [vacuous]
    assert all("–" in row[3] for row in risks.rows if row[2] != "n/a")
    assert "0.000 – 1.000" not in [row[3] for row in risks.rows]
    assert "multivariate: not measured: its 95% interval spans every risk from 0 to 1" in text
    assert "it needs a larger control set" in text
    assert named.header == ("game", "persons (person key)")
    keys = {str(k) for k in original.frames["person"]["pid"]}
    for _, cell in named.rows:
        shown = cell.split(" and ")[0].split(", ")
        assert set(shown) <= keys  # root keys of the original, never the release's
    assert section(replace(r, person_risks=None)) is None
