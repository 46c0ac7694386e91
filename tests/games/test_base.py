"""The game protocol and the by-name access of a game's attack results."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from synthleak.games.base import AttacksByName, Game
from synthleak.games.nobox import NoBoxMembershipGame
from synthleak.games.singling_out import SinglingOutGame


@dataclass(frozen=True)
class _Outcome:
    attack: str
    value: float


@dataclass(frozen=True)
class _Result(AttacksByName[_Outcome]):
    attacks: tuple[_Outcome, ...]


def test_games_follow_the_protocol() -> None:
    assert isinstance(SinglingOutGame(), Game)
    assert isinstance(NoBoxMembershipGame(), Game)
    assert not isinstance(object(), Game)


def test_attacks_by_name_finds_an_attack_and_names_the_others() -> None:
    res = _Result((_Outcome("query", 0.6), _Outcome("distance", 0.7)))
    assert res["distance"].value == 0.7
    with pytest.raises(KeyError, match=r"no attack named 'lira'.*'query', 'distance'"):
        res["lira"]
