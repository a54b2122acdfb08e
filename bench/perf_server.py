"""A trivial MCP server for the proxy benchmark: ``read_text_file(path)`` returns 2 KB of text.

    python bench/perf_server.py                 # stdio
    python bench/perf_server.py --http PORT     # Streamable HTTP at http://127.0.0.1:PORT/mcp

The text is a window of the Python documentation chosen by the path, so every result differs.
"""

from __future__ import annotations

import argparse
import hashlib
import pydoc_data.topics

from mcp.server.mcpserver import MCPServer

PROSE = "\n".join(pydoc_data.topics.topics.values())
SIZE = 2048

server = MCPServer("perf-files")


@server.tool()
def read_text_file(path: str) -> str:
    """Read a text file."""
    start = int(hashlib.sha256(path.encode()).hexdigest(), 16) % (len(PROSE) - SIZE)
    return PROSE[start : start + SIZE]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", type=int, help="serve Streamable HTTP on this port")
    args = parser.parse_args()
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
