"""The thread limit every work unit and classifier fit runs under."""

from __future__ import annotations

import os
import sys
import types

import pytest

from synthleak.runtime import threads


def test_the_search_of_the_libraries_is_kept_until_a_module_is_imported() -> None:
    """A ``threadpool_limits(1)`` searched the loaded libraries each time (milliseconds, paid
    around every unit); the search is now kept, and made again once a module was imported."""
    first = threads._controller()
    assert threads._controller() is first
    name = "synthleak_test_imported_module"
    sys.modules[name] = types.ModuleType(name)  # as an import does
    try:
        again = threads._controller()
        assert again is not first
        assert threads._controller() is again
    finally:
        del sys.modules[name]


@pytest.mark.skipif(
    (os.cpu_count() or 1) < 2, reason="one core: every thread pool has one thread anyway"
)
def test_the_limit_gives_one_thread_and_restores_the_counts_it_found() -> None:
    import scipy.linalg  # noqa: F401 - a BLAS to limit
    from threadpoolctl import threadpool_info, threadpool_limits

    with threadpool_limits(2):  # counts above one, to be restored
        before = [p["num_threads"] for p in threadpool_info()]
        assert max(before) > 1
        with threads.one_thread_limit():
            assert {p["num_threads"] for p in threadpool_info()} == {1}
        assert [p["num_threads"] for p in threadpool_info()] == before
