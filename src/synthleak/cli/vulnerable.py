"""``synthleak vulnerable``: rank the records of a dataset by vulnerability.

``synthleak vulnerable DATA [--k 5] [--metric cosine|minkowski] [--p 2]
[--method distance|rare|loglik|random] [--top R] [--seed S] [--format table|json|csv] [--out FILE]``
plus the common data options. JSON output::

    {"method": str, "k": int, "metric": str, "n_records": int,
     "records": [{"rank": 1, "row": <0-based row of DATA>, "score": float}, ...]}

``score`` is null for ``random``. ``csv`` writes ``rank,row,score`` followed by the record's
columns; ``table`` prints the same as a Rich table.

References
----------
Meeus et al. (2023), "Achilles' heels: vulnerable record identification in synthetic data
publishing", ESORICS, Sec. 4 (V_k, eq. 5-6) and Sec. 5.2 (baseline selectors).
"""

from __future__ import annotations

import io
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from synthleak.cli.app import app
from synthleak.cli.common import (
    CategoricalOpt,
    ContinuousOpt,
    KOpt,
    NaValuesOpt,
    OutOpt,
    OutputFormat,
    RelationalOpt,
    RootOpt,
    RowsFormatOpt,
    SchemaOpt,
    SeedOpt,
    SpecialValuesOpt,
    emit,
    load_cli_data,
    load_relational_parts,
    make_rng,
    refuse_root_alone,
    refuse_single_table_flags,
    to_json,
)
from synthleak.errors import InputError
from synthleak.modes import DATA_METHODS, DistanceMetric, TargetMethod

if TYPE_CHECKING:
    import pandas as pd

    from synthleak.vulnerability import Ranking

#: ``--method``: the methods of :class:`~synthleak.modes.TargetMethod` that rank from the data
#: alone (``modes.DATA_METHODS``; ``screen`` needs a generator), derived, not restated.
DataMethodChoice = StrEnum(  # type: ignore[misc]
    "DataMethodChoice", {m.name: m.value for m in DATA_METHODS}
)


def ranking_document(ranking: Ranking, *, k: int, metric: DistanceMetric) -> dict[str, Any]:
    """The JSON document of ``synthleak vulnerable``."""
    scores = ranking.scores
    return {
        "method": ranking.method.value,
        "k": int(k),
        "metric": metric.value,
        "n_records": int(ranking.n_records),
        "records": [
            {"rank": i + 1, "row": int(r), "score": None if scores is None else float(scores[i])}
            for i, r in enumerate(ranking.rows)
        ],
    }


def _ranked_frame(ranking: Ranking, frame: pd.DataFrame, key: str | None = None) -> pd.DataFrame:
    """The ranking's ``rank,row,score`` and the records' columns; with ``key`` (persons of a
    relational release, ``frame`` their person-level view indexed by root key) the root key
    under that name in the place of the row."""
    import pandas as pd

    where = "row" if key is None else key
    head = pd.DataFrame(
        {
            "rank": range(1, len(ranking.rows) + 1),
            where: ranking.rows if key is None else frame.index[ranking.rows],
            "score": ranking.scores if ranking.scores is not None else [None] * len(ranking.rows),
        }
    )
    records = frame.iloc[ranking.rows].reset_index(drop=True)
    # a data column called rank, row (the key) or score must not clash with the ranking's columns
    records = records.rename(columns={c: f"{c}_" for c in ("rank", where, "score")})
    return pd.concat([head, records], axis=1)


def _render_table(
    ranking: Ranking,
    frame: pd.DataFrame,
    *,
    k: int,
    metric: DistanceMetric,
    persons: tuple[str, str] | None = None,
) -> str:
    from rich.console import Console
    from rich.table import Table as RichTable

    if ranking.method is TargetMethod.DISTANCE:
        what = f"V_{k} ({metric.value} distance)"
    elif ranking.method is TargetMethod.RANDOM:
        what = "random order"
    else:
        what = f"{ranking.method.value} score"
    if persons is None:
        title = f"most vulnerable records of {ranking.n_records} by {what}"
    else:
        title = (
            f"most vulnerable persons of {ranking.n_records} (rows of table {persons[0]!r} with "
            f"their child rows, key {persons[1]!r}) by {what}"
        )
    tab = RichTable(title=title)
    df = _ranked_frame(ranking, frame, None if persons is None else persons[1])
    for c in df.columns:
        tab.add_column(str(c), no_wrap=c in ("rank", "row", "score"))
    for rec in df.itertuples(index=False):
        cells = []
        for c, v in zip(df.columns, rec, strict=True):
            if c == "score":
                cells.append("-" if v is None or v != v else f"{v:.6f}")
            else:
                cells.append("" if v is None or (isinstance(v, float) and v != v) else str(v))
        tab.add_row(*cells)
    buf = io.StringIO()
    Console(file=buf, width=200, force_terminal=False, color_system=None).print(tab)
    return buf.getvalue()


@app.command("vulnerable", rich_help_panel="Privacy games (one attack family each)")
def vulnerable_cmd(
    data: Annotated[
        str,
        typer.Argument(
            help="CSV, CSV.GZ or Parquet file, or 'adult'/'adult-complete'; with --relational, "
            "a folder of one file per table."
        ),
    ],
    k: KOpt = 5,
    metric: Annotated[
        DistanceMetric,
        typer.Option(
            "--metric", help="Distance: cosine or minkowski (Meeus et al. (2023), eq. 5 and 6)."
        ),
    ] = DistanceMetric.COSINE,
    p: Annotated[float, typer.Option("--p", help="Order of the Minkowski distance (>= 1).")] = 2.0,
    method: Annotated[
        DataMethodChoice,
        typer.Option(
            "--method",
            help="distance (V_k), rare (rare value), loglik (log-likelihood), rarity (cell "
            "rarity on single columns and pairs) or random.",
        ),
    ] = DataMethodChoice.DISTANCE,  # type: ignore[attr-defined]
    top: Annotated[
        int, typer.Option("--top", help="Number of records to list (most vulnerable first).")
    ] = 10,
    seed: SeedOpt = 0,
    format: RowsFormatOpt = OutputFormat.TABLE,
    out: OutOpt = None,
    categorical: CategoricalOpt = None,
    continuous: ContinuousOpt = None,
    schema: SchemaOpt = None,
    na_values: NaValuesOpt = None,
    special_values: SpecialValuesOpt = None,
    relational: RelationalOpt = None,
    root: RootOpt = None,
) -> None:
    """Rank the records of DATA from most to least vulnerable (distance to their k nearest records).

    With --relational, DATA is a folder of one file per table and the persons (a root row
    with their child rows: the person-level view of DATA, encoded as the audit encodes it) are
    ranked and listed by root key.

    Method: Meeus et al. (2023), Sec. 4 (V_k) and Sec. 5.2 (other selectors).
    """
    if k < 1:
        raise InputError(f"--k must be at least 1, got {k}")
    if not p >= 1:
        raise InputError(f"--p must be at least 1 (a Minkowski order), got {p}")
    if top < 1:
        raise InputError(f"--top must be at least 1, got {top}")
    persons: tuple[str, str] | None = None
    if relational is not None:
        refuse_single_table_flags(
            {"--categorical": categorical, "--continuous": continuous, "--schema": schema}
        )
        table, frame, persons = _persons(relational, data, root, na_values, special_values)
    else:
        refuse_root_alone(root)
        loaded = load_cli_data(
            data,
            categorical=categorical,
            continuous=continuous,
            schema=schema,
            na_values=na_values,
            min_rows=2,
            special_values=special_values,
        )
        table, frame = loaded.table, loaded.frame
    n = len(table)
    if method == TargetMethod.DISTANCE and k >= n:
        raise InputError(
            f"--k {k} needs more than {k} records but {data} has {n}: "
            "use a smaller --k or more records"
        )
    from synthleak.vulnerability import rank_records

    ranking = rank_records(
        table, TargetMethod(method), top=top, rng=make_rng(seed), k=k, metric=metric, p=p
    )
    key = None if persons is None else persons[1]
    if format is OutputFormat.JSON:
        doc = ranking_document(ranking, k=k, metric=metric)
        if persons is not None:  # persons by root key, not by row
            doc = {"level": "persons", "root": persons[0], "key": key, **doc}
            keys = frame.index[ranking.rows].tolist()  # plain Python values
            doc["records"] = [
                {"rank": r["rank"], key: person, "score": r["score"]}
                for r, person in zip(doc["records"], keys, strict=True)
            ]
        text = to_json(doc)
    elif format is OutputFormat.CSV:
        text = _ranked_frame(ranking, frame, key).to_csv(index=False)
    else:
        text = _render_table(ranking, frame, k=k, metric=metric, persons=persons)
    emit(text, out)


def _persons(
    metadata: Any, folder: str, root: str | None, na_values: str | None, special: Any
) -> tuple[Any, pd.DataFrame, tuple[str, str]]:
    """``vulnerable --relational``: the person-level view of the tables in ``folder``
    (:func:`~synthleak.data.relational.person_views`) encoded as the audit encodes it, the view,
    and the table of persons with its key."""
    from synthleak.data.relational import person_views
    from synthleak.data.release import encode_parts

    parts = load_relational_parts(metadata, {"original": folder}, na_values=na_values)
    sch = parts["original"].schema
    person = sch.person_table(root)
    view = person_views(parts, root=person)["original"]
    if len(view) < 2:
        raise InputError(
            f"table {person!r} in {folder} has {len(view)} person(s): ranking needs at least 2"
        )
    enc = encode_parts({"original": view}, special_values=tuple(special or ()))
    return enc.tables["original"], view, (person, sch.key_of(person))
