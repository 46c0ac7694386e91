"""Options and helpers shared by every command: data loading, output formats, atomic output.

This module (like every command module) imports no numerical library at import time: the
command line must start fast (``synthleak --help``). Heavy imports happen inside functions.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from synthleak.errors import InputError
from synthleak.modes import Neighbouring, ToleranceKind

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from synthleak.data.io import EncodedFrames, LoadedData
    from synthleak.data.schema import Schema
    from synthleak.data.table import Table
    from synthleak.games.targets import Targets
    from synthleak.runtime.context import Runtime


class OutputFormat(str, Enum):
    """Output formats of the commands that also write one CSV line per record."""

    TABLE = "table"
    JSON = "json"
    CSV = "csv"


class TextFormat(str, Enum):
    """Output formats of the commands whose result is one document: a table or its JSON."""

    TABLE = "table"
    JSON = "json"


# --- reusable option declarations ----------------------------------------------------------
FormatOpt = Annotated[TextFormat, typer.Option("--format", help="Output format: table or json.")]
RowsFormatOpt = Annotated[
    OutputFormat, typer.Option("--format", help="Output format: table, json or csv.")
]
CategoricalOpt = Annotated[
    str | None,
    typer.Option("--categorical", help="Comma-separated columns to treat as categorical."),
]
ContinuousOpt = Annotated[
    str | None, typer.Option("--continuous", help="Comma-separated columns to treat as continuous.")
]
SchemaOpt = Annotated[
    Path | None,
    typer.Option("--schema", help="Schema JSON file (as written by 'synthleak schema')."),
]
NaValuesOpt = Annotated[
    str | None,
    typer.Option("--na-values", help="Comma-separated strings read as missing (e.g. '?,N')."),
]
SpecialValuesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--special-values",
        help="COLUMN=CODE[,CODE...]: codes of a numeric column that are not numbers (e.g. "
        "'age=-8' for 'not applicable'), each kept as its own category beside the numbers; "
        "repeat for several columns.",
    ),
]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed; same seed, same result.")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Write the output to this file.")]
WorkersOpt = Annotated[int, typer.Option("--workers", help="Local worker processes.")]
ClusterOpt = Annotated[
    str | None, typer.Option("--cluster", help="Dask scheduler address, e.g. tcp://host:8786.")
]
RunDirOpt = Annotated[Path | None, typer.Option("--run-dir", help="Resumable run directory.")]


def split_list(value: str | None) -> list[str]:
    """Parse a comma-separated option into a list of stripped, non-empty items."""
    if value is None:
        return []
    return [v.strip() for v in value.split(",") if v.strip()]


KeepOpt = Annotated[
    str | None,
    typer.Option(
        "--keep",
        help="Comma-separated columns to analyse although they look like identifiers or free "
        "text (left out by default, with a note).",
    ),
]


_NOTES: list[str] = []


def warn_data(
    warnings: Any, suggested_na_values: Sequence[str] = (), *, show_values: bool = False
) -> None:
    """Keep the data layer's warnings for the end of a successful command (:func:`flush_notes`):
    a command that fails on bad input prints its one-line error and nothing else.

    The notes name columns and count records; data values held by fewer than
    :data:`synthleak.data.profile.MIN_SHARED` records appear only with ``show_values``
    (``--show-records``), and ``suggested_na_values`` should then be the shared ones only.
    """
    for w in warnings:
        text = flag_message(InputError(w.text(show_values)))  # API parameters become flags
        if text not in _NOTES:
            _NOTES.append(text)
    if suggested_na_values:
        tokens = ",".join(suggested_na_values)
        _NOTES.append(
            f"numbers are stored as text with markers {tokens}: read the data with "
            f"--na-values {tokens}"
        )


def note_inferred_domain(
    generator: Any, spec: str, schema: Path | None, *, game: bool = False
) -> None:
    """Note, for the end of the command, that a generator claiming differential privacy takes
    its domain from the private data (:func:`synthleak.generators.base.domain_note`; no
    ``--schema``, or the library's own doing; ``game``: in a shadow-model game)."""
    from synthleak.generators.base import domain_note

    note = domain_note(generator, spec, inferred=schema is None, game=game)
    if note is not None and note not in _NOTES:
        _NOTES.append(note)


def flush_notes(*, show: bool = True) -> None:
    """Print the pending data notes on stderr (one line each) and forget them."""
    if show:
        for note in _NOTES:
            sys.stderr.write(f"synthleak: note: {note}\n")
    _NOTES.clear()


def load_cli_data(
    source: str,
    *,
    categorical: str | None = None,
    continuous: str | None = None,
    schema: Path | None = None,
    na_values: str | None = None,
    keep: str | None = None,
    min_rows: int = 1,
    special_values: Sequence[str] | None = None,
) -> LoadedData:
    """Load a data argument with the common override options; print its warnings."""
    from synthleak.data.io import load_data

    loaded = load_data(
        source,
        categorical=split_list(categorical),
        continuous=split_list(continuous),
        keep=split_list(keep),
        schema=schema,
        na_values=split_list(na_values),
        min_rows=min_rows,
        special_values=special_values,
    )
    if loaded.profile is not None:
        warn_data(loaded.profile.warnings, loaded.profile.shared_na_values)
    return loaded


def make_rng(seed: int) -> np.random.Generator:
    """The one place the CLI turns ``--seed`` into a generator."""
    import numpy as np

    return np.random.default_rng(seed)


def check_out_path(path: Path) -> None:
    """Fail with a one-line InputError unless ``--out`` names a file in an existing folder.

    Commands with long runs call it before any work, so a bad path fails fast.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"--out {path} is a directory: give a file path")
    if not path.absolute().parent.is_dir():
        raise InputError(f"the folder {path.parent} of --out does not exist: create it first")
    check_writable(path.absolute().parent, "--out")


def check_writable(folder: Path, flag: str) -> None:
    """Fail with a one-line InputError unless a file can be created in ``folder`` (probed)."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".synthleak-probe-")
    except OSError as exc:
        raise InputError(
            f"cannot write into {folder} for {flag} ({exc.strerror or exc}): choose a folder "
            "you can write to"
        ) from None
    os.close(fd)
    Path(probe).unlink(missing_ok=True)


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, so a failure leaves nothing behind."""
    path = Path(path)
    check_out_path(path)
    parent = path.absolute().parent
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def emit(text: str, out: Path | None) -> None:
    """Print ``text`` or write it atomically to ``out``."""
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        atomic_write(out, text if text.endswith("\n") else text + "\n")


def to_json(obj: Any) -> str:
    """Strict JSON: NaN written as null, numpy values converted."""
    from synthleak.serde import jsonable

    return json.dumps(jsonable(obj), indent=2, allow_nan=False)


def read_cli_parts(
    sources: dict[str, str | None],
    *,
    categorical: str | None = None,
    continuous: str | None = None,
    schema: Path | None = None,
    na_values: str | None = None,
    keep: str | None = None,
    min_rows: int = 1,
    show_values: bool = False,
    compact: bool = False,
    special_values: Sequence[str] | None = None,
) -> EncodedFrames:
    """Read several data arguments that must share one schema (the first is the reference),
    one after the other; see :func:`synthleak.data.io.encode_frames` (``compact``: keep each
    part in :func:`~synthleak.data.io.compact_frame` form once it has been profiled). Every path
    is checked before the first is read. Prints the profile and domain warnings, with the data
    values they are about only when ``show_values`` (``--show-records``)."""
    from synthleak.data.io import check_source, encode_frames, read_frame

    given = {name: src for name, src in sources.items() if src is not None}
    for src in given.values():
        check_source(src)

    def reader(name: str, src: str) -> Callable[[], pd.DataFrame]:
        def read() -> pd.DataFrame:
            df = read_frame(src, na_values=split_list(na_values))
            if len(df) < min_rows:
                raise InputError(
                    f"the {name} data has {len(df)} record(s) but at least {min_rows} are needed"
                )
            return df

        return read

    enc = encode_frames(
        {name: reader(name, src) for name, src in given.items()},
        categorical=split_list(categorical),
        continuous=split_list(continuous),
        keep=split_list(keep),
        schema=schema,
        compact=compact,
        special_values=special_values,
    )
    na = enc.profile.suggested_na_values if show_values else enc.profile.shared_na_values
    warn_data(enc.warnings, na, show_values=show_values)
    return enc


def load_cli_tables(
    sources: dict[str, str | None], **options: Any
) -> tuple[Schema, dict[str, LoadedData]]:
    """:func:`read_cli_parts` (same options), as the schema and one
    :class:`~synthleak.data.io.LoadedData` per part."""
    from synthleak.data.io import LoadedData

    enc = read_cli_parts(sources, **options)
    return enc.schema, {
        name: LoadedData(frame, enc.schema, enc.tables[name], enc.profile)
        for name, frame in enc.frames.items()
    }


def parse_targets(text: str, *, k: int = 5) -> Targets:
    """``--targets``: ``top:N`` or ``distance:N`` (V_k; ``distance`` as in ``audit
    --selector``), ``rare:N``, ``loglik:N``, ``rarity:N``, ``random:N`` or ``rows:i,j``, several
    joined with ``+`` (``top:10+random:5``)."""
    from synthleak.games.targets import Targets

    out: Targets | None = None
    for part in (p.strip() for p in text.split("+")):
        method, sep, arg = part.partition(":")
        method = method.strip().lower()
        if not sep or not arg.strip():
            raise InputError(
                f"--targets {part!r}: use top:N (or distance:N), rare:N, loglik:N, rarity:N, "
                "random:N or rows:i,j"
            )
        if method == "rows":
            try:
                rows = [int(v) for v in arg.split(",") if v.strip()]
            except ValueError:
                raise InputError(
                    f"--targets rows {arg!r} are not whole numbers: give rows:i,j"
                ) from None
            piece = Targets.rows(rows)
        else:
            name = "distance" if method == "top" else method
            try:
                count = int(arg)
            except ValueError:
                raise InputError(f"--targets {part!r}: N must be a whole number") from None
            piece = Targets.top(count, name, k=k)
        out = piece if out is None else out + piece
    if out is None:
        raise InputError("--targets is empty: give e.g. top:10")
    return Targets(out.parts, k)


def split_screen_targets(text: str) -> tuple[int, str]:
    """``--targets`` minus its ``screen:N`` parts: (total N, the other parts joined by '+')."""
    n, rest = 0, []
    for part in (p.strip() for p in text.split("+")):
        method, _, arg = part.partition(":")
        if method.strip().lower() != "screen":
            rest.append(part)
            continue
        try:
            count = int(arg)
        except ValueError:
            raise InputError(f"--targets {part!r}: N must be a whole number") from None
        if count < 1:
            raise InputError(f"--targets {part!r}: N must be at least 1")
        n += count
    return n, "+".join(rest)


def screen_targets(
    table: Table,
    generator: str,
    n: int,
    *,
    rest: Targets | None,
    k: int,
    seed: int,
    runtime: Runtime,
    train_size: int,
) -> Targets:
    """``screen:N`` of ``--targets``: the two-stage audit's stage 1 picks ``n`` targets.

    Screens the records the audit would (:func:`synthleak.games.twostage.screen_design`: the
    ``max(50, 10 n)`` rarest by cell rarity, at most half the data, on 100 shadow and 100 test
    datasets) with
    :func:`synthleak.games.twostage.screened_targets`, then joins the other parts.
    """
    from synthleak.games.targets import Targets
    from synthleak.games.twostage import screen_design, screened_targets

    half = max(2, min(int(train_size), len(table) // 3))
    screened = screened_targets(
        table,
        generator,
        n,
        seed=seed,
        runtime=runtime.sub("screen"),
        train_size=half,
        **screen_design(n, len(table) // 2),
    )
    joined = screened if rest is None else screened + rest
    return Targets(joined.parts, k)


def make_runtime(
    *, workers: int, cluster: Any = None, run_dir: Path | None = None, start: bool = True
) -> Runtime:
    """The :class:`~synthleak.runtime.Runtime` of ``--workers/--cluster/--run-dir``
    (progress on), its local workers started at once (:meth:`~synthleak.runtime.Runtime.
    start`: they import the library while the command reads its inputs) unless ``start`` is
    false (a command that connects to ``--cluster`` next).
    """
    from synthleak.runtime.context import Runtime

    if isinstance(workers, bool) or workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    runtime = Runtime(workers=workers, cluster=cluster, run_dir=run_dir, progress=True)
    return runtime.start() if start else runtime


#: API parameter -> command-line flag: one vocabulary (README, "One CLI vocabulary").
API_FLAGS: dict[str, str] = {
    "train_size": "--train-size",
    "synthetic_size": "--synthetic-size",
    "n_shadows": "--shadows",
    "n_tests": "--tests",
    "aux_size": "--aux-size",
    "test_size": "--test-size",
    "n_queries": "--n-queries",
    "n_estimators": "--n-trees",
    "n_boot": "--n-boot",
    "batch_size": "--batch-size",
    "n_attacks": "--n-attacks",
    "n_games": "--n-games",
    "n_cols": "--n-cols",
    "n_neighbors": "--n-neighbours",
    "quasi_ids": "--quasi-ids",
    "generator_specs": "--generator",
    "aux_a": "--aux-a",
    "aux_b": "--aux-b",
    "na_values": "--na-values",
    "special_values": "--special-values",
    "claimed_epsilon": "--claimed-epsilon",
    "fail_on": "--fail-on",
    "max_time": "--max-time",
    "query_mode": "--query-mode",
    "control_fraction": "--control-fraction",
    "run_dir": "--run-dir",
    "attacks": "--attacks",
    "targets": "--targets",
    "n_targets": "--n-targets",
    "secret": "--secret",
    "secret_tolerance": "--secret-tolerance",
    "tolerance_kind": "--tolerance-kind",
    "secret_bins": "--secret-bins",
    "generator": "--generator",
    "population": "--population",
    "workers": "--workers",
    "pool": "--pool",
    "budget": "--budget",
    "keep": "--keep",
    "rows": "--rows",
    "root": "--root",
    "shadow_releases": "--shadow-releases",
}


def flag_message(exc: InputError) -> str:
    """The message of an API error in the command line's words (parameters become flags).

    Snake-case parameter names are translated wherever they appear; a plain-word parameter only
    when the error names it (:attr:`InputError.parameter`), at the start of the message.
    """
    import re

    msg = str(exc)
    snake = [k for k in API_FLAGS if "_" in k]
    msg = re.sub(
        r"(?<![\w-])(" + "|".join(map(re.escape, snake)) + r")(?![\w-])",
        lambda m: API_FLAGS[m.group(1)],
        msg,
    )
    param = getattr(exc, "parameter", None)
    if param in API_FLAGS and "_" not in param and msg.startswith(param):
        msg = API_FLAGS[param] + msg[len(param) :]
    return msg


# --- pass/fail policies ------------------------------------------------------------------------
FailOnOpt = Annotated[
    str | None,
    typer.Option(
        "--fail-on",
        help="Checks that fail the release, comma-separated, e.g. "
        "'membership.nobox.auc>0.6,singling_out.risk>0.05,linkability.risk>0.05' (exit code 3 "
        "on failure). A check on a metric the audit did not measure fails too: membership.auc "
        "and epsilon.* need --generator, attribute.* --secret (the README lists the metrics).",
    ),
]
PolicyOpt = Annotated[
    Path | None, typer.Option("--policy", help="TOML policy file (checks and options).")
]
JunitOpt = Annotated[
    Path | None, typer.Option("--junit", help="Write the policy's checks as JUnit XML to FILE.")
]


def load_cli_policy(fail_on: str | None, policy: Path | None, junit: Path | None) -> Any:
    """The policy of ``--fail-on``/``--policy`` (``None`` without either), checked before
    any work.
    """
    from synthleak.policy import load_policy, parse_fail_on

    if fail_on is not None and policy is not None:
        raise InputError("give either --fail-on or --policy, not both")
    if junit is not None:
        if fail_on is None and policy is None:
            raise InputError("--junit writes the checks of a policy: give --fail-on or --policy")
        check_out_path(junit)
    if policy is not None:
        return load_policy(policy)
    if fail_on is not None:
        return parse_fail_on(fail_on, name="--fail-on")
    return None


def report_policy(outcome: Any, junit: Path | None) -> None:
    """Print a policy outcome (one short block on stderr) and write its JUnit XML."""
    if outcome is None:
        return
    sys.stderr.write(outcome.to_text() + "\n")
    if junit is not None:
        atomic_write(junit, outcome.to_junit_xml())


def exit_for_policy(outcome: Any) -> None:
    """Exit with code 3 when the release failed its policy (after every output is written)."""
    if outcome is not None and not outcome.passed:
        raise typer.Exit(outcome.exit_code)


# --- differential-privacy claims ---------------------------------------------------------------
ClaimedEpsilonOpt = Annotated[
    float | None,
    typer.Option(
        "--claimed-epsilon",
        help="The epsilon the generator claims (default: what the generator declares); the "
        "membership game's empirical epsilon is checked against it.",
    ),
]
DeltaOpt = Annotated[
    float, typer.Option("--delta", help="The claim's delta (0 for pure differential privacy).")
]


NeighbouringOpt = Annotated[
    Neighbouring,
    typer.Option(
        "--neighbouring",
        help="The claim's neighbouring datasets: one record added or removed (add_remove, the "
        "conservative reading) or one record replaced (substitute).",
    ),
]


MaxTimeOpt = Annotated[
    float | None,
    typer.Option(
        "--max-time",
        help="Wall-time limit in seconds for the shadow-model game: the numbers of shadow and "
        "test datasets are chosen to fit it (after a short measured pilot, whose time counts). "
        "In an audit, a two-stage screen that would take more than a third of it, or leave no "
        "time for the smallest useful game, is not run (targets by cell rarity), and the "
        "attribute-inference game plays the games that fit a quarter of it; mia's --targets "
        "screen:N runs before the game, outside the limit.",
    ),
]


# --- the data roles and sizes every command names the same way ---------------------------------
DATA_HELP = "CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete' (the bundled UCI Adult)."
OriginalOpt = Annotated[
    str | None,
    typer.Option(
        "--original",
        help="The real records the release was made from (CSV, CSV.GZ, Parquet or "
        "'adult'/'adult-complete').",
    ),
]
SyntheticOpt = Annotated[
    str | None, typer.Option("--synthetic", help="The released synthetic data.")
]
ControlOpt = Annotated[
    str | None,
    typer.Option(
        "--control", help="Real records of the same population that the generator never saw."
    ),
]
SecretOpt = Annotated[
    str | None,
    typer.Option(
        "--secret",
        help="The secret column the attacker infers; all sweeps every column of a release.",
    ),
]
SecretToleranceOpt = Annotated[
    float | None,
    typer.Option(
        "--secret-tolerance",
        help="Numeric secret: a guess within this of the true value counts as right (see "
        "--tolerance-kind).",
    ),
]
ToleranceKindOpt = Annotated[
    ToleranceKind,
    typer.Option(
        "--tolerance-kind",
        help="absolute: within the tolerance; relative: within tolerance x |true value| "
        "(0.1 = 10 %).",
    ),
]
SecretBinsOpt = Annotated[
    int | None,
    typer.Option(
        "--secret-bins",
        help="Numeric secret: a guess is right when it names the right one of this many "
        "quantile bins.",
    ),
]


def secret_rule(
    tolerance: float | None, kind: ToleranceKind, bins: int | None, *, secret: str | None
) -> Any:
    """The :class:`~synthleak.games.secret.SecretRule` of ``--secret-tolerance``,
    ``--tolerance-kind`` and ``--secret-bins`` (``None`` without either)."""
    if tolerance is None and bins is None:
        return None
    if secret is None:
        raise InputError("--secret-tolerance and --secret-bins need --secret (the numeric column)")
    from synthleak.games.secret import SecretRule

    return SecretRule(tolerance=tolerance, kind=kind, bins=bins)


QuasiIdsOpt = Annotated[
    str | None,
    typer.Option(
        "--quasi-ids",
        help="Comma-separated columns the attacker knows (default: every other column).",
    ),
]
_TRAIN_SIZE_HELP = "Training records per generator fit (|D|)."
TrainSizeOpt = Annotated[int | None, typer.Option("--train-size", help=_TRAIN_SIZE_HELP)]
"""``--train-size`` that may be left out (``generate``: then all of DATA)."""
GameTrainSizeOpt = Annotated[int, typer.Option("--train-size", help=_TRAIN_SIZE_HELP)]
"""``--train-size`` of a privacy game, which always has one (give its default)."""
SyntheticSizeOpt = Annotated[
    str | None,
    typer.Option(
        "--synthetic-size",
        help="Synthetic records released per fit (|D^s|); comma-separated values run a sweep "
        "where the command offers one.",
    ),
]
ShadowReleasesOpt = Annotated[
    Path | None,
    typer.Option(
        "--shadow-releases",
        help="Folder of shadow releases of the release's generator, one sub-folder each "
        "(training.csv + release.csv, or MIDST's train_with_id.csv + trans_synthetic.csv): "
        "attack the release itself with an attack learned from them.",
    ),
]
RelationalOpt = Annotated[
    Path | None,
    typer.Option(
        "--relational",
        help="SDV multi-table metadata (JSON), or the tables' keys as "
        "'person(pid) visit(vid, pid->person)' (each table's primary key, '-' for none, then "
        "its foreign keys as COLUMN->PARENT): the release is relational, and --original, "
        "--synthetic and --control are folders of one CSV/Parquet file per table. The "
        "command then measures persons (a root row with their child rows).",
    ),
]
RootOpt = Annotated[
    str | None,
    typer.Option(
        "--root",
        help="With --relational: the table of persons, when the metadata has several root tables.",
    ),
]


def refuse_single_table_flags(flags: dict[str, Any]) -> None:
    """With ``--relational``: ``flags`` maps the command's flags that describe one table to
    their values; any one given is an error (the metadata describes the tables)."""
    if any(v is not None for v in flags.values()):
        names = list(flags)
        named = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
        raise InputError(
            f"{named} describe{'' if len(names) > 1 else 's'} one table: with --relational the "
            "metadata describes the tables, so leave them out"
        )


def option_given(ctx: typer.Context, name: str) -> bool:
    """Whether the option of parameter ``name`` was given on the command line (not its
    default)."""
    src = ctx.get_parameter_source(name)
    return src is not None and src.name not in ("DEFAULT", "DEFAULT_MAP")


def refuse_given(
    ctx: typer.Context, flags: Sequence[tuple[str, str]], form: str, *, data: object = None
) -> None:
    """One line naming the options of ``flags`` (flag, parameter name) given, and DATA when
    ``data`` is not ``None``, which ``form`` (a command's form, in words) does not take."""
    wrong = (["DATA"] if data is not None else []) + [f for f, n in flags if option_given(ctx, n)]
    if wrong:
        raise InputError(f"{', '.join(wrong)} do not apply to {form}: drop them")


def refuse_root_alone(root: str | None) -> None:
    """Without ``--relational``: ``--root`` names nothing, and is an error."""
    if root is not None:
        raise InputError("--root names the table of persons of --relational: leave it out")


def refuse_relational_spec(generator: str) -> None:
    """Without ``--relational``: a generator spec that only names a relational generator
    (``sdv:hma``) is an error naming what to give."""
    from synthleak.generators.base import parse_spec
    from synthleak.generators.relational import make_relational_generator

    try:
        if parse_spec(generator)[0] in ("python", "command"):
            return  # single-table or relational: --relational decides
        make_relational_generator(generator)
    except InputError:
        return  # not a relational spec: the single-table registry judges it
    raise InputError(
        f"--generator {generator!r} is a relational generator: give --relational "
        "METADATA.json with DATA a folder of one file per table"
    )


def load_relational_parts(
    metadata: Path, folders: dict[str, str | None], *, na_values: str | None
) -> dict[str, Any]:
    """``--relational METADATA.json``: each part given (``folders``: role to folder, ``None``
    for a part not given) read as a folder of one file per table
    (:func:`synthleak.data.relational.load_relational`) with the metadata's schema, and
    validated (a missing table, an orphaned foreign key, a key that is not unique are one
    :class:`~synthleak.errors.InputError`); the
    :class:`~synthleak.data.relational.RelationalData` of each part, by role."""
    from synthleak.data.relational import RelationalSchema, load_relational

    text = str(metadata)
    if metadata.is_file() or metadata.suffix.lower() == ".json":
        sch = RelationalSchema.from_sdv(metadata)
    elif "(" in text:  # keys on the command line
        sch = RelationalSchema.from_keys(text)
    else:
        raise InputError(
            f"--relational {text}: no such metadata file; give SDV multi-table metadata (JSON) "
            "or the tables' keys, such as 'person(pid) visit(vid, pid->person)'"
        )
    na = tuple(split_list(na_values))
    return {k: load_relational(v, sch, na_values=na) for k, v in folders.items() if v}


#: ``--shadows``: one meaning in every command, the shadows the attacker trains.
SHADOWS_HELP = (
    "Shadows the attacker trains: the shadow datasets of the black-box game, or, with "
    "--synthetic and --generator (no --shadow-releases), the shadow releases the generator makes "
    "from half the control records to attack the release (default 8 there)."
)
#: ``--n-targets``: one meaning in every command, the targets the attack is scored on.
N_TARGETS_HELP = (
    "Targets attacked: in aia's release audit, training records (default all; as many control "
    "records at most); in riskmap --relational, persons drawn at random (default 10; fewer "
    "than a third of the persons)."
)
NTargetsOpt = Annotated[int | None, typer.Option("--n-targets", help=N_TARGETS_HELP)]
KOpt = Annotated[int, typer.Option("--k", help="Neighbours of the vulnerability score V_k.")]
NQueriesOpt = Annotated[
    int | None,
    typer.Option(
        "--n-queries",
        help="Counting queries the query-based attack uses (a random subset of all of them).",
    ),
]
BatchSizeOpt = Annotated[int, typer.Option("--batch-size", help="Datasets per work unit.")]


def parse_sizes(value: str | None, option: str, *, default: list[int], single: bool) -> list[int]:
    """``--synthetic-size``: comma-separated whole numbers; ``single`` commands take one."""
    if value is None:
        return list(default)
    try:
        sizes = [int(v) for v in split_list(value)]
    except ValueError:
        raise InputError(
            f"{option} takes comma-separated whole numbers such as 1000,100000, got {value!r}"
        ) from None
    if not sizes:
        raise InputError(f"{option} needs at least one value")
    if single and len(sizes) > 1:
        raise InputError(
            f"{option} takes one value here (this command runs one size), got {value!r}"
        )
    return sizes
