import json
import re

import numpy as np
import pandas as pd
import pytest

from synthleak.data.relational import (
    RelationalData,
    RelationalSchema,
    load_relational,
    person_views,
)
from synthleak.errors import InputError

SDV_META = {
    "METADATA_SPEC_VERSION": "MULTI_TABLE_V1",
    "tables": {
        "users": {
            "primary_key": "uid",
            "columns": {
                "uid": {"sdtype": "id"},
                "age": {"sdtype": "numerical"},
                "plan": {"sdtype": "categorical"},
            },
        },
        "sessions": {
            "primary_key": "sid",
            "columns": {
                "sid": {"sdtype": "id"},
                "uid": {"sdtype": "id"},
                "secs": {"sdtype": "numerical"},
                "device": {"sdtype": "categorical"},
            },
        },
    },
    "relationships": [
        {
            "parent_table_name": "users",
            "parent_primary_key": "uid",
            "child_table_name": "sessions",
            "child_foreign_key": "uid",
        }
    ],
}


def frames() -> dict[str, pd.DataFrame]:
    users = pd.DataFrame({"uid": [10, 11, 12], "age": [30, 40, 50], "plan": ["a", "b", "a"]})
    sessions = pd.DataFrame(
        {
            "sid": [1, 2, 3, 4, 5],
            "uid": [10, 10, 11, 10, 11],
            "secs": [1.0, 3.0, 5.0, 5.0, np.nan],
            "device": [2, 2, 7, 3, 7],
        }
    )
    return {"users": users, "sessions": sessions}


def test_sdv_metadata_is_read():
    sch = RelationalSchema.from_sdv(json.dumps(SDV_META))
    assert sch.primary_keys == {"users": "uid", "sessions": "sid"}
    assert sch.roots == ("users",)
    assert sch.descendants("users") == ("sessions",)
    assert list(sch.categorical["sessions"]) == ["device"]


def test_folder_of_tables(tmp_path):
    f = frames()
    f["users"].to_csv(tmp_path / "users.csv", index=False)
    f["sessions"].to_parquet(tmp_path / "sessions.parquet")
    (tmp_path / "meta.json").write_text(json.dumps(SDV_META))
    data = load_relational(tmp_path, tmp_path / "meta.json")
    assert len(data.frames["sessions"]) == 5


def test_missing_table(tmp_path):
    frames()["users"].to_csv(tmp_path / "users.csv", index=False)
    with pytest.raises(InputError, match=r"table\(s\) \['sessions'\] .* missing"):
        load_relational(tmp_path, SDV_META)


def test_orphaned_foreign_key_names_table_column_count_and_key():
    f = frames()
    f["sessions"].loc[[1, 3], "uid"] = 99
    with pytest.raises(InputError) as e:
        RelationalData(RelationalSchema.from_sdv(SDV_META), f).validate()
    msg = str(e.value)
    assert "sessions.uid" in msg and "2 orphaned" in msg and "99" in msg and "\n" not in msg


def test_non_unique_primary_key():
    f = frames()
    f["users"].loc[2, "uid"] = 10
    with pytest.raises(InputError, match=r"users\.uid is not unique: 1 key\(s\) repeat.*10"):
        RelationalData(RelationalSchema.from_sdv(SDV_META), f).validate()


def test_cycle():
    with pytest.raises(InputError, match="cycle"):
        RelationalSchema.build(
            {"a": "id", "b": "id", "c": "id"},
            [("b", "a_id", "a"), ("c", "b_id", "b"), ("a", "c_id", "c")],
        )


def test_person_view_is_exact_and_keyed_by_root():
    sch = RelationalSchema.from_sdv(SDV_META)
    view = person_views({"x": RelationalData(sch, frames())})["x"]
    assert view.index.name == "uid" and list(view.index) == [10, 11, 12]
    assert view.loc[10, "sessions.n_rows"] == 3
    assert view.loc[10, "sessions.secs:mean"] == pytest.approx(3.0)
    assert view.loc[10, "sessions.secs:std"] == pytest.approx(np.std([1.0, 3.0, 5.0]))
    assert view.loc[10, "sessions.secs:min"] == 1 and view.loc[10, "sessions.secs:max"] == 5
    assert view.loc[11, "sessions.secs:mean"] == 5.0  # the missing value is not counted
    assert view.loc[10, "sessions.device=2"] == 2 and view.loc[11, "sessions.device=7"] == 2
    assert view.loc[10, "sessions.device:n_distinct"] == 2
    assert view.loc[12, "sessions.n_rows"] == 0 and np.isnan(view.loc[12, "sessions.secs:mean"])
    assert "sessions.sid:mean" not in view and "sessions.uid:mean" not in view


def test_grandchildren_and_sequences_and_shared_vocabulary():
    sch = RelationalSchema.build(
        {"h": "hid", "p": "pid", "v": "vid"},
        [("p", "hid", "h"), ("v", "pid", "p")],
        categorical={"v": ["kind"]},
        order_by={"v": "day"},
    )
    a = RelationalData(
        sch,
        {
            "h": pd.DataFrame({"hid": ["x", "y"], "size": [2, 1]}),
            "p": pd.DataFrame({"pid": [1, 2, 3], "hid": ["x", "x", "y"], "age": [3, 5, 7]}),
            "v": pd.DataFrame(
                {"vid": [1, 2, 3], "pid": [2, 1, 3], "day": [5, 9, 1], "kind": ["u", "w", "u"]}
            ),
        },
    )
    b = RelationalData(
        sch,
        {
            "h": pd.DataFrame({"hid": ["z"], "size": [1]}),
            "p": pd.DataFrame({"pid": [9], "hid": ["z"], "age": [1]}),
            "v": pd.DataFrame({"vid": [4], "pid": [9], "day": [2], "kind": ["q"]}),
        },
    )
    views = person_views({"a": a, "b": b})
    assert list(views["a"].columns) == list(views["b"].columns)
    va = views["a"]
    assert va.loc["x", "v.n_rows"] == 2 and va.loc["x", "p.age:mean"] == 4
    assert va.loc["x", "v.kind:first"] == "u" and va.loc["x", "v.kind:last"] == "w"
    assert va.loc["x", "v.kind=q"] == 0 and views["b"].loc["z", "v.kind=q"] == 1


def test_view_scales_without_a_loop_over_persons():
    rng = np.random.default_rng(0)
    n, m = 10_000, 150_000
    sch = RelationalSchema.build(
        {"u": "id", "s": "id"}, [("s", "uid", "u")], categorical={"s": ["k"]}
    )
    data = RelationalData(
        sch,
        {
            "u": pd.DataFrame({"id": np.arange(n), "a": rng.normal(size=n)}),
            "s": pd.DataFrame(
                {
                    "id": np.arange(m),
                    "uid": rng.integers(0, n, m),
                    "x": rng.normal(size=m),
                    "k": rng.integers(0, 50, m),
                }
            ),
        },
    )
    view = person_views({"o": data}, max_categories=5)["o"]
    assert view["s.n_rows"].sum() == m and view.shape == (n, 1 + 1 + 4 + 5 + 1)


def test_a_parent_needs_a_primary_key_and_a_leaf_may_lack_one():
    with pytest.raises(InputError, match="refers to a, which has no primary key"):
        RelationalSchema.build({"a": None, "b": "id"}, [("b", "a_id", "a")])
    sch = RelationalSchema.build({"a": "id", "b": None}, [("b", "a_id", "a")])
    data = RelationalData(
        sch,
        {"a": pd.DataFrame({"id": [1, 2]}), "b": pd.DataFrame({"a_id": [1, 1], "x": [1, 1]})},
    )
    assert person_views({"o": data.validate()})["o"]["b.n_rows"].tolist() == [2.0, 0.0]


def test_the_table_of_persons_is_the_one_root_or_named():
    one = RelationalSchema.from_sdv(SDV_META)
    assert one.person_table() == "users" and one.person_table("users") == "users"
    with pytest.raises(InputError, match="'nope' is not a table") as exc:
        one.person_table("nope")
    assert exc.value.parameter == "root"
    two = dict(SDV_META, tables={**SDV_META["tables"], "shops": {"primary_key": "shop"}})
    with pytest.raises(InputError, match=r"root tables \['users', 'shops'\]: name the table"):
        RelationalSchema.from_sdv(two).person_table()


def test_keys_on_a_command_line_give_the_schema() -> None:
    sch = RelationalSchema.from_keys(
        " household(hid); person(pid, hid->household) trip(-, pid->person) "
    )
    assert sch.primary_keys == {"household": "hid", "person": "pid", "trip": None}
    assert [(k.child, k.column, k.parent) for k in sch.foreign_keys] == [
        ("person", "hid", "household"),
        ("trip", "pid", "person"),
    ]
    for bad, message in (
        ("person", "are not a list of NAME"),
        ("person(pid) junk", "are not a list of NAME"),
        ("person(pid) visit(vid, pid)", "'pid' in table 'visit' is not COLUMN->PARENT"),
        ("person(pid) person(x)", "declare table 'person' twice"),
        ("visit(vid, pid->person)", "names table 'person' that is not declared"),
        ("person(, x->y)", "starts with no primary key"),
        ("a(x, y->b) b(z, w->a)", "cycle"),
    ):
        with pytest.raises(InputError, match=re.escape(message)):
            RelationalSchema.from_keys(bad)
