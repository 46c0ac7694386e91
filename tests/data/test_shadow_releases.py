"""Shadow-release folders: synthleak's layout and MIDST's published one, and their errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthleak.data.shadow_releases import (
    ShadowRelease,
    check_shadows,
    read_release_folder,
    read_shadow_releases,
    write_shadow_release,
)
from synthleak.errors import InputError


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.normal(size=n)})


def test_synthleak_layout_round_trips(tmp_path: Path) -> None:
    for i in (2, 10, 1):
        s = ShadowRelease(
            f"shadow_{i}",
            _frame(5, i),
            _frame(7, i + 1),
            _frame(4, i + 2),
            np.array([1, 0, 1, 0], bool),
        )
        write_shadow_release(tmp_path, s)
    got = read_shadow_releases(tmp_path)
    assert [s.name for s in got] == ["shadow_1", "shadow_2", "shadow_10"]  # natural order
    s = got[1]
    pd.testing.assert_frame_equal(s.release, _frame(5, 2))
    pd.testing.assert_frame_equal(s.training, _frame(7, 3))
    assert s.labels is not None and s.labels.tolist() == [True, False, True, False]


def test_midst_layout_drops_identifiers_the_release_lacks(tmp_path: Path) -> None:
    d = tmp_path / "tabddpm_1"
    d.mkdir()
    release = _frame(5, 0)
    release.to_csv(d / "trans_synthetic.csv", index=False)
    train = _frame(6, 1).assign(trans_id=range(6), account_id=range(6))
    train.to_csv(d / "train_with_id.csv", index=False)
    _frame(3, 2).assign(trans_id=range(3), account_id=range(3)).to_csv(
        d / "challenge_with_id.csv", index=False
    )
    pd.DataFrame({"is_train": [1, 0, 1]}).to_csv(d / "challenge_label.csv", index=False)
    (s,) = read_shadow_releases(tmp_path)
    assert list(s.training.columns) == ["a", "b"] and list(s.challenge.columns) == ["a", "b"]
    assert s.labels.tolist() == [True, False, True]


def test_a_target_folder_needs_no_training_records(tmp_path: Path) -> None:
    d = tmp_path / "t"
    d.mkdir()
    _frame(5, 0).to_csv(d / "release.csv", index=False)
    assert read_release_folder(d, need_training=False).training is None
    with pytest.raises(InputError, match="training records"):
        read_release_folder(d)


def test_bad_folders_and_labels_raise_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a folder"):
        read_shadow_releases(tmp_path / "missing")
    with pytest.raises(InputError, match="no release folder"):
        read_shadow_releases(tmp_path)
    s = ShadowRelease("x", _frame(5, 0), _frame(5, 1), _frame(2, 2), None)
    path = write_shadow_release(tmp_path, s)
    pd.DataFrame({"is_member": [1, 0, 1]}).to_csv(path / "challenge_labels.csv", index=False)
    with pytest.raises(InputError, match="2 labels"):
        read_shadow_releases(tmp_path)
    pd.DataFrame({"other": [1, 0]}).to_csv(path / "challenge_labels.csv", index=False)
    with pytest.raises(InputError, match="is_member"):
        read_shadow_releases(tmp_path)
    _frame(2, 3).drop(columns="b").to_csv(path / "challenge.csv", index=False)
    with pytest.raises(InputError, match="lacks the release's column"):
        read_shadow_releases(tmp_path)


def test_check_shadows_refuses_too_few(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="at least 3"):
        check_shadows([ShadowRelease("x", _frame(3, 0), _frame(3, 1))] * 2)
    with pytest.raises(InputError, match="no training records"):
        check_shadows([ShadowRelease(n, _frame(3, 0)) for n in "xyz"])
