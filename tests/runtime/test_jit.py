"""Kernels declared with a disk cache fall back to none when no cache folder is writable."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from synthleak.runtime.jit import njit

SRC = Path(__file__).resolve().parents[2] / "src"

# A read-only install run by an account without a writable home: NUMBA_CACHE_DIR, $HOME and
# the user cache folder lie under a plain file (no account, root included, can create them),
# and the __pycache__ beside the sources refuses writes as a read-only install's does (patched,
# since the test checkout itself is writable and the tests may run as root).
SCRIPT = textwrap.dedent(
    """
    import numba.core.caching as caching
    import numpy as np

    def read_only(self):
        raise PermissionError(13, "Read-only file system", self.get_cache_path())

    # the locator of the __pycache__ beside the sources (a leading underscore before numba 0.61)
    locator = getattr(caching, "InTreeCacheLocator", None) or caching._InTreeCacheLocator
    locator.ensure_cache_path = read_only

    import synthleak.vulnerability  # kernels declared at import
    import synthleak.attacks.linkability
    import synthleak.attacks.predicates
    from synthleak import queries
    from synthleak.runtime.jit import UNCACHED

    bits = queries._pack_masks(np.array([[True, False, True]]), np.array([1, 2, 4], np.uint64))
    assert bits.tolist() == [5], bits
    assert "synthleak.queries._pack_masks" in UNCACHED, UNCACHED
    assert any(n.startswith("synthleak.vulnerability.") for n in UNCACHED), UNCACHED
    print("ok", len(UNCACHED))
    """
)


def test_unwritable_cache_falls_back_to_no_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "NUMBA_CACHE_DIR": str(blocker / "numba"),
        "HOME": str(blocker / "home"),
        "XDG_CACHE_HOME": str(blocker / "cache"),
    }
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("ok"), run.stdout
    assert "cannot cache" not in run.stderr


def test_cache_is_kept_when_a_folder_is_writable(tmp_path: Path) -> None:
    def twice(x: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
        return x * 2

    kernel = njit(cache=True)(twice)
    assert kernel._cache.__class__.__name__ == "FunctionCache"  # numba's disk cache
    assert kernel(np.arange(3)).tolist() == [0, 2, 4]
    plain = njit()(twice)
    assert plain._cache.__class__.__name__ == "NullCache"
