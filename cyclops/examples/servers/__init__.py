"""Two small MCP servers for ``cyclops demo``: a web page with a hidden instruction, and a
notification service that records what it is sent. Each runs over stdio:
``python -m cyclops.examples.servers.web`` and ``python -m cyclops.examples.servers.notify``.
"""
