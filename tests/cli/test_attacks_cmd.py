"""``synthleak attacks``: every registered attack of every family, with its citations."""

from __future__ import annotations

import json

import pytest

from synthleak.attacks.base import list_attacks
from synthleak.cli.main import main


def test_lists_every_registered_attack(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["attacks", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {(r["family"], r["name"]) for r in records} == {
        (i.family.value, i.name) for i in list_attacks()
    }
    query = next(r for r in records if r["name"] == "query")
    assert query["access"] == "black-box" and "Meeus et al. (2023)" in query["references"]
    rmia = next(r for r in records if r["name"] == "rmia")
    assert rmia["access"] == "black-box" and "Zarifzadeh et al. (2024)" in rmia["references"]
    meta = next(r for r in records if r["name"] == "meta")
    assert meta["access"] == "black-box" and "Vector Institute (2025)" in meta["references"]
    assert main(["attacks"]) == 0
    assert "membership: query" in capsys.readouterr().out
