from __future__ import annotations

import importlib
import pkgutil
import re
import zlib
from pathlib import Path

import numpy as np
import pytest

import synthleak
from synthleak.runtime import seeding, unit_rng
from synthleak.runtime.seeding import Stream, game_seed, stream, stream_rng


def test_unit_rng_depends_only_on_seed_and_key() -> None:
    a = unit_rng(3, 1, 2).random(4)
    np.testing.assert_array_equal(a, unit_rng(3, 1, 2).random(4))
    assert not np.array_equal(a, unit_rng(3, 2, 1).random(4))
    assert not np.array_equal(a, unit_rng(4, 1, 2).random(4))


#: Every stream the package declares, with the key it draws from. A key never changes once a
#: stream exists (a published figure must stay reproducible from its seed): a change here is a
#: change of every number that stream feeds, and needs ``STREAMS_VERSION`` raised.
FROZEN = {
    "aia-release/fit": (zlib.crc32(b"aia-release-fit"), False, None),
    "aia-release/population": (zlib.crc32(b"aia-release-population"), False, None),
    "aia-release/score": (zlib.crc32(b"aia-release-score"), False, None),
    "aia-release/swap": (zlib.crc32(b"aia-release-swap"), False, None),
    "aia-release/targets": (zlib.crc32(b"aia-release-targets"), False, None),
    "aia-release/utility": (zlib.crc32(b"aia-release-utility"), False, None),
    "aia/data": (0, True, None),
    "compare/paired": (zlib.crc32(b"compare/paired"), False, None),
    "compare/release": (zlib.crc32(b"compare/release"), False, None),
    "aia/target": (1, True, None),
    "aia/fit": (2, True, None),
    "aia/attack-fit": (3, True, None),
    "aia/sample": (4, True, None),
    "aia/attack": (5, True, None),
    "aia/utility": (6, True, None),
    "aia/compare": (7, False, None),
    "audit/stage": (zlib.crc32(b"audit/stage"), False, "audit.{}"),
    "audit/membership-pilot": (zlib.crc32(b"audit/membership-pilot"), False, None),
    "linkability/baseline": (zlib.crc32(b"linkability/baseline"), False, "linkability/{}/baseline"),
    "linkability/fit": (zlib.crc32(b"linkability/fit"), False, "linkability/{}/fit"),
    "linkability/targets": (zlib.crc32(b"linkability/targets"), False, None),
    "membership/split": (0, False, None),
    "membership/pool": (1, False, None),
    "membership/attack": (3, False, None),
    "membership/metric": (4, False, None),
    "mia/epsilon": (zlib.crc32(b"mia.epsilon"), False, None),
    "mia/pilot": (zlib.crc32(b"mia.pilot"), False, None),
    "nobox/attack": (zlib.crc32(b"nobox/attack"), False, "nobox-attack:{}"),
    "nobox/metric": (zlib.crc32(b"nobox/metric"), False, "nobox-metric:{}"),
    "nobox/split": (zlib.crc32(b"nobox-split"), False, None),
    "person/metric": (zlib.crc32(b"person/metric"), False, "person-metric:{}"),
    "person-shadow/generator": (zlib.crc32(b"person-shadow/generator"), False, None),
    "person-shadow/metric": (
        zlib.crc32(b"person-shadow/metric"),
        False,
        "person-shadow-metric:{}",
    ),
    "person-shadow/pool": (zlib.crc32(b"person-shadow/pool"), False, None),
    "person-shadow/split": (zlib.crc32(b"person-shadow/split"), False, None),
    "report/findings": (zlib.crc32(b"report.findings"), False, None),
    "riskmap/split": (10, False, None),
    "riskmap/pool": (11, False, None),
    "release-membership/sample": (zlib.crc32(b"release-membership/sample"), False, None),
    "release-membership/shadows": (zlib.crc32(b"release-membership/shadows"), False, None),
    "riskmap/attack": (13, False, None),
    "riskmap/metric": (14, False, None),
    "riskmap/valid": (15, False, None),
    "screen/pool": (31, False, None),
    "screen/dataset": (32, False, None),
    "screen/attack": (33, False, None),
    "screen/metric": (34, False, None),
    "screen/attack-stage1": (35, False, None),
    "screen/metric-stage1": (36, False, None),
    "screen/second-pool": (410552247, False, None),
    "shadow/dataset": (2, False, None),
    "shadow-release/bootstrap": (zlib.crc32(b"shadow-release/bootstrap"), False, None),
    "shadow-release/errors": (zlib.crc32(b"shadow-release/errors"), False, None),
    "shadow-release/model": (zlib.crc32(b"shadow-release/model"), False, None),
    "shadow-release/nobox": (zlib.crc32(b"shadow-release/nobox"), False, None),
    "shadow-release/sample": (zlib.crc32(b"shadow-release/sample"), False, None),
    "singling-out/baseline": (
        zlib.crc32(b"singling-out/baseline"),
        False,
        "singling-out/{}/baseline",
    ),
    "singling-out/fit": (zlib.crc32(b"singling-out/fit"), False, "singling-out/{}/fit"),
    "singling-out/predicates": (
        zlib.crc32(b"singling-out/predicates"),
        False,
        "singling-out/{}/predicates",
    ),
    "targets/select": (5, False, None),
}


def _declared() -> dict[str, Stream]:
    for mod in pkgutil.walk_packages(synthleak.__path__, "synthleak."):
        if ".testing" not in mod.name:
            importlib.import_module(mod.name)
    return dict(seeding.STREAMS)


def test_every_declared_stream_keeps_its_key() -> None:
    got = {n: (s.key, s.scoped, s.labelled) for n, s in _declared().items()}
    assert got == FROZEN


def test_a_stream_draws_from_its_key_and_the_unit_path() -> None:
    pool = _declared()["membership/pool"]
    np.testing.assert_array_equal(pool.rng(9, 3).random(3), unit_rng(9, 1, 3).random(3))
    data = _declared()["aia/data"]  # scoped: the game's index comes first
    np.testing.assert_array_equal(data.rng(9, scope=(4,)).random(3), unit_rng(9, 4, 0).random(3))
    stage = _declared()["audit/stage"].sub("copies")
    assert stage.name == "audit/stage/copies"
    np.testing.assert_array_equal(stage.rng(9).random(3), stream_rng(9, "audit.copies").random(3))


def test_a_stream_is_drawn_the_way_it_was_declared() -> None:
    with pytest.raises(TypeError, match="needs the unit"):
        _declared()["aia/data"].rng(1)
    with pytest.raises(TypeError, match="takes no scope"):
        _declared()["membership/pool"].rng(1, scope=(0,))
    with pytest.raises(TypeError, match="is a family"):
        _declared()["audit/stage"].rng(1)
    with pytest.raises(TypeError, match="not a family"):
        _declared()["membership/pool"].sub("x")


def test_declaring_streams_refuses_clashes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seeding, "STREAMS", {})
    a = stream("demo/one")
    assert a.key == zlib.crc32(b"demo/one")
    assert stream("demo/one") is a  # a module imported twice declares the same stream
    with pytest.raises(ValueError, match="declared twice"):
        stream("demo/one", key=3)
    stream("demo/two", key=3)
    with pytest.raises(ValueError, match="same key 3"):
        stream("demo/three", key=3)
    stream("demo/scoped", key=3, scoped=True)  # another kind of key path
    for bad in ("Demo/one", "demo one", "demo.one", "demo/", "-demo"):
        with pytest.raises(ValueError, match="component/purpose"):
            stream(bad)
    with pytest.raises(ValueError, match="must contain"):
        stream("demo/family", labelled="demo")


def test_game_seed_is_the_first_draw_of_the_stage_stream() -> None:
    assert game_seed(unit_rng(5, 7)) == int(unit_rng(5, 7).integers(2**31))


_BARE = re.compile(r"\b(unit_rng|unit_seed|stream_rng)\(")


def test_the_package_draws_only_from_declared_streams() -> None:
    """One idiom: outside the seeding module, code draws from a declared :class:`Stream`, never
    from an ad-hoc key or name."""
    src = Path(synthleak.__file__).parent
    hits = [
        f"{p.relative_to(src)}:{i}"
        for p in sorted(src.rglob("*.py"))
        if p.relative_to(src).as_posix() != "runtime/seeding.py"
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if _BARE.search(line)
    ]
    assert not hits, hits
