"""Typed results that round-trip through JSON losslessly.

Every result synthleak returns is a frozen dataclass deriving from :class:`Result`. One generic
serialiser walks the dataclass fields by their type annotations, so ``to_dict`` / ``from_dict`` /
``to_json`` / ``from_json`` are written once, not once per class:

* nested results, enums, tuples, lists and dicts are followed recursively;
* numpy arrays are annotated :data:`FloatArray` or :data:`IntArray` and come back with their dtype;
* non-finite floats are written as JSON ``null`` and read back as NaN (strict JSON);
* ``repr`` is one short line (scalar fields only; containers show their length).

``T.from_json(r.to_json())`` equals ``r`` for every result type (tested); for results holding
arrays, compare with :meth:`Result.same_as`.

Declare a result as ``@dataclass(frozen=True, repr=False)`` deriving from :class:`Result`
(``repr=False`` keeps the short ``repr`` of the base class; a test checks every subclass).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import sys
import types
import typing
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar, Union, get_args, get_origin

import numpy as np

FloatArray = Annotated[np.ndarray, "float64"]
"""A float64 array field (NaN written as null)."""
IntArray = Annotated[np.ndarray, "int64"]
"""An int64 array field."""

R = TypeVar("R", bound="Result")


def jsonable(obj: Any) -> Any:
    """A JSON-ready copy of ``obj``, the one converter every result and report goes through.

    Results and dataclasses with ``to_dict`` become dicts; dicts, lists, tuples, sets and numpy
    arrays are followed; numpy scalars become Python ones; enums their values; non-finite floats,
    ``None``, ``pd.NA`` and ``NaT`` become ``None``; ``Decimal`` a float (an int when whole);
    dates, times, ``pd.Timestamp`` and ``np.datetime64`` ISO 8601 strings; ``pd.Timedelta``,
    ``datetime.timedelta`` and ``np.timedelta64`` seconds as a float; bytes are decoded as UTF-8
    (with replacement); paths become strings. Anything else is returned unchanged.
    """
    if isinstance(obj, Enum):
        return jsonable(obj.value)
    if obj is None or isinstance(obj, bool | int | str):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Result):
        return obj.to_dict()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type) and hasattr(obj, "to_dict"):
        return jsonable(obj.to_dict())
    if isinstance(obj, dict):
        return {str(k.value if isinstance(k, Enum) else k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, set | frozenset):
        items = [jsonable(v) for v in obj]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=repr)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "mM":  # datetime64 / timedelta64: tolist() would give integers
            return [jsonable(v) for v in obj]
        return jsonable(obj.tolist())
    if isinstance(obj, np.datetime64):
        return None if np.isnat(obj) else str(np.datetime_as_string(obj))
    if isinstance(obj, np.timedelta64):
        return None if np.isnat(obj) else float(obj / np.timedelta64(1, "s"))
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    if isinstance(obj, Decimal):
        if not obj.is_finite():
            return None
        return int(obj) if obj == obj.to_integral_value() else float(obj)
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, bytes | bytearray):
        return bytes(obj).decode("utf-8", errors="replace")
    if _is_missing_scalar(obj):  # pd.NA, pd.NaT
        return None
    if isinstance(obj, _dt.timedelta):  # pd.Timedelta derives from it
        return obj.total_seconds()
    if isinstance(obj, _dt.datetime | _dt.date | _dt.time):  # pd.Timestamp derives from datetime
        return obj.isoformat()
    if hasattr(obj, "isoformat") and callable(obj.isoformat):
        return obj.isoformat()
    return obj


def _is_missing_scalar(obj: Any) -> bool:
    """``pd.NA`` or ``pd.NaT`` (pandas is imported only when it is already loaded)."""
    pd = sys.modules.get("pandas")
    if pd is None:
        return False
    return obj is pd.NA or obj is pd.NaT


#: Fields of a result's JSON that measure the machine or the moment, not the data: stage times,
#: the budget's clock (and which of its parts resumed an earlier run's work), the creation time.
MACHINE_FIELDS = (
    "seconds",
    "measured_seconds",
    "projected_seconds",
    "screen_seconds",
    "resumed",
    "created",
)


def without_timings(doc: Any, drop: tuple[str, ...] = ()) -> Any:
    """A JSON document without :data:`MACHINE_FIELDS` (and the fields ``drop``) at any depth:
    what two runs of the same audit with the same seed share, bit for bit."""
    if isinstance(doc, dict):
        gone = (*MACHINE_FIELDS, *drop)
        return {k: without_timings(v, drop) for k, v in doc.items() if k not in gone}
    if isinstance(doc, list):
        return [without_timings(v, drop) for v in doc]
    return doc


def dumps(obj: Any) -> str:
    """Strict JSON text of ``obj`` (see :func:`jsonable`)."""
    return json.dumps(jsonable(obj), indent=2, allow_nan=False)


#: Lists with more scalars than this (per-record scores, row numbers) leave the main document
#: of a report for its side file (:func:`split_bulky`).
BULKY_LIMIT = 256
#: The key of the placeholder that stands for an array kept in the side file.
SIDE_REF = "$side"


def _scalar_count(obj: Any) -> int | None:
    """Number of scalars of a list of scalars (or of such lists); ``None`` for anything else."""
    if not isinstance(obj, list):
        return None
    total = 0
    for v in obj:
        if isinstance(v, list):
            sub = _scalar_count(v)
            if sub is None:
                return None
            total += sub
        elif v is None or isinstance(v, bool | int | float | str):
            total += 1
        else:
            return None
    return total


def split_bulky(doc: Any, limit: int = BULKY_LIMIT) -> tuple[Any, dict[str, Any]]:
    """Move every list of more than ``limit`` scalars out of a JSON document.

    Returns the document with each such list replaced by ``{"$side": POINTER, "length": N}``
    (``POINTER`` a JSON pointer to where it was) and the side document ``{POINTER: list}``;
    :func:`join_bulky` puts them back. Reports keep per-record arrays in a side file this way,
    so the main document stays small enough to read.
    """
    side: dict[str, Any] = {}

    def walk(obj: Any, pointer: str) -> Any:
        n = _scalar_count(obj)
        if n is not None and n > limit:
            side[pointer] = obj
            return {SIDE_REF: pointer, "length": len(obj)}
        if isinstance(obj, dict):
            return {
                k: walk(v, f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}")
                for k, v in obj.items()
            }
        if isinstance(obj, list):
            return [walk(v, f"{pointer}/{i}") for i, v in enumerate(obj)]
        return obj

    return walk(doc, ""), side


def join_bulky(doc: Any, side: dict[str, Any]) -> Any:
    """Inverse of :func:`split_bulky`: every placeholder replaced by its list from ``side``."""
    if isinstance(doc, dict):
        if SIDE_REF in doc and set(doc) <= {SIDE_REF, "length"}:
            pointer = doc[SIDE_REF]
            if pointer not in side:
                raise KeyError(pointer)
            return side[pointer]
        return {k: join_bulky(v, side) for k, v in doc.items()}
    if isinstance(doc, list):
        return [join_bulky(v, side) for v in doc]
    return doc


def _decode(tp: Any, value: Any) -> Any:
    origin = get_origin(tp)
    if origin is Annotated:
        base, *meta = get_args(tp)
        if base is np.ndarray:
            dtype = np.dtype(meta[0]) if meta else None
            return np.array([] if value is None else value, dtype=dtype)
        return _decode(base, value)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if value is None:
            if len(args) != len(get_args(tp)):  # Optional
                return None
            return _decode(args[0], value)
        for a in args:  # the first member whose shape fits
            if _fits(a, value):
                return _decode(a, value)
        return value
    if tp is Any or tp is object:
        return value
    if origin in (tuple,):
        items = get_args(tp)
        if len(items) == 2 and items[1] is Ellipsis:
            return tuple(_decode(items[0], v) for v in value)
        if not items:
            return tuple(value)
        return tuple(_decode(a, v) for a, v in zip(items, value, strict=True))
    if origin in (list, typing.Sequence, typing.List):  # noqa: UP006
        (a,) = get_args(tp) or (Any,)
        return [_decode(a, v) for v in value]
    if origin in (dict, typing.Mapping, typing.Dict):  # noqa: UP006
        k, v = get_args(tp) or (Any, Any)
        return {_decode(k, key): _decode(v, val) for key, val in value.items()}
    if isinstance(tp, type):
        if issubclass(tp, Result):
            return tp.from_dict(value)
        if dataclasses.is_dataclass(tp) and hasattr(tp, "from_dict"):
            return tp.from_dict(value)
        if issubclass(tp, Enum):
            return tp(value)
        if tp is float:
            return math.nan if value is None else float(value)
        if tp is bool:
            return bool(value)
        if tp is int:
            return int(value)
        if tp is str:
            return str(value)
        if tp is Path:
            return Path(value)
    return value


def decode(tp: Any, value: Any) -> Any:
    """The value of annotated type ``tp`` (a result class, ``X | None``, a tuple of results,
    ...) from its JSON form, as :meth:`Result.from_dict` decodes a field of that type."""
    return _decode(tp, value)


def _fits(tp: Any, value: Any) -> bool:
    origin = get_origin(tp) or tp
    if origin is Annotated:
        return isinstance(value, list)
    if isinstance(origin, type):
        if issubclass(origin, Result) or dataclasses.is_dataclass(origin):
            return isinstance(value, dict)
        if issubclass(origin, Enum):
            return value in {m.value for m in origin}
        if origin is float:
            return isinstance(value, int | float) and not isinstance(value, bool)
        if origin is int:
            return isinstance(value, int) and not isinstance(value, bool)
        if origin in (tuple, list):
            return isinstance(value, list)
        if origin is dict:
            return isinstance(value, dict)
        return isinstance(value, origin)
    return True


def _hints(cls: type) -> dict[str, Any]:
    cache = cls.__dict__.get("_serde_hints")
    if cache is None:
        cache = typing.get_type_hints(cls, include_extras=True)
        cls._serde_hints = cache  # type: ignore[attr-defined]
    return cache


def _short(value: Any) -> str | None:
    if value is None or isinstance(value, bool | int | str | Enum):
        text = repr(value.value if isinstance(value, Enum) else value)
        return text if len(text) <= 40 else text[:37] + "...'"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, Result):
        return f"{type(value).__name__}(...)"
    if isinstance(value, np.ndarray):
        return f"<array {value.shape}>"
    if isinstance(value, list | tuple | dict):
        return f"<{len(value)} items>"
    return None


class Result:
    """Base class of the frozen result dataclasses (see the module docstring)."""

    _serde_hints: ClassVar[dict[str, Any] | None] = None
    #: Set on the results a command writes on its own (``"membership"``, ``"audit"``): the
    #: JSON then starts with ``"kind"`` so a reader knows what it holds without guessing.
    result_kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain Python (JSON-ready) form; ``from_dict`` inverts it."""
        assert dataclasses.is_dataclass(self)
        head = {"kind": self.result_kind} if self.result_kind else {}
        return head | {f.name: jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls: type[R], d: dict[str, Any]) -> R:
        """Inverse of :meth:`to_dict`; missing fields take their defaults."""
        hints = _hints(cls)
        kwargs = {
            f.name: _decode(hints[f.name], d[f.name])
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
            if f.name in d and f.init
        }
        return cls(**kwargs)

    def to_json(self, path: str | Path | None = None) -> str:
        """Strict JSON text (undefined numbers as null); also written to ``path`` if given."""
        text = json.dumps(self.to_dict(), indent=2, allow_nan=False)
        if path is not None:
            Path(path).write_text(text + "\n")
        return text

    @classmethod
    def from_json(cls: type[R], text_or_path: str | Path) -> R:
        """Read :meth:`to_json` output, from its text or from a file."""
        text = str(text_or_path)
        if not text.lstrip().startswith("{"):
            text = Path(text).read_text()
        return cls.from_dict(json.loads(text))

    def same_as(self, other: object) -> bool:
        """Equal JSON forms (NaN equals NaN; arrays compared by value)."""
        return type(other) is type(self) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        parts = []
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if not f.repr:
                continue
            s = _short(getattr(self, f.name))
            if s is not None:
                parts.append(f"{f.name}={s}")
        return f"{type(self).__name__}({', '.join(parts)})"
