"""cyclops: an MCP security proxy that finds and blocks toxic flows between tool calls."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("cyclops")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
