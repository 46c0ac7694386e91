"""The 'Attribute inference of every column' section (report/sections/attribute_sweep.py)."""

from __future__ import annotations

import dataclasses

from synthleak.report.blocks import TableBlock, finding, verdict_text
from synthleak.report.sections.attribute_sweep import section


def test_each_swept_column_prints_its_own_findings_verdict_in_rank_order() -> None:
    from tests.report.conftest import make_every_state_result

    result = make_every_state_result()
    assert result.attribute_sweep is not None
    sec = section(result)
    assert sec is not None and sec.anchor == "attribute-sweep"
    (table,) = [b for b in sec.blocks if isinstance(b, TableBlock)]
    columns = [c.column for c in result.attribute_sweep.columns]
    assert [row[1] for row in table.rows] == columns
    assert [row[0] for row in table.rows] == [str(i + 1) for i in range(len(columns))]
    verdicts = {row[1]: row[-1] for row in table.rows}
    for col in columns:
        assert verdicts[col] == verdict_text(finding(result, f"attribute.sweep.{col}"))
    assert len(set(verdicts.values())) > 1  # the fixture's columns take several verdicts
    assert section(dataclasses.replace(result, attribute_sweep=None)) is None
