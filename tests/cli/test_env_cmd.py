"""``synthleak env create|list``, and a generator run in the environment it made."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak.cli.main import main
from synthleak.generators.env import shutdown_workers

RESAMPLER = """
import random
class Resampler:
    synthleak_format = "records"
    def fit(self, data):
        self.rows = data
    def sample(self, n, *, seed):
        rnd = random.Random(seed)
        return [rnd.choice(self.rows) for _ in range(n)]
"""


@pytest.fixture
def envs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "envs"
    monkeypatch.setenv("SYNTHLEAK_ENVS", str(root))
    return root


def test_create_list_and_generate(
    tmp_path: Path, envs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["env", "create", "toy", "--packages", ""]) == 0
    assert (envs / "toy" / "bin" / "python").is_file()
    assert "environment 'toy' ready" in capsys.readouterr().out
    assert main(["env", "list"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert listing == [f"environments folder: {envs}", "toy"]

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"colour": rng.choice(["a", "b"], 40), "x": rng.normal(size=40).round(2)})
    data, out = tmp_path / "d.csv", tmp_path / "s.csv"
    df.to_csv(data, index=False)
    (tmp_path / "resampler.py").write_text(RESAMPLER)
    spec = f"env:toy:{tmp_path / 'resampler.py'}:Resampler"
    args = ["generate", str(data), "--generator", spec, "--synthetic-size", "25", "--out", str(out)]
    try:
        assert main(args) == 0
    finally:
        shutdown_workers()
    syn = pd.read_csv(out)
    assert list(syn.columns) == ["colour", "x"] and len(syn) == 25
    assert set(syn["colour"]) <= {"a", "b"}


def test_bad_name_and_failed_install(envs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["env", "create", "../evil", "--packages", ""]) == 2
    assert "is not a plain name" in capsys.readouterr().err
    missing = envs.parent / "no-such-project-dir"
    assert main(["env", "create", "toy2", "--packages", str(missing)]) == 2
    assert "pip could not install" in capsys.readouterr().err


def test_unknown_environment_says_how_to_make_it(
    envs: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["generate", "adult", "--generator", "env:nope:m:C", "--synthetic-size", "5"]
    assert main([*args, "--out", str(tmp_path / "x.csv")]) == 2
    assert "synthleak env create nope" in capsys.readouterr().err
