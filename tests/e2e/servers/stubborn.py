"""A downstream that does not exit when its input ends (some real servers keep timers or pending
requests alive): only a signal stops it. ``ping`` answers ``pong``."""

from __future__ import annotations

import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("e2e-stubborn")


@server.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    server.run()
    time.sleep(60)  # stdin is closed; stay until a signal (or a minute) ends the process
