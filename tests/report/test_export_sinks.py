"""Streaming findings to real local listeners: a file, syslog over UDP and TCP, HTTP."""

from __future__ import annotations

import json
import logging
import re
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import jsonschema
import pytest
import uvicorn
from report_support import OCSF_SCHEMA, attack
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cyclops.cli import EXIT_USAGE, main
from cyclops.core import Patterns, Severity
from cyclops.report.export_sinks import (
    Exporter,
    ExportItem,
    ExportSpecError,
    ExportTarget,
    Transport,
    export_item,
    octet_counted,
    parse_export,
    syslog_message,
)
from cyclops.report.ocsf import decision_findings

pytestmark = pytest.mark.anyio

VALIDATOR = jsonschema.Draft202012Validator(OCSF_SCHEMA)
RFC5424 = re.compile(
    rb"<(?P<pri>\d{1,3})>1 (?P<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (?P<host>[!-~]+) "
    rb"cyclops (?P<pid>\d+) DetectionFinding - (?P<msg>\{.*\})\Z",
    re.S,
)


@pytest.fixture
def item(patterns: Patterns) -> ExportItem:
    toxic = attack(patterns)[-1]
    return export_item(decision_findings("s1", toxic, at=1_700_000_000.0)[0])


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("ocsf:file:/var/log/f.jsonl", ExportTarget(Transport.FILE, path=Path("/var/log/f.jsonl"))),
        (
            "ocsf:syslog+udp://siem.internal:5514",
            ExportTarget(Transport.SYSLOG_UDP, host="siem.internal", port=5514),
        ),
        ("ocsf:syslog+tcp://[::1]", ExportTarget(Transport.SYSLOG_TCP, host="::1", port=514)),
        (
            "ocsf:https://siem.example/in?t=1",
            ExportTarget(
                Transport.HTTPS, host="siem.example", port=443, url="https://siem.example/in?t=1"
            ),
        ),
        (
            "ocsf:http://127.0.0.1:8080/x",
            ExportTarget(
                Transport.HTTP, host="127.0.0.1", port=8080, url="http://127.0.0.1:8080/x"
            ),
        ),
    ],
)
def test_an_export_option_names_a_transport_and_an_address(
    spec: str, expected: ExportTarget
) -> None:
    assert parse_export(spec) == expected


@pytest.mark.parametrize(
    "spec",
    [
        "file:/tmp/x",
        "json:file:/tmp/x",
        "ocsf:",
        "ocsf:file:",
        "ocsf:ftp://host/x",
        "ocsf:syslog+udp://",
        "ocsf:syslog+tcp://host:99999",
        "ocsf:syslog+udp://host:514/path",
        "ocsf:/tmp/x",
    ],
)
def test_an_export_option_cyclops_cannot_read_is_refused(spec: str) -> None:
    with pytest.raises(ExportSpecError):
        parse_export(spec)


def test_a_target_prints_without_credentials_or_query() -> None:
    target = parse_export("ocsf:https://user:pw@siem.example:8443/in?token=s3cret")
    assert str(target) == "ocsf:https://siem.example:8443/in"


@pytest.mark.parametrize(
    ("severity", "pri"),
    [(Severity.CRITICAL, 34), (Severity.HIGH, 35), (Severity.MEDIUM, 36), (Severity.LOW, 37)],
)
def test_a_syslog_message_is_rfc5424_with_the_finding_as_its_message(
    item: ExportItem, severity: Severity, pri: int
) -> None:
    message = syslog_message(ExportItem(item.body, severity, 1_700_000_000_250), "host-1", 42)
    match = RFC5424.match(message)
    assert match is not None
    assert int(match["pri"]) == pri
    assert match["time"] == b"2023-11-14T22:13:20.250Z"
    VALIDATOR.validate(json.loads(match["msg"]))


def test_syslog_over_tcp_is_framed_by_octet_counting() -> None:
    assert octet_counted(b"<34>1 x") == b"7 <34>1 x"
    assert octet_counted("é".encode()) == b"2 \xc3\xa9"


def _frames(buffer: bytes) -> tuple[list[bytes], bytes]:
    frames = []
    while b" " in buffer:
        length, rest = buffer.split(b" ", 1)
        if len(rest) < int(length):
            break
        frames.append(rest[: int(length)])
        buffer = rest[int(length) :]
    return frames, buffer


async def test_findings_stream_to_a_syslog_udp_listener(item: ExportItem) -> None:
    with anyio.fail_after(10):
        async with await anyio.create_udp_socket(local_host="127.0.0.1") as listener:
            port = listener.extra(anyio.abc.SocketAttribute.local_port)
            exporter = Exporter(parse_export(f"ocsf:syslog+udp://127.0.0.1:{port}"))
            async with anyio.create_task_group() as tg:
                tg.start_soon(exporter.run)
                exporter.submit(item)
                exporter.submit(item)
                datagrams = [(await listener.receive())[0] for _ in range(2)]
                tg.cancel_scope.cancel()
            await exporter.drain(1)
    for datagram in datagrams:
        match = RFC5424.match(datagram)
        assert match is not None
        VALIDATOR.validate(json.loads(match["msg"]))
    # one at a time: the second was sent once the first was counted
    assert (exporter.sent >= 1, exporter.failed, exporter.dropped) == (True, 0, 0)


async def test_findings_stream_to_a_syslog_tcp_listener_one_frame_each(item: ExportItem) -> None:
    received: list[bytes] = []
    done = anyio.Event()

    async def handle(stream: anyio.abc.SocketStream) -> None:
        buffer = b""
        async with stream:
            while len(received) < 3:
                buffer += await stream.receive()
                frames, buffer = _frames(buffer)
                received.extend(frames)
        done.set()

    with anyio.fail_after(10):
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
        port = listener.listeners[0].extra(anyio.abc.SocketAttribute.local_port)
        exporter = Exporter(parse_export(f"ocsf:syslog+tcp://127.0.0.1:{port}"))
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, handle)
            tg.start_soon(exporter.run)
            for _ in range(3):
                exporter.submit(item)
            await done.wait()
            tg.cancel_scope.cancel()
        await exporter.drain(1)
    assert len(received) == 3
    for frame in received:
        match = RFC5424.match(frame)
        assert match is not None
        VALIDATOR.validate(json.loads(match["msg"]))
    assert exporter.sent >= 2  # one at a time: the third was sent once the second was counted


@asynccontextmanager
async def http_listener() -> AsyncIterator[tuple[int, list[Any], anyio.Event]]:
    """A starlette app under uvicorn on an ephemeral port: /in collects (``arrived`` at the
    second post), /fail answers 500, /hang answers once released."""
    bodies: list[Any] = []
    arrived, release = anyio.Event(), anyio.Event()

    async def collect(request: Request) -> Response:
        bodies.append({"json": await request.json(), "headers": dict(request.headers)})
        if len(bodies) == 2:
            arrived.set()
        return Response(status_code=202)

    async def fail(request: Request) -> Response:
        return Response(status_code=500)

    async def hang(request: Request) -> Response:
        await release.wait()
        return Response(status_code=202)

    app = Starlette(
        routes=[
            Route("/in", collect, methods=["POST"]),
            Route("/fail", fail, methods=["POST"]),
            Route("/hang", hang, methods=["POST"]),
        ]
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="off"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        try:
            yield port, bodies, arrived
        finally:
            release.set()
            server.should_exit = True


async def test_findings_stream_to_an_http_endpoint_as_json_posts(item: ExportItem) -> None:
    environ = {"CYCLOPS_EXPORT_AUTHORIZATION": "Bearer t0ken"}
    with anyio.fail_after(15):
        async with http_listener() as (port, bodies, arrived):
            exporter = Exporter(parse_export(f"ocsf:http://127.0.0.1:{port}/in"), environ=environ)
            async with anyio.create_task_group() as tg:
                tg.start_soon(exporter.run)
                exporter.submit(item)
                exporter.submit(item)
                await arrived.wait()
                tg.cancel_scope.cancel()
            await exporter.drain(1)
    assert len(bodies) == 2
    VALIDATOR.validate(bodies[0]["json"])
    assert bodies[0]["headers"]["content-type"] == "application/json"
    assert bodies[0]["headers"]["authorization"] == "Bearer t0ken"
    assert exporter.sent >= 1  # one at a time: the second was posted once the first was counted


async def test_an_http_error_is_counted_and_logged_not_raised(
    item: ExportItem, caplog: pytest.LogCaptureFixture
) -> None:
    with anyio.fail_after(15):
        async with http_listener() as (port, _, _):
            exporter = Exporter(parse_export(f"ocsf:http://127.0.0.1:{port}/fail"))
            exporter.submit(item)
            exporter.submit(item)
            await exporter.drain(5)
    assert (exporter.sent, exporter.failed) == (0, 2)
    warnings = [r for r in caplog.records if r.name == "cyclops.export"]
    assert [r.levelno for r in warnings] == [logging.WARNING, logging.WARNING]  # first + summary


async def test_an_endpoint_that_hangs_costs_one_bounded_timeout(item: ExportItem) -> None:
    with anyio.fail_after(15):
        async with http_listener() as (port, _, _):
            exporter = Exporter(parse_export(f"ocsf:http://127.0.0.1:{port}/hang"), timeout=0.2)
            exporter.submit(item)
            await exporter.drain(5)
    assert (exporter.sent, exporter.failed) == (0, 1)


async def test_a_syslog_tcp_listener_that_is_not_there_is_counted(item: ExportItem) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    exporter = Exporter(parse_export(f"ocsf:syslog+tcp://127.0.0.1:{port}"), timeout=2)
    with anyio.fail_after(10):
        exporter.submit(item)
        await exporter.drain(5)
    assert (exporter.sent, exporter.failed) == (0, 1)


async def test_a_full_queue_drops_and_counts_instead_of_waiting(
    item: ExportItem, tmp_path: Path
) -> None:
    exporter = Exporter(parse_export(f"ocsf:file:{tmp_path / 'f.jsonl'}"), queue_size=2)
    for _ in range(5):
        exporter.submit(item)  # never waits, even with nobody sending
    assert exporter.dropped == 3
    with anyio.fail_after(10):
        await exporter.drain(5)
    assert exporter.sent == 2
    lines = (tmp_path / "f.jsonl").read_text().splitlines()
    assert len(lines) == 2
    for line in lines:
        VALIDATOR.validate(json.loads(line))
    assert (tmp_path / "f.jsonl").stat().st_mode & 0o777 == 0o600


def test_serve_refuses_an_export_it_cannot_read_before_starting(tmp_path: Path) -> None:
    downstream = tmp_path / "downstream.toml"
    downstream.write_text('[[server]]\nname = "files"\ncommand = "true"\n')
    argv = ["serve", "--downstream", str(downstream), "--export", "ocsf:ftp://siem/x"]
    assert main(argv) == EXIT_USAGE
