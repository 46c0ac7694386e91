from __future__ import annotations

import numpy as np

from synthleak.runtime import unit_rng


def test_unit_rng_depends_only_on_seed_and_key() -> None:
    a = unit_rng(3, 1, 2).random(4)
    np.testing.assert_array_equal(a, unit_rng(3, 1, 2).random(4))
    assert not np.array_equal(a, unit_rng(3, 2, 1).random(4))
    assert not np.array_equal(a, unit_rng(4, 1, 2).random(4))
