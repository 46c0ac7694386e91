"""The 'Membership inference on the release' section (report/sections/membership_release.py)."""

from __future__ import annotations

from types import SimpleNamespace

from tests.games.test_membership_release import example

from synthleak.report.blocks import Paragraph, TableBlock
from synthleak.report.sections.membership_release import section


def test_the_section_says_it_attacks_the_release_not_the_generator() -> None:
    res = example()
    sec = section(SimpleNamespace(membership_release=res, findings=()))  # type: ignore[arg-type]
    assert sec is not None
    text = " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))
    assert "attacks the generator" in text and "published" in text
    assert "4 shadow releases" in text and "40 training records (members)" in text
    assert "3 candidate records" in text  # those a shadow was trained on, left out
    assert "AUC" in text and "at FPR 0.001: not resolvable" in text
    (table,) = [b for b in sec.blocks if isinstance(b, TableBlock)]
    assert [row[0] for row in table.rows] == ["7", "3"]


def test_no_section_without_the_game() -> None:
    assert section(SimpleNamespace(membership_release=None)) is None  # type: ignore[arg-type]
