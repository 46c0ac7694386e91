"""The data of an audit without its generator, and the encoding of named parts with one schema.

A :class:`Release` holds the original, synthetic and (optionally) control records that the games
auditing a release take (singling out, linkability, no-box membership, attribute inference on a
release); :func:`encode_parts` encodes named parts with one widened schema, and :func:`as_table`
turns one DataFrame into a :class:`~synthleak.data.table.Table`. They live in ``data/`` because
the statistics (``metrics/copies.py``) and the games both read them: a lower floor never imports a
higher one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from synthleak.data.profile import infer_schema
from synthleak.data.schema import Schema, column_differences
from synthleak.data.table import Table
from synthleak.errors import InputError

if TYPE_CHECKING:
    from synthleak.data.io import EncodedFrames


def as_table(
    data: pd.DataFrame | Table, *, schema: Schema | None = None, name: str = "data"
) -> Table:
    """``data`` as a :class:`Table`: a DataFrame is encoded with ``schema`` (inferred if absent).

    Raises :class:`InputError` naming ``name`` for anything else.
    """
    if isinstance(data, Table):
        if schema is not None and data.schema != schema:
            return Table.from_frame(data.to_frame(), schema)
        return data
    if isinstance(data, pd.DataFrame):
        if len(data) == 0:
            raise InputError(f"{name} has no records: give a non-empty DataFrame")
        return Table.from_frame(data, schema if schema is not None else infer_schema(data))
    raise InputError(
        f"{name} must be a pandas DataFrame or a synthleak Table, got {type(data).__name__}"
    )


def check_same_columns(**tables: Table | pd.DataFrame) -> None:
    """Raise one :class:`InputError` listing column differences between named tables."""
    names = list(tables)

    def cols(t: Table | pd.DataFrame) -> list[str]:
        return list(t.schema.names) if isinstance(t, Table) else [str(c) for c in t.columns]

    ref = cols(tables[names[0]])
    problems = []
    for other in names[1:]:
        problems += [f"{other}: {p}" for p in column_differences(ref, cols(tables[other]))]
    typed = {name: t for name, t in tables.items() if isinstance(t, Table)}
    if not problems and len(typed) == len(tables):
        first = typed[names[0]].schema
        for other in names[1:]:
            sch = typed[other].schema
            kinds = [c.name for c in first.columns if sch[c.name].kind is not c.kind]
            if kinds:
                problems.append(f"{other} types {kinds} differently")
    if problems:
        raise InputError(
            f"{', '.join(names)} must have the same columns: {'; '.join(problems)}; "
            "give data with identical columns"
        )


@dataclass(frozen=True)
class EncodedRelease:
    """A :class:`Release` encoded with one schema (categories widened over all parts)."""

    original: Table
    synthetic: Table
    control: Table | None
    schema: Schema


@dataclass(frozen=True)
class Release:
    """The data of an audit without the generator.

    Parameters
    ----------
    original : DataFrame or Table
        The real records the synthetic data was generated from.
    synthetic : DataFrame or Table
        The released synthetic data.
    control : DataFrame or Table, optional
        Real records of the same population that the generator never saw. Games that need a
        baseline measured on unseen people (singling out, linkability, membership) require it.
    schema : Schema, optional
        The schema to encode DataFrames with. By default it is inferred on the original and its
        category domains widened with the categories of the synthetic and control data.
    """

    original: pd.DataFrame | Table
    synthetic: pd.DataFrame | Table
    control: pd.DataFrame | Table | None = None
    schema: Schema | None = None

    def encode(self) -> EncodedRelease:
        """The three parts as :class:`Table` objects sharing one schema."""
        parts: dict[str, pd.DataFrame | Table] = {
            "original": self.original,
            "synthetic": self.synthetic,
        }
        if self.control is not None:
            parts["control"] = self.control
        shared = _one_schema(parts, self.schema)
        if shared is not None:
            # already encoded with one schema (the audit's tables): what encode_parts returns
            # for them, without the profile it would build by decoding the whole original
            return EncodedRelease(
                shared["original"],
                shared["synthetic"],
                shared.get("control"),
                shared["original"].schema,
            )
        sch, tables = encode_parts(parts, schema=self.schema)
        return EncodedRelease(tables["original"], tables["synthetic"], tables.get("control"), sch)


def _one_schema(
    parts: dict[str, pd.DataFrame | Table], schema: Schema | None
) -> dict[str, Table] | None:
    """``parts`` when every one is a non-empty :class:`Table` of one schema (``schema``, when
    given): they are encoded already; else ``None``."""
    tables = {k: v for k, v in parts.items() if isinstance(v, Table) and len(v)}
    if len(tables) < len(parts):
        return None
    first = next(iter(tables.values())).schema
    if any(t.schema != first for t in tables.values()) or schema not in (None, first):
        return None
    return tables


def encode_parts(
    parts: dict[str, pd.DataFrame | Table],
    *,
    schema: Schema | None = None,
    keep: Sequence[str] = (),
    special_values: Any = None,
) -> EncodedFrames:
    """Encode named datasets (DataFrames or Tables) with one schema.

    The first part is the reference: its column kinds (inferred and profiled from a DataFrame,
    or the kinds of a Table) are kept, and category domains are widened over all parts, so a
    category that occurs only in, say, the synthetic or control data is not an error. DataFrames
    are profiled (:func:`synthleak.data.profile.profile_frame`): identifier and free-text
    columns are left out of the analysis unless named in ``keep``, and may be absent from the
    other parts. Tables that already share one schema are returned as they are. Parts with other
    columns get one error that lists every difference.

    Returns
    -------
    EncodedFrames
        ``schema, tables, profile, domain`` (unpacks as ``schema, tables``).
    """
    from synthleak.data.io import EncodedFrames, encode_frames

    for name, part in parts.items():
        if not isinstance(part, pd.DataFrame | Table):
            raise InputError(
                f"{name} must be a pandas DataFrame or a synthleak Table, got {type(part).__name__}"
            )
        if len(part) == 0:
            raise InputError(f"the {name} data has no records: give a non-empty table")
    first = next(iter(parts.values()))
    if all(isinstance(p, Table) for p in parts.values()):
        check_same_columns(**parts)  # DataFrames are checked by encode_frames (excluded columns)
        shared = _one_schema(parts, schema)
        if shared is not None:
            return EncodedFrames.of_tables(shared)
    frames = {k: (v.to_frame() if isinstance(v, Table) else v) for k, v in parts.items()}
    if schema is None and isinstance(first, Table):
        kinds = first.schema.columns
        return encode_frames(
            frames,
            categorical=[c.name for c in kinds if c.is_categorical],
            continuous=[c.name for c in kinds if not c.is_categorical],
            keep=keep,
            special_values=special_values,
        )
    return encode_frames(frames, schema=schema, keep=keep, special_values=special_values)
