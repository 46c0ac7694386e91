from __future__ import annotations

import pytest

from synthleak.runtime.progress import PLAIN_EVERY, Projection, progress_bar


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_progress_bar_is_silent_without_a_terminal(capsys) -> None:
    with progress_bar("shadow models") as update:
        update(1, 10)
        update(10, 10)
    assert capsys.readouterr().err == ""


def test_the_projection_counts_only_the_work_left_and_this_runs_speed() -> None:
    """A resumed run: 40 of 100 units read back at the start; 10 more in 30 s is 3 s a unit,
    so the 50 left take 150 s (counting the 40 read back as this run's work would say 30 s;
    counting them as work left, 270 s)."""
    clock = FakeClock()
    p = Projection(100, clock)
    p.update(40)
    assert p.resumed == 40 and p.seconds_left() is None  # nothing measured yet
    clock.now += 30
    p.update(50)
    assert p.finished_here == 10 and p.elapsed == pytest.approx(30)
    assert p.seconds_left() == pytest.approx(150.0)
    assert p.sentence() == "50 of 100 units (40 kept from an earlier run), 30 s, about 2.5 min left"
    clock.now += 150
    p.update(100)
    assert p.seconds_left() == 0.0 and p.sentence().endswith("done")
    # a fresh run: nothing read back
    fresh = Projection(10, clock)
    fresh.update(0)
    clock.now += 20
    fresh.update(4)
    assert fresh.seconds_left() == pytest.approx(30.0)
    assert "kept" not in fresh.sentence()


def test_without_a_terminal_a_long_run_says_where_it_stands(capsys) -> None:
    clock = FakeClock()
    with progress_bar("shadow models", clock=clock, terminal=False, heartbeat=None) as update:
        update(2, 10)  # two units kept from an earlier run
        clock.now += 10
        update(3, 10)
        assert capsys.readouterr().err == ""  # under PLAIN_EVERY: silent
        clock.now += PLAIN_EVERY
        update(4, 10)  # 2 units in 40 s: 20 s a unit, 6 left
        err = capsys.readouterr().err
        said = "4 of 10 units (2 kept from an earlier run), 40 s, about 2.0 min left"
        assert err == f"shadow models: {said}\n"
        clock.now += 5
        update(5, 10)
        assert capsys.readouterr().err == ""  # one line every PLAIN_EVERY seconds at most
        clock.now += 60
        update(10, 10)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "10 of 10 units" in err and err.rstrip().endswith("done")
