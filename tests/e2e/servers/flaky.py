"""A downstream that misbehaves on request, for cyclops's robustness tests.

``python flaky.py [--startup-delay SECONDS]`` serves over stdio: ``crash`` ends the process in
the middle of the call, ``hang`` never returns, ``whoami`` returns the process id (a new one
after a restart). ``--startup-delay`` makes it slow to start, like a server fetched by npx.
"""

from __future__ import annotations

import argparse
import os
import time

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("e2e-flaky", instructions="Misbehaves on request.")


@server.tool()
def whoami() -> str:
    """Return this server process's id."""
    return str(os.getpid())


@server.tool()
def crash() -> str:
    """Exit the whole process in the middle of this call."""
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never return."""
    await anyio.sleep_forever()
    return "unreachable"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--startup-delay", type=float, default=0.0)
    time.sleep(parser.parse_args().startup_delay)
    server.run()
