"""Relational generators: ``sdv:hma``, ``python:`` and ``command:`` on linked tables."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak.data.relational import RelationalData, RelationalSchema
from synthleak.errors import GeneratorFailure, InputError, NotFittedError
from synthleak.generators.relational import (
    CommandRelationalGenerator,
    HMAGenerator,
    PythonRelationalGenerator,
    RelationalGenerator,
    make_relational_generator,
    sdv_multi_table_metadata,
)
from synthleak.testing.contract import check_parameters

SCHEMA = RelationalSchema.build(
    {"person": "pid", "visit": "vid"},
    [("visit", "pid", "person")],
    categorical={"person": ["region"]},
)


def data(n: int = 40, seed: int = 0) -> RelationalData:
    rng = np.random.default_rng(seed)
    pid = np.arange(n)
    person = pd.DataFrame(
        {"pid": pid, "age": rng.integers(18, 90, n), "region": rng.choice(list("ab"), n)}
    )
    owner = np.repeat(pid, rng.integers(1, 4, n))
    visit = pd.DataFrame(
        {
            "vid": np.arange(len(owner)),
            "pid": owner,
            "kind": rng.choice(["x", "y"], len(owner)),
            "cost": np.round(rng.normal(10, 2, len(owner)), 2),
        }
    )
    return RelationalData(SCHEMA, {"person": person, "visit": visit}).validate()


USER_MODULE = textwrap.dedent(
    """
    import numpy as np
    from synthleak.data.relational import RelationalData

    class Resampler:
        '''Protocol class: draws persons with replacement, new keys, whole histories.'''
        def __init__(self, orphan=False):
            self.orphan = orphan
        def fit(self, data, *, rng):
            self.data = data
            return self
        def sample(self, n, *, rng):
            p = self.data.frames["person"]
            v = self.data.frames["visit"]
            rows = rng.integers(0, len(p), n)
            person = p.iloc[rows].copy()
            person["pid"] = np.arange(n)
            parts = []
            for new, old in enumerate(p["pid"].to_numpy()[rows]):
                part = v[v["pid"] == old].copy()
                part["pid"] = new + (10_000 if self.orphan else 0)
                parts.append(part)
            import pandas as pd
            visit = pd.concat(parts, ignore_index=True)
            visit["vid"] = np.arange(len(visit))
            return RelationalData(self.data.schema, {"person": person, "visit": visit})

    class FrameDict:
        '''Frame-dictionary class: the first n persons, drawn with the global RNG.'''
        def fit(self, frames):
            self.frames = frames
        def sample(self, n):
            p = self.frames["person"]
            keys = np.random.choice(p["pid"].to_numpy(), n, replace=False)
            v = self.frames["visit"]
            return {"person": p[p["pid"].isin(keys)], "visit": v[v["pid"].isin(keys)]}
    """
)

COPY_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    import pandas as pd
    inp, out, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    meta = json.loads((inp / "metadata.json").read_text())
    person = pd.read_csv(inp / "person.csv").head(n)
    visit = pd.read_csv(inp / "visit.csv")
    person.to_csv(out / "person.csv", index=False)
    visit[visit["pid"].isin(person["pid"])].to_csv(out / "visit.csv", index=False)
    assert set(meta["tables"]) == {"person", "visit"}
    """
)


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"user_relgens_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_python_protocol_class(user_module: str) -> None:
    gen = make_relational_generator(f"python:{user_module}:Resampler")
    assert isinstance(gen, PythonRelationalGenerator) and isinstance(gen, RelationalGenerator)
    gen.fit(data(), rng=np.random.default_rng(0))
    a = gen.sample(25, rng=np.random.default_rng(1))
    b = gen.sample(25, rng=np.random.default_rng(1))
    assert len(a.frames["person"]) == 25
    assert a.frames["visit"].equals(b.frames["visit"])
    assert len(gen.sample_like(rng=np.random.default_rng(2)).frames["person"]) == 40


def test_python_frame_dict_class_is_seeded(user_module: str) -> None:
    gen = make_relational_generator(f"python:{user_module}:FrameDict")
    gen.fit(data(), rng=np.random.default_rng(0))
    a = gen.sample(10, rng=np.random.default_rng(4))
    b = gen.sample(10, rng=np.random.default_rng(4))
    assert a.frames["person"].equals(b.frames["person"])
    assert len(a.frames["person"]) == 10


def test_python_orphaned_release_is_a_failure(user_module: str) -> None:
    gen = make_relational_generator(f"python:{user_module}:Resampler,orphan=true")
    gen.fit(data(), rng=np.random.default_rng(0))
    with pytest.raises(GeneratorFailure, match="orphaned"):
        gen.sample(5, rng=np.random.default_rng(0))


def test_python_unknown_keyword(user_module: str) -> None:
    with pytest.raises(InputError, match="takes no keyword"):
        make_relational_generator(f"python:{user_module}:Resampler,bogus=1")


def test_command_reads_a_folder_of_tables(tmp_path: Path) -> None:
    script = tmp_path / "relcopy.py"
    script.write_text(COPY_SCRIPT)
    gen = make_relational_generator(
        f'command:"{sys.executable} {script} {{input}} {{output}} {{n}}"'
    )
    assert isinstance(gen, CommandRelationalGenerator)
    out = gen.fit(data(), rng=np.random.default_rng(0)).sample(12, rng=np.random.default_rng(0))
    assert out.frames["person"]["pid"].tolist() == list(range(12))
    assert out.frames["person"]["region"].dtype.kind == "O"  # text read back as text
    with pytest.raises(GeneratorFailure, match="released 40 person"):
        bad = make_relational_generator(
            f'command:"{sys.executable} {script} {{input}} {{output}} 40"'
        )
        bad.fit(data(), rng=np.random.default_rng(0)).sample(12, rng=np.random.default_rng(0))


def test_command_failure_and_placeholders(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no \{output\} placeholder"):
        make_relational_generator('command:"prog {input}"')
    gen = make_relational_generator(f'command:"{sys.executable} -c 1 {{input}} {{output}}"')
    gen.fit(data(), rng=np.random.default_rng(0))
    with pytest.raises(GeneratorFailure, match="wrote no table"):
        gen.sample(3, rng=np.random.default_rng(0))


def test_sample_checks() -> None:
    gen = make_relational_generator('command:"p {input} {output}"')
    with pytest.raises(NotFittedError):
        gen.sample(3, rng=np.random.default_rng(0))
    gen.fit(data(), rng=np.random.default_rng(0))
    with pytest.raises(InputError, match="cannot sample 0 persons"):
        gen.sample(0, rng=np.random.default_rng(0))


def test_unknown_spec() -> None:
    with pytest.raises(InputError, match="unknown relational generator"):
        make_relational_generator("baynet:k=2")
    with pytest.raises(InputError, match="no parameter"):
        make_relational_generator("sdv:hma:epochs=3")


def test_declared_constraints(user_module: str) -> None:
    def fit(g: object) -> None:
        g.fit(data(), rng=np.random.default_rng(0))  # type: ignore[attr-defined]

    check_parameters(HMAGenerator(), "sdv:hma", fit)
    check_parameters(make_relational_generator('command:"p {input} {output}"'), "command", fit)
    check_parameters(make_relational_generator(f"python:{user_module}:Resampler"), "python", fit)


def test_sdv_metadata_of_the_schema() -> None:
    meta = sdv_multi_table_metadata(data())
    assert meta["tables"]["person"]["primary_key"] == "pid"
    assert meta["tables"]["visit"]["columns"]["pid"] == {"sdtype": "id"}
    assert meta["tables"]["person"]["columns"]["region"]["sdtype"] == "categorical"
    assert meta["tables"]["visit"]["columns"]["cost"]["sdtype"] == "numerical"
    assert meta["relationships"][0]["child_foreign_key"] == "pid"


def test_hma_tiny() -> None:
    pytest.importorskip("sdv")
    gen = make_relational_generator("sdv:hma").fit(data(30), rng=np.random.default_rng(0))
    a = gen.sample(20, rng=np.random.default_rng(1))
    b = gen.sample(20, rng=np.random.default_rng(1))
    assert len(a.frames["person"]) == 20
    assert a.frames["visit"].equals(b.frames["visit"])  # the seed gives one release
    assert set(a.frames["visit"]["pid"]) <= set(a.frames["person"]["pid"])
