from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from synthleak import InputError
from synthleak.cli.common import atomic_write, emit, parse_targets, split_list, to_json


def test_split_list() -> None:
    assert split_list(None) == [] and split_list(" a, b,,c ") == ["a", "b", "c"]


def test_atomic_write_leaves_nothing_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"

    class Boom(str):
        def encode(self, *a, **k):  # type: ignore[override]
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(target, Boom("x"))
    assert list(tmp_path.iterdir()) == []
    atomic_write(target, "ok")
    assert target.read_text() == "ok"
    with pytest.raises(InputError, match="does not exist"):
        atomic_write(tmp_path / "no" / "x.txt", "x")


def test_to_json_is_strict(tmp_path: Path) -> None:
    text = to_json({"a": float("nan"), "b": np.float32(1.5), "c": np.arange(2)})
    assert json.loads(text) == {"a": None, "b": 1.5, "c": [0, 1]}
    emit(text, tmp_path / "o.json")
    assert json.loads((tmp_path / "o.json").read_text())["b"] == 1.5


def test_targets_name_every_selector() -> None:
    """``--targets`` parts: ``top`` is ``V_k``; every other selector goes by its method name."""
    spec = parse_targets("top:2+rarity:3+rare:1+loglik:1+random:2+rows:4,7", k=3)
    assert [p.method for p in spec.parts] == [
        "distance",
        "rarity",
        "rare",
        "loglik",
        "random",
        "rows",
    ]
    assert spec.k == 3
    with pytest.raises(InputError, match="rarity:N"):
        parse_targets("rarity")


def test_data_notes_quote_no_record_value_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Notes about the data name columns and count records; the values they are about (here
    real control incomes outside the original's range) appear only with --show-records."""
    import pandas as pd

    from synthleak.cli.common import flush_notes, load_cli_tables

    rng = np.random.default_rng(0)
    ori = pd.DataFrame({"income": rng.integers(100, 1000, 500), "g": rng.choice(["a", "b"], 500)})
    ctl = ori.head(100).copy()
    ctl.loc[:9, "income"] = [1700, 1500] * 5
    paths = {}
    for name, df in (("original", ori), ("control", ctl)):
        paths[name] = str(tmp_path / f"{name}.csv")
        df.to_csv(paths[name], index=False)
    for show, expect in ((False, False), (True, True)):
        load_cli_tables(paths, continuous="income", show_values=show)
        flush_notes()
        err = capsys.readouterr().err
        assert "'income'" in err and "(10)" in err  # the column and the count, always
        assert ("1700" in err) is expect and ("1500" in err) is expect


def test_parts_are_checked_before_any_is_read_and_read_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing control fails before the original is read; the parts are then read in turn,
    and the audit's are kept compact with the same encoding."""
    import pandas as pd

    import synthleak.data.io as io
    from synthleak.cli.common import read_cli_parts

    rng = np.random.default_rng(1)
    df = pd.DataFrame({"n": rng.integers(0, 50, 300), "g": rng.choice(["x", "y", "z"], 300)})
    paths = {"original": str(tmp_path / "o.csv"), "control": str(tmp_path / "c.csv")}
    df.to_csv(paths["original"], index=False)
    read: list[str] = []
    real = io.read_frame

    def spy(src, **kw):  # type: ignore[no-untyped-def]
        read.append(Path(src).name)
        return real(src, **kw)

    monkeypatch.setattr(io, "read_frame", spy)
    with pytest.raises(InputError, match=r"c\.csv does not exist"):
        read_cli_parts(paths)
    assert read == []
    df.head(100).to_csv(paths["control"], index=False)
    plain = read_cli_parts(paths)
    small = read_cli_parts(paths, compact=True)
    assert read == ["o.csv", "c.csv"] * 2
    assert isinstance(small.frames["control"]["g"].dtype, pd.CategoricalDtype)
    assert small.frames["original"]["n"].dtype == np.int8
    assert all(small.tables[k].equals(plain.tables[k]) for k in paths)


def test_a_stray_value_names_the_file_and_the_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pandas as pd

    from synthleak.cli.main import main

    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 90, 60),
            "sex": rng.choice(["F", "M"], 60),
            "pay": rng.choice(["lo", "hi"], 60),
        }
    )
    df.to_csv(tmp_path / "o.csv", index=False)
    bad = df.astype({"age": object})
    bad.loc[7, "age"] = "4O"
    bad.to_csv(tmp_path / "s.csv", index=False)
    for original, synthetic, named in (("o", "s", "synthetic"), ("s", "o", "original")):
        args = ["--original", str(tmp_path / f"{original}.csv")]
        args += ["--synthetic", str(tmp_path / f"{synthetic}.csv")]
        assert main(["utility", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "Traceback" not in err
        assert f"the {named} data ({tmp_path / 's.csv'}): column 'age'" in err
        assert "row(s) 7, 0-based" in err and "--na-values" in err and "--special-values" in err
    assert main(["utility", *args, "--categorical", "age"]) == 0
    err = capsys.readouterr().err  # the note on the declared column names the flag
    assert "pass them in --na-values" in err and "na_values" not in err.replace("--na-values", "")


@pytest.mark.parametrize(
    "command",
    ["audit", "mia", "aia", "singling-out", "linkability", "riskmap", "vulnerable", "generate"],
)
def test_every_command_that_reads_data_takes_special_values(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from synthleak.cli.main import main

    assert main([command, "--help"]) == 0
    assert "--special-values" in capsys.readouterr().out
