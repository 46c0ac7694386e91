"""Relational data: several tables linked by primary and foreign keys, and its person-level view.

A relational release is a set of tables: a *root* table holds one row per person (a household,
a customer, a patient) and *descendant* tables hold that person's child rows (members,
transactions, visits), each linked to its parent by a foreign key. What a generator can leak is
the person: their parent row and the pattern of their child rows.

Two things live here:

* :class:`RelationalSchema` and :class:`RelationalData`: the tables, their primary keys and
  their foreign keys, read from SDV's multi-table metadata JSON (:meth:`RelationalSchema.from_sdv`,
  the convention users of SDV already have), from explicit arguments
  (:meth:`RelationalSchema.build`), and a folder of one CSV/Parquet file per table
  (:func:`load_relational`). :meth:`RelationalData.validate` refuses a missing table, a key
  column that is not there, a cycle, a primary key that is missing or not unique, and an orphaned
  foreign key, each with one :class:`~synthleak.errors.InputError` line.
* :func:`person_views`: one row per root entity, keyed by its root key, with the root row's own
  columns and, for every descendant table (children, grandchildren: each child row is mapped to
  its root through the chain of foreign keys), the number of child rows, the mean, standard
  deviation, minimum and maximum of each numeric child column, the count of each value of each
  categorical child column and its number of distinct values (the set representation), and, where
  an order column is given, the first and last value of each child column (the ends of the
  sequence). Several parts (original, control, synthetic) are viewed with one vocabulary, so their
  columns agree.

The view is exact (no sampling) and computed by vectorised group-bys on integer codes
(``np.bincount``, ``np.minimum.at``/``np.maximum.at``), never a loop over persons. Memory beside
the tables: the child rows' root index and one float64 column at a time (16 bytes a child row),
one categorical child column at a time as strings (its values are compared in string form, so
1, "1" and 1.0 agree; some 60 bytes a child row), and the output, 8 bytes a person per view
column (an object column for the first / last value of a categorical column). Measured: 1M
child rows of 100,000 persons (three numeric, two categorical columns, ordered): 4.9 s CPU,
266 MB above the tables' own memory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthleak.data.io import read_frame
from synthleak.errors import InputError

__all__ = [
    "ForeignKey",
    "RelationalData",
    "RelationalSchema",
    "load_relational",
    "person_views",
]

#: Table file suffixes read by :func:`load_relational`, in order of preference.
TABLE_SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq", ".tsv")
#: Most values of one categorical child column counted in the person view (the most frequent).
DEFAULT_MAX_CHILD_CATEGORIES = 30


#: One table of :meth:`RelationalSchema.from_keys`: ``NAME(...)``.
_TABLE_SPEC = re.compile(r"\s*([A-Za-z_][\w.-]*)\s*\(([^()]*)\)")


@dataclass(frozen=True)
class ForeignKey:
    """``child.column`` refers to ``parent``'s primary key."""

    child: str
    column: str
    parent: str


@dataclass(frozen=True)
class RelationalSchema:
    """Tables, their primary keys and the foreign keys between them.

    Parameters
    ----------
    primary_keys : mapping of str to str or None
        Every table's name and its primary key column (``None``: a table without one, which
        cannot be a parent).
    foreign_keys : sequence of ForeignKey
        The links; a table has at most one parent in the person view (the first listed).
    categorical : mapping of str to sequence of str, optional
        Per table, columns to treat as categorical (from SDV's ``sdtype``); others are numeric
        when their values are numbers and categorical otherwise.
    order_by : mapping of str to str, optional
        Per child table, the column that orders a person's child rows (a sequence).
    """

    primary_keys: Mapping[str, str | None]
    foreign_keys: Sequence[ForeignKey] = ()
    categorical: Mapping[str, Sequence[str]] = field(default_factory=dict)
    order_by: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for fk in self.foreign_keys:
            for t in (fk.child, fk.parent):
                if t not in self.primary_keys:
                    raise InputError(
                        f"foreign key {fk.child}.{fk.column} -> {fk.parent} names table {t!r} "
                        "that is not declared: declare every table (with its primary key)"
                    )
            if self.primary_keys[fk.parent] is None:
                raise InputError(
                    f"foreign key {fk.child}.{fk.column} refers to {fk.parent}, which has no "
                    "primary key: declare the parent's primary key"
                )
        self._check_cycles()

    @classmethod
    def build(
        cls,
        primary_keys: Mapping[str, str | None],
        foreign_keys: Sequence[tuple[str, str, str]] = (),
        *,
        categorical: Mapping[str, Sequence[str]] | None = None,
        order_by: Mapping[str, str] | None = None,
    ) -> RelationalSchema:
        """From explicit arguments: ``foreign_keys`` as ``(child, column, parent)`` triples."""
        return cls(
            dict(primary_keys),
            tuple(ForeignKey(c, col, p) for c, col, p in foreign_keys),
            dict(categorical or {}),
            dict(order_by or {}),
        )

    @classmethod
    def from_keys(cls, spec: str) -> RelationalSchema:
        """From a spec of keys, as a command line gives them without SDV metadata: every table
        as ``NAME(KEY, COLUMN->PARENT, ...)``, separated by spaces or ``;``; its primary key
        first (``-`` for a table without one), then its foreign keys, each a column referring
        to a parent table's primary key. ``person(pid) visit(vid, pid->person)`` is a table of
        persons and their visits. Column kinds are read from the values."""
        text = spec.strip()
        example = "person(pid) visit(vid, pid->person)"
        pks: dict[str, str | None] = {}
        fks: list[ForeignKey] = []
        pos = 0
        for m in _TABLE_SPEC.finditer(text):
            if text[pos : m.start()].strip(" ;\t\n"):
                break
            pos = m.end()
            name, inside = m.group(1), [p.strip() for p in m.group(2).split(",")]
            if name in pks:
                raise InputError(f"keys {spec!r} declare table {name!r} twice: declare it once")
            if not inside[0] or "->" in inside[0]:
                raise InputError(
                    f"keys {spec!r}: table {name!r} starts with no primary key: write its key "
                    f"first, '-' for none (e.g. {example})"
                )
            pks[name] = None if inside[0] == "-" else inside[0]
            for link in inside[1:]:
                col, arrow, parent = (x.strip() for x in link.partition("->"))
                if not arrow or not col or not parent:
                    raise InputError(
                        f"keys {spec!r}: {link!r} in table {name!r} is not COLUMN->PARENT "
                        f"(e.g. {example})"
                    )
                fks.append(ForeignKey(name, col, parent))
        if not pks or text[pos:].strip(" ;\t\n"):
            raise InputError(
                f"keys {spec!r} are not a list of NAME(KEY, COLUMN->PARENT, ...) tables "
                f"(e.g. {example})"
            )
        return cls(pks, tuple(fks))

    @classmethod
    def from_sdv(cls, metadata: str | Path | Mapping[str, Any]) -> RelationalSchema:
        """From SDV's multi-table metadata (a dict, its JSON text or a JSON file).

        Reads ``tables.<name>.primary_key``, ``tables.<name>.columns.<col>.sdtype`` (``categorical``
        and ``boolean`` columns are categorical) and ``relationships`` (``parent_table_name``,
        ``parent_primary_key``, ``child_table_name``, ``child_foreign_key``).
        """
        meta = _json_arg(metadata)
        tables = meta.get("tables")
        if not isinstance(tables, Mapping) or not tables:
            raise InputError(
                "SDV metadata has no 'tables': give SDV multi-table metadata "
                "(MultiTableMetadata.save_to_json)"
            )
        pks: dict[str, str | None] = {}
        cats: dict[str, list[str]] = {}
        for name, spec in tables.items():
            if not isinstance(spec, Mapping):
                raise InputError(f"SDV metadata table {name!r} is not an object: fix the metadata")
            pk = spec.get("primary_key")
            if pk is not None and not isinstance(pk, str):
                raise InputError(
                    f"SDV metadata table {name!r} has a composite primary_key {pk!r}: "
                    "give one key column per table"
                )
            pks[str(name)] = pk
            cols = spec.get("columns", {})
            cats[str(name)] = [
                c
                for c, s in cols.items()
                if isinstance(s, Mapping) and s.get("sdtype") in ("categorical", "boolean")
            ]
        fks = []
        for rel in meta.get("relationships", []):
            try:
                child, col, parent = (
                    rel["child_table_name"],
                    rel["child_foreign_key"],
                    rel["parent_table_name"],
                )
            except (KeyError, TypeError) as e:
                raise InputError(
                    f"SDV metadata relationship {rel!r} lacks {e}: each relationship needs "
                    "parent_table_name, parent_primary_key, child_table_name, child_foreign_key"
                ) from None
            if parent in pks and rel.get("parent_primary_key", pks[parent]) != pks[parent]:
                raise InputError(
                    f"SDV metadata relationship {child}.{col} -> {parent} refers to "
                    f"{rel['parent_primary_key']!r}, not {parent}'s primary key {pks[parent]!r}: "
                    "a foreign key must refer to its parent's primary key"
                )
            fks.append(ForeignKey(str(child), str(col), str(parent)))
        return cls(pks, tuple(fks), cats)

    # --- structure ------------------------------------------------------------------------
    @property
    def tables(self) -> tuple[str, ...]:
        return tuple(self.primary_keys)

    def parent_of(self, table: str) -> ForeignKey | None:
        for fk in self.foreign_keys:
            if fk.child == table:
                return fk
        return None

    def key_of(self, table: str) -> str:
        """The primary key column of ``table`` (raises when it has none)."""
        pk = self.primary_keys[table]
        if pk is None:
            raise InputError(f"table {table!r} has no primary key: declare one")
        return pk

    @property
    def roots(self) -> tuple[str, ...]:
        """Tables without a parent."""
        return tuple(t for t in self.tables if self.parent_of(t) is None)

    def person_table(self, root: str | None = None) -> str:
        """The table of persons: ``root``, or the schema's one root table when ``root`` is
        ``None``. Several roots and no ``root``, or a ``root`` that is no table, is an
        :class:`~synthleak.errors.InputError` (its parameter ``root``)."""
        if root is None:
            if len(self.roots) != 1:
                raise InputError(
                    f"the schema has root tables {list(self.roots)}: name the table of persons "
                    "(root)",
                    parameter="root",
                )
            return self.roots[0]
        if root not in self.tables:
            raise InputError(
                f"root {root!r} is not a table of the schema ({list(self.tables)})",
                parameter="root",
            )
        return root

    def descendants(self, root: str) -> tuple[str, ...]:
        """Tables below ``root`` (through first parents), parents before children."""
        out: list[str] = []
        frontier = [root]
        while frontier:
            nxt = [
                fk.child
                for p in frontier
                for fk in self.foreign_keys
                if fk.parent == p and self.parent_of(fk.child) == fk and fk.child not in out
            ]
            out += nxt
            frontier = nxt
        return tuple(out)

    def _check_cycles(self) -> None:
        edges: dict[str, list[str]] = {t: [] for t in self.primary_keys}
        for fk in self.foreign_keys:
            edges[fk.parent].append(fk.child)
        state: dict[str, int] = {}

        def visit(t: str, path: list[str]) -> None:
            state[t] = 1
            for c in edges[t]:
                if state.get(c) == 1:
                    cyc = [*path[path.index(c) :], t] if c in path else [t]
                    raise InputError(
                        f"the foreign keys form a cycle ({' -> '.join(cyc)} -> "
                        f"{c}): relational data must be a tree of parent and child tables"
                    )
                if c not in state:
                    visit(c, [*path, t])
            state[t] = 2

        for t in self.primary_keys:
            if t not in state:
                visit(t, [])


def _show(v: object) -> str:
    return repr(v.item()) if isinstance(v, np.generic) else repr(v)


def _json_arg(metadata: str | Path | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(metadata, Mapping):
        return metadata
    text = str(metadata)
    if not text.lstrip().startswith("{"):
        path = Path(text)
        if not path.is_file():
            raise InputError(f"metadata file {text} does not exist: give SDV metadata JSON")
        text = path.read_text()
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"metadata is not valid JSON ({e.msg}, line {e.lineno})") from None
    if not isinstance(meta, Mapping):
        raise InputError("metadata must be a JSON object (SDV multi-table metadata)")
    return meta


@dataclass(frozen=True)
class RelationalData:
    """The frames of a relational dataset and their :class:`RelationalSchema`."""

    schema: RelationalSchema
    frames: Mapping[str, pd.DataFrame]

    def validate(self) -> RelationalData:
        """Check tables, keys and links; return ``self`` (raises :class:`InputError`)."""
        sch = self.schema
        missing = [t for t in sch.tables if t not in self.frames]
        if missing:
            raise InputError(
                f"table(s) {missing} named in the metadata are missing: give one file per table "
                f"(have {sorted(self.frames)})"
            )
        for t, pk in sch.primary_keys.items():
            if pk is None:
                continue
            df = self.frames[t]
            if pk not in df.columns:
                raise InputError(
                    f"table {t!r} has no primary key column {pk!r}: fix the metadata or the table"
                )
            keys = df[pk]
            if keys.isna().any():
                raise InputError(
                    f"primary key {t}.{pk} is missing in {int(keys.isna().sum())} row(s): "
                    "every row needs a key"
                )
            dup = keys.duplicated(keep=False)
            if dup.any():
                raise InputError(
                    f"primary key {t}.{pk} is not unique: {int(keys[dup].nunique())} key(s) "
                    f"repeat, such as {_show(keys[dup].iloc[0])}: give each row its own key"
                )
        for fk in sch.foreign_keys:
            child = self.frames[fk.child]
            if fk.column not in child.columns:
                raise InputError(
                    f"table {fk.child!r} has no foreign key column {fk.column!r}: fix the "
                    "metadata or the table"
                )
            parent_keys = pd.Index(self.frames[fk.parent][sch.key_of(fk.parent)])
            fk_vals = child[fk.column]
            orphan = fk_vals.notna().to_numpy() & (parent_keys.get_indexer(fk_vals) < 0)
            if orphan.any():
                raise InputError(
                    f"foreign key {fk.child}.{fk.column} has {int(orphan.sum())} orphaned row(s) "
                    f"whose key is not in {fk.parent}.{sch.primary_keys[fk.parent]}, such as "
                    f"{_show(fk_vals[orphan].iloc[0])}: remove them or add their parents"
                )
        return self

    def root_index(self, table: str, root: str) -> np.ndarray:
        """For each row of ``table``, the row of ``root`` it belongs to (-1: none)."""
        sch = self.schema
        if table == root:
            return np.arange(len(self.frames[root]), dtype=np.int64)
        fk = sch.parent_of(table)
        if fk is None:
            raise InputError(f"table {table!r} does not descend from {root!r}")
        parent = self.frames[fk.parent]
        rows = pd.Index(parent[sch.key_of(fk.parent)]).get_indexer(self.frames[table][fk.column])
        up = self.root_index(fk.parent, root)
        out = np.where(rows >= 0, up[np.maximum(rows, 0)], -1)
        return out.astype(np.int64)


def load_relational(
    folder: str | Path,
    schema: RelationalSchema | str | Path | Mapping[str, Any],
    *,
    na_values: Sequence[str] = (),
) -> RelationalData:
    """Read one CSV/Parquet file per table from ``folder`` and validate it.

    ``schema`` is a :class:`RelationalSchema` or SDV multi-table metadata (see
    :meth:`RelationalSchema.from_sdv`). The file of table ``t`` is ``t.csv`` (or ``.csv.gz``,
    ``.parquet``, ``.pq``, ``.tsv``) or a directory ``t/`` of Parquet parts.
    """
    sch = schema if isinstance(schema, RelationalSchema) else RelationalSchema.from_sdv(schema)
    root = Path(folder)
    if not root.is_dir():
        raise InputError(f"{folder} is not a folder: give a folder with one file per table")
    frames: dict[str, pd.DataFrame] = {}
    for t in sch.tables:
        found = [root / f"{t}{s}" for s in TABLE_SUFFIXES if (root / f"{t}{s}").is_file()]
        if not found and (root / t).is_dir():
            found = [root / t]
        if found:
            frames[t] = read_frame(found[0], na_values=na_values)
    return RelationalData(sch, frames).validate()


# --- the person-level view ----------------------------------------------------------------
def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def _is_categorical(schema: RelationalSchema, table: str, col: str, s: pd.Series) -> bool:
    return col in schema.categorical.get(table, ()) or not _numeric(s)


def _child_columns(data: RelationalData, table: str) -> list[str]:
    sch = data.schema
    keys = {sch.primary_keys[table]} | {fk.column for fk in sch.foreign_keys if fk.child == table}
    return [c for c in map(str, data.frames[table].columns) if c not in keys]


def _vocabulary(
    parts: Sequence[RelationalData], table: str, col: str, max_categories: int
) -> list[str]:
    counts = pd.concat([p.frames[table][col].astype(str) for p in parts]).value_counts()
    # most frequent first, ties by value: the same vocabulary whatever the part order
    order = sorted(zip(-counts.to_numpy(), counts.index.astype(str), strict=True))
    return [v for _, v in order[:max_categories]]


def _group_stats(idx: np.ndarray, x: np.ndarray, n: int) -> dict[str, np.ndarray]:
    ok = ~np.isnan(x)
    cnt = np.bincount(idx[ok], minlength=n).astype(np.float64)
    s1 = np.bincount(idx[ok], weights=x[ok], minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / cnt
        dev = x[ok] - mean[idx[ok]]
        var = np.bincount(idx[ok], weights=dev * dev, minlength=n) / cnt
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    np.minimum.at(lo, idx[ok], x[ok])
    np.maximum.at(hi, idx[ok], x[ok])
    none = cnt == 0
    lo[none] = np.nan
    hi[none] = np.nan
    return {"mean": mean, "std": np.sqrt(var), "min": lo, "max": hi}


def _ends(idx: np.ndarray, order: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of each person's first and last child row (-1: none)."""
    perm = np.lexsort((order, idx))
    sidx = idx[perm]
    first = np.full(n, -1, dtype=np.int64)
    last = np.full(n, -1, dtype=np.int64)
    starts = np.r_[True, sidx[1:] != sidx[:-1]] if len(sidx) else np.zeros(0, bool)
    ends = np.r_[sidx[1:] != sidx[:-1], True] if len(sidx) else np.zeros(0, bool)
    first[sidx[starts]] = perm[starts]
    last[sidx[ends]] = perm[ends]
    return first, last


def _view(
    data: RelationalData,
    root: str,
    vocab: Mapping[tuple[str, str], list[str]],
) -> pd.DataFrame:
    sch = data.schema
    base = data.frames[root]
    pk = sch.key_of(root)
    n = len(base)
    cols: dict[str, Any] = {c: base[c].to_numpy() for c in _child_columns(data, root)}
    for t in sch.descendants(root):
        df = data.frames[t]
        idx = data.root_index(t, root)
        keep = idx >= 0
        idx = idx[keep]
        cols[f"{t}.n_rows"] = np.bincount(idx, minlength=n).astype(np.float64)
        ends = None
        if t in sch.order_by:
            order = pd.to_numeric(df[sch.order_by[t]], errors="coerce").to_numpy(np.float64)
            ends = _ends(idx, order[keep], n)
        for c in _child_columns(data, t):
            s = df[c][keep]
            if (t, c) in vocab:
                strs = s.astype(str).to_numpy()
                for v in vocab[(t, c)]:
                    cols[f"{t}.{c}={v}"] = np.bincount(idx[strs == v], minlength=n).astype(
                        np.float64
                    )
                codes, _ = pd.factorize(s)
                ok = codes >= 0
                width = int(codes.max()) + 1 if ok.any() else 1
                pair = np.unique(idx[ok] * width + codes[ok])
                cols[f"{t}.{c}:n_distinct"] = np.bincount(pair // width, minlength=n).astype(
                    np.float64
                )
                values = strs
            else:
                x = s.to_numpy(np.float64)
                for stat, arr in _group_stats(idx, x, n).items():
                    cols[f"{t}.{c}:{stat}"] = arr
                values = x
            if ends is not None and c != sch.order_by[t]:
                for end, pos in zip(("first", "last"), ends, strict=True):
                    got = values[np.maximum(pos, 0)]
                    if values.dtype.kind == "f":
                        cols[f"{t}.{c}:{end}"] = np.where(pos >= 0, got, np.nan)
                    else:
                        cols[f"{t}.{c}:{end}"] = np.where(pos >= 0, got, None)
    out = pd.DataFrame(cols, index=pd.Index(base[pk].to_numpy(), name=pk))
    return out


def person_views(
    parts: Mapping[str, RelationalData],
    *,
    root: str | None = None,
    max_categories: int = DEFAULT_MAX_CHILD_CATEGORIES,
) -> dict[str, pd.DataFrame]:
    """The person-level view of each part, with one set of columns.

    Parameters
    ----------
    parts : mapping of str to RelationalData
        For instance ``{"original": ..., "synthetic": ..., "control": ...}``, same schema.
    root : str, optional
        The table of persons; default the schema's only root table.
    max_categories : int
        Per categorical child column, the most frequent values (over all parts) counted one
        column each; the others count only in ``n_rows`` and ``n_distinct``.

    Returns
    -------
    dict of str to DataFrame
        One row per root row, indexed by the root key. Columns: the root's own columns, then per
        descendant table ``t``: ``t.n_rows``; per numeric child column ``t.c:mean|std|min|max``
        (NaN for a person without rows); per categorical child column ``t.c=v`` counts and
        ``t.c:n_distinct``; with ``order_by[t]``, ``t.c:first`` and ``t.c:last``.
    """
    if not parts:
        raise InputError("person_views needs at least one part")
    datas = list(parts.values())
    sch = datas[0].schema
    if any(d.schema != sch for d in datas):
        raise InputError("all parts of a relational release must share one schema")
    root = sch.person_table(root)
    sch.key_of(root)  # persons are shown by their root key
    if (
        isinstance(max_categories, bool)
        or not isinstance(max_categories, int)
        or max_categories < 1
    ):
        raise InputError(f"max_categories must be an integer >= 1, got {max_categories!r}")
    for d in datas:
        d.validate()
    vocab: dict[tuple[str, str], list[str]] = {}
    for t in sch.descendants(root):
        for c in _child_columns(datas[0], t):
            missing = [n for n, d in parts.items() if c not in d.frames[t].columns]
            if missing:
                raise InputError(
                    f"column {t}.{c} is missing from part(s) {missing}: all parts need the "
                    "same columns"
                )
            if any(_is_categorical(sch, t, c, d.frames[t][c]) for d in datas):
                vocab[(t, c)] = _vocabulary(datas, t, c, max_categories)
    return {name: _view(d, root, vocab) for name, d in parts.items()}
