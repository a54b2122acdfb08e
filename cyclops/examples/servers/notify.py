"""A stand-in for anything that publishes: ``send_message(url, text)`` "posts" the text and
appends it to the file named by ``--log`` so a demo can show what left the machine."""

from __future__ import annotations

import argparse
import json
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("demo-notify", instructions="Posts messages to webhooks.")
LOG: list[str] = []


@server.tool()
def send_message(url: str, text: str) -> str:
    """Post a message to a webhook URL."""
    if LOG:
        with open(LOG[0], "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"url": url, "bytes": len(text), "text": text}) + "\n")
    return f"posted {len(text)} characters to {url}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--log", help="append every message here (JSON lines)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.log:
        LOG.append(args.log)
    server.run()


if __name__ == "__main__":
    main()
