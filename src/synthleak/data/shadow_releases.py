"""Shadow releases read from a folder: pairs of (training records, release) of one generator.

A shadow release is what a data owner gets by re-running their own pipeline on records of the
population (or what a benchmark such as MIDST publishes): the records a generator was trained
on and the synthetic release it produced, and, where given, challenge points with their
membership labels. The attack of :mod:`synthleak.attacks.mia_shadow_release` learns from them
what distinguishes a member of a release.

Two folder layouts are read, one sub-folder per shadow release (sorted by name):

**synthleak's layout**::

    DIR/<name>/training.csv              the records the generator was trained on
    DIR/<name>/release.csv               the synthetic release it produced
    DIR/<name>/challenge.csv             optional: records of unknown membership
    DIR/<name>/challenge_labels.csv      optional: one column ``is_member`` (0/1), one row per
                                         challenge record

**MIDST's published layout** (SaTML 2025 challenge, black-box single-table track)::

    DIR/<model>_<n>/train_with_id.csv      training records with ``trans_id``, ``account_id``
    DIR/<model>_<n>/trans_synthetic.csv    the release (no identifier columns)
    DIR/<model>_<n>/challenge_with_id.csv  optional: challenge points
    DIR/<model>_<n>/challenge_label.csv    optional: one column ``is_train`` (0/1)

Identifier columns that the release does not have (MIDST's ``trans_id`` and ``account_id``)
are dropped from the training and challenge records: the generator never saw them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from synthleak.errors import InputError

#: File names of synthleak's own layout.
SYNTHLEAK_FILES = {
    "training": "training.csv",
    "release": "release.csv",
    "challenge": "challenge.csv",
    "labels": "challenge_labels.csv",
}
#: File names of MIDST's published layout.
MIDST_FILES = {
    "training": "train_with_id.csv",
    "release": "trans_synthetic.csv",
    "challenge": "challenge_with_id.csv",
    "labels": "challenge_label.csv",
}
_LABEL_COLUMNS = ("is_member", "is_train")


@dataclasses.dataclass(frozen=True, eq=False)
class ShadowRelease:
    """One release and what is known about it.

    Attributes
    ----------
    name : str
        The folder name.
    release : DataFrame
        The synthetic records.
    training : DataFrame or None
        The records the generator was trained on (``None`` for a target release, whose training
        records are what the attack is about).
    challenge : DataFrame or None
        Records of unknown membership, where given.
    labels : ndarray of bool or None
        Membership of each challenge record, where given.
    """

    name: str
    release: pd.DataFrame
    training: pd.DataFrame | None = None
    challenge: pd.DataFrame | None = None
    labels: np.ndarray | None = None


def _layout(folder: Path) -> dict[str, str] | None:
    for files in (SYNTHLEAK_FILES, MIDST_FILES):
        if (folder / files["release"]).is_file():
            return files
    return None


def _read_labels(path: Path, n: int) -> np.ndarray:
    frame = pd.read_csv(path)
    col = next((c for c in _LABEL_COLUMNS if c in frame.columns), None)
    if col is None:
        raise InputError(
            f"{path} has no column named {' or '.join(_LABEL_COLUMNS)}: give one 0/1 column "
            "of membership labels"
        )
    values = frame[col].to_numpy()
    if len(values) != n or not np.isin(values, (0, 1)).all():
        raise InputError(
            f"{path} must hold {n} labels of 0 or 1 (one per challenge record), "
            f"got {len(values)}: fix the file"
        )
    return values.astype(bool)


def read_release_folder(folder: str | Path, *, need_training: bool = True) -> ShadowRelease:
    """Read one folder of either layout (see the module docstring).

    ``need_training=False`` reads a target release, whose training records may be absent.
    """
    path = Path(folder)
    files = _layout(path)
    if files is None:
        raise InputError(
            f"{path} holds neither release.csv (synthleak's layout) nor trans_synthetic.csv "
            "(MIDST's layout): give a folder per release as the README describes"
        )
    release = pd.read_csv(path / files["release"])
    keep = list(release.columns)

    def _part(key: str) -> pd.DataFrame | None:
        p = path / files[key]
        if not p.is_file():
            return None
        frame = pd.read_csv(p)
        missing = [c for c in keep if c not in frame.columns]
        if missing:
            raise InputError(
                f"{p} lacks the release's column(s) {missing}: give records with the "
                "release's columns"
            )
        return frame[keep]

    training = _part("training")
    if need_training and training is None:
        raise InputError(
            f"{path} has no {files['training']}: a shadow release needs its training records"
        )
    challenge = _part("challenge")
    labels = None
    if challenge is not None and (path / files["labels"]).is_file():
        labels = _read_labels(path / files["labels"], len(challenge))
    return ShadowRelease(path.name, release, training, challenge, labels)


def read_shadow_releases(
    directory: str | Path, *, need_training: bool = True
) -> list[ShadowRelease]:
    """Every shadow release under ``directory`` (one sub-folder each, sorted by name).

    Raises
    ------
    InputError
        When ``directory`` is not a folder or holds no release folder.
    """
    root = Path(directory)
    if not root.is_dir():
        raise InputError(
            f"shadow_releases {root} is not a folder: give the folder of shadow releases"
        )
    folders = sorted(
        (p for p in root.iterdir() if p.is_dir() and _layout(p) is not None),
        key=lambda p: _natural_key(p.name),
    )
    if not folders:
        raise InputError(
            f"shadow_releases {root} holds no release folder: give one sub-folder per shadow "
            "release (release.csv and training.csv, or MIDST's trans_synthetic.csv and "
            "train_with_id.csv)"
        )
    return [read_release_folder(p, need_training=need_training) for p in folders]


def _natural_key(name: str) -> tuple[str, int]:
    head = name.rstrip("0123456789")
    tail = name[len(head) :]
    return head, int(tail) if tail else -1


def write_shadow_release(folder: str | Path, shadow: ShadowRelease) -> Path:
    """Write ``shadow`` in synthleak's layout under ``folder/shadow.name``; returns that path."""
    path = Path(folder) / shadow.name
    path.mkdir(parents=True, exist_ok=True)
    shadow.release.to_csv(path / SYNTHLEAK_FILES["release"], index=False)
    if shadow.training is not None:
        shadow.training.to_csv(path / SYNTHLEAK_FILES["training"], index=False)
    if shadow.challenge is not None:
        shadow.challenge.to_csv(path / SYNTHLEAK_FILES["challenge"], index=False)
        if shadow.labels is not None:
            pd.DataFrame({"is_member": np.asarray(shadow.labels, dtype=int)}).to_csv(
                path / SYNTHLEAK_FILES["labels"], index=False
            )
    return path


#: The fewest shadow releases the attack learns from: a labelled example (a record on one
#: shadow release) is calibrated on the shadows other than that one and the one it was drawn
#: from, so with two no example is ever calibrated.
MIN_SHADOWS = 3


def check_shadows(shadows: Sequence[ShadowRelease], minimum: int = MIN_SHADOWS) -> None:
    """Refuse fewer than ``minimum`` shadow releases or one without training records."""
    if len(shadows) < minimum:
        raise InputError(
            f"shadow_releases: {len(shadows)} given, at least {minimum} are needed to calibrate "
            "a record's signal across releases it was not in (an example of the attack is "
            "calibrated on shadows other than its own two); give more shadow releases"
        )
    for s in shadows:
        if s.training is None or len(s.training) == 0 or len(s.release) == 0:
            raise InputError(
                f"shadow release {s.name} has no training records or an empty release: give both"
            )
