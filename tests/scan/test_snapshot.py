"""Tools snapshots: written sorted, read strictly."""

from __future__ import annotations

import json

import pytest

from cyclops.core.tomlreader import ConfigError
from cyclops.scan.snapshot import (
    ServerTools,
    Snapshot,
    ToolSpec,
    dump_snapshot,
    parse_snapshot,
    servers_in,
)

SNAPSHOT = Snapshot(
    (
        ServerTools(
            "fs",
            (ToolSpec("read", {"name": "read", "annotations": {"readOnlyHint": True}}),),
            ("filesystem",),
        ),
        ServerTools("web", (ToolSpec("fetch", {"name": "fetch", "_meta": {"x": 1}}),)),
    )
)


def test_a_snapshot_survives_a_round_trip_with_every_field_of_every_tool() -> None:
    again = parse_snapshot(dump_snapshot(SNAPSHOT), "s.json")
    assert again == Snapshot(tuple(again.servers))
    assert [(s.name, s.roles, [dict(t.raw) for t in s.tools]) for s in again.servers] == [
        (s.name, s.roles, [dict(t.raw) for t in s.tools]) for s in SNAPSHOT.servers
    ]


def test_a_snapshot_is_written_the_same_way_twice() -> None:
    assert dump_snapshot(SNAPSHOT) == dump_snapshot(parse_snapshot(dump_snapshot(SNAPSHOT), "s"))


def good() -> dict[str, object]:
    return json.loads(dump_snapshot(SNAPSHOT))


@pytest.mark.parametrize(
    ("change", "key"),
    [
        pytest.param(lambda d: d.update(extra=1), "extra", id="unknown top-level key"),
        pytest.param(
            lambda d: d.update(cyclops_tools_snapshot=9), "cyclops_tools_snapshot", id="version"
        ),
        pytest.param(
            lambda d: d["servers"][0].update(name="a b"), "servers[0].name", id="bad name"
        ),
        pytest.param(
            lambda d: d["servers"][1].update(name="fs"), "servers[1].name", id="duplicate server"
        ),
        pytest.param(
            lambda d: d["servers"][0].update(tools=[{}]),
            "servers[0].tools[0].name",
            id="no tool name",
        ),
        pytest.param(
            lambda d: d["servers"][0]["tools"].append({"name": "read"}),
            "servers[0].tools[1].name",
            id="duplicate tool",
        ),
        pytest.param(
            lambda d: d["servers"][0]["tools"][0]["annotations"].update(readOnlyHint="yes"),
            "servers[0].tools[0].annotations.readOnlyHint",
            id="hint not a boolean",
        ),
        pytest.param(
            lambda d: d["servers"][0].update(color="red"),
            "servers[0].color",
            id="unknown server key",
        ),
    ],
)
def test_a_bad_snapshot_is_refused_naming_the_key(change: object, key: str) -> None:
    data = good()
    change(data)  # type: ignore[operator]
    with pytest.raises(ConfigError) as error:
        parse_snapshot(json.dumps(data), "s.json")
    assert (error.value.source, error.value.key) == ("s.json", key)


def test_a_config_naming_a_server_the_snapshot_lacks_is_refused() -> None:
    with pytest.raises(ConfigError) as error:
        servers_in(SNAPSHOT, ["fs", "git"], "downstream.toml")
    assert error.value.key == "servers"
    assert [s.name for s in servers_in(SNAPSHOT, ["web", "fs"], "d").servers] == ["web", "fs"]
