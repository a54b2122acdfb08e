"""A header-injecting pass-through in front of ``cyclops serve --http``, for the conformance suite.

The suite (``conformance server --url URL``) has no way to send an ``Authorization`` header, and
cyclops refuses every request without its bearer token. This proxy listens on its own port and
forwards every request to cyclops unchanged except for three headers:

- ``Authorization: Bearer <token>`` is added (replacing any the client sent);
- ``Host`` naming this proxy (127.0.0.1/localhost/[::1] with this proxy's port) is rewritten to
  name cyclops instead, so cyclops sees what a client connecting to it directly would send; any
  other Host (the suite's DNS-rebinding probe sends ``evil.example.com``) passes through as is;
- ``Origin`` is rewritten by the same rule.

Hop-by-hop headers are dropped. Response bodies, SSE streams included, are streamed through
byte for byte as they arrive. Each exchange is logged as one JSON line (``--log``): the request
line, its JSON-RPC method and id, the status, the response content type and the first bytes of
the response body, so a failing scenario can be shown with the wire traffic that caused it.

    python authproxy.py --port 4100 --upstream http://127.0.0.1:4200 --token-file T --log L
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TextIO

import httpx2
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "authorization",
}
# uvicorn sets these itself on the way out; forwarding them would send each twice.
RESPONSE_DROP = HOP_BY_HOP | {"date", "server"}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
EXCERPT = 4000


def rewrite_authority(value: str, own_port: int, target_port: int) -> str:
    """`127.0.0.1:<own>` -> `127.0.0.1:<target>` (also inside an Origin URL); others unchanged."""
    for name in LOOPBACK_NAMES:
        for prefix in ("", "http://"):
            if value == f"{prefix}{name}:{own_port}":
                return f"{prefix}{name}:{target_port}"
    return value


def jsonrpc_summary(body: bytes) -> dict[str, Any]:
    try:
        message = json.loads(body)
    except ValueError:
        return {}
    if not isinstance(message, dict):
        return {"batch": True}
    params = message.get("params")
    summary: dict[str, Any] = {"rpc_method": message.get("method"), "rpc_id": message.get("id")}
    if message.get("method") == "initialize" and isinstance(params, dict):
        summary["protocol_version"] = params.get("protocolVersion")
    return summary


class Proxy:
    def __init__(
        self, upstream: str, token: str, own_port: int, log: TextIO | None, timeout: float
    ) -> None:
        self.upstream = httpx2.URL(upstream)
        self.token = token
        self.own_port = own_port
        self.target_port = self.upstream.port or 80
        self.log = log
        self.client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(timeout, read=None), follow_redirects=False
        )

    def record(self, entry: dict[str, Any]) -> None:
        if self.log is not None:
            self.log.write(json.dumps(entry, ensure_ascii=False) + "\n")
            self.log.flush()

    async def __call__(self, request: Request) -> Response:
        body = await request.body()
        host = request.headers.get("host")
        origin = request.headers.get("origin")
        host_out = rewrite_authority(host, self.own_port, self.target_port) if host else None
        origin_out = rewrite_authority(origin, self.own_port, self.target_port) if origin else None
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP]
        headers = [(k, origin_out or v) if k.lower() == "origin" else (k, v) for k, v in headers]
        if host_out is not None:
            headers.append(("host", host_out))
        headers.append(("authorization", f"Bearer {self.token}"))
        url = self.upstream.copy_with(
            path=request.url.path, query=request.url.query.encode() or None
        )
        entry: dict[str, Any] = {
            "t": time.time(),
            "http": f"{request.method} {request.url.path}",
            "host_in": host,
            "host_out": host_out,
            "origin_in": origin,
            "origin_out": origin_out,
            "protocol_header": request.headers.get("mcp-protocol-version"),
            "session": request.headers.get("mcp-session-id"),
            "last_event_id": request.headers.get("last-event-id"),
            **jsonrpc_summary(body),
            "request": body[:EXCERPT].decode("utf-8", "replace"),
        }
        try:
            upstream_request = self.client.build_request(
                request.method, url, headers=headers, content=body
            )
            response = await self.client.send(upstream_request, stream=True)
        except httpx2.HTTPError as exc:
            entry.update(status=502, error=repr(exc))
            self.record(entry)
            return Response(f"authproxy: upstream error {exc!r}\n", status_code=502)
        entry.update(status=response.status_code, content_type=response.headers.get("content-type"))
        out_headers = {k: v for k, v in response.headers.items() if k.lower() not in RESPONSE_DROP}
        if "content-length" in response.headers and request.method != "HEAD":
            out_headers["content-length"] = response.headers["content-length"]

        async def stream() -> AsyncIterator[bytes]:
            seen = bytearray()
            try:
                async for chunk in response.aiter_raw():
                    if len(seen) < EXCERPT:
                        seen.extend(chunk[: EXCERPT - len(seen)])
                    yield chunk
            finally:
                entry["response"] = seen.decode("utf-8", "replace")
                entry["t_end"] = time.time()
                self.record(entry)

        return StreamingResponse(
            stream(),
            status_code=response.status_code,
            headers=out_headers,
            background=BackgroundTask(response.aclose),
        )


def build_app(proxy: Proxy) -> Starlette:
    async def endpoint(request: Request) -> Response:
        return await proxy(request)

    methods = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]
    return Starlette(routes=[Route("/{path:path}", endpoint, methods=methods)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="e.g. http://127.0.0.1:4200")
    parser.add_argument("--token-file", type=Path, required=True)
    parser.add_argument("--log", type=Path)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    token = args.token_file.read_text().strip()
    log = args.log.open("a", encoding="utf-8") if args.log else None
    proxy = Proxy(args.upstream, token, args.port, log, args.timeout)
    uvicorn.run(
        build_app(proxy), host="127.0.0.1", port=args.port, log_level="warning", access_log=False
    )


if __name__ == "__main__":
    main()
