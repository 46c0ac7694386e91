"""How far the progress projections land from the time the work took, on a real audit.

Runs a ``quick`` audit of a 3,000-record Adult sample through baynet (one worker, a run
directory, progress on, stderr not a terminal, so the plain lines of ``runtime/progress.py``)
in a child process; with ``--interrupt S`` it sends SIGINT S seconds into the shadow-model
game and runs the same audit again, which resumes. For every progress line it compares the
projected end (elapsed + time left) of that run of units with its actual end (the line that
says "done"), and prints the pilot's projection of the game beside the game's measured time.

    python -m benchmarks.bench_progress [--interrupt 30] [--out results/progress.json]
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import json, sys, time
import pandas as pd
from synthleak import audit
from synthleak.runtime import Runtime

df = pd.read_csv(sys.argv[3]).sample(3000, random_state=0).reset_index(drop=True)
t0 = time.time()
log = lambda s: print(f"[{time.time() - t0:.1f}] {s}", file=sys.stderr, flush=True)
r = audit(df, generator="baynet", budget="quick", seed=0, log=log,
          runtime=Runtime(workers=1, run_dir=sys.argv[1], progress=True))
b = r.budget
json.dump({"projected": b.projected_seconds, "measured": b.measured_seconds,
           "screen": b.screen_seconds, "resumed": list(b.resumed)}, open(sys.argv[2], "w"))
"""

LINE = re.compile(
    r"^(?P<what>.+?): (?P<done>\d+) of (?P<total>\d+) units(?: \((?P<kept>\d+) kept[^)]*\))?, "
    r"(?P<elapsed>[\d.]+ (?:s|min|h)), (?P<left>.+)$"
)


def _seconds(text: str) -> float:
    value, unit = text.split()
    return float(value) * {"s": 1.0, "min": 60.0, "h": 3600.0}[unit]


def projection_errors(stderr: str) -> list[dict[str, object]]:
    """Per progress line: its run of units, the projected and the actual end, the error."""
    runs: list[list[dict[str, object]]] = [[]]
    for line in stderr.splitlines():
        m = LINE.match(line.strip())
        if not m:
            continue
        row: dict[str, object] = {
            "what": m["what"],
            "done": int(m["done"]),
            "total": int(m["total"]),
            "kept": int(m["kept"] or 0),
            "elapsed": _seconds(m["elapsed"]),
            "left": m["left"],
        }
        runs[-1].append(row)
        if m["left"] == "done":
            runs.append([])
    out = []
    for rows in runs:
        if not rows or rows[-1]["left"] != "done":
            continue
        end = float(rows[-1]["elapsed"])  # type: ignore[arg-type]
        for r in rows[:-1]:
            left = str(r["left"])
            if not left.startswith("about "):
                continue
            projected = float(r["elapsed"]) + _seconds(left[6:-5])  # type: ignore[arg-type]
            out.append(
                {**r, "actual_end": end, "projected_end": projected, "error": projected / end - 1}
            )
    return out


def _run(run_dir: Path, result: Path, data: str, interrupt: float | None) -> str:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(run_dir), str(result), data],
        stderr=subprocess.PIPE,
        text=True,
    )
    if interrupt is None:
        return proc.communicate()[1]
    lines, began = [], None
    assert proc.stderr is not None
    for line in proc.stderr:  # SIGINT `interrupt` seconds into the shadow-model game
        lines.append(line)
        if began is None and "black-box membership inference" in line:
            began = time.monotonic()
        if began is not None and time.monotonic() - began > interrupt:
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.communicate()[1]
    return "".join(lines) + rest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="/work/shared/datasets/adult.csv.gz")
    ap.add_argument("--interrupt", type=float, default=None)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir, result = Path(tmp) / "run", Path(tmp) / "result.json"
        err = _run(run_dir, result, a.data, a.interrupt)
        runs = [{"stderr": err, "errors": projection_errors(err)}]
        if a.interrupt is not None:  # the same audit again: it resumes
            err = _run(run_dir, result, a.data, None)
            runs.append({"stderr": err, "errors": projection_errors(err)})
        budget = json.loads(result.read_text())
    for i, run in enumerate(runs):
        print(f"run {i + 1}")
        for e in run["errors"]:
            print(
                f"  {e['what']}: {e['done']}/{e['total']} (kept {e['kept']}), at "
                f"{e['elapsed']:.0f} s: projected end {e['projected_end']:.0f} s, actual "
                f"{e['actual_end']:.0f} s ({e['error']:+.0%})"
            )
    print(
        f"pilot projection of the game {budget['projected']:.0f} s, measured "
        f"{budget['measured']:.0f} s ({budget['projected'] / budget['measured'] - 1:+.0%}); "
        f"screen {budget['screen']:.0f} s; resumed parts {budget['resumed']}"
    )
    if a.out is not None:
        a.out.write_text(json.dumps({"runs": runs, "budget": budget}, indent=1) + "\n")


if __name__ == "__main__":
    main()
