"""The references module: author-year citations and full entries."""

from __future__ import annotations

import pytest

from synthleak import references


def test_cite_gives_author_year_and_location() -> None:
    assert references.cite("meeus2023") == "Meeus et al. (2023)"
    assert references.cite("meeus2023", "Sec. 4, eq. 5") == "Meeus et al. (2023), Sec. 4, eq. 5"
    assert references.cite("cohen2020") == "Cohen and Nissim (2020)"
    assert references.cite("vanbreugel2023").startswith("van Breugel et al.")


def test_same_author_year_gets_letters() -> None:
    assert references.cite("annamalai2024linear") == "Annamalai et al. (2024a)"
    assert references.cite("annamalai2024auditing") == "Annamalai et al. (2024b)"


def test_every_entry_has_an_identifier() -> None:
    for ref in references.REFERENCES.values():
        assert ref.arxiv or ref.doi or ref.url, ref.key
        assert str(ref.year) in ref.entry() and ref.title in ref.entry()


def test_entries_are_unique_and_sorted() -> None:
    out = references.entries(["meeus2023", "giomi2023", "meeus2023"])
    assert len(out) == 2 and out[0].startswith("Matteo Giomi")


def test_unknown_key_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="meeus2023"):
        references.cite("nobody1999")
