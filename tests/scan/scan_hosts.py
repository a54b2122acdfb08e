"""Host configs as the three hosts write them, for the scan and wrap tests."""

from __future__ import annotations

CLAUDE = """{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    },
    "My GitHub": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_TOKEN": "ghp_written_here", "NOTE": "caf\\u00e9 ${NOT_EXPANDED}"}
    }
  },
  "preferences": {"menuBarEnabled": true}
}
"""

CURSOR = """{
    "mcpServers": {
        "linear": {
            "url": "https://mcp.linear.app/mcp",
            "headers": {"Authorization": "Bearer ${env:LINEAR_TOKEN}"}
        },
        "notes": {
            "type": "stdio",
            "command": "${userHome}/bin/notes-mcp",
            "args": ["--root", "${workspaceFolder}"],
            "env": {"NOTES_KEY": "${env:NOTES_KEY}"},
            "cwd": "/srv/notes"
        }
    },
    "other": [1, 2, 3]
}
"""

VSCODE = (
    "{\r\n"
    "\t// Servers for this workspace\r\n"
    '\t"inputs": [\r\n'
    '\t\t{"type": "promptString", "id": "api-key", "description": "API key", "password": true},\r\n'
    "\t],\r\n"
    '\t"servers": {\r\n'
    '\t\t"fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]}, /* web */\r\n'
    '\t\t"remote": {\r\n'
    '\t\t\t"type": "http",\r\n'
    '\t\t\t"url": "https://api.example.com/mcp",\r\n'
    '\t\t\t"headers": {"Authorization": "Bearer ${input:api-key}"},\r\n'
    "\t\t},\r\n"
    "\t},\r\n"
    "}\r\n"
)

CONFIGS = {
    "claude": ("claude_desktop_config.json", CLAUDE),
    "cursor": (".cursor/mcp.json", CURSOR),
    "vscode": (".vscode/mcp.json", VSCODE),
}
